/*
 * test-elfcache.c - cli/record/core/elfcache.c: a file the recording opened is
 * shared, not opened again; a file replaced at the same path is not the
 * one cached.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"

#include "../../cli/record/core/elfcache.c"
#include "../../cli/util.c"

static uint16_t
type_of(Elf *elf)
{
	GElf_Ehdr eh;

	assert_non_null(gelf_getehdr(elf, &eh));
	return eh.e_type;
}

static void
copy(const char *from, const char *to)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

static void
test_shared_then_replaced(void **state)
{
	char lib[PATH_MAX], exe[PATH_MAX];
	const char *path = tmp("object"), *next = tmp("object.new");
	Elf *a, *b, *c;

	(void)state;
	/* an ET_DYN file (the library), then an ET_EXEC one (the static workload) */
	snprintf(lib, sizeof lib, "%s/../libprofil.so.0", bindir);
	snprintf(exe, sizeof exe, "%s", workload_static);
	copy(lib, path);
	a = elfcache_open(path);
	assert_non_null(a);
	b = elfcache_open(path);
	assert_ptr_equal(a, b);		/* one descriptor, two references */
	assert_int_equal(type_of(a), ET_DYN);
	copy(exe, next);
	assert_int_equal(rename(next, path), 0);
	c = elfcache_open(path);
	assert_non_null(c);
	assert_ptr_not_equal(c, a);
	assert_int_equal(type_of(c), ET_EXEC);
	/* the first still reads, its references let go one by one */
	assert_int_equal(type_of(b), ET_DYN);
	assert_int_equal(elf_end(a), 2);	/* b's and the cache's are left */
	assert_int_equal(elf_end(b), 1);	/* the cache's */
	elf_end(c);
}

static void
test_not_elf_or_missing(void **state)
{
	const char *text = tmp("text");
	FILE *f = fopen(text, "w");

	(void)state;
	assert_non_null(f);
	fputs("not an object\n", f);
	fclose(f);
	assert_null(elfcache_open(text));
	assert_null(elfcache_open(tmp("no-such-file")));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_then_replaced),
		cmocka_unit_test(test_not_elf_or_missing),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
