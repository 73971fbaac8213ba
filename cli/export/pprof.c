/*
 * pprof.c - a profile as pprof's profile.proto (pprof.h).
 * With call stacks, every stack becomes one Sample over a Location per
 * frame; without, every bucket with samples becomes one Location and one
 * Sample, and [kernel] and [unknown] one each.  Either way the
 * samples/count values must add up to p->samples, which is what the
 * tools show as the total.  A wall profile's Samples have a third value,
 * wall nanoseconds, which its off-CPU stacks alone add to (their other
 * values 0).  Ids are 1-based (0 means "none" in profile.proto), string
 * 0 is "".
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cli.h"
#include "symbols/ksyms.h"
#include "pprof.h"
#include "hmap.h"
#include "outfile.h"

/* Field numbers of github.com/google/pprof proto/profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5,
};

/* The string table: each string once, found again by an FNV-1a hash. */
struct strtab {
	char **strs;
	size_t n, cap;
	size_t *slots;		/* index + 1, or 0 for an empty slot */
	size_t nslots;		/* a power of two, at least twice n */
};

static uint64_t
hash_string(const char *s)
{
	uint64_t h = 14695981039346656037u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static void
strtab_rehash(struct strtab *t)
{
	t->nslots = t->nslots ? t->nslots * 2 : 1024;
	free(t->slots);
	t->slots = xcalloc(t->nslots, sizeof *t->slots);
	for (size_t i = 0; i < t->n; i++) {
		size_t k = hash_string(t->strs[i]) & (t->nslots - 1);

		while (t->slots[k] != 0)
			k = (k + 1) & (t->nslots - 1);
		t->slots[k] = i + 1;
	}
}

/* The index of s in the table, adding a copy of it if new. */
static uint64_t
strtab_index(struct strtab *t, const char *s)
{
	size_t k;

	if (2 * (t->n + 1) > t->nslots)
		strtab_rehash(t);
	k = hash_string(s) & (t->nslots - 1);
	for (; t->slots[k] != 0; k = (k + 1) & (t->nslots - 1))
		if (strcmp(t->strs[t->slots[k] - 1], s) == 0)
			return t->slots[k] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->strs = xrealloc(t->strs, t->cap * sizeof *t->strs);
	}
	t->strs[t->n] = xstrdup(s);
	t->slots[k] = ++t->n;
	return t->n - 1;
}

static void
strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
}

struct function {
	uint64_t name, system_name, filename;	/* string indices */
	int64_t start_line;
};

struct builder {
	const struct profil_profile *p;
	struct strtab strings;
	struct function *funcs;		/* function id i + 1 */
	size_t nfuncs, funcs_cap;
	uint64_t nlocations;
	size_t nvalues;			/* 2, or 3 with wall nanoseconds */
	struct pbuf samples, mappings, locations, msg, line;
};

/* A new Function; its id. */
static uint64_t
add_function(struct builder *b, const char *symbol, const char *file,
    int start_line)
{
	char *readable = funcs_display_name(symbol);
	struct function *f;

	if (b->nfuncs == b->funcs_cap) {
		b->funcs_cap = b->funcs_cap ? b->funcs_cap * 2 : 64;
		b->funcs = xrealloc(b->funcs, b->funcs_cap * sizeof *b->funcs);
	}
	f = &b->funcs[b->nfuncs];
	f->name = strtab_index(&b->strings, readable ? readable : symbol);
	f->system_name = strtab_index(&b->strings, symbol);
	f->filename = file ? strtab_index(&b->strings, file) : 0;
	f->start_line = file ? start_line : 0;
	free(readable);
	return ++b->nfuncs;
}

/*
 * count samples, or off_ns off the CPU, as values: [count, count *
 * interval] and for a wall profile its wall time, count * interval (on
 * the CPU) or off_ns; -1 with errno EOVERFLOW past int64.
 */
