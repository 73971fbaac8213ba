/*
 * timer-region.c - the memory the timer engine shares with its agent
 * (timer-region.h): laid out here, and read at the end.  The agent's
 * tables are holes of the memfd where it never wrote: they are skipped,
 * never read (reading a hole allocates its page).
 * Invariant: every offset, size and index used is the layout made here,
 * never the region's header; each entry is read once, and judged.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "record/jit/jit.h"
#include "record/sink/sample.h"
#include "sampler/budget.h"
#include "sampler/stackring.h"
#include "timer-region.h"

#define PCMAP_CAPACITY	(1u << 19)	/* distinct pcs: 8 MiB shared */
#define THREADS_CAPACITY (1u << 16)	/* threads with samples: 1 MiB */
#define STACK_SLOTS	256		/* captures the ring holds */

struct timer_region *
timer_region_new(unsigned rate_hz, uint64_t samples, unsigned stack_size,
    uint64_t period_ns, uint64_t start_ns)
{
	return timer_region_new_sized(rate_hz, samples, stack_size, period_ns,
	    start_ns, PCMAP_CAPACITY, THREADS_CAPACITY, STACK_SLOTS);
}

struct timer_region *
timer_region_new_sized(unsigned rate_hz, uint64_t samples,
    unsigned stack_size, uint64_t period_ns, uint64_t start_ns,
    uint64_t capacity, uint64_t tcapacity, uint64_t nslots)
{
	size_t head = (sizeof(struct agent_region) + 4095) & ~(size_t)4095;
	size_t tables = head + 2 * (size_t)capacity * 8 +
	    2 * (size_t)tcapacity * 8;
	size_t ring = stack_size ? STACKRING_BYTES(nslots, stack_size) : 0;
	size_t size = tables + ring;
	struct timer_region *t;
	struct agent_region *r;
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	/* inherited through exec; sealed below */
	int fd = memfd_create("profil-agent", MFD_ALLOW_SEALING), saved;

	/*
	 * Sealed at its size, and against any seal the program would add:
	 * our mapping must never outlast the file (a read past its end is a
	 * SIGBUS), and the agents of its children must be able to map it.
	 */
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_SEAL) < 0) {
		saved = errno;
		if (fd >= 0)
			close(fd);
		errno = saved;
		return NULL;
	}
	r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED) {
		saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	t = xcalloc(1, sizeof *t);
	*t = (struct timer_region){ .shared = r, .fd = fd, .size = size,
	    .capacity = capacity, .keys_offset = head,
	    .counts_offset = head + (size_t)capacity * 8,
	    .tcapacity = tcapacity,
	    .tkeys_offset = head + 2 * (size_t)capacity * 8,
	    .tcounts_offset = head + 2 * (size_t)capacity * 8 +
	    (size_t)tcapacity * 8, .start_ns = start_ns,
	    .period_ns = period_ns ? period_ns : 1,
	    .ncpus = ncpus > 0 ? (uint64_t)ncpus : 1,
	    .pc_done = xcalloc(capacity + 1, sizeof *t->pc_done),
	    .t_done = xcalloc(tcapacity + 1, sizeof *t->t_done) };
	r->version = AGENT_VERSION;
	r->rate_hz = rate_hz;
	r->size = size;
	r->capacity = t->capacity;
	r->keys_offset = t->keys_offset;
	r->counts_offset = t->counts_offset;
	r->tcapacity = t->tcapacity;
	r->tkeys_offset = t->tkeys_offset;
	r->tcounts_offset = t->tcounts_offset;
	r->mechanism = PROFIL_MECH_AUTO;
	r->budget.samples = samples;
	if (stack_size) {
		stackring_layout(&t->ring, (char *)r + tables, nslots,
		    stack_size);
		r->stacks_offset = tables;
		r->stacks_bytes = ring;
		t->stack = xmalloc(stack_size);
	}
	atomic_store(&r->next_slot, 1);
	r->magic = AGENT_MAGIC;		/* last: the region is complete */
	return t;
}

