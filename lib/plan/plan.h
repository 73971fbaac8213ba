/*
 * plan.h - the ranges a profiling session counts into, as the signal
 * handler sees them: sorted by address, disjoint, never changed after
 * plan_seal() except for the per-range "off" flags a fault sets.
 *
 * Layer: above bins and mappings (the writable check); below the
 * session, which publishes plans to the handler, and the front ends and
 * the agent, which build them.
 */
#ifndef PROFIL_PLAN_H
#define PROFIL_PLAN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct stackring;

struct plan_range {
	uintptr_t lowpc, lastpc;	/* counted: lowpc <= pc <= lastpc */
	uintptr_t offset;		/* index arithmetic: see bins.h */
	uint64_t scale;
	unsigned granule_shift;
	unsigned counter_bytes;		/* 2 or 4 */
	void *counters;			/* index 0 is counters[0] */
	atomic_int off;			/* set once its buffer faulted */
};

/*
 * A histogram of raw pcs for samples in no range: an open-addressing hash
 * that signal handlers fill lock-free (profil record's timer engine keeps
 * it in memory shared with the recorder).  Key 0 is empty; a key is
 * tag | pc, with pc below 2^48 and the tag in the top 16 bits (never 0).
 */
struct plan_pcmap {
	uint64_t *keys;
	uint64_t *counts;
	uint64_t mask;			/* capacity - 1; capacity a power of 2 */
	uint64_t *lost;			/* samples that found no room */
	atomic_int off;			/* set once the memory faulted */
	/*
	 * Optional (tkeys NULL: none): the same samples per thread, keyed
	 * (tag >> 16) | tid, counted for every sample kept (in the pc table
	 * or in a capture); *tlost gets those that found no room here.
	 */
	uint64_t *tkeys, *tcounts, tmask, *tlost;
	/*
	 * Optional (NULL: none): where each sample's registers and stack top
	 * go, for the recorder to unwind (stackring.h).  A sample so
	 * captured is not counted in the pc table: only one whose capture
	 * failed is.
	 */
	struct stackring *stacks;
	/*
	 * Whether samples that stand for time in the kernel (the share of
	 * system time since the thread's last sample) count apart, at pc
	 * PLAN_PCMAP_KERNEL_PC, rather than at the user pc the signal found.
	 */
	int kernel_time;
};

#define PLAN_PCMAP_PROBES 64		/* slots tried before giving up */
/*
 * The pc at which a pcmap counts samples that stand for time in the
 * kernel (kernel_time), under the tag as any pc: in no user address
 * space, and below 2^48 like every key's pc.
 */
#define PLAN_PCMAP_KERNEL_PC	((1ull << 48) - 1)

struct plan {
	size_t nranges, capacity;
	struct plan_range *ranges;
	void *overflow;			/* sprofil's overflow counter, or NULL */
	unsigned overflow_bytes;
	atomic_int overflow_off;
	struct plan_pcmap *pcmap;	/* or NULL; not owned by the plan */
};

/* An empty plan for up to capacity ranges; NULL and ENOMEM on failure. */
struct plan *plan_new(size_t capacity);
void plan_free(struct plan *plan);

/*
 * Append a range counting [lowpc, lastpc] (copied; off is cleared).
 * -1 and ENOMEM if the plan is full.
 */
int plan_add(struct plan *plan, const struct plan_range *range);

/*
 * Sort the ranges by address.  -1 and EINVAL if two overlap or one has
 * lowpc > lastpc.
 */
int plan_seal(struct plan *plan);

/*
 * 0 if every counter a range can touch (and the overflow counter) is
 * writable memory, else -1 and EFAULT.  Asks the process's mappings and
 * touches no counter (mappings.h); needs fault_install() for the
 * fallback where /proc is not there.
 */
int plan_check_writable(const struct plan *plan);

/* The range holding pc, or NULL.  Async-signal-safe. */
static inline struct plan_range *
plan_find(const struct plan *plan, uintptr_t pc)
{
	size_t lo = 0, hi = plan->nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct plan_range *r = &plan->ranges[mid];

		if (pc < r->lowpc)
			hi = mid;
		else if (pc > r->lastpc)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

#endif
