/*
 * annotate.c - one function's samples by source line (the DWARF
 * line table, through libdwfl) shown beside its source text, or per
 * instruction (disassembled by capstone) when the object has no line
 * table for it.  Percentages are of the function's own samples.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "disasm.h"
#include "profile/wall-view.h"
#include "report.h"
#include "share.h"
#include "table.h"

/* Walking a function's bytes for its line span stops after this many. */
#define SPAN_WALK_MAX 65536

struct line_count {
	const char *file;	/* libdwfl's, lives as long as the table */
	int line;
	uint64_t samples;
};

struct lines {
	struct line_count *v;
	size_t n, cap;
};

static void
count_line(struct lines *l, const char *file, int line, uint64_t samples)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].line == line && strcmp(l->v[i].file, file) == 0) {
			l->v[i].samples += samples;
			return;
		}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (struct line_count){ file, line, samples };
}

static uint64_t
line_samples(const struct lines *l, const char *file, int line)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].line == line && strcmp(l->v[i].file, file) == 0)
			return l->v[i].samples;
	return 0;
}

/* The source file's lines, malloc'd, NULL-terminated; NULL if unreadable. */
static char **
read_source(const char *path, int *nlines)
{
	FILE *fp = fopen(path, "r");
	char **v = NULL, *buf = NULL;
	size_t cap = 0, n = 0, len = 0;
	ssize_t got;

	if (fp == NULL)
		return NULL;
	while ((got = getline(&buf, &len, fp)) >= 0) {
		if (got > 0 && buf[got - 1] == '\n')
			buf[got - 1] = '\0';
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 256;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[n++] = xstrdup(buf);
	}
	free(buf);
	fclose(fp);
	if (v == NULL)
		v = xcalloc(1, sizeof *v);
	v[n] = NULL;
	*nlines = (int)n;
	return v;
}

static void
free_source(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* The function's own samples: the whole its lines are shares of. */
struct share_of {
	struct share_basis b;
	struct share_part whole;
};

/* The error of samples of the function's, as every view's (share.h). */
static double
error_of(const struct share_of *of, uint64_t samples)
{
	struct share_part part;

	share_part_init(&part, SHARE_CODE);
	share_part_cpu(&part, samples);
	return share_error95(&of->b, &part, &of->whole);
}

static const struct col line_cols[] = {
	{ "file", "file", COL_STR },
	{ "line", "line", COL_INT },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "source", "source", COL_STR },
};

static const struct col address_cols[] = {
	{ "address", "address", COL_INT },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "instruction", "instruction", COL_STR },
};

