/*
 * test-archive.c - `profil archive` end to end: the names it keeps in the
 * profile name the program as it was when recorded, read anywhere, with
 * the program rebuilt in its place (rebuilt.h) and no other help; the
 * counts compared exactly with those of the profile read with the right
 * file.
 */
#include <limits.h>
#include <stdio.h>

#include "e2e.h"
#include "harness.h"

#include "rebuilt.h"

/*
 * profil archive keeps the names in the profile: read anywhere, with the
 * rebuilt program in place and no other help, it names the same.
 */
static void
test_archive(void **state)
{
	char root[PATH_MAX], archived[PATH_MAX + 16], at[2 * PATH_MAX];
	char *arch[] = { profil_bin, "archive", "--symfs", root, "-o", archived,
	    prf, NULL };
	char *check[] = { profil_bin, "check", archived, NULL };
	char *argv[] = { profil_bin, "report", "--format", "csv", archived, NULL };
	struct shares s;
	struct run r;

	(void)state;
	snprintf(root, sizeof root, "%s/symfs", tmpdir);
	snprintf(archived, sizeof archived, "%s/archived.prf", tmpdir);
	snprintf(at, sizeof at, "%s%s", root, app);
	copy(build_a, at);
	run(&r, arch);
	if (r.status != 0)
		fail_msg("archive exited %d: %s", r.status, r.err);
	run(&r, check);
	assert_int_equal(r.status, 0);
	report_run(&s, argv);
	assert_named_right(&s, "archived");
	assert_true(s.total == right.total);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_archive),
	};
	return cmocka_run_group_tests(tests, rebuilt_setup, e2e_teardown);
}
