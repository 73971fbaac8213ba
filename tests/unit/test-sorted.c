/*
 * test-sorted.c - cli/sorted.h: the index a key falls at in a table
 * sorted by a uint64_t field, as the symbol, FDE, kernel-symbol, scope
 * and gmon lookups use it: the count of elements whose field is at or
 * below the key, ties and both ends included, whatever the field's place
 * in the element.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>

#include "sorted.h"

struct elem {
	uint32_t pad;		/* the key is not first, nor 8-aligned */
	char c;
	uint64_t key;
} __attribute__((packed));

static size_t
upper(const struct elem *v, size_t n, uint64_t key)
{
	return sorted_upper(v, n, sizeof *v, offsetof(struct elem, key), key);
}

static void
test_known_table(void **state)
{
	static const struct elem v[] = {
		{ 0, 'a', 10 }, { 0, 'b', 20 }, { 0, 'c', 20 }, { 0, 'd', 30 },
	};
	(void)state;
	assert_int_equal(upper(v, 0, 10), 0);		/* empty */
	assert_int_equal(upper(v, 4, 0), 0);
	assert_int_equal(upper(v, 4, 9), 0);		/* below the first */
	assert_int_equal(upper(v, 4, 10), 1);		/* at it */
	assert_int_equal(upper(v, 4, 19), 1);
	assert_int_equal(upper(v, 4, 20), 3);		/* past both of a tie */
	assert_int_equal(upper(v, 4, 29), 3);
	assert_int_equal(upper(v, 4, 30), 4);
	assert_int_equal(upper(v, 4, UINT64_MAX), 4);	/* past the last */
}

static void
test_plain_keys(void **state)
{
	static const uint64_t k[] = { 0, 5, UINT64_MAX };

	(void)state;
	assert_int_equal(sorted_upper(k, 3, sizeof *k, 0, 0), 1);
	assert_int_equal(sorted_upper(k, 3, sizeof *k, 0, 4), 1);
	assert_int_equal(sorted_upper(k, 3, sizeof *k, 0, 5), 2);
	assert_int_equal(sorted_upper(k, 3, sizeof *k, 0, UINT64_MAX - 1), 2);
	assert_int_equal(sorted_upper(k, 3, sizeof *k, 0, UINT64_MAX), 3);
}

/* Random sorted tables with many ties: the count a linear scan gives. */
static void
test_against_a_count(void **state)
{
	struct elem v[64];

	(void)state;
	srand(7);
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)rand() % 64;
		uint64_t at = (uint64_t)(rand() % 3);

		for (size_t i = 0; i < n; i++) {
			at += (uint64_t)(rand() % 3);	/* 0: a tie */
			v[i] = (struct elem){ 0, 'x', at };
		}
		for (uint64_t key = 0; key <= at + 2; key++) {
			size_t count = 0;

			for (size_t i = 0; i < n; i++)
				count += v[i].key <= key;
			assert_int_equal(upper(v, n, key), count);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_table),
		cmocka_unit_test(test_plain_keys),
		cmocka_unit_test(test_against_a_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
