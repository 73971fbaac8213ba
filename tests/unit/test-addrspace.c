/*
 * test-addrspace.c - cli/record/core/addrspace.c, the one copy of a process
 * image's mappings: a new mapping replaces what it overlaps (the parts
 * it leaves keep their file offsets), one the same as what is there
 * changes nothing, lookups bisect; a copy is independent; with a
 * history, an address is found at any time unless it was reused for
 * other code.  Checked against a byte-by-byte model of the space.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/record/core/addrspace.c"
#include "../../cli/util.c"

static void
test_replace_and_find(void **state)
{
	struct addr_space *s = addr_space_new(0);
	const struct addr_map *m;
	unsigned gen;

	(void)state;
	addr_space_map(s, 0x1000, 0x5000, 0, 1, "/lib/a.so");
	addr_space_map(s, 0x8000, 0x9000, 0x2000, 2, "/lib/b.so");
	/* in the middle of a: a's two ends stay, each at its own offset */
	addr_space_map(s, 0x2000, 0x3000, 0, 3, "/lib/c.so");
	assert_int_equal(s->n, 4);
	m = addr_space_find(s, 0x1fff);
	assert_non_null(m);
	assert_int_equal(m->obj, 1);
	assert_int_equal(m->pgoff, 0);
	m = addr_space_find(s, 0x2000);
	assert_int_equal(m->obj, 3);
	m = addr_space_find(s, 0x3000);
	assert_int_equal(m->obj, 1);
	assert_int_equal(m->start, 0x3000);
	assert_int_equal(m->pgoff, 0x2000);	/* 0x3000 was a's offset 0x2000 */
	assert_string_equal(m->path, "/lib/a.so");
	assert_null(addr_space_find(s, 0x5000));
	assert_null(addr_space_find(s, 0xfff));
	assert_int_equal(addr_space_find(s, 0x8fff)->obj, 2);
	assert_null(addr_space_find(s, 0x9000));
	/* the same mapping again (a second reading of /proc): no change */
	gen = s->generation;
	addr_space_map(s, 0x8000, 0x9000, 0x2000, 2, "/lib/b.so");
	assert_int_equal(s->generation, gen);
	assert_int_equal(s->n, 4);
	/* over everything */
	addr_space_map(s, 0, 0x10000, 0, -1, NULL);
	assert_int_equal(s->n, 1);
	assert_int_equal(addr_space_find(s, 0x2000)->obj, -1);
	assert_true(s->generation != gen);
	addr_space_clear(s);
	assert_int_equal(s->n, 0);
	assert_null(addr_space_find(s, 0x2000));
	addr_space_free(s);
}

/*
 * Random mappings against a model of every address's object and file
 * offset (16 pages): the space answers as the model does.
 */
static void
test_against_a_model(void **state)
{
	enum { PAGES = 16, PAGE = 0x1000 };
	int obj[PAGES];
	uint64_t off[PAGES];

	(void)state;
	srand(7);
	for (int round = 0; round < 200; round++) {
		struct addr_space *s = addr_space_new(0), *copy;

		for (int p = 0; p < PAGES; p++)
			obj[p] = -2;	/* nothing mapped */
		for (int k = 0; k < 12; k++) {
			int a = rand() % PAGES, b = a + 1 + rand() % (PAGES - a);
			int o = rand() % 5 - 1;
			uint64_t pgoff = (uint64_t)(rand() % 8) * PAGE;

			addr_space_map(s, (uint64_t)a * PAGE, (uint64_t)b * PAGE,
			    pgoff, o, o >= 0 ? "/x" : NULL);
			for (int p = a; p < b; p++) {
				obj[p] = o;
				off[p] = pgoff + (uint64_t)(p - a) * PAGE;
			}
			for (size_t i = 1; i < s->n; i++)
				assert_true(s->maps[i - 1].end <= s->maps[i].start);
		}
		copy = addr_space_copy(s);
		addr_space_clear(s);
		for (int p = 0; p < PAGES; p++) {
			uint64_t pc = (uint64_t)p * PAGE + 0x123;
			const struct addr_map *m = addr_space_find(copy, pc);

			if (obj[p] == -2) {
				assert_null(m);
				continue;
			}
			assert_non_null(m);
			assert_int_equal(m->obj, obj[p]);
			assert_int_equal(pc - m->start + m->pgoff, off[p] + 0x123);
		}
		addr_space_free(copy);
		addr_space_free(s);
	}
}

/*
 * With a history: what a mapping replaced still answers for its time,
 * unless the address now holds other code (another object, or the same
 * at another offset), where no one answer is right.
 */
static void
test_history(void **state)
{
	struct addr_space *s = addr_space_new(1);
	const struct addr_map *m;

	(void)state;
	addr_space_map(s, 0x1000, 0x3000, 0, 1, "/lib/a.so");
	addr_space_map(s, 0x5000, 0x6000, 0, 2, "/lib/b.so");
	/* b is unmapped and c comes where it was: 0x5000 was both */
	addr_space_map(s, 0x5000, 0x6000, 0, 3, "/lib/c.so");
	assert_int_equal(addr_space_find(s, 0x5000)->obj, 3);
	assert_null(addr_space_find_ever(s, 0x5000));
	/* a read again in two parts (mprotect): the same code, one answer */
	addr_space_map(s, 0x1000, 0x2000, 0, 1, "/lib/a.so");
	addr_space_map(s, 0x2000, 0x3000, 0x1000, 1, "/lib/a.so");
	m = addr_space_find_ever(s, 0x2800);
	assert_non_null(m);
	assert_int_equal(0x2800 - m->start + m->pgoff, 0x1800);
	/* an image that exec'd: its code still answers, for its samples */
	addr_space_clear(s);
	assert_null(addr_space_find(s, 0x1800));
	assert_int_equal(addr_space_find_ever(s, 0x1800)->obj, 1);
	addr_space_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_and_find),
		cmocka_unit_test(test_against_a_model),
		cmocka_unit_test(test_history),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
