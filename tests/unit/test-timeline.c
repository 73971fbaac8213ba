/*
 * test-timeline.c - the recorder's timeline (cli/record/core/timeline.h):
 * values land in the slice of their time, spans split across slices,
 * slices widen (merging two by two) as the run grows or the points pass
 * the budget, and whatever happens every key keeps its total; time
 * moved from one key to another keeps the first's shape and its exact
 * amount.
 */
#include "../../cli/record/core/timeline.c"
#include "../../cli/hmap.c"
#include "../../cli/util.c"

#include "harness.h"

#define MS	1000000ull
#define ORIGIN	(1000 * MS)

/* key's points, summed; and the value in slice (0 if none). */
static uint64_t
sum_of(const struct timeline *tl, uint64_t key, uint32_t slice, uint64_t *at)
{
	struct timeline_point *p;
	size_t n = timeline_points(tl, key, &p);
	uint64_t sum = 0;

	*at = 0;
	for (size_t i = 0; i < n; i++) {
		sum += p[i].value;
		if (p[i].slice == slice)
			*at = p[i].value;
		if (i > 0)
			assert_true(p[i].slice > p[i - 1].slice);
	}
	free(p);
	return sum;
}

/* A value lands in its slice; one before the origin in slice 0. */
static void
test_slices(void **state)
{
	struct timeline *tl = timeline_new(ORIGIN);
	uint64_t w = timeline_slice_ns(tl), at;

	(void)state;
	assert_int_equal(w, 1ull << TIMELINE_MIN_SHIFT);
	timeline_add(tl, 1, ORIGIN + 5 * w + 1, 3);
	timeline_add(tl, 1, ORIGIN - 10, 2);		/* before the start */
	timeline_add(tl, 1, ORIGIN + 2 * w, 4);		/* out of order */
	timeline_add(tl, 1, ORIGIN + 5 * w + 7, 1);
	assert_int_equal(sum_of(tl, 1, 5, &at), 10);
	assert_int_equal(at, 4);
	sum_of(tl, 1, 0, &at);
	assert_int_equal(at, 2);
	sum_of(tl, 1, 2, &at);
	assert_int_equal(at, 4);
	assert_int_equal(timeline_nslices(tl), 6);
	assert_int_equal(timeline_total(tl, 1), 10);
	timeline_free(tl);
}

/*
 * A long run: the slices widen so that there are never more than
 * TIMELINE_MAX_SLICES, and at least half as many once the run is long;
 * every value is kept.
 */
static void
test_widen(void **state)
{
	struct timeline *tl = timeline_new(ORIGIN);
	uint64_t total = 0, at;

	(void)state;
	for (uint64_t t = 0; t < 10000 * MS; t += MS / 2) {	/* 10 s */
		timeline_add(tl, t % 3, ORIGIN + t, 1 + t % 5);
		total += 1 + t % 5;
	}
	assert_true(timeline_nslices(tl) <= TIMELINE_MAX_SLICES);
	assert_true(timeline_nslices(tl) > TIMELINE_MAX_SLICES / 2);
	/* 10 s in 1,024 to 2,048 slices: 4.9 to 9.8 ms each */
	assert_true(timeline_slice_ns(tl) * timeline_nslices(tl) >= 10000 * MS);
	assert_int_equal(sum_of(tl, 0, 0, &at) + sum_of(tl, 1, 0, &at) +
	    sum_of(tl, 2, 0, &at), total);
	timeline_free(tl);
}

/* A span is cut at the slices' edges; none of it is lost. */
static void
test_span(void **state)
{
	struct timeline *tl = timeline_new(ORIGIN);
	uint64_t w = timeline_slice_ns(tl), at;

	(void)state;
	timeline_add_span(tl, 7, ORIGIN + w / 2, 2 * w);	/* 1.5 slices in */
	assert_int_equal(sum_of(tl, 7, 0, &at), 2 * w);
	assert_int_equal(at, w / 2);
	sum_of(tl, 7, 1, &at);
	assert_int_equal(at, w);
	sum_of(tl, 7, 2, &at);
	assert_int_equal(at, w / 2);
	/* from before the start: that part in slice 0 */
	timeline_add_span(tl, 8, ORIGIN - 100, 300);
	sum_of(tl, 8, 0, &at);
	assert_int_equal(at, 300);
	/* a span of 100 s: widened first, kept whole */
	timeline_add_span(tl, 9, ORIGIN, 100000 * MS);
	assert_true(timeline_nslices(tl) <= TIMELINE_MAX_SLICES);
	assert_int_equal(sum_of(tl, 9, 0, &at), 100000 * MS);
	timeline_free(tl);
}

/* Moved: the exact amount, in the shape of the source, which stays. */
static void
test_move(void **state)
{
	struct timeline *tl = timeline_new(ORIGIN);
	uint64_t w = timeline_slice_ns(tl), at;

	(void)state;
	timeline_add(tl, 1, ORIGIN, 1);
	timeline_add(tl, 1, ORIGIN + 3 * w, 2);
	timeline_move(tl, 1, 2, 301, ORIGIN);		/* 1:2 */
	assert_int_equal(sum_of(tl, 2, 0, &at), 301);
	assert_true(at == 100 || at == 101);
	sum_of(tl, 2, 3, &at);
	assert_true(at == 200 || at == 201);
	assert_int_equal(timeline_total(tl, 1), 3);	/* left as it was */
	/* nothing to take the shape of: all at the time given */
	timeline_move(tl, 99, 3, 50, ORIGIN + 4 * w);
	sum_of(tl, 3, 4, &at);
	assert_int_equal(at, 50);
	/* onto itself */
	timeline_move(tl, 1, 1, 3, ORIGIN);
	assert_int_equal(timeline_total(tl, 1), 6);
	timeline_drop(tl, 1);
	assert_int_equal(timeline_total(tl, 1), 0);
	timeline_free(tl);
}

/* Past the budget, slices merge; totals stay. */
static void
test_budget(void **state)
{
	struct timeline *tl = timeline_new(ORIGIN);
	uint64_t keys = 600, w, at, total = 0;

	(void)state;
	/* 600 keys in each of 1,000 slices of 65.5 us: 600,000 points */
	w = timeline_slice_ns(tl);
	for (uint64_t s = 0; s < 1000; s++)
		for (uint64_t k = 0; k < keys; k++)
			timeline_add(tl, k, ORIGIN + s * w, 1);
	assert_true(timeline_slice_ns(tl) > w);
	for (uint64_t k = 0; k < keys; k++)
		total += sum_of(tl, k, 0, &at);
	assert_int_equal(total, keys * 1000);
	assert_true(tl->points <= TIMELINE_BUDGET);
	timeline_free(tl);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_widen),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
