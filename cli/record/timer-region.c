/*
 * timer-region.c - the memory the timer engine shares with its agent
 * (timer-region.h): laid out here, and read at the end.  The agent's
 * tables are holes of the memfd where it never wrote: they are skipped,
 * never read (reading a hole allocates its page).
 */
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sampler/budget.h"
#include "jit.h"
#include "sampler/stackring.h"
#include "timer-region.h"

#define PCMAP_CAPACITY	(1u << 19)	/* distinct pcs: 8 MiB shared */
#define THREADS_CAPACITY (1u << 16)	/* threads with samples: 1 MiB */
#define STACK_SLOTS	256		/* captures the ring holds */

struct agent_region *
timer_region_new(int *fd_out, unsigned rate_hz, uint64_t samples,
    unsigned stack_size)
{
	size_t head = (sizeof(struct agent_region) + 4095) & ~(size_t)4095;
	size_t tables = head + 2 * (size_t)PCMAP_CAPACITY * 8 +
	    2 * (size_t)THREADS_CAPACITY * 8;
	size_t ring_head = (sizeof(struct stackring) + 63) & ~(size_t)63;
	size_t ring = stack_size ? ring_head + STACK_SLOTS *
	    STACKRING_SLOT_BYTES(stack_size) : 0;
	size_t size = tables + ring;
	struct agent_region *r;
	int fd = memfd_create("profil-agent", 0);	/* inherited through exec */

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	r->version = AGENT_VERSION;
	r->rate_hz = rate_hz;
	r->size = size;
	r->capacity = PCMAP_CAPACITY;
	r->keys_offset = head;
	r->counts_offset = head + (size_t)PCMAP_CAPACITY * 8;
	r->tcapacity = THREADS_CAPACITY;
	r->tkeys_offset = r->counts_offset + (size_t)PCMAP_CAPACITY * 8;
	r->tcounts_offset = r->tkeys_offset + (size_t)THREADS_CAPACITY * 8;
	r->mechanism = PROFIL_MECH_AUTO;
	r->budget.samples = samples;
	if (stack_size) {
		struct stackring *sr = (struct stackring *)((char *)r + tables);

		sr->nslots = STACK_SLOTS;
		sr->slot_bytes = STACKRING_SLOT_BYTES(stack_size);
		sr->stack_size = stack_size;
		sr->slots_offset = ring_head;
		r->stacks_offset = tables;
		r->stacks_bytes = ring;
	}
	atomic_store(&r->next_slot, 1);
	r->magic = AGENT_MAGIC;		/* last: the region is complete */
	*fd_out = fd;
	return r;
}

/*
 * The first index from i on (up to n) of a table of u64 at offset off
 * of the region's file that is in a page the agent wrote (whence
 * SEEK_DATA), or in one it never touched (SEEK_HOLE).  Untouched pages
 * are holes of the memfd, all zeros: reading them would allocate them,
 * 2,048 page faults for the 8 MiB pc table, 45 ms at the end of every
 * run here.  Where the file cannot say, every page is data.
 */
static uint64_t
table_seek(int fd, size_t off, uint64_t i, uint64_t n, int whence)
{
	off_t at;

	if (i >= n)
		return n;
	at = lseek(fd, (off_t)(off + i * 8), whence);
	if (at < 0)
		return errno == ENXIO && whence == SEEK_DATA ? n :
		    whence == SEEK_DATA ? i : n;
	if ((size_t)at <= off + i * 8)
		return i;
	at = (off_t)(((size_t)at - off) / 8);
	return (uint64_t)at < n ? (uint64_t)at : n;
}

/* Every thread's count, to its process (the slot's pid). */
static void
resolve_threads(struct builder *b, struct agent_region *r, int fd,
    struct slot_maps *slots, pid_t only_pid)
{
	const uint64_t *keys = (const uint64_t *)((char *)r + r->tkeys_offset);
	const uint64_t *counts = (const uint64_t *)((char *)r + r->tcounts_offset);

	for (uint64_t i = 0, end = 0; i < r->tcapacity; i++) {
		uint64_t key, count;
		unsigned slot;
		pid_t pid;

		if (i >= end) {
			i = table_seek(fd, r->tkeys_offset, i, r->tcapacity, SEEK_DATA);
			end = table_seek(fd, r->tkeys_offset, i, r->tcapacity, SEEK_HOLE);
			if (i >= r->tcapacity)
				break;
		}
		if ((key = keys[i]) == 0 || (count = counts[i]) == 0)
			continue;
		slot = (unsigned)(key >> 32);
		if (slot == 0 || slot >= AGENT_MAX_PROCS)
			continue;
		pid = slots[slot].pid ? slots[slot].pid : (pid_t)r->procs[slot].pid;
		if (only_pid != 0 && pid != only_pid)
			continue;
		builder_thread_samples(b, pid, (pid_t)(uint32_t)key, count);
	}
}

