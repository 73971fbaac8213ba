/*
 * profiles.c - profiles made in memory, every count known, for the tests
 * of merge, diff and windows (profiles.h): objects with their buckets,
 * stacks whose frames stay sorted and whose counts land in the flat
 * profile, a wall record; and such a profile read back.  Allocation is the command's (cli/util.c): it exits on failure.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "harness.h"
#include "profiles.h"

void
add_object(struct profil_profile *p, const char *path, unsigned char id,
    uint64_t lowpc, uint64_t highpc, unsigned bucket_bytes,
    const struct profil_bucket *buckets, size_t nbuckets)
{
	struct profil_object *o;

	p->objects = xrealloc(p->objects, (p->nobjects + 1) * sizeof *o);
	o = &p->objects[p->nobjects++];
	memset(o, 0, sizeof *o);
	o->path = xstrdup(path);
	if (id != 0) {
		memset(o->build_id, id, 20);
		o->build_id_len = 20;
	}
	o->lowpc = lowpc;
	o->highpc = highpc;
	o->bucket_bytes = bucket_bytes;
	o->buckets = xcalloc(nbuckets, sizeof *o->buckets);
	memcpy(o->buckets, buckets, nbuckets * sizeof *buckets);
	o->nbuckets = nbuckets;
	for (size_t i = 0; i < nbuckets; i++)
		o->samples += buckets[i].count;
	p->samples += o->samples;
}

struct profil_profile *
new_profile(unsigned bucket_bytes)
{
	struct profil_profile *p = xcalloc(1, sizeof *p);

	p->interval_ns = 1000000;
	p->bucket_bytes = bucket_bytes;
	p->engine = xstrdup("perf");
	p->argc = 1;
	p->argv = xcalloc(2, sizeof *p->argv);
	p->argv[0] = xstrdup("app");
	return p;
}

void
add_stack(struct profil_profile *p, uint32_t pid, uint32_t tid, uint64_t count,
    size_t depth, const struct profil_frame *frames)
{
	struct profil_stack *st;

	p->stacks = xrealloc(p->stacks, (p->nstacks + 1) * sizeof *st);
	st = &p->stacks[p->nstacks++];
	*st = (struct profil_stack){ .pid = pid, .tid = tid, .count = count,
	    .depth = depth, .frames = xcalloc(depth, sizeof *st->frames) };
	for (size_t d = 0; d < depth; d++) {
		const struct profil_frame *f = &frames[d];
		size_t at = 0;

		while (at < p->nframes && (p->frames[at].object < f->object ||
		    (p->frames[at].object == f->object &&
		    p->frames[at].addr < f->addr)))
			at++;
		if (at == p->nframes || p->frames[at].object != f->object ||
		    p->frames[at].addr != f->addr) {
			p->frames = xrealloc(p->frames, (p->nframes + 1) *
			    sizeof *p->frames);
			memmove(&p->frames[at + 1], &p->frames[at],
			    (p->nframes - at) * sizeof *p->frames);
			p->frames[at] = *f;
			p->nframes++;
			for (size_t s = 0; s < p->nstacks; s++)
				for (size_t k = 0; k < (s + 1 == p->nstacks ? d :
				    p->stacks[s].depth); k++)
					if (p->stacks[s].frames[k] >= at)
						p->stacks[s].frames[k]++;
		}
		st->frames[d] = (uint32_t)at;
	}
	if (frames[0].object == PROFIL_FRAME_OFFCPU) {	/* count: off_ns */
		st->count = 0;
		st->off_ns = count;
		return;
	}
	p->samples += count;
	if (frames[0].object == KERNEL) {
		p->kernel += count;
		if (p->kernel_code != NULL) {
			struct profil_object *k = &p->kernel_code->code;

			k->buckets = xrealloc(k->buckets, (k->nbuckets + 1) *
			    sizeof *k->buckets);
			k->buckets[k->nbuckets++] = (struct profil_bucket){
			    frames[0].addr, count };
			k->samples += count;
			k->lowpc = k->buckets[0].addr;
			k->highpc = frames[0].addr + 1;
		}
	} else {
		struct profil_object *o = &p->objects[frames[0].object];
		size_t b = 0;

		while (b < o->nbuckets && o->buckets[b].addr < frames[0].addr)
			b++;
		if (b == o->nbuckets || o->buckets[b].addr != frames[0].addr) {
			o->buckets = xrealloc(o->buckets, (o->nbuckets + 1) *
			    sizeof *o->buckets);
			memmove(&o->buckets[b + 1], &o->buckets[b],
			    (o->nbuckets - b) * sizeof *o->buckets);
			o->buckets[b] = (struct profil_bucket){ frames[0].addr, 0 };
			o->nbuckets++;
		}
		o->buckets[b].count += count;
		o->samples += count;
	}
}

void
make_wall(struct profil_profile *p, uint64_t poll_ns, uint64_t switches,
    uint64_t reads, uint64_t unread_ns)
{
	p->wall = xcalloc(1, sizeof *p->wall);
	*p->wall = (struct profil_wall){ poll_ns, switches, reads, unread_ns };
}

void
assert_reads_back(const struct profil_profile *p, const char *what)
{
	struct profil_profile *back;
	char cause[512] = "";
	void *data;
	size_t size;

	assert_int_equal(profil_profile_encode(p, &data, &size), 0);
	back = profil_profile_parse(data, size, cause, sizeof cause);
	if (back == NULL)
		fail_msg("%s does not read back: %s", what, cause);
	profil_profile_free(back);
	free(data);
}

const struct profil_stack *
stack_of(const struct profil_profile *p, uint32_t pid, uint32_t tid,
    size_t depth, const struct profil_frame *frames)
{
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct profil_stack *st = &p->stacks[s];
		size_t d = 0;

		if (st->pid != pid || st->tid != tid || st->depth != depth)
			continue;
		for (; d < depth; d++) {
			const struct profil_frame *f = &p->frames[st->frames[d]];

			if (f->object != frames[d].object || f->addr != frames[d].addr)
				break;
		}
		if (d == depth)
			return st;
	}
	return NULL;
}
