/*
 * builder.c - folds samples into a profile (builder-internal.h): a
 * builder made and freed, and the profile it finishes with.  Samples
 * arrive as file offsets in a mapped object, which builder-objects.c
 * turns into link-time addresses, the addresses symbol tables use;
 * builder-samples.c counts them, builder-stacks.c their stacks.
 * Invariant: samples = object samples + kernel + unknown, and the same
 * sum over threads and over processes.
 */
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "builder-internal.h"
#include "cli.h"
#include "fpmarks.h"
#include "timeline.h"

void
builder_reset(struct builder *b, uint64_t origin)
{
	for (size_t i = 0; i < b->nobjects; i++) {
		hmap_free(&b->objects[i].hist);
		hmap_init(&b->objects[i].hist);
		b->objects[i].samples = 0;
	}
	for (size_t i = 0; i < b->nthreads; i++)
		b->threads[i].samples = 0;
	for (size_t i = 0; i < b->nprocesses; i++)
		b->processes[i].samples = 0;
	b->samples = b->kernel = b->unknown = b->lost = 0;
	hmap_free(&b->kernel_hist);
	hmap_init(&b->kernel_hist);
	b->kernel_ips = 1;
	b->omit_threads = 0;
	hmap_free(&b->stack_counts);
	hmap_init(&b->stack_counts);
	hmap_free(&b->stack_off);
	hmap_init(&b->stack_off);
	b->noff = 0;
	free(b->wall);
	b->wall = NULL;
	if (b->tl != NULL) {
		timeline_free(b->tl);
		b->tl = timeline_new(origin);
		b->tl_last = origin;
	}
}

struct builder *
builder_new(unsigned bucket_bytes)
{
	struct builder *b = xcalloc(1, sizeof *b);

	b->bucket_bytes = bucket_bytes;
	b->kernel_ips = 1;
	hmap_init(&b->kernel_hist);
	for (int i = 0; i < 4; i++)
		hmap_init(&b->special_frames[i]);
	b->tree = (struct stacktree){ 0 };
	hmap_init(&b->stack_counts);
	hmap_init(&b->fp_frames);
	hmap_init(&b->stack_off);
	hmap_init(&b->thread_index);
	hmap_init(&b->process_index);
	elf_version(EV_CURRENT);
	return b;
}

void
builder_free(struct builder *b)
{
	size_t i;

	for (i = 0; i < b->nobjects; i++) {
		free(b->objects[i].path);
		hmap_free(&b->objects[i].hist);
		hmap_free(&b->objects[i].frames);
	}
	for (i = 0; i < b->naliases; i++)
		free(b->aliases[i].path);
	free(b->aliases);
	for (i = 0; i < 4; i++)
		hmap_free(&b->special_frames[i]);
	stacktree_free(&b->tree);
	hmap_free(&b->stack_counts);
	hmap_free(&b->fp_frames);
	fpmarks_clear();
	hmap_free(&b->stack_off);
	free(b->off);
	free(b->wall);
	timeline_free(b->tl);
	free(b->frames);
	for (i = 0; i < b->nthreads; i++)
		free(b->threads[i].name);
	for (i = 0; i < b->nprocesses; i++)
		free(b->processes[i].comm);
	free(b->objects);
	free(b->threads);
	free(b->processes);
	hmap_free(&b->thread_index);
	hmap_free(&b->process_index);
	hmap_free(&b->kernel_hist);
	free(b->kernel_id.release);
	free(b);
}

void
builder_cpu_fill(struct builder *b, const struct bframe *frames, size_t n,
    uint64_t weight, pid_t pid, pid_t tid)
{
	if (b->stacks)
		builder_stack_fill(b, frames, n, weight, pid, tid);
	else
		builder_kernel(b, frames[0].value, weight, pid, tid);
	if (b->external_threads)
		builder_thread_samples(b, pid, tid, weight);
}

/* The kernel's histogram, at its addresses of this boot; NULL if none. */
static struct profil_kernel *
kernel_code(struct builder *b)
{
	struct profil_kernel *k;
	uint64_t *keys;
	size_t n;

	if (b->kernel == 0 || !b->kernel_ips)
		return NULL;
	k = xcalloc(1, sizeof *k);
	*k = b->kernel_id;
	k->release = xstrdup(b->kernel_id.release ? b->kernel_id.release : "");
	k->code.path = xstrdup("[kernel.kallsyms]");
	k->code.bucket_bytes = 1;
	k->code.samples = b->kernel;
	keys = hmap_sorted_keys(&b->kernel_hist, &n);
	k->code.buckets = xcalloc(n + 1, sizeof *k->code.buckets);
	for (size_t i = 0; i < n; i++) {
		k->code.buckets[i].addr = keys[i];
		k->code.buckets[i].count = hmap_get(&b->kernel_hist, keys[i]);
	}
	k->code.nbuckets = n;
	k->code.lowpc = n ? keys[0] : 0;
	k->code.highpc = n ? keys[n - 1] + 1 : 1;
	free(keys);
	return k;
}

