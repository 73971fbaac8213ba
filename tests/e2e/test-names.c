/*
 * test-names.c - a profile keeps its names away from the files it was
 * recorded with: the program rebuilt (another build-id) or gone, and
 * found again under --symfs, in a --debug-dir by build-id, or from a real
 * debuginfod server on 127.0.0.1 (profil archive's names kept in the
 * profile: test-archive.c); and one file is one object whatever the paths
 * it ran by.  Every check compares the names' counts with those of the
 * same profile read with the right file (rebuilt.h): exact, not
 * statistical.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"

#include "rebuilt.h"

/* The rebuilt program is not what was profiled: nothing named, and why. */
static void
test_rebuilt_is_refused(void **state)
{
	char *argv[] = { profil_bin, "report", "--format", "csv", prf, NULL };
	struct shares s;
	struct run r;

	(void)state;
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "build-id differs"));
	report(&s, prf);
	assert_true(samples_of(&s, "six", NULL) == 0);
	assert_true(samples_of(&s, "[app]", NULL) > 0);
}

/* --symfs DIR: DIR holds the recording machine's files at their paths. */
static void
test_symfs(void **state)
{
	char root[PATH_MAX], at[2 * PATH_MAX];
	char *argv[] = { profil_bin, "report", "--symfs", root, "--format", "csv",
	    prf, NULL };
	struct shares s;

	(void)state;
	snprintf(root, sizeof root, "%s/symfs", tmpdir);
	snprintf(at, sizeof at, "%s%s", root, app);
	copy(build_a, at);
	report_run(&s, argv);
	assert_named_right(&s, "--symfs");
}

/* --debug-dir DIR: the file found by its build-id, DIR/.build-id/xx/rest. */
static void
test_debug_dir(void **state)
{
	char dir[PATH_MAX], at[2 * PATH_MAX];
	char *argv[] = { profil_bin, "report", "--debug-dir", dir, "--format",
	    "csv", prf, NULL };
	char *ann[] = { profil_bin, "report", "--debug-dir", dir, "--annotate",
	    "six", prf, NULL };
	struct shares s;
	struct run r;

	(void)state;
	snprintf(dir, sizeof dir, "%s/debug", tmpdir);
	snprintf(at, sizeof at, "%s/.build-id/a1/%s", dir,
	    "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1");
	copy(build_a, at);
	report_run(&s, argv);
	assert_named_right(&s, "--debug-dir");
	/* the file is the program itself: its lines too */
	run(&r, ann);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "workload.c"));
}

/*
 * A debuginfod server (Debian's, on 127.0.0.1) over a directory holding
 * build A: with DEBUGINFOD_URLS, report fetches it by build-id.
 */
static void
test_debuginfod(void **state)
{
	char dir[PATH_MAX], db[PATH_MAX], cache[PATH_MAX], url[64];
	char cmd[2 * PATH_MAX];
	char *argv[] = { profil_bin, "report", "--format", "csv", prf, NULL };
	char port[16];
	struct shares s;
	pid_t server;
	int ready = 0;

	(void)state;
	if (access("/usr/bin/debuginfod", X_OK) != 0) {
		if (getenv("CI") != NULL)
			fail_msg("debuginfod is not installed (apt-get install "
			    "debuginfod)");
		SKIP("debuginfod not installed");
	}
	snprintf(dir, sizeof dir, "%s/served", tmpdir);
	snprintf(db, sizeof db, "%s/debuginfod.db", tmpdir);
	snprintf(cache, sizeof cache, "%s/debuginfod-cache", tmpdir);
	snprintf(cmd, sizeof cmd, "%s/app", dir);
	copy(build_a, cmd);
	snprintf(port, sizeof port, "%d", 20000 + (int)(getpid() % 20000));
	server = fork();
	if (server == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl("/usr/bin/debuginfod", "debuginfod", "-F", "-p", port, "-d",
		    db, "-t", "0", "-g", "0", dir, (char *)NULL);
		_exit(127);
	}
	assert_true(server > 0);
	/* until it has scanned the directory: it then serves the file */
	snprintf(cmd, sizeof cmd, "curl -sf -o /dev/null http://127.0.0.1:%s/"
	    "buildid/a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1/executable", port);
	for (int i = 0; i < 300 && !ready; i++) {
		struct timespec tick = { 0, 100000000 };

		ready = system(cmd) == 0;
		if (!ready)
			nanosleep(&tick, NULL);
	}
	snprintf(url, sizeof url, "http://127.0.0.1:%s", port);
	setenv("DEBUGINFOD_URLS", url, 1);
	setenv("DEBUGINFOD_CACHE_PATH", cache, 1);
	if (ready)
		report_run(&s, argv);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	kill(server, SIGTERM);
	waitpid(server, NULL, 0);
	if (!ready)
		fail_msg("debuginfod did not serve %s within 30 s", dir);
	assert_named_right(&s, "debuginfod");
}

