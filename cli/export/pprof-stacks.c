/*
 * pprof-stacks.c - the Locations and Samples of a profile with call
 * stacks (pprof-internal.h): a Location per frame of the profile, id its
 * frame number + 1, and a Sample per stack, leaf first.  A wall profile's
 * off-CPU stacks alone add to its wall value (their other values 0).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "funcdef.h"
#include "pprof-internal.h"

/* What an object's Mapping says, gathered over its frames. */
struct frame_mapping {
	uint64_t lo, hi;	/* [lowpc, highpc) and every frame's address */
	int has_functions, has_filenames, has_lines;
};

/*
 * The Function of stacks function fi, made on first use (ids[fi] keeps
 * it) with the file and first line where it is defined (defs).
 */
static uint64_t
stack_function(struct pprof_builder *b, const struct stacks *s, uint64_t *ids,
    const struct funcdef *defs, uint32_t fi)
{
	if (ids[fi] == 0)
		ids[fi] = pprof_add_function(b, s->funcs[fi].symbol,
		    defs[fi].file, defs[fi].line);
	return ids[fi];
}

/*
 * The Location of profile frame fr (id fr + 1), with the lines s gives
 * it, innermost first.  A frame in an object is at its address in the
 * object's Mapping, its Functions with the files where they are defined
 * (funcdef.h); one where no function is known (the object's symbols
 * cannot be read) has an address alone, as a bucket has in the flat
 * export, so that pprof may name it itself.  Kernel, unknown, cut and
 * off-CPU frames are a Function named as stacks.c names them, with no
 * Mapping.
 */
static void
add_frame(struct pprof_builder *b, const struct funcs *f,
    const struct stacks *s, const struct funcdef *defs, uint64_t *fn_ids,
    size_t fr, struct frame_mapping *maps)
{
	const struct profil_frame *frame = &b->p->frames[fr];
	const struct stack_line *l = &s->lines[s->first[fr]];
	size_t n = s->first[fr + 1] - s->first[fr];
	uint64_t ids[FUNCDEF_MAX_FRAMES], start, end;
	int lines[FUNCDEF_MAX_FRAMES] = { 0 };
	struct frame_mapping *m;
	struct pprof_function *sym;
	struct symtab *tab;

	if (frame->object >= b->p->nobjects) {
		ids[0] = stack_function(b, s, fn_ids, defs, l[0].func);
		pprof_emit_location(b, fr + 1, 0, 0, ids, lines, 1);
		return;
	}
	m = &maps[frame->object];
	if (frame->addr < m->lo)
		m->lo = frame->addr;
	if (frame->addr >= m->hi)
		m->hi = frame->addr < UINT64_MAX ? frame->addr + 1 : UINT64_MAX;
	tab = f->tabs[frame->object];
	if (tab == NULL || symtab_lookup(tab, frame->addr, &start, &end) == NULL) {
		pprof_emit_location(b, fr + 1, frame->object + 1, frame->addr, NULL,
		    NULL, 0);
		return;
	}
	if (n > FUNCDEF_MAX_FRAMES)	/* stacks.c takes as many as we do */
		n = FUNCDEF_MAX_FRAMES;
	for (size_t j = 0; j < n; j++) {
		ids[j] = stack_function(b, s, fn_ids, defs, l[j].func);
		lines[j] = l[j].line;
	}
	sym = &b->funcs[ids[n - 1] - 1];
	/*
	 * Outside inlined code a line is kept only where the line table puts
	 * the address in the function's own file, as in the flat export.
	 */
	if (n == 1 && (l[0].file == NULL ||
	    strcmp(b->strings.strs[sym->filename], l[0].file) != 0))
		lines[0] = 0;
	m->has_functions = 1;
	m->has_filenames |= sym->filename != 0;
	for (size_t j = 0; j < n; j++)
		m->has_lines |= lines[j] > 0;
	pprof_emit_location(b, fr + 1, frame->object + 1, frame->addr, ids,
	    lines, n);
}

int
pprof_add_stacks(struct pprof_builder *b, const struct funcs *f,
    const struct stacks *s)
{
	const struct profil_profile *p = b->p;
	struct frame_mapping *maps = xcalloc(p->nobjects + 1, sizeof *maps);
	uint64_t *fn_ids = xcalloc(s->nfuncs + 1, sizeof *fn_ids);
	struct funcdef *defs = funcdef_of_stacks(s, f);
	uint64_t *ids = NULL, values[3];
	size_t cap = 0;
	int rc = 0;

	for (size_t i = 0; i < p->nobjects; i++) {
		maps[i].lo = p->objects[i].lowpc;
		maps[i].hi = p->objects[i].highpc;
	}
	for (size_t i = 0; i < p->nframes; i++)
		add_frame(b, f, s, defs, fn_ids, i, maps);
	b->nlocations = p->nframes;
	for (size_t i = 0; i < p->nstacks && rc == 0; i++) {
		const struct profil_stack *st = &p->stacks[i];

		if ((rc = pprof_sample_values(b, st->count, st->off_ns,
		    values)) < 0)
			break;
		if (st->depth > cap) {
			cap = st->depth;
			ids = xrealloc(ids, cap * sizeof *ids);
		}
		for (size_t k = 0; k < st->depth; k++)
			ids[k] = (uint64_t)st->frames[k] + 1;
		pprof_emit_sample(b, ids, st->depth, values);
	}
	for (size_t i = 0; i < p->nobjects; i++)
		pprof_add_mapping(b, i, maps[i].lo, maps[i].hi,
		    maps[i].has_functions, maps[i].has_filenames,
		    maps[i].has_lines);
	free(ids);
	free(fn_ids);
	free(defs);
	free(maps);
	return rc;
}
