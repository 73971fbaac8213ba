/*
 * jit-names.c - the recording's names of generated code (jit-names.h):
 * the [jit] object, a made-up range per name, and what the files had
 * wrong, until they go into the profile (jit_end).
 *
 * Invariant: the made-up [jit] ranges never overlap, and each is one
 * name's (the pieces of code a runtime gave that name: a function
 * compiled again, code that moved), so the profile's names cannot clash
 * however the runtime reused its addresses.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "jit-names.h"
#include "jit.h"
#include "profil.h"

struct sym {
	uint64_t start, end;		/* the made-up range */
	char *name;
};

static struct {
	struct builder *b;
	int obj;			/* the [jit] object, or -1 */
	uint64_t next;			/* the next range's start */
	struct sym *syms;
	size_t nsyms, syms_cap;
	struct hmap by_name;		/* name's hash -> 1 + its range */
	char **said;			/* problems, a line each */
	size_t nsaid;
} jit = { .obj = -1 };

void
jit_say(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	jit.said = xrealloc(jit.said, (jit.nsaid + 1) * sizeof *jit.said);
	jit.said[jit.nsaid++] = xstrdup(line);
}

void
jit_begin(struct builder *b)
{
	jit.b = b;
	jit.obj = -1;
	jit.next = 0x10000;		/* no code at 0: a frame's pc - 1 */
	hmap_init(&jit.by_name);
}

struct bframe
jit_names_frame(size_t range, uint64_t offset)
{
	if (jit.obj < 0)
		jit.obj = builder_object(jit.b, PROFIL_JIT_OBJECT, NULL, 0);
	return (struct bframe){ jit.obj, jit.syms[range].start + offset };
}

static uint64_t
name_hash(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
	return h == UINT64_MAX ? 0 : h;		/* hmap's reserved key */
}

/* A range is this big at least: V8's next version of a function fits. */
#define SYM_MIN	4096

size_t
jit_names_range(uint64_t size, const char *name, size_t len)
{
	uint64_t h = name_hash(name, len), at = hmap_get(&jit.by_name, h);
	struct sym *s;

	if (at != 0) {
		s = &jit.syms[at - 1];
		if (s->end - s->start >= size && strlen(s->name) == len &&
		    memcmp(s->name, name, len) == 0)
			return (size_t)at - 1;
	}
	if (size < SYM_MIN)
		size = SYM_MIN;

	if (jit.nsyms == jit.syms_cap) {
		jit.syms_cap = jit.syms_cap ? 2 * jit.syms_cap : 256;
		jit.syms = xrealloc(jit.syms, jit.syms_cap * sizeof *jit.syms);
	}
	s = &jit.syms[jit.nsyms];
	s->start = jit.next;
	s->end = jit.next + size;
	s->name = xmalloc(len + 1);
	memcpy(s->name, name, len);
	s->name[len] = '\0';
	/* apart, and 16-aligned as code is */
	jit.next = (s->end + 16) & ~(uint64_t)15;
	/* (a name whose hash another has, kept apart: it is rare) */
	if (at == 0 || strcmp(jit.syms[at - 1].name, s->name) == 0)
		hmap_add(&jit.by_name, h, jit.nsyms + 1 - at);
	return jit.nsyms++;
}

int
jit_names_same(size_t range, const char *name, size_t len)
{
	return strlen(jit.syms[range].name) == len &&
	    memcmp(jit.syms[range].name, name, len) == 0;
}

struct builder *
jit_names_builder(void)
{
	return jit.b;
}

int
jit_object(void)
{
	return jit.obj;
}

/* ---- the profile -------------------------------------------------------- */

/* The symbols record's order: by object, then start. */
static int
by_object_start(const void *a, const void *b)
{
	const struct profil_symbol *x = a, *y = b;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether [lo, hi) holds an address the [jit] object's counts or frames do. */
static int
hit(const struct profil_profile *p, uint32_t obj, uint64_t lo, uint64_t hi)
{
	const struct profil_object *o = &p->objects[obj];
	size_t a = 0, b = o->nbuckets;

	/* buckets are sorted by address */
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (o->buckets[m].addr + o->bucket_bytes <= lo)
			a = m + 1;
		else
			b = m;
	}
	if (a < o->nbuckets && o->buckets[a].addr < hi)
		return 1;
	/* frames are sorted by object, then address */
	a = 0, b = p->nframes;
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (p->frames[m].object < obj || (p->frames[m].object == obj &&
		    p->frames[m].addr < lo))
			a = m + 1;
		else
			b = m;
	}
	return a < p->nframes && p->frames[a].object == obj &&
	    p->frames[a].addr < hi;
}

void
jit_end(struct profil_profile *p, void (*warn)(const char *line))
{
	uint32_t obj = UINT32_MAX;
	size_t n = 0;

	for (size_t i = 0; p != NULL && i < p->nobjects; i++)
		if (strcmp(p->objects[i].path, PROFIL_JIT_OBJECT) == 0)
			obj = (uint32_t)i;
	if (obj != UINT32_MAX) {
		/* made in order: sorted and apart already */
		for (size_t i = 0; i < jit.nsyms; i++)
			n += hit(p, obj, jit.syms[i].start, jit.syms[i].end);
		p->symbols = xrealloc(p->symbols, (p->nsymbols + n + 1) *
		    sizeof *p->symbols);
		for (size_t i = 0; i < jit.nsyms; i++)
			if (hit(p, obj, jit.syms[i].start, jit.syms[i].end)) {
				p->symbols[p->nsymbols++] = (struct profil_symbol){
				    obj, jit.syms[i].start, jit.syms[i].end,
				    jit.syms[i].name };
				jit.syms[i].name = NULL;
			}
		qsort(p->symbols, p->nsymbols, sizeof *p->symbols,
		    by_object_start);
	}
	for (size_t i = 0; i < jit.nsaid; i++) {
		if (warn != NULL)
			warn(jit.said[i]);
		free(jit.said[i]);
	}
	for (size_t i = 0; i < jit.nsyms; i++)
		free(jit.syms[i].name);
	free(jit.syms);
	free(jit.said);
	hmap_free(&jit.by_name);
	jit.syms = NULL;
	jit.said = NULL;
	jit.nsyms = jit.syms_cap = jit.nsaid = 0;
	jit.b = NULL;
	jit.obj = -1;
}