/*
 * One file, one object, whatever the paths it ran by: hard links of a
 * program without a build-id (one by device and inode) and two copies
 * of one build (one by build-id), all four run in one recording, give
 * two rows in --objects and one "six" each in the flat profile, not four
 * (/usr/bin/git and /usr/lib/git-core/git were two identical rows).
 * Both engines, as root and as nobody.
 */
static void
test_one_file_one_object(void **state)
{
	static const char *const engines[] = { "perf", "timer" };
	static const char *const bases[2][2] = { { "linked-a", "linked-b" },
	    { "copied-a", "copied-b" } };
	char paths[2][2][PATH_MAX], cmd[6 * PATH_MAX], one[PATH_MAX];
	char path_of_same[PATH_MAX];
	char *prog[] = { "/bin/sh", "-c", cmd, NULL };
	char *objects[] = { profil_bin, "report", "--objects", "--format", "csv",
	    one, NULL };
	struct shares s;
	struct run r;

	(void)state;
	for (int k = 0; k < 2; k++)
		for (int j = 0; j < 2; j++)
			snprintf(paths[k][j], PATH_MAX, "%s/same/%s", tmpdir,
			    bases[k][j]);
	snprintf(one, sizeof one, "%s/same/one.prf", tmpdir);
	copy(build_a, paths[1][0]);
	copy(build_a, paths[1][1]);
	build(paths[0][0], NULL);
	assert_int_equal(link(paths[0][0], paths[0][1]), 0);
	snprintf(cmd, sizeof cmd, "for p in %s %s %s %s; do $p split 0.05 || "
	    "exit 1; done", paths[0][0], paths[0][1], paths[1][0], paths[1][1]);
	/* as root, and as nobody (who may pass through the scratch dir) */
	assert_int_equal(chmod(tmpdir, 0711), 0);
	snprintf(path_of_same, sizeof path_of_same, "%s/same", tmpdir);
	assert_int_equal(chmod(path_of_same, 0777), 0);
	for (size_t e = 0; e < 2 * (sizeof engines / sizeof engines[0]); e++) {
		const char *engine = engines[e % 2];
		int as_nobody = e >= 2, n = 0;
		char *rec[20];

		if (as_nobody && geteuid() != 0)
			break;
		if (strcmp(engine, "perf") == 0 && (as_nobody ?
		    !harness_perf_allowed_to_users() :
		    !harness_perf_allowed()))
			continue;
		if (as_nobody)
			n += e2e_as_nobody(rec);
		memcpy(rec + n, (char *[]){ profil_bin, "record", "-q", "-F",
		    "5000", "-e", (char *)engine, "-o", one, prog[0], prog[1],
		    prog[2], NULL }, 13 * sizeof *rec);
		unlink(one);
		run(&r, rec);
		if (r.status != 0)
			fail_msg("record -e %s%s: exit %d: %s", engine, as_nobody ?
			    " as nobody" : "", r.status, r.err);
		run(&r, objects);
		assert_int_equal(r.status, 0);
		report(&s, one);
		for (int k = 0; k < 2; k++) {
			int rows = 0, named = 0;

			for (int j = 0; j < 2; j++) {
				char path[PATH_MAX + 2];

				snprintf(path, sizeof path, ",%s,", paths[k][j]);
				rows += strstr(r.out, path) != NULL;
				named += samples_of(&s, "six", bases[k][j]) > 0;
			}
			/* one row of the file, its functions under one name */
			if (rows != 1 || named != 1)
				fail_msg("-e %s%s: %s: %d rows in --objects, six in "
				    "%d objects; one wanted:\n%s\n%s", engine,
				    as_nobody ? " as nobody" : "", bases[k][0], rows,
				    named, r.out, s.csv);
		}
	}
	assert_int_equal(chmod(tmpdir, 0700), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rebuilt_is_refused),
		cmocka_unit_test(test_symfs),
		cmocka_unit_test(test_debug_dir),
		cmocka_unit_test(test_debuginfod),
		cmocka_unit_test(test_one_file_one_object),
	};
	return cmocka_run_group_tests(tests, rebuilt_setup, e2e_teardown);
}
