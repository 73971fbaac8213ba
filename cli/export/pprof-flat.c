/*
 * pprof-flat.c - the Locations and Samples of a profile without call
 * stacks (pprof-internal.h): one per bucket with samples, and [kernel]
 * and [unknown] one each, so that the samples/count values add up to
 * p->samples, as the flat report's do.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "pprof-internal.h"
#include "symbols/ksyms.h"

/* The Function of an inlined function, one per name. */
static uint64_t
inlined_function(struct pprof_builder *b, struct hmap *by_name,
    const struct symtab_frame *frame)
{
	uint64_t key = intern_add(&b->strings, frame->name, NULL), id;

	if ((id = hmap_get(by_name, key)) == 0) {
		id = frame->decl_file != NULL ?
		    pprof_add_function(b, frame->name, frame->decl_file,
		    frame->decl_line) :
		    pprof_add_function(b, frame->name, frame->file, 0);
		hmap_add(by_name, key, id);
	}
	return id;
}

/*
 * A bucket wider than a byte that straddles functions: a Location per
 * function at the first of its addresses in the bucket, with its share
 * of the samples as the flat report gives it (funcs_apportion).
 */
static int
add_straddling(struct pprof_builder *b, size_t oi, struct symtab *tab,
    struct hmap *by_start, uint64_t addr, unsigned bucket_bytes,
    uint64_t count)
{
	uint64_t last = addr + (bucket_bytes - 1);
	struct symtab_piece *pieces;
	size_t n = symtab_pieces(tab, addr, last < addr ? UINT64_MAX : last + 1,
	    &pieces);
	uint64_t *share = xcalloc(n + 1, sizeof *share), none = 0;
	int rc = 0, line = 0;

	funcs_apportion(count, pieces, n, share);
	for (size_t i = 0; i < n && rc == 0; i++) {
		uint64_t id = hmap_get(by_start, pieces[i].start);

		if (share[i] == 0)
			continue;
		if (id == 0) {
			int start_line = 0;
			const char *file = symtab_source(tab, pieces[i].start,
			    &start_line);

			id = pprof_add_function(b, pieces[i].name, file,
			    start_line);
			hmap_add(by_start, pieces[i].start, id);
		}
		rc = pprof_add_location(b, oi + 1, pieces[i].start > addr ?
		    pieces[i].start : addr, &id, &line, 1, share[i]);
	}
	if (n == 0)
		rc = pprof_add_location(b, oi + 1, addr, &none, &line, 1,
		    count);
	free(share);
	free(pieces);
	return rc;
}

/*
 * The Locations of object oi's buckets and then its Mapping.  With
 * inlines, where the compiler inlined functions, the Location has a Line
 * per inlined function, innermost first (as pprof's own symbolizer does);
 * elsewhere a Line's number is kept only when the line table puts the
 * address in the function's own file.
 */
