/*
 * timer-region.h - the memory the timer engine shares with the library it
 * injects (lib/agent.h): made before the program starts, filled by the
 * agent in each of its processes (a slot each, timer-slots.h), and read
 * at the end into the builder: the pc histogram, the threads' counts and
 * the weights.
 *
 * The program can write over all of it (it finds the mapping in its own
 * /proc/self/maps), so nothing read from it is trusted: every size,
 * offset and index comes from the layout the recorder made (struct
 * timer_region, never from the region's own header), the memfd is sealed
 * at its size (a mapping shrunk under us would fault), and a record that
 * could not be true is refused and counted (timer_region_accept), which
 * the profile keeps (profil.h, `refused`).
 */
#ifndef PROFIL_RECORD_TIMER_REGION_H
#define PROFIL_RECORD_TIMER_REGION_H

#include <stdint.h>
#include <sys/types.h>

#include "agent/agent.h"
#include "record/core/builder.h"
#include "record/core/record.h"
#include "sampler/stackring.h"
#include "timer-slots.h"

struct timer_region {
	struct agent_region *shared;	/* the mapping: what it holds is the
					   program's to write */
	int fd;				/* its memfd, which the program inherits */
	/* the layout as we made it: the only one used */
	size_t size;
	uint64_t capacity, keys_offset, counts_offset;
	uint64_t tcapacity, tkeys_offset, tcounts_offset;
	struct stackring ring;		/* ring.shared NULL: no call stacks */
	uint64_t tail;			/* the next capture to take */
	unsigned char *stack;		/* ring.stack_size bytes: a capture's
					   stack, copied out before use */
	/*
	 * What could be true: every count is of samples, each at least a
	 * period of some CPU's time since the start, so all of them together
	 * stay within twice the machine's CPU time since then (counted
	 * apart for the threads' table, which counts the same samples).
	 */
	uint64_t start_ns, period_ns;
	uint64_t ncpus;
	uint64_t samples, thread_samples;	/* accepted so far */
	uint64_t lost;			/* samples kept nowhere, accepted */
	uint64_t refused;		/* records refused: could not be true */
	/*
	 * What each pc and thread entry counted when last resolved (the
	 * counts grow in the program's memory; each resolve takes what
	 * came since: record --every's periods), and the lost likewise.
	 */
	uint64_t *pc_done, *t_done, lost_done, tlost_done;
};

/*
 * The shared region, laid out for rate_hz and the budget's samples:
 * header, pc and thread tables, and with stack_size a ring of stack
 * captures (stackring.h) at the end, in a memfd sealed at its size that
 * the program inherits.  period_ns is the base period, start_ns when the
 * recording starts (CLOCK_MONOTONIC).  NULL if it cannot be made (errno
 * says why).  Free with timer_region_free.
 */
struct timer_region *timer_region_new(unsigned rate_hz, uint64_t samples,
    unsigned stack_size, uint64_t period_ns, uint64_t start_ns);
/*
 * The same with tables of capacity pcs and tcapacity threads and a ring
 * of nslots captures (each a power of 2): small regions for the fuzz
 * target.
 */
struct timer_region *timer_region_new_sized(unsigned rate_hz,
    uint64_t samples, unsigned stack_size, uint64_t period_ns,
    uint64_t start_ns, uint64_t capacity, uint64_t tcapacity,
    uint64_t nslots);
void timer_region_free(struct timer_region *r);

/*
 * Whether count more samples read from the region could be true, now
 * (CLOCK_MONOTONIC): 1, and they are added to *so_far (&r->samples, or
 * &r->thread_samples for the threads' table); 0, and the record is
 * counted refused.
 */
int timer_region_accept(struct timer_region *r, uint64_t *so_far,
    uint64_t count, uint64_t now);

/*
 * Every pc of the histogram, to its object and file offset; with only_pid
 * (--no-children) the samples of other processes are left out: the
 * children were sampled (they inherit the library), but not profiled.
 * With stacks, the histogram holds only the samples whose capture failed
 * (the others came with their stacks, timer_stacks_drain): each counts
 * with a stack cut at once ("no stack taken").  Then the lost samples,
 * and each thread's count to its process.  An entry of a slot the
 * recorder never opened, or refused, is refused; each slot's counted
 * gets what it kept.
 */
/*
 * Called again (record --every), it takes what was counted since the
 * last call.
 */
void timer_region_resolve(struct builder *b, struct timer_region *r,
    struct slot_maps *slots, pid_t only_pid, uint64_t now);

/*
 * The weights record's figures (profil.h) into res: the region counts
 * every sample of every process.  With --no-children the profile keeps
 * only the program's, so taken and the squared weights are scaled to its
 * share of all the counts (each slot's counted and captured, all drained
 * by then): the same error scale, for its samples.  Figures that could
 * not be true are refused, and the samples as counted taken instead.
 */
void timer_region_weights(struct timer_region *r,
    const struct record_opts *o, pid_t only_pid,
    const struct slot_maps *slots, struct record_result *res);

#endif
