/*
 * test-cli.c - the command line itself, end to end on the real command:
 * options after the operands (never after record's PROGRAM), conflicting
 * views refused.
 */
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

/* One line on stderr, from the named subcommand. */
static void
assert_one_line(const struct run *r, const char *command)
{
	char prefix[64];
	size_t len = strlen(r->err);

	snprintf(prefix, sizeof prefix, "profil: %s: ", command);
	if (strncmp(r->err, prefix, strlen(prefix)) != 0 || len == 0 ||
	    strchr(r->err, '\n') != r->err + len - 1)
		fail_msg("not one '%s' line: [%s]", prefix, r->err);
}

/* NAME in the scratch directory, in buf (PATH_MAX bytes), kept. */
static char *
scratch(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", tmpdir, name);
	return buf;
}

static int
exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* A recording of workload split, made once. */
static const char *
shared_profile(void)
{
	static char prf[PATH_MAX];
	char *prog[] = { workload, "split", "10", NULL };

	if (prf[0] == '\0') {
		scratch(prf, "cli.prf");
		record_ok(prf, prog);
	}
	return prf;
}

static void
copy_file(const char *from, const char *to)
{
	char cmd[PATH_MAX * 2 + 16];

	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

/* ---- options after operands ------------------------------------------- */

static int
lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void
test_options_after_operands(void **state)
{
	const char *prf = shared_profile();
	char copy[PATH_MAX], pb[PATH_MAX], gdir[PATH_MAX], merged[PATH_MAX];
	char expect[PATH_MAX + 32];
	char nope[PATH_MAX], rec[PATH_MAX];
	char *after[] = { profil_bin, "report", (char *)prf, "--limit", "1",
	    "--format", "csv", NULL };
	char *before[] = { profil_bin, "report", "--limit", "1", "--format",
	    "csv", (char *)prf, NULL };
	char *view[] = { profil_bin, "report", (char *)prf, "--pid", "--format",
	    "json", NULL };
	char *export[] = { profil_bin, "export", (char *)prf, "--format", "pprof",
	    "-o", pb, NULL };
	char *gmon[] = { profil_bin, "export", (char *)prf, "-o", gdir,
	    "--format", "gmon", NULL };
	char *merge[] = { profil_bin, "merge", (char *)prf, copy, "-o", merged,
	    "-q", NULL };
	char *diff[] = { profil_bin, "diff", (char *)prf, copy, "--format", "csv",
	    "--limit", "1", NULL };
	char *check[] = { profil_bin, "check", (char *)prf, "-q", NULL };
	char *dashes[] = { profil_bin, "report", "--format", "csv", "--",
	    (char *)prf, NULL };
	char *dash_file[] = { profil_bin, "check", "-q", "--", "-q", NULL };
	char *program[] = { profil_bin, "record", "-q", "-o", rec, "/bin/echo",
	    "-o", nope, "--limit", "1", NULL };
	struct run r, r2;

	(void)state;
	scratch(copy, "cli-copy.prf");
	scratch(pb, "cli.pb.gz");
	scratch(gdir, "cli-gmon");
	scratch(merged, "cli-merged.prf");
	scratch(nope, "nope.prf");
	scratch(rec, "echo.prf");
	copy_file(prf, copy);
	assert_int_equal(mkdir(gdir, 0755), 0);

	run(&r, after);
	assert_int_equal(r.status, 0);
	assert_int_equal(lines(r.out), 2);
	run(&r2, before);
	assert_string_equal(r.out, r2.out);
	run(&r, view);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"exit_status\": "));
	run(&r, export);
	assert_int_equal(r.status, 0);
	assert_true(exists(pb));
	run(&r, gmon);
	assert_int_equal(r.status, 0);
	run(&r, merge);
	if (r.status != 0)
		fail_msg("merge: %s", r.err);
	assert_string_equal(r.err, "");
	assert_true(exists(merged));
	run(&r, diff);
	assert_int_equal(r.status, 0);
	assert_int_equal(lines(r.out), 2);
	run(&r, check);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");

	/* a bare -- ends the options: what follows is an operand */
	run(&r, dashes);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "function,object,", 16) == 0);
	run(&r, dash_file);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "check");
	assert_non_null(strstr(r.err, "-q: "));

	/* record's options stop at the program: the rest is the program's */
	run(&r, program);
	assert_int_equal(r.status, 0);
	snprintf(expect, sizeof expect, "-o %s --limit 1\n", nope);
	assert_string_equal(r.out, expect);
	assert_true(exists(rec));
	assert_false(exists(nope));
}

/* ---- conflicting views ------------------------------------------------ */

static void
test_conflicting_views_refused(void **state)
{
	static const char *const pairs[][4] = {
		/* first, its value, second, its value */
		{ "--threads", NULL, "--objects", NULL },
		{ "--objects", NULL, "--threads", NULL },
		{ "--pid", NULL, "--threads", NULL },
		{ "--processes", NULL, "--objects", NULL },
		{ "--histogram", NULL, "--annotate", "six" },
		{ "--annotate", "six", "--histogram", NULL },
		{ "--histogram=six", NULL, "--histogram=three", NULL },
		{ "--annotate", "six", "--annotate", "three" },
		{ "--html", "page.html", "--pid", NULL },
		{ "--threads", NULL, "--html", "page.html" },
		{ "--inline", NULL, "--threads", NULL },
		{ "--histogram=six", NULL, "--inline", NULL },
	};
	const char *prf = shared_profile();
	char page[PATH_MAX];
	struct run r;

	(void)state;
	scratch(page, "page.html");
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		char *argv[12] = { profil_bin, "report" };
		int n = 2;

		for (int k = 0; k < 4; k += 2) {
			argv[n++] = (char *)pairs[i][k];
			if (pairs[i][k + 1] != NULL)
				argv[n++] = strcmp(pairs[i][k + 1], "page.html") == 0 ?
				    page : (char *)pairs[i][k + 1];
		}
		argv[n++] = (char *)prf;
		argv[n] = NULL;
		run(&r, argv);
		if (r.status != 2)
			fail_msg("report %s %s: exit %d", pairs[i][0], pairs[i][2],
			    r.status);
		assert_one_line(&r, "report");
		assert_string_equal(r.out, "");
		/* both named, as given (--histogram=six: its name is enough) */
		for (int k = 0; k < 4; k += 2) {
			char name[64];

			snprintf(name, sizeof name, "%.*s",
			    (int)strcspn(pairs[i][k], "="), pairs[i][k]);
			if (strstr(r.err, name) == NULL)
				fail_msg("does not name %s: %s", name, r.err);
		}
		assert_false(exists(page));
	}

	/* one view given twice is no conflict */
	char *twice[] = { profil_bin, "report", "--threads", (char *)prf,
	    "--threads", NULL };
	run(&r, twice);
	assert_int_equal(r.status, 0);
}

static int
setup(void **state)
{
	/* GNU getopt stops at the first operand under POSIXLY_CORRECT */
	unsetenv("POSIXLY_CORRECT");
	return e2e_setup(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_after_operands),
		cmocka_unit_test(test_conflicting_views_refused),
	};
	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
