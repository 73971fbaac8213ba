/*
 * phases.h - the phases of a run, found from its timeline (timeline-data.h):
 * the spans where what a thread (or the whole program) did most stays
 * the same, the function on the CPU or the wait off it.  Found robustly
 * to sampling noise (docs/design.md, "Phases"): the slices (grouped into
 * at most PHASES_MAX_BINS bins) smoothed over a few, what did most in
 * each, runs shorter than PHASES_MIN_SHARE of the run (or 3 bins) merged
 * into a neighbour, and each boundary then put where the data's two
 * sides fit best, within one bin of the truth when the data are clean.
 */
#ifndef PROFIL_REPORT_PHASES_H
#define PROFIL_REPORT_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "symbols/offcpu.h"
#include "timeline-data.h"

/* In place of a thread: all threads together. */
#define PHASES_PROGRAM		((size_t)-1)
#define PHASES_MAX_BINS		4096
#define PHASES_MIN_SHARE	0.02

enum {
	PHASE_ON_CPU,		/* a function on the CPU did most */
	PHASE_OFF_CPU,		/* a wait off the CPU did most */
	PHASE_NONE,		/* neither: the thread did not run (a wall
				   profile), or was off the CPU in what a
				   CPU profile cannot tell */
};

struct phase {
	uint64_t start_ns, end_ns;	/* after the run's start */
	int state;			/* PHASE_* */
	/*
	 * ON_CPU: the function; OFF_CPU: the function that waited there
	 * most (timeline-data.h); TLDATA_NO_FUNC for none.
	 */
	uint32_t func;
	uint64_t code;			/* OFF_CPU: what it waited in */
	double what_ns;		/* the time of what names it: the
				   function's on the CPU and runnable in it
				   (preempted), the wait's, or for NONE the
				   time neither on nor off */
	double runnable_ns;	/* ON_CPU: the part of what_ns runnable */
	/* the time in it on the CPU, and off it by kind (offcpu.h) */
	double cpu_ns;
	double off_ns[OFFCPU_NKINDS];
};

struct phases {
	struct phase *v;	/* in time order, each starting where the
				   one before ends: v[0] at 0, v[n-1]
				   ending at the run's span */
	size_t n;
};

/*
 * The phases of thread th of t (an index into t->threads), or with
 * PHASES_PROGRAM of the whole program: cut where its threads' phases
 * change, each span named by the function its threads ran most (on the
 * CPU or runnable in it) where they ran half a CPU or more there, else
 * by the wait they spent most time in; into *out, free with
 * phases_free.
 */
void phases_find(const struct tldata *t, size_t th, struct phases *out);
void phases_free(struct phases *ph);

/* The bins phases are found in: slices per bin, and how many bins. */
uint64_t phases_slices_per_bin(const struct tldata *t);
size_t phases_nbins(const struct tldata *t);

#endif
