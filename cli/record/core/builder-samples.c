/*
 * builder-samples.c - samples counted where they fell: at a link address
 * of an object, in the kernel, in no object, or lost; and per thread and
 * per process, with their names, parents and how they ended.  The floor
 * of the builder: its stacks (builder-stacks.c) count their leaves here.
 *
 * Invariant: each sample counted here is counted once in b->samples, in
 * its thread (unless threads are counted apart) and in its process.
 */
#include <stdlib.h>
#include <string.h>

#include "builder-internal.h"
#include "cli.h"
#include "symbols/kernel.h"

void
builder_external_threads(struct builder *b)
{
	b->external_threads = 1;
}

struct bthread *
builder_thread_of(struct builder *b, pid_t pid, pid_t tid)
{
	uint64_t i = hmap_get(&b->thread_index, (uint64_t)(uint32_t)tid);

	if (i == 0) {
		b->threads = xrealloc(b->threads, (b->nthreads + 1) * sizeof *b->threads);
		b->threads[b->nthreads] = (struct bthread){ pid, tid, NULL, 0, 0, 0 };
		hmap_add(&b->thread_index, (uint64_t)(uint32_t)tid, ++b->nthreads);
		i = b->nthreads;
	}
	return &b->threads[i - 1];
}

struct bprocess *
builder_process_of(struct builder *b, pid_t pid)
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
		builder_thread_samples(b, pid, tid, weight);
	builder_process_of(b, pid)->samples += weight;
}

void
builder_thread_samples(struct builder *b, pid_t pid, pid_t tid, uint64_t n)
{
	struct bthread *t = builder_thread_of(b, pid, tid);

	t->samples += n;
	t->run_samples += n;
}

uint64_t
builder_thread_count(struct builder *b, pid_t pid, pid_t tid)
{
	return builder_thread_of(b, pid, tid)->run_samples;
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
builder_identify_kernel(struct builder *b)
{
	free(b->kernel_id.release);
	memset(&b->kernel_id, 0, sizeof b->kernel_id);
	kernel_identify(&b->kernel_id);
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
		struct bprocess *p = builder_process_of(b, pid);

		free(p->comm);
		p->comm = xstrdup(comm);
	}
}

int
builder_thread_unnamed(struct builder *b, pid_t pid, pid_t tid)
{
	struct bthread *t = builder_thread_of(b, pid, tid);

	if (t->asked || t->name != NULL)
		return 0;
	t->asked = 1;
	return 1;
}

void
builder_threads_each(struct builder *b, pid_t pid,
    void (*fn)(struct builder *b, pid_t pid, pid_t tid))
{
	/* by index: fn may name threads, never add them */
	for (size_t i = 0; i < b->nthreads; i++)
		if (b->threads[i].pid == pid)
			fn(b, pid, b->threads[i].tid);
}

void
builder_fork(struct builder *b, pid_t pid, pid_t ppid)
{
	/* the parent may be no process of ours (the recorder itself) */
	uint64_t at = hmap_get(&b->process_index, (uint64_t)(uint32_t)ppid);
	struct bprocess *parent = at ? &b->processes[at - 1] : NULL;
	char *comm = parent && parent->comm ? xstrdup(parent->comm) : NULL;
	struct bprocess *p = builder_process_of(b, pid);

	p->ppid = ppid;
	if (p->comm == NULL)
		p->comm = comm;
	else
		free(comm);
}

void
builder_exit_status(struct builder *b, pid_t pid, int status)
{
	builder_process_of(b, pid)->status = status;
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
