/*
 * phases-edges.c - where a phase changes (phases-internal.h): each
 * boundary of runs labelled over a window moved to where the raw bins on
 * either side fit their keys best, and within a bin where the data say
 * (a wait measured off the CPU began or ended there; samples enough to
 * split a bin).  Invariant: a boundary moves within the window it was
 * given and leaves each run at least a bin.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli.h"
#include "phases-internal.h"

/*
 * Key k's evidence in bin b against key other, for placing a boundary
 * between them: its time there, but for none the whole bin where the
 * thread had no time at all, else nothing (a busy thread's bin holding
 * one sample of 2 ms is not half idle), and against none, any time on
 * the CPU (a sample elsewhere says the thread ran).
 */
static double
evidence(const struct phase_series *se, uint32_t k, uint32_t other, size_t b)
{
	double on = 0;

	if (k != se->none && other != se->none)
		return phases_raw(se, k, b, b + 1);
	for (size_t i = se->first[b]; i < se->first[b + 1]; i++) {
		uint32_t key = se->v[i].key;

		if (k == se->none && key != se->none)
			return 0;
		if (se->keys[key].state == PHASE_ON_CPU)
			on += se->v[i].ns;
	}
	if (k != se->none)
		return se->keys[k].state == PHASE_ON_CPU ? on :
		    phases_raw(se, k, b, b + 1);
	return (double)(phases_bin_end(se, b) - phases_bin_start(se, b));
}

/* The best place for the boundary before run i + 1, between bins lo, hi. */
static size_t
fit_one(const struct phase_series *se, const struct phase_run *r, size_t i,
    size_t lo, size_t hi, double *f)
{
	size_t first = SIZE_MAX, last = 0, best = SIZE_MAX, mid;
	double fbest = -INFINITY;

	/* f[t - lo]: how well a boundary at t fits, sum(left - right) */
	for (size_t t = lo; t <= hi; t++) {
		f[t - lo] = t == lo ? 0 : f[t - lo - 1] +
		    evidence(se, r[i].key, r[i + 1].key, t - 1) -
		    evidence(se, r[i + 1].key, r[i].key, t - 1);
		if (f[t - lo] > fbest)
			fbest = f[t - lo];
	}
	for (size_t t = lo; t <= hi; t++)
		if (f[t - lo] == fbest) {
			first = first < t ? first : t;
			last = t;
		}
	/* the best place nearest the middle of the best ones */
	mid = first + (last - first) / 2;
	for (size_t t = lo; t <= hi; t++) {
		size_t d = t > mid ? t - mid : mid - t;

		if (f[t - lo] == fbest && (best == SIZE_MAX ||
		    d < (best > mid ? best - mid : mid - best)))
			best = t;
	}
	return best;
}

/*
 * A boundary at bin t between keys a and b put where a wait measured off
 * the CPU (its time exact, from the switches) began or ended: b waiting
 * from the end of its first bin less its time there (bins with neither
 * before it are a's: nothing says they were b's); a waiting until the
 * start of its last bin and its time there.  Else bin t's start.  May
 * move *t, within [lo, hi].
 */
/*
 * A boundary at bin t between keys a and b, both known by samples, put
 * within the two bins around it in proportion to their times there: a
 * busy thread changing 1.5 ms into the first of two 2 ms bins leaves
 * about 1.5 ms of a and 2.5 of b.
 */
static uint64_t
sampled_edge(const struct phase_series *se, uint32_t a, uint32_t b, size_t t)
{
	uint64_t from = phases_bin_start(se, t - 1), to = phases_bin_end(se, t);
	double in_a = phases_raw(se, a, t - 1, t + 1);
	double in_b = phases_raw(se, b, t - 1, t + 1);

	/* a few samples a bin at least, or the bin's edge is as good */
	if (!(in_a + in_b > 0) || (double)(to - from) <
	    8.0 * (double)se->t->p->interval_ns)
		return phases_bin_start(se, t);
	return from + (uint64_t)((double)(to - from) * in_a / (in_a + in_b));
}

static uint64_t
measured_edge(const struct phase_series *se, uint32_t a, uint32_t b,
    size_t *t, size_t lo, size_t hi)
{
	size_t k = *t;

	if (se->keys[b].state == PHASE_OFF_CPU) {
		/* the bin b began in: the one before t, or t or past it */
		if (k > lo && phases_raw(se, b, k - 1, k) > 0)
			k--;
		else
			while (k < hi && phases_raw(se, b, k, k + 1) == 0 &&
			    phases_raw(se, a, k, k + 1) == 0)
				k++;
		if (phases_raw(se, b, k, k + 1) == 0)
			return phases_bin_start(se, *t);
		if (k > *t)
			*t = k;
		return phases_bin_end(se, k) - (uint64_t)fmin((double)
		    (phases_bin_end(se, k) - phases_bin_start(se, k)),
		    phases_raw(se, b, k, k + 1));
	}
	if (se->keys[a].state == PHASE_OFF_CPU) {
		/* the bin a ended in: t, or the last before it with any */
		if (phases_raw(se, a, k, k + 1) == 0) {
			while (k > lo && phases_raw(se, a, k - 1, k) == 0 &&
			    phases_raw(se, b, k - 1, k) == 0)
				k--;
			if (phases_raw(se, a, k - 1, k) == 0)
				return phases_bin_start(se, *t);
			*t = k--;
		}
		return phases_bin_start(se, k) + (uint64_t)fmin((double)
		    (phases_bin_end(se, k) - phases_bin_start(se, k)),
		    phases_raw(se, a, k, k + 1));
	}
	return sampled_edge(se, a, b, *t);
}

/*
 * Each boundary moved, within w bins, to where the two sides fit their
 * keys best (fit_one): the change-point of the raw bins, t maximising
 * the left key's evidence before it and the right one's after it.  A
 * smoothed label shifts a boundary by noise and by the window; this
 * does not.  Where the data cannot tell, the middle of the best places;
 * where a wait measured off the CPU begins or ends, there
 * (measured_edge).
 */
void
phases_fit_boundaries(const struct phase_series *se, struct phase_run *r,
    size_t n, size_t w)
{
	double *f = xcalloc(2 * w + 2, sizeof *f);

	for (size_t i = 0; i + 1 < n; i++) {
		size_t at = r[i + 1].b0, t;
		size_t lo = at > r[i].b0 + w ? at - w : r[i].b0 + 1;
		size_t hi = at + w < r[i + 1].b1 - 1 ? at + w : r[i + 1].b1 - 1;
		uint64_t from;

		t = fit_one(se, r, i, lo, hi, f);
		from = measured_edge(se, r[i].key, r[i + 1].key, &t, lo, hi);
		r[i].b1 = r[i + 1].b0 = t;
		r[i + 1].from_ns = from;
	}
	free(f);
}
