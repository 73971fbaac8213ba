/*
 * test-bins.c - the pc-to-counter arithmetic of bins.h/bins.c, against
 * values worked out by hand from index = ((pc - offset) / 2) * scale / 65536.
 */
#include <stdlib.h>

#include "harness.h"
#include "plan/bins.h"

#define IDX(pc, off, scale) bins_index((pc), (off), 1, (scale))

static void
test_scale_0x10000_two_bytes_per_counter(void **state)
{
	(void)state;
	assert_int_equal(IDX(0x1000, 0x1000, 0x10000), 0);
	assert_int_equal(IDX(0x1001, 0x1000, 0x10000), 0);
	assert_int_equal(IDX(0x1002, 0x1000, 0x10000), 1);
	assert_int_equal(IDX(0x1000 + 0x1234, 0x1000, 0x10000), 0x91a);
}

static void
test_scale_0x8000_and_0x4000(void **state)
{
	(void)state;
	assert_int_equal(IDX(0x2003, 0x2000, 0x8000), 0);
	assert_int_equal(IDX(0x2004, 0x2000, 0x8000), 1);
	assert_int_equal(IDX(0x2007, 0x2000, 0x4000), 0);
	assert_int_equal(IDX(0x2008, 0x2000, 0x4000), 1);
	assert_int_equal(IDX(0x2000 + 800, 0x2000, 0x4000), 100);
}

static void
test_scale_0x5555_rounds_down(void **state)
{
	(void)state;
	/* q = 3: 3 * 21845 / 65536 = 0.99998 -> 0; q = 4: 1.333 -> 1 */
	assert_int_equal(IDX(6, 0, 0x5555), 0);
	assert_int_equal(IDX(8, 0, 0x5555), 1);
	/* q = 30: 9.9998 -> 9; q = 31: 10.33 -> 10 */
	assert_int_equal(IDX(60, 0, 0x5555), 9);
	assert_int_equal(IDX(62, 0, 0x5555), 10);
}

static void
test_scale_2_maps_65536_bytes(void **state)
{
	(void)state;
	assert_int_equal(IDX(0x10000 + 65535, 0x10000, 2), 0);
	assert_int_equal(IDX(0x10000 + 65536, 0x10000, 2), 1);
	assert_int_equal(IDX(0x10000 + 3 * 65536 + 5, 0x10000, 2), 3);
}

static void
test_pc_below_offset_has_no_counter(void **state)
{
	(void)state;
	assert_true(IDX(0xfff, 0x1000, 0x10000) == BINS_NONE);
	assert_true(IDX(0, 1, 0x10000) == BINS_NONE);
}

static void
test_no_overflow_near_two_to_the_64(void **state)
{
	(void)state;
	/* q = 2^63 - 1 */
	assert_true(IDX(UINTPTR_MAX, 0, 0x10000) == 0x7fffffffffffffffull);
	/* (2^63 - 1) * 0xffff / 2^16 = 2^63 - 2^47 - 1 (64-bit math would wrap) */
	assert_true(IDX(UINTPTR_MAX, 0, 0xffff) == 0x7fff7fffffffffffull);
	assert_true(IDX(UINTPTR_MAX - 1, UINTPTR_MAX - 3, 0x10000) == 1);
	/* an index beyond 64 bits is "no counter", not a wrapped small one */
	assert_true(bins_index(UINTPTR_MAX, 0, 0, 1ull << 40) == BINS_NONE);
}

static void
test_granule_four_for_uint_counters(void **state)
{
	(void)state;
	assert_int_equal(bins_index(0x1003, 0x1000, 2, 0x10000), 0);
	assert_int_equal(bins_index(0x1004, 0x1000, 2, 0x10000), 1);
}

static void
test_last_pc_hand_values(void **state)
{
	uintptr_t last;

	(void)state;
	/* 50 counters of 2 bytes from 0x1000: last counted pc 0x1063 */
	assert_int_equal(bins_last_pc(0x1000, 1, 0x10000, 50, &last), 0);
	assert_true(last == 0x1063);
	/* scale 0x5555, 10 counters: q < ceil(655360 / 21845) = 31 */
	assert_int_equal(bins_last_pc(0, 1, 0x5555, 10, &last), 0);
	assert_true(last == 61);
	/* reaching the top of memory clamps */
	assert_int_equal(bins_last_pc(UINTPTR_MAX - 10, 1, 0x10000, 1000, &last), 0);
	assert_true(last == UINTPTR_MAX);
	assert_int_equal(bins_last_pc(0, 1, 0x10000, 0, &last), -1);
	assert_int_equal(bins_last_pc(0, 1, 0, 10, &last), -1);
}

/* The defining property, on many random cases: last is the boundary. */
static void
test_last_pc_is_the_boundary(void **state)
{
	static const uint64_t scales[] = { 2, 3, 0x4000, 0x5555, 0x8000,
	    0xffff, 0x10000, 0x12345, 0x20000 };
	unsigned seed = 12345;
	int i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		uintptr_t offset = (uintptr_t)rand_r(&seed) << 12;
		uint64_t scale = scales[rand_r(&seed) % 9];
		unsigned shift = 1 + rand_r(&seed) % 2;
		uint64_t n = 1 + rand_r(&seed) % 100000;
		uintptr_t last;

		assert_int_equal(bins_last_pc(offset, shift, scale, n, &last), 0);
		assert_true(bins_index(last, offset, shift, scale) < n);
		if (last != UINTPTR_MAX)
			assert_true(bins_index(last + 1, offset, shift, scale) >= n);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_0x10000_two_bytes_per_counter),
		cmocka_unit_test(test_scale_0x8000_and_0x4000),
		cmocka_unit_test(test_scale_0x5555_rounds_down),
		cmocka_unit_test(test_scale_2_maps_65536_bytes),
		cmocka_unit_test(test_pc_below_offset_has_no_counter),
		cmocka_unit_test(test_no_overflow_near_two_to_the_64),
		cmocka_unit_test(test_granule_four_for_uint_counters),
		cmocka_unit_test(test_last_pc_hand_values),
		cmocka_unit_test(test_last_pc_is_the_boundary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
