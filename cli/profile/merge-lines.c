/*
 * merge-lines.c - kept source lines of several profiles in one
 * (merge-lines.h).  Invariant, as the format wants: sorted by object and
 * address, each (object, address) once, every file index in range.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge-lines.h"

/* The index of name in out's files, added if new. */
static uint32_t
file_index(struct profil_profile *out, const char *name)
{
	for (size_t i = 0; i < out->nline_files; i++)
		if (strcmp(out->line_files[i], name) == 0)
			return (uint32_t)i;
	out->line_files = xrealloc(out->line_files, (out->nline_files + 1) *
	    sizeof *out->line_files);
	out->line_files[out->nline_files] = xstrdup(name);
	return (uint32_t)out->nline_files++;
}

/* By object, then address; stable for equal ones by input order (seq). */
struct seq_line {
	struct profil_line l;
	size_t seq;
};

static int
by_place(const void *a, const void *b)
{
	const struct seq_line *x = a, *y = b;

	if (x->l.object != y->l.object)
		return x->l.object < y->l.object ? -1 : 1;
	if (x->l.addr != y->l.addr)
		return x->l.addr < y->l.addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
merge_lines(struct profil_profile *const *in, size_t n,
    struct profil_profile *out, size_t *const *where)
{
	struct seq_line *all;
	size_t total = 0, m = 0;

	for (size_t i = 0; i < n; i++)
		total += in[i]->nlines;
	if (total == 0)
		return;
	all = xcalloc(total, sizeof *all);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < in[i]->nlines; j++) {
			struct profil_line l = in[i]->lines[j];

			l.object = (uint32_t)where[i][l.object];
			l.file = file_index(out, in[i]->line_files[l.file]);
			all[m] = (struct seq_line){ l, m };
			m++;
		}
	qsort(all, m, sizeof *all, by_place);
	out->lines = xcalloc(m, sizeof *out->lines);
	for (size_t i = 0; i < m; i++) {
		const struct profil_line *last = out->nlines > 0 ?
		    &out->lines[out->nlines - 1] : NULL;

		if (last != NULL && last->object == all[i].l.object &&
		    last->addr == all[i].l.addr)
			continue;
		out->lines[out->nlines++] = all[i].l;
	}
	free(all);
}
