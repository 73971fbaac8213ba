/*
 * sprofil.c - glibc's sprofil() on the same core.  Regions may come in
 * any order and overlap; as in glibc, where two overlap the one with the
 * higher pr_off counts, and the other keeps the addresses left over.
 * The entry with pr_off == 0 and pr_scale == 2 is the overflow counter,
 * bumped for pcs in no region.  Unlike glibc 2.36, a pc's first sample in
 * a region is counted there, and a pc below every region is harmless.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/front.h"
#include "plan/bins.h"
#include "plan/plan.h"
#include "profil.h"
#include "session/session.h"

/* Entries sorted by decreasing pr_off; equal ones keep their order. */
static int
by_offset_down(const void *a, const void *b)
{
	const struct prof *x = *(const struct prof *const *)a;
	const struct prof *y = *(const struct prof *const *)b;

	if (x->pr_off != y->pr_off)
		return x->pr_off < y->pr_off ? 1 : -1;
	return x < y ? -1 : x > y;
}

/*
 * Add the parts of [lo, hi] not yet covered by the ranges in plan (which
 * all came from entries with pr_off >= lo) as ranges counting per *tmpl.
 */
static int
add_uncovered(struct plan *plan, struct plan_range *tmpl, uintptr_t lo,
    uintptr_t hi)
{
	size_t i, n = plan->nranges;

	for (;;) {
		uintptr_t gap_end = hi;
		int covered = 0;

		/* the first existing range that touches [lo, hi] from lo on */
		for (i = 0; i < n; i++) {
			struct plan_range *r = &plan->ranges[i];

			if (r->lowpc <= lo && lo <= r->lastpc) {
				covered = 1;
				if (r->lastpc >= hi)
					return 0;
				lo = r->lastpc + 1;
				break;
			}
			if (r->lowpc > lo && r->lowpc <= gap_end)
				gap_end = r->lowpc - 1;
		}
		if (covered)
			continue;
		tmpl->lowpc = lo;
		tmpl->lastpc = gap_end;
		if (plan->nranges == plan->capacity) {
			size_t capacity = plan->capacity * 2 + 4;
			struct plan_range *grown = realloc(plan->ranges,
			    capacity * sizeof *grown);

			if (grown == NULL)
				return -1;
			plan->ranges = grown;
			plan->capacity = capacity;
		}
		plan_add(plan, tmpl);
		if (gap_end == hi)
			return 0;
		lo = gap_end + 1;
	}
}

__attribute__((visibility("default"))) int
sprofil(struct prof *profp, int profcnt, struct timeval *tvp,
    unsigned int flags)
{
	unsigned counter_bytes = flags & PROF_UINT ? 4 : 2;
	struct prof **order = NULL;
	struct plan *plan = NULL;
	uint64_t period_ns;
	int i;

	if (profcnt < 0 || (flags & ~(unsigned)(PROF_UINT | PROF_FAST)) != 0) {
		errno = EINVAL;
		return -1;
	}
	if (profp == NULL || profcnt == 0) {
		session_stop();
		return 0;
	}
	if (front_probe(profp, (size_t)profcnt * sizeof *profp, 0) < 0 ||
	    (tvp != NULL && front_probe(tvp, sizeof *tvp, 1) < 0))
		return -1;
	order = malloc((size_t)profcnt * sizeof *order);
	plan = plan_new((size_t)profcnt);
	if (order == NULL || plan == NULL)
		goto fail;
	for (i = 0; i < profcnt; i++)
		order[i] = &profp[i];
	qsort(order, (size_t)profcnt, sizeof *order, by_offset_down);

	for (i = 0; i < profcnt; i++) {
		const struct prof *p = order[i];
		struct plan_range r = { 0 };
		uint64_t ncounters = p->pr_size / counter_bytes;

		if (p->pr_scale < 2 || ncounters == 0)
			continue;	/* ignored, as in glibc */
		if (p->pr_off == 0 && p->pr_scale == 2) {
			plan->overflow = p->pr_base;
			plan->overflow_bytes = counter_bytes;
			continue;
		}
		r.offset = p->pr_off;
		r.scale = p->pr_scale;
		r.granule_shift = counter_bytes == 4 ? 2 : 1;
		r.counter_bytes = counter_bytes;
		r.counters = p->pr_base;
		bins_last_pc(r.offset, r.granule_shift, r.scale, ncounters,
		    &r.lastpc);
		if (add_uncovered(plan, &r, r.offset, r.lastpc) < 0)
			goto fail;
	}
	free(order);
	order = NULL;
	if (plan->nranges == 0 && plan->overflow == NULL) {
		plan_free(plan);
		session_stop();
		return 0;
	}
	period_ns = session_period_ns(0, PROFIL_MECH_AUTO);
	if (front_start(plan, 0, PROFIL_MECH_AUTO, 0) < 0)
		return -1;
	if (tvp != NULL) {
		tvp->tv_sec = (time_t)(period_ns / 1000000000u);
		tvp->tv_usec = (suseconds_t)(period_ns % 1000000000u / 1000u);
	}
	return 0;
fail:
	free(order);
	plan_free(plan);
	errno = ENOMEM;
	return -1;
}
