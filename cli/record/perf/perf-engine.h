/*
 * perf-engine.h - the perf engine's state, which its pieces share.  The
 * engine: per-CPU task-clock sampling events on the program with
 * inherit (threads and children follow), enabled at exec, each with a
 * ring buffer the recorder drains as it fills.  Side-band records
 * (MMAP2, COMM, FORK, EXIT, LOST) keep a map of every process's
 * executable mappings, so each sample is folded into its object's
 * histogram as it arrives; nothing per sample is kept.
 *
 * Its pieces: the events and their rings (perf-events.c), the processes
 * seen (perf-procs.c), the records applied (perf-records.c), the drain
 * (perf-drain.c), the runs of a program (perf.c) and of a running
 * process (perf-attach.c), and what those two share (perf-engine.c).
 * Private to cli/record/perf/perf*.c.
 */
#ifndef PROFIL_RECORD_PERF_ENGINE_H
#define PROFIL_RECORD_PERF_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "hmap.h"
#include "record/core/record.h"

struct ring;				/* perf-events.h */
struct proc;				/* perf-procs.h */
struct pending;				/* perf-drain.c */
struct wall;				/* wall.h */
struct kernel_time;			/* kernel-time.h */

struct engine {
	const struct record_opts *opts;
	struct record_result *result;
	struct builder *b;
	struct ring *rings;
	int nrings;
	int *extra_fds;			/* more events writing into the rings */
	size_t nextra;
	struct proc *procs;
	size_t nprocs;
	struct hmap proc_index;		/* pid -> index + 1 */
	uint8_t *batch;
	size_t batch_len, batch_cap;
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t seq;
	uint64_t latest;		/* the latest record time drained */
	uint64_t throttled;		/* PERF_RECORD_THROTTLE seen */
	int behind;			/* a ring was over half full: catch up */
	/*
	 * Sampling events: nsets sets of one per CPU (set_fds[k * nrings +
	 * c]), set k sampling every period_ns << k.  A fixed rate has one,
	 * which owns its CPU's ring.  A budget (--samples) has a set per
	 * period it may come to, all inherited by every task from the
	 * start, and one enabled at a time: enabling and disabling reach
	 * every inherited copy, in every thread and child, which changing
	 * a period does not (PERF_EVENT_IOC_PERIOD changes the event the
	 * recorder holds, not its copies; and hrtimer events go on
	 * reporting the period they were opened with).  Its rings are
	 * owned by a dummy event that carries the side-band records, so
	 * that none is lost between two sets.
	 */
	int nsets, set;
	int *set_fds;
	size_t nset_fds;
	uint64_t taken, weight_sq;	/* samples, and their weights squared */
	struct wall *wall;		/* --wall: switches go there */
	/*
	 * Only user mode sampled: the kernel's time counted from the
	 * threads' switches instead (kernel-time.h), or NULL.
	 */
	struct kernel_time *ktime;
};

/*
 * --wall: start placing time off the CPU (switch records from now on),
 * and at the end, when the rings are drained for the last time, end it
 * at end_ns and hand it to the builder (the result says what could not
 * be read).
 */
void perf_engine_wall_start(struct engine *e);
void perf_engine_wall_finish(struct engine *e, uint64_t end_ns);
/*
 * Where only user mode is sampled: count the kernel's time from the
 * threads' switches from now on (kernel-time.h); at the end, what the
 * threads still there ran since their last samples, to end_ns.
 */
void perf_engine_kernel_time_start(struct engine *e);
void perf_engine_kernel_time_finish(struct engine *e, uint64_t end_ns);
/* How long to wait before the next drain, in ms: poll_ms, or sooner. */
int perf_engine_poll_ms(const struct engine *e, int poll_ms);
/*
 * After a drain: look at blocked threads if it is time; and with
 * --every, end the period if it is time (periods.h).
 */
void perf_engine_wall_look(struct engine *e);

/* Free e's processes, drain buffers and index; its events are closed. */
void perf_engine_free(struct engine *e);

#endif
