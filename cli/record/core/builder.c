/*
 * builder.c - folds samples into a profile (builder-internal.h).  Samples
 * arrive as file offsets in a mapped object, which builder-objects.c
 * turns into link-time addresses, the addresses symbol tables use.
 * Invariant: samples = object samples + kernel + unknown, and the same
 * sum over threads and over processes.
 */
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "builder-internal.h"
#include "cli.h"
#include "fpmarks.h"

void
builder_external_threads(struct builder *b)
{
	b->external_threads = 1;
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

struct bthread *
builder_thread_of(struct builder *b, pid_t pid, pid_t tid)
{
	uint64_t i = hmap_get(&b->thread_index, (uint64_t)(uint32_t)tid);

	if (i == 0) {
		b->threads = xrealloc(b->threads, (b->nthreads + 1) * sizeof *b->threads);
		b->threads[b->nthreads] = (struct bthread){ pid, tid, NULL, 0 };
		hmap_add(&b->thread_index, (uint64_t)(uint32_t)tid, ++b->nthreads);
		i = b->nthreads;
	}
	return &b->threads[i - 1];
}

static struct bprocess *
process_of(struct builder *b, pid_t pid)
{
	uint64_t i = hmap_get(&b->process_index, (uint64_t)(uint32_t)pid);

	if (i == 0) {
		b->processes = xrealloc(b->processes,
		    (b->nprocesses + 1) * sizeof *b->processes);
		b->processes[b->nprocesses] = (struct bprocess){ pid, 0, NULL,
		    PROFIL_EXIT_UNKNOWN, 0 };
		hmap_add(&b->process_index, (uint64_t)(uint32_t)pid, ++b->nprocesses);
		i = b->nprocesses;
	}
	return &b->processes[i - 1];
}

static void
count(struct builder *b, uint64_t weight, pid_t pid, pid_t tid)
{
	b->samples += weight;
	if (!b->external_threads)
		builder_thread_of(b, pid, tid)->samples += weight;
	process_of(b, pid)->samples += weight;
}

void
builder_thread_samples(struct builder *b, pid_t pid, pid_t tid, uint64_t n)
{
	builder_thread_of(b, pid, tid)->samples += n;
}

uint64_t
builder_thread_count(struct builder *b, pid_t pid, pid_t tid)
{
	return builder_thread_of(b, pid, tid)->samples;
}

void
builder_cpu_fill(struct builder *b, const struct bframe *frames, size_t n,
    uint64_t weight, pid_t pid, pid_t tid)
{
	if (b->stacks)
		builder_sample_stack(b, frames, n, weight, pid, tid);
	else
		builder_kernel(b, frames[0].value, weight, pid, tid);
	if (b->external_threads)
		builder_thread_samples(b, pid, tid, weight);
}

void
builder_count_at(struct builder *b, int obj, uint64_t addr, uint64_t weight,
    pid_t pid, pid_t tid)
{
	struct bobject *o = &b->objects[obj];

	if (addr < o->seen_lo)
		o->seen_lo = addr;
	if (addr > o->seen_hi)
		o->seen_hi = addr;
	hmap_add(&o->hist, addr / b->bucket_bytes, weight);
	o->samples += weight;
	count(b, weight, pid, tid);
}

void
builder_sample(struct builder *b, int obj, uint64_t file_offset,
    uint64_t weight, pid_t pid, pid_t tid)
{
	uint64_t addr = builder_link_address(&b->objects[obj], file_offset);

	if (addr == UINT64_MAX)
		builder_unknown(b, weight, pid, tid);
	else
		builder_count_at(b, obj, addr, weight, pid, tid);
}

void
builder_kernel(struct builder *b, uint64_t ip, uint64_t weight, pid_t pid,
    pid_t tid)
{
	b->kernel += weight;
	if (ip == 0 || ip == UINT64_MAX)
		b->kernel_ips = 0;	/* then no histogram: it would not add up */
	else
		hmap_add(&b->kernel_hist, ip, weight);
	count(b, weight, pid, tid);
}

void
builder_kernel_identity(struct builder *b, const struct profil_kernel *id)
{
	free(b->kernel_id.release);
	b->kernel_id = *id;
	b->kernel_id.release = id->release ? xstrdup(id->release) : NULL;
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
builder_unknown(struct builder *b, uint64_t weight, pid_t pid, pid_t tid)
{
	b->unknown += weight;
	count(b, weight, pid, tid);
}

void
builder_lost(struct builder *b, uint64_t n)
{
	b->lost += n;
}

void
builder_comm(struct builder *b, pid_t pid, pid_t tid, const char *comm)
{
	struct bthread *t = builder_thread_of(b, pid, tid);

	free(t->name);
	t->name = xstrdup(comm);
	if (pid == tid) {
		struct bprocess *p = process_of(b, pid);

		free(p->comm);
		p->comm = xstrdup(comm);
	}
}

void
builder_fork(struct builder *b, pid_t pid, pid_t ppid)
{
	/* the parent may be no process of ours (the recorder itself) */
	uint64_t at = hmap_get(&b->process_index, (uint64_t)(uint32_t)ppid);
	struct bprocess *parent = at ? &b->processes[at - 1] : NULL;
	char *comm = parent && parent->comm ? xstrdup(parent->comm) : NULL;
	struct bprocess *p = process_of(b, pid);

	p->ppid = ppid;
	if (p->comm == NULL)
		p->comm = comm;
	else
		free(comm);
}

void
builder_exit_status(struct builder *b, pid_t pid, int status)
{
	process_of(b, pid)->status = status;
}

void
builder_wall(struct builder *b, const struct profil_wall *w)
{
	if (b->wall == NULL)
		b->wall = xcalloc(1, sizeof *b->wall);
	*b->wall = *w;
}

pid_t *
builder_unfinished(struct builder *b, size_t *n)
{
	pid_t *pids = xcalloc(b->nprocesses + 1, sizeof *pids);

	*n = 0;
	for (size_t i = 0; i < b->nprocesses; i++)
		if (b->processes[i].status == PROFIL_EXIT_UNKNOWN)
			pids[(*n)++] = b->processes[i].pid;
	return pids;
}

struct builder_process *
builder_new_processes(struct builder *b, size_t *seen, size_t *n)
{
	struct builder_process *v = xcalloc(b->nprocesses - *seen + 1,
	    sizeof *v);

	*n = 0;
	for (size_t i = *seen; i < b->nprocesses; i++)
		if (b->processes[i].status == PROFIL_EXIT_UNKNOWN)
			v[(*n)++] = (struct builder_process){ b->processes[i].pid,
			    b->processes[i].ppid };
	*seen = b->nprocesses;
	return v;
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
		struct bprocess *pr = process_of(b, t->pid);

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
