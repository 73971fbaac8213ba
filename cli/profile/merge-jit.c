/*
 * merge-jit.c - each profile's generated code at addresses of its own
 * (merge-jit.h).  A uniform move per profile keeps every order the
 * reader checked (buckets, frames by object then address, names, lines).
 */
#include <string.h>

#include "merge-jit.h"

/* The index of p's [jit] object, or -1. */
static long
jit_index(const struct profil_profile *p)
{
	for (size_t i = 0; i < p->nobjects; i++)
		if (strcmp(p->objects[i].path, PROFIL_JIT_OBJECT) == 0 &&
		    p->objects[i].build_id_len == 0)
			return (long)i;
	return -1;
}

/* The first address past everything p's [jit] object k holds. */
static uint64_t
jit_end(const struct profil_profile *p, uint32_t k)
{
	uint64_t end = p->objects[k].highpc;

	for (size_t i = 0; i < p->nframes; i++)
		if (p->frames[i].object == k && p->frames[i].addr >= end)
			end = p->frames[i].addr + 1;
	for (size_t i = 0; i < p->nsymbols; i++)
		if (p->symbols[i].object == k && p->symbols[i].end > end)
			end = p->symbols[i].end;
	return end;
}

static void
move_jit(struct profil_profile *p, uint32_t k, uint64_t by)
{
	struct profil_object *o = &p->objects[k];

	o->lowpc += by;
	o->highpc += by;
	for (size_t i = 0; i < o->nbuckets; i++)
		o->buckets[i].addr += by;
	for (size_t i = 0; i < p->nframes; i++)
		if (p->frames[i].object == k)
			p->frames[i].addr += by;
	for (size_t i = 0; i < p->nsymbols; i++)
		if (p->symbols[i].object == k) {
			p->symbols[i].start += by;
			p->symbols[i].end += by;
		}
	for (size_t i = 0; i < p->nlines; i++)
		if (p->lines[i].object == k)
			p->lines[i].addr += by;
}

void
merge_jit_apart(struct profil_profile *const *in, size_t n)
{
	uint64_t next = 0;

	for (size_t i = 0; i < n; i++) {
		long k = jit_index(in[i]);
		uint64_t by, align;

		if (k < 0)
			continue;
		/* a whole bucket of the coarsest kind, so buckets stay whole */
		align = (uint64_t)1 << 20;
		by = next > in[i]->objects[k].lowpc ?
		    (next - in[i]->objects[k].lowpc + align - 1) & ~(align - 1) : 0;
		if (by > 0)
			move_jit(in[i], (uint32_t)k, by);
		next = jit_end(in[i], (uint32_t)k);
	}
}
