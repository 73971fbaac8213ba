/*
 * share.h - the one definition of a share and its 95% error, for every
 * view of `profil report` and for diff.  A share is a part of the
 * profile (a row: a function, a path of the call tree, an object, a
 * thread, ...) over a whole (every sample, or the time of a function for
 * its callers); its error says what sampling left unknown, and nothing
 * else:
 *
 *   - time measured is known: a thread's CPU time counted by its own
 *     clock, a block off the CPU timed by the context switches or the
 *     scheduler's counters where a look found it: error 0;
 *   - CPU samples place the CPU time among code: a row of code that
 *     holds k of the whole's n CPU counts errs as k of n binomial
 *     samples (Wilson's interval; counts of weighted samples as the
 *     samples they are worth: k / scale of n / scale, scale =
 *     weight_sq / samples, report_error_scale), even at k = 0;
 *   - time off the CPU placed by sampling (a thread's blocks too short
 *     to be looked at, shared where its looks found it; its preemptions,
 *     at its last CPU sample) errs by the looks it rests on: the time S
 *     of one such pool (a thread's unseen blocks, or its preemptions)
 *     in the whole, placed by its m looks there, gives a row that holds
 *     j of them the error of j of m binomial looks, times S; a row with
 *     no look of a pool has none of its time and no error from it.
 *
 * The parts add in quadrature, in counts (samples, intervals of time),
 * over the whole's counts; the interval share +- error is then clipped
 * to [0, 100]: the error shown is never more than max(share, 100 -
 * share), so never over 100 points.
 */
#ifndef PROFIL_REPORT_SHARE_H
#define PROFIL_REPORT_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "model/stacks.h"

/* What a profile's shares rest on: its CPU samples' scale, its pools. */
struct share_basis {
	const struct profil_profile *p;
	long off_obj;		/* a wall view's [off-cpu] object, or -1 */
	double scale;		/* CPU counts per sample of equal weight (>= 1) */
	uint32_t *pool;		/* per stack: its pool + 1, 0 for none */
	size_t npools;
	double interval;	/* p's interval in ns (1 when none) */
};

/* One pool's looks and the time they placed, in a part. */
struct share_looks {
	uint32_t pool;
	uint64_t looks;
	uint64_t sampled_ns;
};

/*
 * A part of the profile: a row, or the whole a row is a share of.  Zero
 * it with share_part_init; fill it with the share_part_* below.
 */
struct share_part {
	uint64_t amount;	/* every count it holds (samples, intervals) */
	uint64_t cpu;		/* of which CPU counts placed by sampling */
	int code;		/* a row of code: the CPU samples' error holds
				   even where it has none */
	struct share_looks *looks;	/* per pool it holds looks of */
	size_t nlooks, looks_cap;
	uint32_t last;		/* the index of the pool found last */
};

/*
 * The basis of p's shares (p a profile or a wall view, wall-view.h).
 * b holds pointers into p, which must outlive it.
 */
void share_basis_init(struct share_basis *b, const struct profil_profile *p);
void share_basis_free(struct share_basis *b);

/* Kinds of part: code (a function, object, line, address), or time. */
enum { SHARE_TIME, SHARE_CODE };
/*
 * The kind of a part of function func of s (named on b's profile): time
 * for a wall view's [off-cpu] leaves, else code.
 */
int share_kind_of_func(const struct share_basis *b, const struct stacks *s,
    size_t func);
void share_part_init(struct share_part *r, int kind);
void share_part_free(struct share_part *r);

/* n CPU counts whose place in the code was sampled. */
void share_part_cpu(struct share_part *r, uint64_t n);
/* n counts measured: a thread's or process's own, time timed. */
void share_part_measured(struct share_part *r, uint64_t n);
/*
 * Stack i of b's profile, whole: its CPU counts, or its time off the
 * CPU with the part of it placed by sampling and the looks that placed
 * it.  Add a stack once to a part, however often the part's function
 * is on it.
 */
void share_part_stack(const struct share_basis *b, struct share_part *r,
    size_t i);
/* Every count of part src too (src and r hold no stack both). */
void share_part_add(struct share_part *r, const struct share_part *src);
/* Every count of the profile: the whole of most views. */
void share_part_all(const struct share_basis *b, struct share_part *r);
/* The stacks of time off the CPU whose leaf is code (what it waited in). */
void share_part_leaf(const struct share_basis *b, struct share_part *r,
    uint64_t code);

/*
 * A flat row's own part (funcs.h), r made here: a function's CPU
 * samples, or the time off the CPU of a leaf of [off-cpu].
 */
void share_part_row(const struct share_basis *b, struct share_part *r,
    const struct func_row *row);

/*
 * Every function's inclusive part: the stacks it is on, each once (s
 * named on b's profile); a function of [off-cpu] is time, the others
 * code.  malloc'd, s->nfuncs of them; free with share_parts_free.
 */
struct share_part *share_parts_inclusive(const struct share_basis *b,
    const struct stacks *s);
void share_parts_free(struct share_part *v, size_t n);

/* Whether stack i is time off the CPU (a wall view's [off-cpu] leaf). */
int share_stack_offcpu(const struct share_basis *b, size_t i);

/* The share of r in whole, in percent (0 of a whole of nothing). */
double share_percent(const struct share_part *r,
    const struct share_part *whole);

/*
 * The 95% half-width of r's share of whole, in points, as above: 0 for
 * what was measured, never more than max(share, 100 - share).  r must
 * be a part of whole (every count of r in whole).
 */
double share_error95(const struct share_basis *b, const struct share_part *r,
    const struct share_part *whole);

/*
 * Wilson's 95% half-width of the proportion k of n samples, each of
 * them worth 1 / scale of a sample of equal weight, as a fraction (not
 * points); 0 when n is 0.  The error of the CPU part above.
 */
double share_wilson95(double k, double n, double scale);

#endif