static int
add_object(struct pprof_builder *b, size_t oi, struct symtab *tab, int inlines)
{
	const struct profil_object *o = &b->p->objects[oi];
	int has_functions = 0, has_filenames = 0, has_lines = 0, rc = 0;
	struct hmap by_start;	/* function start address -> Function id */
	struct hmap by_name;	/* inlined function's name (string index) -> id */

	hmap_init(&by_start);
	hmap_init(&by_name);
	for (size_t k = 0; k < o->nbuckets && rc == 0; k++) {
		uint64_t addr = o->buckets[k].addr, start, end, id = 0;
		uint64_t ids[PPROF_MAX_FRAMES];
		struct symtab_frame frames[PPROF_MAX_FRAMES];
		const char *name = NULL, *file = NULL;
		int line = 0, lines[PPROF_MAX_FRAMES];
		size_t nframes;

		if (o->buckets[k].count == 0)
			continue;
		if (tab != NULL)
			name = symtab_lookup(tab, addr, &start, &end);
		if (name != NULL && o->bucket_bytes > 1 &&
		    addr + (o->bucket_bytes - 1) >= end) {
			rc = add_straddling(b, oi, tab, &by_start, addr,
			    o->bucket_bytes, o->buckets[k].count);
			has_functions = 1;
			continue;
		}
		if (name != NULL && (id = hmap_get(&by_start, start)) == 0) {
			int start_line = 0;
			const char *start_file = symtab_source(tab, start, &start_line);

			id = pprof_add_function(b, name, start_file, start_line);
			hmap_add(&by_start, start, id);
		}
		if (id != 0) {
			struct pprof_function *f = &b->funcs[id - 1];

			has_functions = 1;
			file = symtab_source(tab, addr, &line);
			if (file != NULL && f->filename == 0)
				f->filename = intern_add(&b->strings, file,
				    NULL);
			if (file == NULL ||
			    strcmp(b->strings.strs[f->filename], file) != 0)
				line = 0;
			has_filenames |= f->filename != 0;
			has_lines |= line > 0;
		}
		if (id != 0 && inlines && (nframes = symtab_inlines(tab, addr,
		    frames, PPROF_MAX_FRAMES)) > 0) {
			for (size_t j = 0; j + 1 < nframes; j++)
				ids[j] = inlined_function(b, &by_name, &frames[j]);
			ids[nframes - 1] = id;
			for (size_t j = 0; j < nframes; j++)
				lines[j] = frames[j].line;
			has_lines = 1;
			rc = pprof_add_location(b, oi + 1, addr, ids, lines, nframes,
			    o->buckets[k].count);
			continue;
		}
		rc = pprof_add_location(b, oi + 1, addr, &id, &line, 1,
		    o->buckets[k].count);
	}
	hmap_free(&by_start);
	hmap_free(&by_name);
	pprof_add_mapping(b, oi, o->lowpc, o->highpc, has_functions,
	    has_filenames, has_lines);
	return rc;
}

/*
 * Kernel samples: a Location per sampled kernel address with its
 * function where the profile kept the addresses and they can be named
 * (ksyms.h: f's table), as the flat report has them; else one [kernel]
 * Location.
 */
static int
add_kernel(struct pprof_builder *b, const struct funcs *f)
{
	const struct profil_profile *p = b->p;
	struct ksyms *k = f->ktab;
	uint64_t unnamed = p->kernel, fn, start, end, none = 0;
	struct hmap by_start;
	int rc = 0, no_line = 0;

	hmap_init(&by_start);
	if (f->kproblem == NULL && p->kernel_code != NULL) {
		const struct profil_object *code = &p->kernel_code->code;

		unnamed = 0;
		for (size_t i = 0; i < code->nbuckets && rc == 0; i++) {
			const char *name = ksyms_name(k, code->buckets[i].addr,
			    &start, &end);

			if (name == NULL) {
				unnamed += code->buckets[i].count;
				continue;
			}
			if ((fn = hmap_get(&by_start, start)) == 0) {
				fn = pprof_add_function(b, name, NULL, 0);
				hmap_add(&by_start, start, fn);
			}
			rc = pprof_add_location(b, 0, 0, &fn, &no_line, 1,
			    code->buckets[i].count);
		}
	}
	if (rc == 0 && unnamed > 0) {
		none = pprof_add_function(b, "[kernel]", NULL, 0);
		rc = pprof_add_location(b, 0, 0, &none, &no_line, 1, unnamed);
	}
	hmap_free(&by_start);
	return rc;
}

int
pprof_add_flat(struct pprof_builder *b, const struct funcs *f)
{
	const struct profil_profile *p = b->p;
	uint64_t unknown_fn;
	int no_line = 0, rc = 0;

	for (size_t i = 0; i < p->nobjects && rc == 0; i++)
		rc = add_object(b, i, f->tabs[i], f->inlines);
	if (rc == 0 && p->kernel > 0)
		rc = add_kernel(b, f);
	if (rc == 0 && p->unknown > 0) {
		unknown_fn = pprof_add_function(b, "[unknown]", NULL, 0);
		rc = pprof_add_location(b, 0, 0, &unknown_fn, &no_line, 1,
		    p->unknown);
	}
	return rc;
}
