/*
 * test-link.c - the library as the linker sees it: its modules call only
 * down the layers of docs/design.md (scripts/check-layers.sh, on the
 * sources and on the built objects).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "e2e.h"
#include "harness.h"

#ifndef SRCDIR
#error "SRCDIR: the source tree (the Makefile sets it)"
#endif
#ifndef BUILDDIR
#error "BUILDDIR: the build directory of these objects (the Makefile sets it)"
#endif

static void
test_modules_call_only_down(void **state)
{
	char *argv[] = { "/bin/sh", SRCDIR "/scripts/check-layers.sh",
	    BUILDDIR, NULL };
	struct run r;

	(void)state;
	run(&r, argv);
	if (r.status != 0)
		fail_msg("check-layers.sh: exit %d\n%s%s", r.status, r.out, r.err);
	assert_non_null(strstr(r.out, "layers: ok"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modules_call_only_down),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