/* Samples of ob's buckets that start in [lo, hi). */
static uint64_t
samples_in(const struct profil_object *ob, uint64_t lo, uint64_t hi)
{
	uint64_t n = 0;
	size_t a = 0, b = ob->nbuckets;

	while (a < b) {		/* the first bucket at or after lo */
		size_t mid = a + (b - a) / 2;

		if (ob->buckets[mid].addr < lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < ob->nbuckets && ob->buckets[a].addr < hi; a++)
		n += ob->buckets[a].count;
	return n;
}

static void
emit_instruction(struct table *t, const struct report_options *o,
    uint64_t addr, uint64_t samples, const struct share_of *of,
    const char *text)
{
	double pct = report_percent(samples, of->whole.amount);

	if (o->format != FORMAT_TEXT) {
		union cell *c = table_row(t);

		c[0].i = (int64_t)addr;
		c[1].i = (int64_t)samples;
		c[2].d = pct;
		c[3].d = error_of(of, samples);
		c[4].s = text;
		return;
	}
	if (samples > 0)
		printf("%8llu %s%6.2f%%%s %#10llx  %s\n",
		    (unsigned long long)samples,
		    table_colour_of(&o->style, pct), pct,
		    table_colour_end(&o->style), (unsigned long long)addr,
		    text);
	else
		printf("%8s %7s %#10llx  %s\n", "", "", (unsigned long long)addr,
		    text);
}

/*
 * No line table for this function: its instructions, disassembled by
 * capstone from the file, each with the samples of the buckets that
 * start in it; by address alone when the code cannot be read.
 */
static void
by_instruction(const struct profil_object *ob, struct symtab *tab,
    const struct func_row *row, const struct report_options *o,
    const struct share_of *of)
{
	size_t size = 0;
	const unsigned char *code = symtab_code(tab, row->start, row->end, &size);
	struct disasm_insn *insn;
	size_t count = disasm_x86_64(code, size, row->start, &insn);
	uint64_t decoded_end = count ? insn[count - 1].address +
	    insn[count - 1].size : row->start;
	struct table t;

	if (o->format == FORMAT_TEXT)
		printf("(no line table for %s in %s: samples %s)\n\n"
		    "%8s %7s %10s  %s\n", row->function, ob->path, count ?
		    "per instruction" : "by address", "samples", "%", "address",
		    count ? "instruction" : "");
	/* the table keeps pointers: each row's text lives until it prints */
	table_init(&t, address_cols, 5);
	for (size_t i = 0; i < count; i++) {
		uint64_t hi = i + 1 < count ? insn[i + 1].address :
		    insn[i].address + insn[i].size;
		uint64_t n = samples_in(ob, insn[i].address, hi);

		emit_instruction(&t, o, insn[i].address, n, of,
		    insn[i].text);
	}
	/* buckets past what could be decoded (data in code, a short read) */
	for (size_t i = 0; i < ob->nbuckets; i++) {
		const struct profil_bucket *b = &ob->buckets[i];

		if (b->addr < decoded_end || b->addr < row->start ||
		    b->addr >= row->end)
			continue;
		emit_instruction(&t, o, b->addr, b->count, of, "");
	}
	if (o->format != FORMAT_TEXT)
		table_print(&t, o->format, NULL, NULL, &o->style);
	table_free(&t);
	disasm_free(insn, count);
}

static void
emit_line(struct table *t, const struct report_options *o, const char *file,
    int line, uint64_t samples, const struct share_of *of, const char *text)
{
	double pct = report_percent(samples, of->whole.amount);

	if (o->format != FORMAT_TEXT) {
		union cell *c = table_row(t);

		c[0].s = file;
		c[1].i = line;
		c[2].i = (int64_t)samples;
		c[3].d = pct;
		c[4].d = error_of(of, samples);
		c[5].s = text ? text : "";
		return;
	}
	if (samples > 0)
		printf("%8llu %s%6.2f%%%s %6d  %s\n", (unsigned long long)samples,
		    table_colour_of(&o->style, pct), pct,
		    table_colour_end(&o->style), line, text ? text : "");
	else
		printf("%8s %7s %6d  %s\n", "", "", line, text ? text : "");
}

/* Why row (o's target) cannot be annotated, into cause: -1; else 0. */
static int
refuse(const struct profil_profile *p, const struct func_row *row,
    const char *target, char *cause, size_t cause_size)
{
	if (row == NULL) {
		snprintf(cause, cause_size, "no function named '%s' has samples "
		    "in this profile", target);
		return -1;
	}
	if (row->object_index != FUNC_NO_OBJECT &&
	    (long)row->object_index == wall_view_object(p)) {
		snprintf(cause, cause_size, "%s is time off the CPU, not code: "
		    "annotate the function that waited (--callers %s names it)",
		    row->function, row->function);
		return -1;
	}
	if (row->object_index == FUNC_NO_OBJECT || row->end <= row->start) {
		snprintf(cause, cause_size, "%s is not a function with an address "
		    "range; nothing to annotate", row->function);
		return -1;
	}
	return 0;
}

/*
 * row's samples by source line (those of its file's span, then those
 * of other files: inlined code), with the source where it is here.
 */
static void
by_line(struct symtab *tab, const struct func_row *row,
    const struct lines *lines, uint64_t in_lines,
    const struct report_options *o, const struct share_of *of)
{
	const char *file, *main_file;
	int first = 0, last, nsource = 0, line;
	char **source;
	struct table t;

	/* the function's own file and line span: where its entry is */
	main_file = symtab_source(tab, row->start, &first);
	if (main_file == NULL) {
		main_file = lines->v[0].file;
		first = lines->v[0].line;
	}
	last = first;
	for (uint64_t a = row->start; a < row->end &&
	    a - row->start < SPAN_WALK_MAX; a++)
		if ((file = symtab_source(tab, a, &line)) != NULL &&
		    strcmp(file, main_file) == 0) {
			if (line < first)
				first = line;
			if (line > last)
				last = line;
		}
	source = read_source(main_file, &nsource);
	if (o->format == FORMAT_TEXT) {
		if (source == NULL)
			printf("source %s is not here; lines by number\n\n",
			    main_file);
		else
			printf("source %s\n\n", main_file);
		printf("%8s %7s %6s  %s\n", "samples", "%", "line", "source");
	}
	table_init(&t, line_cols, 6);
	if (first > 1 && o->format == FORMAT_TEXT)
		first--;	/* the line before: the return type, usually */
	for (line = first; line <= last; line++) {
		uint64_t n = line_samples(lines, main_file, line);
		const char *text = source != NULL && line <= nsource ?
		    source[line - 1] : NULL;

		if (source == NULL && n == 0)
			continue;
		emit_line(&t, o, main_file, line, n, of, text);
	}
	/* inlined code from other files, and lines outside the span */
	for (size_t i = 0; i < lines->n; i++) {
		const struct line_count *lc = &lines->v[i];

		if (strcmp(lc->file, main_file) == 0 && lc->line >= first &&
		    lc->line <= last)
			continue;
		if (o->format == FORMAT_TEXT) {
			printf("%8llu %6.2f%% %s:%d (inlined)\n",
			    (unsigned long long)lc->samples,
			    report_percent(lc->samples, row->samples), lc->file,
			    lc->line);
			continue;
		}
		emit_line(&t, o, lc->file, lc->line, lc->samples, of, NULL);
	}
	if (o->format == FORMAT_TEXT && in_lines < row->samples)
		printf("%8llu %6.2f%% (addresses without line information)\n",
		    (unsigned long long)(row->samples - in_lines),
		    report_percent(row->samples - in_lines, row->samples));
	if (o->format != FORMAT_TEXT)
		table_print(&t, o->format, NULL, NULL, &o->style);
	table_free(&t);
	free_source(source);
}

int
report_annotate(const struct profil_profile *p, const struct funcs *f,
    const struct report_options *o, char *cause, size_t cause_size)
{
	const struct func_row *row = funcs_find(f, o->target);
	const struct profil_object *ob;
	struct symtab *tab;
	struct lines lines = { NULL, 0, 0 };
	const char *file;
	int line;
	uint64_t in_lines = 0;
	struct share_of of;

	if (refuse(p, row, o->target, cause, cause_size) < 0)
		return -1;
	ob = &p->objects[row->object_index];
	tab = f->tabs[row->object_index];
	for (size_t i = 0; i < ob->nbuckets; i++) {
		const struct profil_bucket *b = &ob->buckets[i];

		if (b->addr < row->start || b->addr >= row->end)
			continue;
		if ((file = symtab_source(tab, b->addr, &line)) != NULL) {
			count_line(&lines, file, line, b->count);
			in_lines += b->count;
		}
	}
	share_basis_init(&of.b, p);
	share_part_init(&of.whole, SHARE_CODE);
	share_part_cpu(&of.whole, row->samples);
	if (o->format == FORMAT_TEXT) {
		struct share_part all;

		share_part_init(&all, SHARE_TIME);
		share_part_all(&of.b, &all);
		printf("%s (%s): %llu samples, %.2f%% ± %.2f of all\n",
		    row->function, row->object, (unsigned long long)row->samples,
		    share_percent(&of.whole, &all),
		    share_error95(&of.b, &of.whole, &all));
		share_part_free(&all);
	}
	if (lines.n == 0)
		by_instruction(ob, tab, row, o, &of);
	else
		by_line(tab, row, &lines, in_lines, o, &of);
	share_part_free(&of.whole);
	share_basis_free(&of.b);
	free(lines.v);
	return 0;
}