void
timer_region_resolve(struct builder *b, struct agent_region *r, int fd,
    struct slot_maps *slots, pid_t only_pid, int stacks)
{
	const uint64_t *keys = (const uint64_t *)((char *)r + r->keys_offset);
	const uint64_t *counts = (const uint64_t *)((char *)r + r->counts_offset);

	for (uint64_t i = 0, end = 0; i < r->capacity; i++) {
		uint64_t key, count, pc;
		unsigned slot;
		const struct addr_map *m;
		struct bframe f[2];
		pid_t pid;
		struct bframe jf;
		int named;

		if (i >= end) {
			i = table_seek(fd, r->keys_offset, i, r->capacity, SEEK_DATA);
			end = table_seek(fd, r->keys_offset, i, r->capacity, SEEK_HOLE);
			if (i >= r->capacity)
				break;
		}
		if ((key = keys[i]) == 0 || (count = counts[i]) == 0)
			continue;
		slot = (unsigned)(key >> 48);
		pc = key & ((1ull << 48) - 1);
		if (slot == 0 || slot >= AGENT_MAX_PROCS)
			continue;
		pid = slots[slot].pid ? slots[slot].pid : (pid_t)r->procs[slot].pid;
		if (only_pid != 0 && pid != only_pid)
			continue;
		m = pc == AGENT_KERNEL_PC ? NULL : timer_slots_map(&slots[slot], pc);
		named = pc != AGENT_KERNEL_PC && (m == NULL || m->obj < 0) &&
		    slots[slot].space != NULL &&
		    jit_code_locate(slots[slot].space->jit, pc, m != NULL, &jf);
		if (stacks) {		/* its capture failed */
			f[0] = named ? jf : pc == AGENT_KERNEL_PC ?
			    (struct bframe){ BFRAME_KERNEL, 0 } :
			    m == NULL || m->obj < 0 ?
			    (struct bframe){ BFRAME_UNKNOWN, pc } :
			    (struct bframe){ m->obj, pc - m->start + m->pgoff };
			f[1] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN };
			builder_sample_stack(b, f, 2, count, pid, pid);
		} else if (named) {
			builder_sample(b, jf.obj, jf.value, count, pid, pid);
		} else if (pc == AGENT_KERNEL_PC) {
			builder_kernel(b, 0, count, pid, pid);
		} else if (m == NULL || m->obj < 0) {
			/* generated code named by files read at the end (jit.h) */
			f[0] = (struct bframe){ BFRAME_UNKNOWN, pc };
			if (slots[slot].space == NULL || !jit_code_defer(
			    slots[slot].space->jit, f, 1, count, pid, pid, 1))
				builder_unknown(b, count, pid, pid);
		} else {
			builder_sample(b, m->obj, pc - m->start + m->pgoff, count,
			    pid, pid);
		}
	}
	builder_lost(b, r->lost);
	resolve_threads(b, r, fd, slots, only_pid);
}

void
timer_region_weights(const struct agent_region *r,
    const struct record_opts *o, pid_t only_pid,
    const struct slot_maps *slots, struct record_result *res)
{
	const uint64_t *keys = (const uint64_t *)((const char *)r + r->keys_offset);
	const uint64_t *counts = (const uint64_t *)((const char *)r +
	    r->counts_offset);
	double all = (double)r->lost, kept = (double)r->lost, share;
	uint64_t base = o->period_ns;

	res->taken = atomic_load(&r->budget.taken);
	res->weight_sq = atomic_load(&r->budget.weight_sq);
	res->slowest_ns = base << budget_shift(r->budget.samples, base,
	    res->taken);
	if (only_pid == 0)
		return;
	for (uint64_t i = 0; i < r->capacity; i++) {
		unsigned slot = (unsigned)(keys[i] >> 48);
		pid_t pid;

		if (keys[i] == 0 || slot == 0 || slot >= AGENT_MAX_PROCS)
			continue;
		all += (double)counts[i];
		pid = slots[slot].pid ? slots[slot].pid : (pid_t)r->procs[slot].pid;
		if (pid == only_pid)
			kept += (double)counts[i];
	}
	for (unsigned slot = 1; slot < AGENT_MAX_PROCS; slot++) {
		pid_t pid = slots[slot].pid ? slots[slot].pid :
		    (pid_t)r->procs[slot].pid;

		all += (double)slots[slot].captured;
		if (pid == only_pid)
			kept += (double)slots[slot].captured;
	}
	share = all > 0 ? kept / all : 1;
	res->taken = (uint64_t)((double)res->taken * share + 0.5);
	res->weight_sq = (uint64_t)((double)res->weight_sq * share + 0.5);
	if (res->weight_sq < res->taken)
		res->weight_sq = res->taken;
}
