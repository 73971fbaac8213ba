/*
 * funcdef.c - where the stacks' functions are defined (funcdef.h).  A
 * frame's lines are those stacks.c made of it, innermost first, the last
 * the symbol the frame is in; a function's definition is taken once, at
 * the first frame it is in, so every frame of it agrees.
 */
#include <stdlib.h>

#include "cli.h"
#include "funcdef.h"

struct funcdef *
funcdef_of_stacks(const struct stacks *s, const struct funcs *f)
{
	const struct profil_profile *p = s->p;
	struct funcdef *defs = xcalloc(s->nfuncs + 1, sizeof *defs);
	unsigned char *seen = xcalloc(s->nfuncs + 1, 1);

	for (size_t fr = 0; fr < p->nframes; fr++) {
		const struct profil_frame *frame = &p->frames[fr];
		const struct stack_line *l = &s->lines[s->first[fr]];
		size_t n = s->first[fr + 1] - s->first[fr], nin;
		struct symtab_frame in[FUNCDEF_MAX_FRAMES];
		struct funcdef *d;
		struct symtab *tab;
		uint64_t start, end;

		if (frame->object >= p->nobjects || n == 0)
			continue;
		tab = f->tabs[frame->object];
		if (tab == NULL ||
		    symtab_lookup(tab, frame->addr, &start, &end) == NULL)
			continue;
		if (n > FUNCDEF_MAX_FRAMES)	/* as many as stacks.c takes */
			n = FUNCDEF_MAX_FRAMES;
		/* stacks.c made lines 0 .. n-2 of these, in this order */
		nin = n > 1 ? symtab_inlines(tab, frame->addr, in,
		    FUNCDEF_MAX_FRAMES) : 0;
		for (size_t j = 0; j + 1 < n; j++) {
			const char *decl = j < nin ? in[j].decl_file : NULL;

			if (seen[l[j].func])
				continue;
			seen[l[j].func] = 1;
			d = &defs[l[j].func];
			d->file = decl ? decl : l[j].file;
			d->line = decl && d->file ? in[j].decl_line : 0;
		}
		d = &defs[l[n - 1].func];
		if (!seen[l[n - 1].func]) {
			seen[l[n - 1].func] = 1;
			d->file = symtab_source(tab, start, &d->line);
			if (d->file == NULL)
				d->line = 0;
		}
		/* no first line known: the file the line table gives */
		if (n == 1 && d->file == NULL && l[0].file != NULL) {
			d->file = l[0].file;
			d->line = 0;
		}
	}
	free(seen);
	return defs;
}
