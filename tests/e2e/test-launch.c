/*
 * test-launch.c - how `profil record` runs a program, end to end: the
 * recorder killed leaves nothing behind, a running process attached to
 * (-p) and let go, --no-children, children left running (and those the
 * timer engine cannot see), a program that cannot run, bad options, the
 * program's input, output and environment passed through as they are,
 * output names, and files that are not profiles refused by check and
 * report.
 */
#include <errno.h>
#include <fcntl.h>
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
#include <profil.h>

#include "split-checks.h"

/*
 * The recorder killed (SIGKILL: no chance to clean up) leaves nothing
 * beside its output: the profile is written to a file with no name
 * until it is complete (it left a 0-byte NAME.prf.tmp.XXXXXX).
 */
static void
test_recorder_killed_leaves_nothing(void **state)
{
	static const char *engines[] = { "perf", "timer" };

	(void)state;
	for (size_t e = 0; e < 2; e++) {
		char dir[PATH_MAX], prf[PATH_MAX + 8], cmd[PATH_MAX + 16];
		char *argv[] = { profil_bin, "record", "-q", "-e",
		    (char *)engines[e], "-o", prf, workload, "forever", NULL };
		struct run r;
		FILE *ls;

		snprintf(dir, sizeof dir, "%s", tmp("killed"));
		snprintf(prf, sizeof prf, "%s/k.prf", dir);
		assert_int_equal(mkdir(dir, 0755), 0);
		/* both at once: the program outlives its recorder alone */
		run_full(&r, argv, NULL, SIGKILL, TO_GROUP, 500);
		assert_int_equal(r.status, 128 + SIGKILL);
		snprintf(cmd, sizeof cmd, "ls -A %s", dir);
		ls = popen(cmd, "r");
		assert_non_null(ls);
		if (fgets(cmd, sizeof cmd, ls) != NULL)
			fail_msg("%s engine: left behind: %s", engines[e], cmd);
		pclose(ls);
		snprintf(cmd, sizeof cmd, "rmdir %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* Poll for pid to have exec'd path (60 s at most). */
static void
wait_exec(pid_t pid, const char *path)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < 60000 && !e2e_runs(pid, path); i++)
		nanosleep(&ms, NULL);
	if (!e2e_runs(pid, path))
		fail_msg("process %d did not exec %s in 60 s", (int)pid, path);
}

/* test_attach's Ctrl-C, when the program has run cpu s sampled. */
struct attached {
	pid_t program;
	double cpu, from;
};

/*
 * Once the recorder has its events open, the program's CPU time then;
 * once the program has run the CPU time asked since, Ctrl-C (SIGINT to
 * the recorder's group, as a terminal sends it).
 */
static int
interrupt_when_sampled(pid_t recorder, void *arg)
{
	struct attached *a = arg;

	if (a->from < 0) {
		if (e2e_holds_perf_event(recorder))
			a->from = e2e_cpu_seconds(a->program);
		return 0;
	}
	if (e2e_cpu_seconds(a->program) - a->from < a->cpu)
		return 0;
	kill(-recorder, SIGINT);
	return 1;
}

/* Once the recorder has its events open, let the stopped program go. */
static int
continue_when_attached(pid_t recorder, void *arg)
{
	if (!e2e_holds_perf_event(recorder))
		return 0;
	kill(*(pid_t *)arg, SIGCONT);
	return 1;
}

/*
 * -p: attach to a running program until Ctrl-C, or until it exits.  The
 * test waits on what it needs, not on the clock: the program's exec
 * before attaching, and before the Ctrl-C the CPU time that gives the
 * samples its checks need, counted from when the recorder's events are
 * open (a loaded machine gives the program less of the CPU: it waits
 * longer).
 */
static void
test_attach(void **state)
{
	struct shares s;
	struct run r;
	char pidstr[16];
	char *argv[] = { profil_bin, "record", "-q", "-F", "4000", "-o",
	    (char *)tmp("att.prf"), "-p", pidstr, NULL };
	char *check[] = { profil_bin, "check", (char *)tmp("att.prf"), NULL };
	struct attached a;
	pid_t w = fork();

	(void)state;
	assert_true(w >= 0);
	if (w == 0) {
		execl(workload, "workload", "forever", (char *)NULL);
		_exit(99);
	}
	snprintf(pidstr, sizeof pidstr, "%d", (int)w);
	wait_exec(w, workload);
	/* the samples the checks need, a quarter more for the edges */
	a = (struct attached){ w, 1.25 * fmax(500, split_need(8)) / 4000, -1 };
	run_acting(&r, argv, interrupt_when_sampled, &a, 60);
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	if (r.status != 0)
		fail_msg("attach: exit %d: %s", r.status, r.err);
	run(&r, check);
	assert_int_equal(r.status, 0);
	report(&s, tmp("att.prf"));
	if (s.total < 500)
		fail_msg("attach: only %.0f samples", s.total);
	assert_split(&s, 8);

	/*
	 * a process that ends while we watch: we stop with it.  Held
	 * stopped until the recorder has its events open, so that however
	 * long attaching takes (a sanitized recorder on a loaded machine),
	 * the recorder finds it running.
	 */
	w = fork();
	if (w == 0) {
		execl(workload, "workload", "split", "0.22", (char *)NULL);
		_exit(99);
	}
	snprintf(pidstr, sizeof pidstr, "%d", (int)w);
	wait_exec(w, workload);
	kill(w, SIGSTOP);
	run_acting(&r, argv, continue_when_attached, &w, 60);
	waitpid(w, NULL, 0);
	if (r.status != 0)
		fail_msg("attach until exit: %d: %s", r.status, r.err);
	run(&r, check);
	assert_int_equal(r.status, 0);
}

/* The CPU time in the caption of `profil report`, in seconds. */
static double
caption_cpu(const char *prf)
{
	char *argv[] = { profil_bin, "report", "--limit", "1", (char *)prf, NULL };
	struct run r;
	const char *at;
	double cpu = -1;

	run(&r, argv);
	if ((at = strstr(r.out, " samples, ")) != NULL)
		sscanf(at + 10, "%lf", &cpu);
	return cpu;
}

/*
 * --no-children: the children are neither in the samples nor in the CPU
 * time (which held them, so the report blamed "short threads" for the
 * difference); the timer engine profiled them all the same.
 */
static void
test_no_children(void **state)
{
	static const char *engines[] = { "timer", "perf" };
	char cmd[PATH_MAX + 64];

	(void)state;
	snprintf(cmd, sizeof cmd, "%s split 0.44; true", workload);
	for (size_t e = 0; e < 2; e++) {
		const char *prf = tmp("nochild.prf");
		char *argv[] = { profil_bin, "record", "--no-children", "-e",
		    (char *)engines[e], "-o", (char *)prf, "/bin/sh", "-c", cmd,
		    NULL };
		struct shares s;
		struct run r;
		double cpu;

		run(&r, argv);
		assert_int_equal(r.status, 0);
		report(&s, prf);
		if (samples_of(&s, "six", NULL) + samples_of(&s, "three", NULL) > 0)
			fail_msg("%s: the child's functions are in:\n%s",
			    engines[e], s.csv);
		cpu = caption_cpu(prf);
		/* the shell's own time only: the child burns 0.3 s or more */
		if (cpu < 0 || cpu > 0.1)
			fail_msg("%s: %.2f s of CPU for the shell alone",
			    engines[e], cpu);
		if (strstr(r.err, "went unsampled") != NULL)
			fail_msg("%s: %s", engines[e], r.err);
	}
}

/*
 * A program that leaves a process running (`prog &` in a script): the
 * recorder stops when the program ends, says which process still runs,
 * and marks it so in the profile; --wait-all follows it to its end.
 */
static void
test_detached_children(void **state)
{
	static const char *engines[] = { "timer", "perf" };
	char cmd[PATH_MAX + 64];

	(void)state;
	for (size_t e = 0; e < 2; e++) {
		const char *prf = tmp("detached.prf");
		char *left[] = { profil_bin, "record", "-F", "5000", "-e",
		    (char *)engines[e], "-o", (char *)prf, "/bin/sh", "-c", cmd,
		    NULL };
		char *wait[] = { profil_bin, "record", "--wait-all", "-F", "5000",
		    "-e", (char *)engines[e], "-o", (char *)prf, "/bin/sh", "-c",
		    cmd, NULL };
		char *pids[] = { profil_bin, "report", "--pid", "--format", "csv",
		    (char *)prf, NULL };
		double cpu = atof(e2e_cpu_for(split_need(3), 1));
		struct shares s;
		struct run r;
		int runs = 0;

		snprintf(cmd, sizeof cmd, "%s split %.3f & exit 0", workload, cpu);
		run(&r, left);
		assert_int_equal(r.status, 0);
		if (strstr(r.err, "1 process the program started still ran") == NULL)
			fail_msg("%s: %s", engines[e], r.err);
		run(&r, pids);
		/* pid,ppid,command,exit_status: -2, still running */
		if (strstr(r.out, ",-2,") == NULL)
			fail_msg("%s: no process marked running:\n%s", engines[e],
			    r.out);
		for (;;) {
			run(&r, wait);
			assert_int_equal(r.status, 0);
			assert_null(strstr(r.err, "still ran"));
			report(&s, prf);
			if (e2e_split_samples(&s) >= split_need(3))
				break;
			cpu = e2e_longer(cpu, e2e_split_samples(&s), split_need(3), &runs);
			snprintf(cmd, sizeof cmd, "%s split %.3f & exit 0",
			    workload, cpu);
		}
		assert_split(&s, 3);
		/* the child's 1.3 s or so are in the CPU time, not lost */
		if (caption_cpu(prf) < 0.8 * s.total / 5000)
			fail_msg("%s: %.2f s of CPU for %.0f samples", engines[e],
			    caption_cpu(prf), s.total);
	}
}

/*
 * A process left running that the engine never heard of (the timer
 * engine hears of a process when its agent starts: a static child never
 * runs one, and on a loaded machine a child forked just before the
 * program ended may not have got that far): running all the same.
 */
static void
test_detached_child_unseen(void **state)
{
	char cmd[PATH_MAX + 64];
	const char *prf = tmp("unseen.prf");
	char *left[] = { profil_bin, "record", "-e", "timer", "-o", (char *)prf,
	    "/bin/sh", "-c", cmd, NULL };
	struct run r;

	(void)state;
	snprintf(cmd, sizeof cmd, "%s split 0.44 & exit 0", workload_static);
	run(&r, left);
	assert_int_equal(r.status, 0);
	if (strstr(r.err, "1 process the program started still ran") == NULL)
		fail_msg("%s", r.err);
}

static void
test_cannot_run(void **state)
{
	struct run r;
	char *missing[] = { profil_bin, "record", "-o", (char *)tmp("x.prf"),
	    "/nonexistent/program", NULL };
	char *noexec[] = { profil_bin, "record", "-o", (char *)tmp("x.prf"),
	    "/etc/passwd", NULL };

	(void)state;
	run(&r, missing);
	assert_int_equal(r.status, 127);
	assert_non_null(strstr(r.err, "not found"));
	run(&r, noexec);
	assert_int_equal(r.status, 126);
	assert_non_null(strstr(r.err, "cannot execute"));
	assert_int_equal(access(tmp("x.prf"), F_OK), -1);
}

static void
test_bad_options(void **state)
{
	static const char *bad[][3] = {
		{ "-F", "0" }, { "-F", "abc" }, { "-F", "99999999" }, { "-F", "" },
		{ "-i", "0" }, { "-i", "2000000" }, { "-b", "0" }, { "-b", "x" },
		{ "-b", "100000" }, { "-e", "nope" }, { "-o", "" },
		{ "-o", "/nonexistent/dir/x.prf" }, { "--bogus", NULL }, { "-F", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *argv[8] = { profil_bin, "record", (char *)bad[i][0] };
		struct run r;
		int k = 3;

		if (bad[i][1] != NULL)
			argv[k++] = (char *)bad[i][1];
		if (bad[i][0][1] != 'F' || bad[i][1] != NULL)
			argv[k++] = workload;
		argv[k] = NULL;
		run(&r, argv);
		if (r.status != 2)
			fail_msg("'%s %s': exit %d", bad[i][0], bad[i][1] ? bad[i][1] : "",
			    r.status);
		if (strncmp(r.err, "profil: record: ", 16) != 0 ||
		    strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
			fail_msg("'%s': not one line: %s", bad[i][0], r.err);
	}
}

static void
test_io_and_environment_pass_through(void **state)
{
	struct run r;
	char *argv[] = { profil_bin, "record", "-q", "-o", (char *)tmp("echo.prf"),
	    workload, "echo", NULL };

	(void)state;
	setenv("PROFIL_TEST_VAR", "kept", 1);
	run_full(&r, argv, "hello\nworld\n", 0, 0, 0);
	unsetenv("PROFIL_TEST_VAR");
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "hello\nworld\n[kept]\n");
	assert_string_equal(r.err, "");
}

static void
test_output_names(void **state)
{
	char cwd[PATH_MAX], expect[PATH_MAX];
	struct run r;
	char *dflt[] = { profil_bin, "record", "-q", workload, "exit", "0", NULL };
	char *pid[] = { profil_bin, "record", "-q", "-o", "run-%p.prf", workload,
	    "exit", "0", NULL };
	char *msg[] = { profil_bin, "record", workload, "exit", "0", NULL };

	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tmpdir), 0);
	run(&r, dflt);
	assert_int_equal(r.status, 0);
	assert_int_equal(access("workload.prf", F_OK), 0);
	run(&r, pid);
	assert_int_equal(r.status, 0);
	assert_int_equal(system("ls run-[0-9]*.prf >/dev/null"), 0);
	run(&r, msg);
	/* the closing line names the samples, engine and file */
	snprintf(expect, sizeof expect, "wrote %s/workload.prf", tmpdir);
	assert_non_null(strstr(r.err, expect));
	assert_non_null(strstr(r.err, "perf engine"));
	assert_int_equal(chdir(cwd), 0);
}