void
builder_wall(struct builder *b, const struct profil_wall *w)
{
	if (b->wall == NULL)
		b->wall = xcalloc(1, sizeof *b->wall);
	*b->wall = *w;
}

struct profil_profile *
builder_finish(struct builder *b)
{
	struct profil_profile *p = xcalloc(1, sizeof *p);
	size_t i, k, *map;

	p->bucket_bytes = b->bucket_bytes;
	p->samples = b->samples;
	p->kernel = b->kernel;
	p->unknown = b->unknown;
	p->lost = b->lost;
	p->objects = xcalloc(b->nobjects, sizeof *p->objects);
	map = xcalloc(b->nobjects + 1, sizeof *map);
	for (i = 0; i < b->nobjects; i++) {
		struct bobject *o = &b->objects[i];
		struct profil_object *po = &p->objects[p->nobjects];
		uint64_t lo = o->nsegs ? o->lowpc : o->seen_lo;
		uint64_t hi = o->nsegs ? o->highpc : o->seen_hi + 1;
		uint64_t *keys;
		size_t n;

		if (o->samples == 0 && o->nsegs == 0 && o->frames.len == 0 &&
		    !o->frames.has_max)
			continue;	/* nothing known, nothing counted */
		if (o->samples == 0 && o->nsegs == 0) {
			lo = 0;		/* only in stacks: any range will do */
			hi = 1;
		}
		if (o->samples > 0 && o->seen_lo < lo)
			lo = o->seen_lo;
		if (o->samples > 0 && o->seen_hi >= hi)
			hi = o->seen_hi + 1;
		lo -= lo % b->bucket_bytes;
		/* with samples, lo <= seen_lo < seen_hi + 1 <= hi already */
		if (hi <= lo)
			hi = lo <= UINT64_MAX - b->bucket_bytes ?
			    lo + b->bucket_bytes : UINT64_MAX;
		if (hi <= lo)
			continue;	/* no samples, and code at 2^64 - 1 */
		po->path = xstrdup(o->path);
		memcpy(po->build_id, o->build_id, o->build_id_len);
		po->build_id_len = o->build_id_len;
		po->lowpc = lo;
		po->highpc = hi;
		po->bucket_bytes = b->bucket_bytes;
		po->samples = o->samples;
		keys = hmap_sorted_keys(&o->hist, &n);
		po->buckets = xcalloc(n, sizeof *po->buckets);
		for (k = 0; k < n; k++) {
			po->buckets[k].addr = keys[k] * b->bucket_bytes;
			po->buckets[k].count = hmap_get(&o->hist, keys[k]);
		}
		po->nbuckets = n;
		free(keys);
		map[i] = p->nobjects++;
	}
	if (b->stacks)
		builder_finish_stacks(b, p, map);
	free(map);
	if (b->external_threads) {
		uint64_t sum = 0;

		for (i = 0; i < b->nthreads; i++)
			sum += b->threads[i].samples;
		if (sum != b->samples)
			b->omit_threads = 1;	/* some found no room: none */
	}
	p->threads = xcalloc(b->nthreads, sizeof *p->threads);
	for (i = 0; i < b->nthreads; i++) {
		struct bthread *t = &b->threads[i];
		struct bprocess *pr = builder_process_of(b, t->pid);

		/* a wall profile's threads may have waited only */
		if ((t->samples == 0 && b->wall == NULL) || b->omit_threads)
			continue;
		p->threads[p->nthreads++] = (struct profil_thread){ (uint32_t)t->pid,
		    (uint32_t)t->tid, xstrdup(t->name ? t->name :
		    pr->comm ? pr->comm : ""), t->samples };
	}
	if (b->wall != NULL) {
		p->wall = xcalloc(1, sizeof *p->wall);
		*p->wall = *b->wall;
	}
	p->kernel_code = kernel_code(b);
	p->processes = xcalloc(b->nprocesses, sizeof *p->processes);
	for (i = 0; i < b->nprocesses; i++) {
		struct bprocess *pr = &b->processes[i];

		/* (a wall profile's may have waited only: a child that slept) */
		if (pr->samples == 0 && pr->status == PROFIL_EXIT_UNKNOWN &&
		    b->wall == NULL)
			continue;
		p->processes[p->nprocesses++] = (struct profil_process){
		    (uint32_t)pr->pid, (uint32_t)pr->ppid,
		    xstrdup(pr->comm ? pr->comm : ""), pr->status, pr->samples };
	}
	return p;
}
