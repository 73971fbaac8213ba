/*
 * plan.c - building and checking a plan.  A plan is built and sealed by
 * one thread, then published to the signal handler (session.c) and never
 * modified again except for atomic "off" flags.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/bins.h"
#include "plan/mappings.h"
#include "plan/plan.h"

struct plan *
plan_new(size_t capacity)
{
	struct plan *plan = calloc(1, sizeof *plan);

	if (plan == NULL)
		return NULL;
	if (capacity > 0) {
		plan->ranges = calloc(capacity, sizeof *plan->ranges);
		if (plan->ranges == NULL) {
			free(plan);
			return NULL;
		}
	}
	plan->capacity = capacity;
	return plan;
}

void
plan_free(struct plan *plan)
{
	if (plan == NULL)
		return;
	free(plan->ranges);
	free(plan);
}

int
plan_add(struct plan *plan, const struct plan_range *range)
{
	struct plan_range *r;

	if (plan->nranges == plan->capacity) {
		errno = ENOMEM;
		return -1;
	}
	r = &plan->ranges[plan->nranges++];
	memcpy(r, range, sizeof *r);
	atomic_init(&r->off, 0);
	return 0;
}

static int
by_lowpc(const void *a, const void *b)
{
	const struct plan_range *x = a, *y = b;

	return x->lowpc < y->lowpc ? -1 : x->lowpc > y->lowpc;
}

int
plan_seal(struct plan *plan)
{
	size_t i;

	if (plan->nranges > 1)
		qsort(plan->ranges, plan->nranges, sizeof *plan->ranges, by_lowpc);
	for (i = 0; i < plan->nranges; i++) {
		if (plan->ranges[i].lowpc > plan->ranges[i].lastpc)
			goto invalid;
		if (i > 0 && plan->ranges[i].lowpc <= plan->ranges[i - 1].lastpc)
			goto invalid;
	}
	return 0;
invalid:
	errno = EINVAL;
	return -1;
}

/*
 * The bytes of counters range r can touch.  -1 if they would not fit in
 * memory (the range is then unusable).
 */
static int
range_span(const struct plan_range *r, void **first, size_t *bytes)
{
	uint64_t lo = bins_index(r->lowpc, r->offset, r->granule_shift, r->scale);
	uint64_t hi = bins_index(r->lastpc, r->offset, r->granule_shift, r->scale);
	unsigned __int128 start, end;

	if (lo == BINS_NONE || hi == BINS_NONE || hi < lo)
		return -1;
	start = (unsigned __int128)(uintptr_t)r->counters +
	    (unsigned __int128)lo * r->counter_bytes;
	end = (unsigned __int128)(uintptr_t)r->counters +
	    ((unsigned __int128)hi + 1) * r->counter_bytes;
	if (end - 1 > UINTPTR_MAX)
		return -1;	/* the counters would wrap around memory */
	*first = (void *)(uintptr_t)start;
	*bytes = (size_t)(end - start);
	return 0;
}

int
plan_check_writable(const struct plan *plan)
{
	struct mappings maps;
	size_t i;

	/* one reading of the mappings for every span: no page is touched */
	mappings_read(&maps);
	for (i = 0; i < plan->nranges; i++) {
		void *first;
		size_t bytes;

		if (range_span(&plan->ranges[i], &first, &bytes) < 0 ||
		    !mappings_writable(&maps, first, bytes))
			goto fault;
	}
	if (plan->overflow != NULL &&
	    !mappings_writable(&maps, plan->overflow, plan->overflow_bytes))
		goto fault;
	mappings_free(&maps);
	return 0;
fault:
	mappings_free(&maps);
	errno = EFAULT;
	return -1;
}
