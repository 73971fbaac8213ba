/*
 * timeline-data.h - a profile's timeline (profil.h: slice_ns, nslices,
 * timeline) as the timeline view and its phases read it: per thread, per
 * slice of the run, the time spent on the CPU in each leaf function and
 * off it in each wait (a wall profile's), in nanoseconds.  Built on the
 * named stacks (model/stacks.h) so that functions are the call views'.
 *
 *     0        slice_ns   2*slice_ns          (nslices-1)*slice_ns   span_ns
 *     | slice 0 | slice 1 |   ...   | slice nslices-1 |    (the last cut
 *                                                          at the run's end)
 */
#ifndef PROFIL_REPORT_TIMELINE_DATA_H
#define PROFIL_REPORT_TIMELINE_DATA_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "model/stacks.h"
#include "symbols/offcpu.h"

#define TLDATA_NO_FUNC	UINT32_MAX

/*
 * What a thread did: on the CPU in function func (the stack's leaf, the
 * program's own below any kernel functions), or off it waiting in code
 * (a PROFIL_OFFCPU_* or system call number) in func: where it was
 * preempted or faulted, or for a system call the function that called
 * it, the first of the stack outside the object of the call's wrapper
 * (load_config, not read in libc); TLDATA_NO_FUNC when the stack has no
 * function above the wait.
 */
struct tldata_what {
	int off;
	uint32_t func;		/* into the stacks' funcs */
	uint64_t code;		/* off: what it waited in */
	int kind;		/* off: offcpu_kind(code) */
};

/* One thread's time in one slice doing one thing. */
struct tldata_cell {
	uint32_t slice;
	uint32_t what;		/* into the timeline's whats */
	double ns;
};

struct tldata_thread {
	uint32_t pid, tid;
	const char *name;	/* its thread record's, or "" */
	struct tldata_cell *cells;	/* by slice, then what; each once */
	size_t ncells;
	double cpu_ns, off_ns;	/* its totals */
};

struct tldata {
	const struct profil_profile *p;
	const struct stacks *s;
	uint64_t slice_ns, nslices;
	uint64_t span_ns;	/* the run: where the last slice ends */
	int wall;		/* its time off the CPU known (a wall one) */
	struct tldata_what *whats;
	size_t nwhats;
	struct tldata_thread *threads;	/* by pid, then tid */
	size_t nthreads;
};

/*
 * The timeline of p (a profile, or a view of one: profile/wall-view.h),
 * its stacks named in s, into t; free with tldata_free.  0, or -1 with
 * a one-line cause when p has none (no call stacks, or recorded before
 * profil kept timelines).  A CPU sample stands for interval_ns of CPU
 * time; time off the CPU is a wall profile's own, in ns.
 */
int tldata_build(struct tldata *t, const struct profil_profile *p,
    const struct stacks *s, char *cause, size_t cause_size);
void tldata_free(struct tldata *t);

/* Slice k's start and end in ns after the run's start. */
uint64_t tldata_slice_start(const struct tldata *t, uint64_t k);
uint64_t tldata_slice_end(const struct tldata *t, uint64_t k);

/*
 * A stretch of the run, [start_ns, end_ns), and one thread's time in
 * it: on the CPU, and off it by kind (symbols/offcpu.h: OFFCPU_IO, ...).
 */
struct tldata_column {
	uint64_t start_ns, end_ns;
	double cpu_ns;
	double off_ns[OFFCPU_NKINDS];
};

/*
 * The run cut into n equal columns (n at most nslices: no column is
 * finer than a slice), thread th's time in each into cols[0..n): a
 * slice that straddles two columns counted in each in proportion to
 * its time there.
 */
void tldata_columns(const struct tldata *t, size_t th,
    struct tldata_column *cols, size_t n);

/*
 * The run in bins of per slices (the last may hold fewer), thread th's
 * time in each into cols[0..n), n = ceil(nslices / per): columns that
 * are the profile's own slices, for the numbers (CSV, JSON).
 */
void tldata_bins(const struct tldata *t, size_t th, uint64_t per,
    struct tldata_column *cols, size_t n);

/* A what's function's name as the views show it, or NULL for none. */
const char *tldata_func_name(const struct tldata *t, uint32_t func);

#endif