static int
sample_values(const struct builder *b, uint64_t count, uint64_t off_ns,
    uint64_t values[3])
{
	if (count > INT64_MAX / b->p->interval_ns || off_ns > INT64_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	values[0] = count;
	values[1] = count * b->p->interval_ns;
	values[2] = off_ns > 0 ? off_ns : values[1];
	return 0;
}

/*
 * Location id at addr of mapping (0: no mapping, no address), in nlines
 * frames: function ids (0: none, and no more) at lines (0: unknown),
 * innermost first, the last being the function the others were inlined
 * into.
 */
static void
emit_location(struct builder *b, uint64_t id, uint64_t mapping, uint64_t addr,
    const uint64_t *functions, const int *lines, size_t nlines)
{
	pbuf_reset(&b->msg);
	pbuf_uint(&b->msg, LOCATION_ID, id);
	if (mapping != 0) {
		pbuf_uint(&b->msg, LOCATION_MAPPING_ID, mapping);
		pbuf_uint(&b->msg, LOCATION_ADDRESS, addr);
	}
	for (size_t i = 0; i < nlines && functions[i] != 0; i++) {
		pbuf_reset(&b->line);
		pbuf_uint(&b->line, LINE_FUNCTION_ID, functions[i]);
		if (lines[i] > 0)
			pbuf_int(&b->line, LINE_LINE, lines[i]);
		pbuf_message(&b->msg, LOCATION_LINE, &b->line);
	}
	pbuf_message(&b->locations, PROFILE_LOCATION, &b->msg);
}

/* A Sample of values at the n Locations of ids, leaf first. */
static void
emit_sample(struct builder *b, const uint64_t *ids, size_t n,
    const uint64_t values[3])
{
	pbuf_reset(&b->msg);
	pbuf_packed(&b->msg, SAMPLE_LOCATION_ID, ids, n);
	pbuf_packed(&b->msg, SAMPLE_VALUE, values, b->nvalues);
	pbuf_message(&b->samples, PROFILE_SAMPLE, &b->msg);
}

/*
 * One Location with its Sample (the flat profile): count samples at
 * addr of mapping, in frames as emit_location has them.  0, or -1 with
 * errno EOVERFLOW.
 */
static int
add_location(struct builder *b, uint64_t mapping, uint64_t addr,
    const uint64_t *functions, const int *lines, size_t nlines,
    uint64_t count)
{
	uint64_t id, values[3];

	if (sample_values(b, count, 0, values) < 0)
		return -1;
	id = ++b->nlocations;
	emit_location(b, id, mapping, addr, functions, lines, nlines);
	emit_sample(b, &id, 1, values);
	return 0;
}

/* Inlined functions deeper than this are cut at the outermost ones. */
#define MAX_FRAMES 16

/* The Function of an inlined function, one per name. */
static uint64_t
inlined_function(struct builder *b, struct hmap *by_name,
    const struct symtab_frame *frame)
{
	uint64_t key = strtab_index(&b->strings, frame->name), id;

	if ((id = hmap_get(by_name, key)) == 0) {
		id = frame->decl_file != NULL ?
		    add_function(b, frame->name, frame->decl_file, frame->decl_line) :
		    add_function(b, frame->name, frame->file, 0);
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
add_straddling(struct builder *b, size_t oi, struct symtab *tab,
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

			id = add_function(b, pieces[i].name, file, start_line);
			hmap_add(by_start, pieces[i].start, id);
		}
		rc = add_location(b, oi + 1, pieces[i].start > addr ?
		    pieces[i].start : addr, &id, &line, 1, share[i]);
	}
	if (n == 0)
		rc = add_location(b, oi + 1, addr, &none, &line, 1, count);
	free(share);
	free(pieces);
	return rc;
}

/*
 * The Mapping of object oi over [lo, hi), whose has_* flags say whether
 * any of its Locations got a function, a file, a line, as pprof's own
 * symbolizer sets them.
 */
static void
add_mapping(struct builder *b, size_t oi, uint64_t lo, uint64_t hi,
    int has_functions, int has_filenames, int has_lines)
{
	const struct profil_object *o = &b->p->objects[oi];
	char hex[2 * sizeof o->build_id + 1];

	for (unsigned i = 0; i < o->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", o->build_id[i]);
	hex[2 * o->build_id_len] = '\0';
	pbuf_reset(&b->msg);
	pbuf_uint(&b->msg, MAPPING_ID, oi + 1);
	pbuf_uint(&b->msg, MAPPING_MEMORY_START, lo);
	pbuf_uint(&b->msg, MAPPING_MEMORY_LIMIT, hi);
	pbuf_uint(&b->msg, MAPPING_FILE_OFFSET, 0);
	pbuf_int(&b->msg, MAPPING_FILENAME,
	    (int64_t)strtab_index(&b->strings, o->path));
	pbuf_int(&b->msg, MAPPING_BUILD_ID,
	    (int64_t)strtab_index(&b->strings, hex));
	pbuf_uint(&b->msg, MAPPING_HAS_FUNCTIONS, (uint64_t)has_functions);
	pbuf_uint(&b->msg, MAPPING_HAS_FILENAMES, (uint64_t)has_filenames);
	pbuf_uint(&b->msg, MAPPING_HAS_LINE_NUMBERS, (uint64_t)has_lines);
	pbuf_message(&b->mappings, PROFILE_MAPPING, &b->msg);
}

/*
 * The Locations of object oi's buckets and then its Mapping.  With
 * inlines, where the compiler inlined functions, the Location has a Line
 * per inlined function, innermost first (as pprof's own symbolizer does);
 * elsewhere a Line's number is kept only when the line table puts the
 * address in the function's own file.
 */
static int
add_object(struct builder *b, size_t oi, struct symtab *tab, int inlines)
{
	const struct profil_object *o = &b->p->objects[oi];
	int has_functions = 0, has_filenames = 0, has_lines = 0, rc = 0;
	struct hmap by_start;	/* function start address -> Function id */
	struct hmap by_name;	/* inlined function's name (string index) -> id */

	hmap_init(&by_start);
	hmap_init(&by_name);
	for (size_t k = 0; k < o->nbuckets && rc == 0; k++) {
		uint64_t addr = o->buckets[k].addr, start, end, id = 0;
		uint64_t ids[MAX_FRAMES];
		struct symtab_frame frames[MAX_FRAMES];
		const char *name = NULL, *file = NULL;
		int line = 0, lines[MAX_FRAMES];
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

			id = add_function(b, name, start_file, start_line);
			hmap_add(&by_start, start, id);
		}
		if (id != 0) {
			struct function *f = &b->funcs[id - 1];

			has_functions = 1;
			file = symtab_source(tab, addr, &line);
			if (file != NULL && f->filename == 0)
				f->filename = strtab_index(&b->strings, file);
			if (file == NULL ||
			    strcmp(b->strings.strs[f->filename], file) != 0)
				line = 0;
			has_filenames |= f->filename != 0;
			has_lines |= line > 0;
		}
		if (id != 0 && inlines && (nframes = symtab_inlines(tab, addr,
		    frames, MAX_FRAMES)) > 0) {
			for (size_t j = 0; j + 1 < nframes; j++)
				ids[j] = inlined_function(b, &by_name, &frames[j]);
			ids[nframes - 1] = id;
			for (size_t j = 0; j < nframes; j++)
				lines[j] = frames[j].line;
			has_lines = 1;
			rc = add_location(b, oi + 1, addr, ids, lines, nframes,
			    o->buckets[k].count);
			continue;
		}
		rc = add_location(b, oi + 1, addr, &id, &line, 1,
		    o->buckets[k].count);
	}
	hmap_free(&by_start);
	hmap_free(&by_name);
	add_mapping(b, oi, o->lowpc, o->highpc, has_functions, has_filenames,
	    has_lines);
	return rc;
}

/*
 * Kernel samples: a Location per sampled kernel address with its
 * function where the profile kept the addresses and they can be named
 * (ksyms.h: f's table), as the flat report has them; else one [kernel]
 * Location.
 */
static int
add_kernel(struct builder *b, const struct funcs *f)
{
	const struct profil_profile *p = b->p;
	struct ksyms *k = f->ktab;
	uint64_t unnamed = p->kernel, fn, start, end, none = 0;
	struct hmap by_start;
	int rc = 0, no_line = 0;

	hmap_init(&by_start);
	if (k != NULL && f->kproblem == NULL && p->kernel_code != NULL) {
		const struct profil_object *code = &p->kernel_code->code;

		unnamed = 0;
		for (size_t i = 0; i < code->nbuckets && rc == 0; i++) {
			const char *name = ksyms_lookup(k, code->buckets[i].addr,
			    &start, &end);

			if (name == NULL) {
				unnamed += code->buckets[i].count;
				continue;
			}
			if ((fn = hmap_get(&by_start, start)) == 0) {
				fn = add_function(b, name, NULL, 0);
				hmap_add(&by_start, start, fn);
			}
			rc = add_location(b, 0, 0, &fn, &no_line, 1,
			    code->buckets[i].count);
		}
	}
	if (rc == 0 && unnamed > 0) {
		none = add_function(b, "[kernel]", NULL, 0);
		rc = add_location(b, 0, 0, &none, &no_line, 1, unnamed);
	}
	hmap_free(&by_start);
	return rc;
}

/*
 * Everything from the flat profile: the Locations and Samples of every
 * object's buckets with its Mapping, then the kernel's and the unknown
 * samples.  0, or -1 with errno EOVERFLOW.
 */
static int
add_flat(struct builder *b, const struct funcs *f)
{
	const struct profil_profile *p = b->p;
	uint64_t unknown_fn;
	int no_line = 0, rc = 0;

	for (size_t i = 0; i < p->nobjects && rc == 0; i++)
		rc = add_object(b, i, f->tabs[i], f->inlines);
	if (rc == 0 && p->kernel > 0)
		rc = add_kernel(b, f);
	if (rc == 0 && p->unknown > 0) {
		unknown_fn = add_function(b, "[unknown]", NULL, 0);
		rc = add_location(b, 0, 0, &unknown_fn, &no_line, 1, p->unknown);
	}
	return rc;
}

/* ---- with call stacks ---------------------------------------------------- */

/* What an object's Mapping says, gathered over its frames. */
struct frame_mapping {
	uint64_t lo, hi;	/* [lowpc, highpc) and every frame's address */
	int has_functions, has_filenames, has_lines;
};

/*
 * The Function of stacks function fi, made on first use (ids[fi] keeps
 * it) with file and start_line, where the function is defined.
 */
static uint64_t
stack_function(struct builder *b, const struct stacks *s, uint64_t *ids,
    uint32_t fi, const char *file, int start_line)
{
	if (ids[fi] == 0)
		ids[fi] = add_function(b, s->funcs[fi].symbol, file, start_line);
	return ids[fi];
}

/*
 * The Location of profile frame fr (id fr + 1), with the lines s gives
 * it, innermost first.  A frame in an object is at its address in the
 * object's Mapping, its Functions with the files where they are defined
 * (DWARF: the symbol's first line, an inlined function's declaration);
 * one where no function is known (the object's symbols cannot be read)
 * has an address alone, as a bucket has in the flat export, so that
 * pprof may name it itself.  Kernel, unknown, cut and off-CPU frames
 * are a Function named as stacks.c names them, with no Mapping.
 */
static void
add_frame(struct builder *b, const struct funcs *f, const struct stacks *s,
    uint64_t *fn_ids, size_t fr, struct frame_mapping *maps)
{
	const struct profil_frame *frame = &b->p->frames[fr];
	const struct stack_line *l = &s->lines[s->first[fr]];
	size_t n = s->first[fr + 1] - s->first[fr], nin;
	uint64_t ids[MAX_FRAMES], start, end;
	struct symtab_frame in[MAX_FRAMES];
	int lines[MAX_FRAMES] = { 0 }, start_line = 0;
	struct frame_mapping *m;
	struct function *sym;
	struct symtab *tab;
	const char *file;

	if (frame->object >= b->p->nobjects) {
		ids[0] = stack_function(b, s, fn_ids, l[0].func, NULL, 0);
		emit_location(b, fr + 1, 0, 0, ids, lines, 1);
		return;
	}
	m = &maps[frame->object];
	if (frame->addr < m->lo)
		m->lo = frame->addr;
	if (frame->addr >= m->hi)
		m->hi = frame->addr < UINT64_MAX ? frame->addr + 1 : UINT64_MAX;
	tab = f->tabs[frame->object];
	if (tab == NULL || symtab_lookup(tab, frame->addr, &start, &end) == NULL) {
		emit_location(b, fr + 1, frame->object + 1, frame->addr, NULL,
		    NULL, 0);
		return;
	}
	if (n > MAX_FRAMES)	/* stacks.c takes as many as we do */
		n = MAX_FRAMES;
	/* stacks.c made lines 0 .. n-2 of these, in this order */
	nin = n > 1 ? symtab_inlines(tab, frame->addr, in, MAX_FRAMES) : 0;
	for (size_t j = 0; j + 1 < n; j++) {
		const char *decl = j < nin ? in[j].decl_file : NULL;

		ids[j] = stack_function(b, s, fn_ids, l[j].func,
		    decl ? decl : l[j].file, decl ? in[j].decl_line : 0);
		lines[j] = l[j].line;
	}
	if (fn_ids[l[n - 1].func] == 0)
		file = symtab_source(tab, start, &start_line);
	else
		file = NULL;
	ids[n - 1] = stack_function(b, s, fn_ids, l[n - 1].func, file,
	    start_line);
	sym = &b->funcs[ids[n - 1] - 1];
	lines[n - 1] = l[n - 1].line;
	if (n == 1 && l[0].file != NULL && sym->filename == 0)
		sym->filename = strtab_index(&b->strings, l[0].file);
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
	emit_location(b, fr + 1, frame->object + 1, frame->addr, ids, lines, n);
}

/*
 * Everything from the stacks: a Location per profile frame, a Sample per
 * stack over its frames' Locations, leaf first, and every object's
 * Mapping (spanning its frames too: an object seen only in callers has
 * no code range of its own).  0, or -1 with errno EOVERFLOW.
 */
static int
add_stacks(struct builder *b, const struct funcs *f, const struct stacks *s)
{
	const struct profil_profile *p = b->p;
	struct frame_mapping *maps = xcalloc(p->nobjects + 1, sizeof *maps);
	uint64_t *fn_ids = xcalloc(s->nfuncs + 1, sizeof *fn_ids);
	uint64_t *ids = NULL, values[3];
	size_t cap = 0;
	int rc = 0;

	for (size_t i = 0; i < p->nobjects; i++) {
		maps[i].lo = p->objects[i].lowpc;
		maps[i].hi = p->objects[i].highpc;
	}
	for (size_t i = 0; i < p->nframes; i++)
		add_frame(b, f, s, fn_ids, i, maps);
	b->nlocations = p->nframes;
	for (size_t i = 0; i < p->nstacks && rc == 0; i++) {
		const struct profil_stack *st = &p->stacks[i];

		if ((rc = sample_values(b, st->count, st->off_ns, values)) < 0)
			break;
		if (st->depth > cap) {
			cap = st->depth;
			ids = xrealloc(ids, cap * sizeof *ids);
		}
		for (size_t k = 0; k < st->depth; k++)
			ids[k] = (uint64_t)st->frames[k] + 1;
		emit_sample(b, ids, st->depth, values);
	}
	for (size_t i = 0; i < p->nobjects; i++)
		add_mapping(b, i, maps[i].lo, maps[i].hi, maps[i].has_functions,
		    maps[i].has_filenames, maps[i].has_lines);
	free(ids);
	free(fn_ids);
	free(maps);
	return rc;
}

/* A ValueType message {type, unit} as field of out. */
static void
add_value_type(struct builder *b, struct pbuf *out, unsigned field,
    const char *type, const char *unit)
{
	pbuf_reset(&b->msg);
	pbuf_int(&b->msg, VALUE_TYPE_TYPE, (int64_t)strtab_index(&b->strings, type));
	pbuf_int(&b->msg, VALUE_TYPE_UNIT, (int64_t)strtab_index(&b->strings, unit));
	pbuf_message(out, field, &b->msg);
}

/* Free-form comments: the profiled command, the engine, lost samples. */
static void
add_comments(struct builder *b, struct pbuf *out)
{
	const struct profil_profile *p = b->p;
	size_t len = sizeof "command:" + sizeof "engine: " + strlen(p->engine);
	char *s, lost[64];
	uint64_t ids[3];
	size_t n = 0;

	for (int i = 0; i < p->argc; i++)
		len += strlen(p->argv[i]) + 1;
	s = xmalloc(len);
	strcpy(s, "command:");
	for (int i = 0; i < p->argc; i++)
		strcat(strcat(s, " "), p->argv[i]);
	ids[n++] = strtab_index(&b->strings, s);
	sprintf(s, "engine: %s", p->engine);
	ids[n++] = strtab_index(&b->strings, s);
	free(s);
	if (p->lost > 0) {
		snprintf(lost, sizeof lost, "lost samples: %llu (not in the totals)",
		    (unsigned long long)p->lost);
		ids[n++] = strtab_index(&b->strings, lost);
	}
	pbuf_packed(out, PROFILE_COMMENT, ids, n);
}

int
export_pprof_encode(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, struct pbuf *out)
{
	struct builder b = { .p = p, .nvalues = p->wall != NULL ? 3 : 2 };
	struct pbuf head = { 0 };
	int rc;

	if (p->interval_ns == 0 || p->interval_ns > INT64_MAX ||
	    p->start_ns < 0 || p->duration_ns > INT64_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	strtab_index(&b.strings, "");
	add_value_type(&b, &head, PROFILE_SAMPLE_TYPE, "samples", "count");
	add_value_type(&b, &head, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	if (p->wall != NULL)
		add_value_type(&b, &head, PROFILE_SAMPLE_TYPE, "wall",
		    "nanoseconds");
	rc = s != NULL && p->nstacks > 0 ? add_stacks(&b, f, s) :
	    add_flat(&b, f);
	if (rc == 0) {
		pbuf_append(out, &head);
		pbuf_append(out, &b.samples);
		pbuf_append(out, &b.mappings);
		pbuf_append(out, &b.locations);
		for (size_t i = 0; i < b.nfuncs; i++) {
			const struct function *fn = &b.funcs[i];

			pbuf_reset(&b.msg);
			pbuf_uint(&b.msg, FUNCTION_ID, i + 1);
			pbuf_int(&b.msg, FUNCTION_NAME, (int64_t)fn->name);
			pbuf_int(&b.msg, FUNCTION_SYSTEM_NAME, (int64_t)fn->system_name);
			pbuf_int(&b.msg, FUNCTION_FILENAME, (int64_t)fn->filename);
			pbuf_int(&b.msg, FUNCTION_START_LINE, fn->start_line);
			pbuf_message(out, PROFILE_FUNCTION, &b.msg);
		}
		/* every string is in the table by now: the comments go first */
		pbuf_reset(&head);
		add_comments(&b, &head);
		add_value_type(&b, &head, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
		pbuf_int(&head, PROFILE_DEFAULT_SAMPLE_TYPE,
		    (int64_t)strtab_index(&b.strings, p->wall != NULL ? "wall" :
		    "cpu"));
		for (size_t i = 0; i < b.strings.n; i++)
			pbuf_string(out, PROFILE_STRING_TABLE, b.strings.strs[i]);
		pbuf_int(out, PROFILE_TIME_NANOS, p->start_ns);
		pbuf_int(out, PROFILE_DURATION_NANOS, (int64_t)p->duration_ns);
		pbuf_int(out, PROFILE_PERIOD, (int64_t)p->interval_ns);
		pbuf_append(out, &head);
	}
	strtab_free(&b.strings);
	free(b.funcs);
	pbuf_free(&head);
	pbuf_free(&b.samples);
	pbuf_free(&b.mappings);
	pbuf_free(&b.locations);
	pbuf_free(&b.msg);
	pbuf_free(&b.line);
	return rc;
}

static int
write_all(int fd, const unsigned char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* data gzip-compressed into fd; 0, or -1 with errno. */
static int
write_gzip(int fd, const unsigned char *data, size_t len)
{
	unsigned char chunk[65536];
	z_stream z;
	int flush, rc;

	memset(&z, 0, sizeof z);
	/* windowBits 15 + 16: a gzip header and trailer around the stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	do {
		size_t in = len > (1u << 30) ? (1u << 30) : len;

		z.next_in = (Bytef *)data;
		z.avail_in = (uInt)in;
		data += in;
		len -= in;
		flush = len == 0 ? Z_FINISH : Z_NO_FLUSH;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof chunk;
			rc = deflate(&z, flush);
			if (write_all(fd, chunk, sizeof chunk - z.avail_out) < 0) {
				int saved = errno;

				deflateEnd(&z);
				errno = saved;
				return -1;
			}
		} while (z.avail_out == 0);
	} while (flush != Z_FINISH);
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int
export_pprof_save(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, const char *path, char *cause, size_t cause_size)
{
	struct pbuf msg = { 0 };
	struct outfile of;
	int rc;

	if (export_pprof_encode(p, f, s, &msg) < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		pbuf_free(&msg);
		return -1;
	}
	if (outfile_open(&of, path, OUTFILE_GZIP, cause, cause_size) < 0) {
		pbuf_free(&msg);
		return -1;
	}
	if (write_gzip(of.fd, msg.data, msg.len) < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(&of, NULL);
		rc = -1;
	} else {
		rc = outfile_commit(&of, NULL, cause, cause_size);
	}
	pbuf_free(&msg);
	return rc;
}