static void
test_check_and_report_refuse_bad_files(void **state)
{
	struct run r;
	char *check[] = { profil_bin, "check", (char *)tmp("bad.prf"), NULL };
	char *rep[] = { profil_bin, "report", (char *)tmp("bad.prf"), NULL };
	char *prog[] = { workload, "split", "0.011", NULL };
	FILE *f;
	long size;

	(void)state;
	record_ok(tmp("bad.prf"), prog);
	f = fopen(tmp("bad.prf"), "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	assert_int_equal(ftruncate(fileno(f), size - 3), 0);
	fclose(f);
	run(&r, check);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "truncated"));
	run(&r, rep);
	assert_int_equal(r.status, 1);
	assert_true(strncmp(r.err, "profil: report: ", 16) == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorder_killed_leaves_nothing),
		cmocka_unit_test(test_attach),
		cmocka_unit_test(test_no_children),
		cmocka_unit_test(test_detached_children),
		cmocka_unit_test(test_detached_child_unseen),
		cmocka_unit_test(test_cannot_run),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_io_and_environment_pass_through),
		cmocka_unit_test(test_output_names),
		cmocka_unit_test(test_check_and_report_refuse_bad_files),
	};
	/*
	 * These tests are of flat shares: sanitized, the recorder would lose
	 * samples unwinding stacks at 5 kHz (Makefile, check)
	 */
	e2e_flat_when_sanitized = 1;
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