void
timer_region_free(struct timer_region *r)
{
	if (r == NULL)
		return;
	munmap(r->shared, r->size);
	close(r->fd);
	free(r->stack);
	free(r->pc_done);
	free(r->t_done);
	free(r);
}

int
timer_region_accept(struct timer_region *r, uint64_t *so_far, uint64_t count,
    uint64_t now)
{
	unsigned __int128 most = (unsigned __int128)(now > r->start_ns ?
	    now - r->start_ns : 0) * r->ncpus * 2 / r->period_ns + 1024;

	if (most > UINT64_MAX / 2)
		most = UINT64_MAX / 2;
	if (*so_far > (uint64_t)most || count > (uint64_t)most - *so_far) {
		r->refused++;
		return 0;
	}
	*so_far += count;
	return 1;
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

/*
 * The first entry from i on of a table of n u64 at off that lies in a
 * page the agent wrote; n if none.  *end: where that run of written pages
 * ends (0 at first).
 */
static uint64_t
next_written(int fd, uint64_t off, uint64_t n, uint64_t i, uint64_t *end)
{
	if (i >= *end) {
		i = table_seek(fd, off, i, n, SEEK_DATA);
		*end = table_seek(fd, off, i, n, SEEK_HOLE);
	}
	return i;
}

/*
 * The slot of a table entry, if it is one the recorder opened (and did
 * not refuse): its index, or 0.
 */
static unsigned
opened_slot(const struct slot_maps *slots, uint64_t slot)
{
	return slot != 0 && slot < AGENT_MAX_PROCS && slots[slot].pid != 0 &&
	    !slots[slot].refused ? (unsigned)slot : 0;
}

/* A thread id the kernel could have given (PID_MAX_LIMIT is 2^22). */
/*
 * What a count has grown by since *done, and *done moved to it: a count
 * that went down (the program wrote over it) gives nothing, and is taken
 * from there.
 */
static uint64_t
since(uint64_t count, uint64_t *done)
{
	uint64_t d = count > *done ? count - *done : 0;

	*done = count;
	return d;
}

static int
possible_tid(uint64_t tid)
{
	return tid != 0 && tid <= (1u << 22);
}

/* Every thread's count, to its process (the slot's pid). */
static void
resolve_threads(struct builder *b, struct timer_region *r,
    struct slot_maps *slots, pid_t only_pid, uint64_t now)
{
	const volatile uint64_t *keys = (const uint64_t *)((char *)r->shared +
	    r->tkeys_offset);
	const volatile uint64_t *counts = (const uint64_t *)((char *)r->shared +
	    r->tcounts_offset);
	uint64_t tlost = since(r->shared->tlost, &r->tlost_done);

	for (uint64_t i = 0, end = 0; (i = next_written(r->fd, r->tkeys_offset,
	    r->tcapacity, i, &end)) < r->tcapacity; i++) {
		uint64_t key, count;
		unsigned slot;
		pid_t pid;

		if ((key = keys[i]) == 0 ||
		    (count = since(counts[i], &r->t_done[i])) == 0)
			continue;
		if ((slot = opened_slot(slots, key >> 32)) == 0 ||
		    !possible_tid((uint32_t)key)) {
			r->refused++;
			continue;
		}
		if (!timer_region_accept(r, &r->thread_samples, count, now))
			continue;
		pid = slots[slot].pid;
		if (only_pid != 0 && pid != only_pid)
			continue;
		builder_thread_samples(b, pid, (pid_t)(uint32_t)key, count);
		if (builder_thread_unnamed(b, pid, (pid_t)(uint32_t)key))
			timer_slots_name_thread(b, pid, (pid_t)(uint32_t)key);
	}
	/* (the threads' lost are in no figure; only judged, as counts) */
	if (tlost != 0)
		timer_region_accept(r, &r->thread_samples, tlost, now);
}

/*
 * Sample pc of slot (count of them, a capture having failed or none
 * taken) to the sink: with stacks, as a stack not taken.  The pcs are
 * the agent's, in the process's maps as the recorder read them, late:
 * code unmapped since still places them.
 */
static void
resolve_pc(struct builder *b, struct slot_maps *s, uint64_t pc,
    uint64_t count, int stacks)
{
	struct sample_sink k = { b, NULL, NULL };
	struct sample_place at = { s->space, s->uw, 1 };
	struct sample smp = { .pid = s->pid, .tid = s->pid, .weight = count,
	    .mode = pc == AGENT_KERNEL_PC ? SAMPLE_KERNEL : SAMPLE_USER,
	    .pc = pc == AGENT_KERNEL_PC ? 0 : pc, .stacks = stacks,
	    .ours = 1 };

	sample_take(&k, &at, &smp);
}

void
timer_region_resolve(struct builder *b, struct timer_region *r,
    struct slot_maps *slots, pid_t only_pid, uint64_t now)
{
	const volatile uint64_t *keys = (const uint64_t *)((char *)r->shared +
	    r->keys_offset);
	const volatile uint64_t *counts = (const uint64_t *)((char *)r->shared +
	    r->counts_offset);
	uint64_t lost = since(r->shared->lost, &r->lost_done);

	for (uint64_t i = 0, end = 0; (i = next_written(r->fd, r->keys_offset,
	    r->capacity, i, &end)) < r->capacity; i++) {
		uint64_t key, count;
		unsigned slot;

		if ((key = keys[i]) == 0 ||
		    (count = since(counts[i], &r->pc_done[i])) == 0)
			continue;
		if ((slot = opened_slot(slots, key >> 48)) == 0) {
			r->refused++;
			continue;
		}
		if (!timer_region_accept(r, &r->samples, count, now))
			continue;
		slots[slot].counted += count;
		if (only_pid != 0 && slots[slot].pid != only_pid)
			continue;
		resolve_pc(b, &slots[slot], key & ((1ull << 48) - 1), count,
		    r->ring.shared != NULL);
	}
	if (lost != 0 && timer_region_accept(r, &r->samples, lost, now)) {
		builder_lost(b, lost);
		r->lost += lost;
	}
	resolve_threads(b, r, slots, only_pid, now);
}

void
timer_region_weights(struct timer_region *r, const struct record_opts *o,
    pid_t only_pid, const struct slot_maps *slots, struct record_result *res)
{
	uint64_t base = o->period_ns, all = r->lost, kept = r->lost;
	double share;

	for (unsigned slot = 1; slot < AGENT_MAX_PROCS; slot++) {
		all += slots[slot].counted + slots[slot].captured;
		if (slots[slot].pid == only_pid)
			kept += slots[slot].counted + slots[slot].captured;
	}
	res->taken = atomic_load(&r->shared->budget.taken);
	res->weight_sq = atomic_load(&r->shared->budget.weight_sq);
	/*
	 * Each sample counts at least 1 and its square no more than all of
	 * them squared: far more taken than counted (and lost: only a sample
	 * that faulted is in neither), or squares past that, could not be
	 * true.
	 */
	if (res->taken / 2 > r->samples + 512 || (r->samples <= UINT32_MAX &&
	    res->weight_sq > r->samples * r->samples)) {
		r->refused++;
		res->taken = res->weight_sq = r->samples;
	}
	res->slowest_ns = base << budget_shift(o->samples, base, res->taken);
	if (only_pid == 0)
		return;
	share = all > 0 ? (double)kept / (double)all : 1;
	res->taken = (uint64_t)((double)res->taken * share + 0.5);
	res->weight_sq = (uint64_t)((double)res->weight_sq * share + 0.5);
	if (res->weight_sq < res->taken)
		res->weight_sq = res->taken;
}
