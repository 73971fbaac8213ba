/*
 * test-record.c - `profil record` end to end, both engines: the real
 * command on real programs (tests/programs/workload.c) whose CPU split is
 * known, checked through `profil report --format csv` (split-checks.h):
 * one thread and four, half the time in libm, short processes, children
 * that fork and exec, a static binary, faults and crashes losing nothing,
 * the timer engine where perf is refused, rates above the highest, and a
 * file that grows with the code hit, not the time.  Share margins come
 * from the sample count (4 standard errors).
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
 * report --threads: each of the n busy threads holds the share of the
 * samples that its own CPU time (which the program measured and printed,
 * "thread TID cpu SECONDS") is of theirs, within a margin from the sample
 * count; most samples first; the rows add up to every sample exactly.
 * Equal work is not equal CPU time on a loaded machine (27:27:23:23 in
 * CI, the samples agreeing with the CPU clocks).
 */
static void
assert_threads_as_measured(const char *prf, int n, double total,
    const char *program_out)
{
	char *argv[] = { profil_bin, "report", "--threads", "--format", "csv",
	    (char *)prf, NULL };
	long tids[64];
	double cpu[64], cpu_sum = 0, sum = 0, prev = 1e300;
	int measured = 0, busy = 0;
	struct run r;

	for (const char *p = strstr(program_out, "thread "); p != NULL &&
	    measured < 64; p = strstr(p + 1, "thread ")) {
		if (sscanf(p, "thread %ld cpu %lf", &tids[measured],
		    &cpu[measured]) == 2)
			cpu_sum += cpu[measured++];
	}
	if (measured != n || cpu_sum <= 0)
		fail_msg("the program measured %d threads: %s", measured, program_out);
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "pid,tid,name,samples,", 21) == 0);
	for (const char *line = strchr(r.out, '\n') + 1; *line;
	    line = strchr(line, '\n') + 1) {
		double k, want = 0;
		long tid;
		int i;

		if (sscanf(line, "%*[^,],%ld,%*[^,],%lf", &tid, &k) != 2)
			fail_msg("bad line: %s", line);
		if (k > prev)
			fail_msg("threads not by samples:\n%s", r.out);
		prev = k;
		sum += k;
		for (i = 0; i < measured && tids[i] != tid; i++)
			;
		if (i < measured) {
			/* the program's main thread and start-up are outside cpu_sum */
			want = cpu[i] / cpu_sum;
			busy++;
		}
		if (fabs(k / total - want) > harness_margin(want, total, 4, 0.01) +
		    0.01)
			fail_msg("thread %ld: %.1f%% of the samples, %.1f%% of the "
			    "threads' CPU time:\n%s\n%s", tid, 100 * k / total,
			    100 * want, r.out, program_out);
	}
	if (sum != total || busy != n)
		fail_msg("%d of %d threads, %.0f of %.0f samples:\n%s",
		    busy, n, sum, total, r.out);
}

static void
test_single_thread_split(void **state)
{
	static struct run r;
	struct shares s;
	char *prog[] = { workload, "split", E2E_CPU, NULL };

	(void)state;
	record_for(&s, &r, "auto", tmp("single.prf"), prog, 1, split_need(3),
	    e2e_split_samples);
	assert_split(&s, 3);
}

static void
test_four_threads_split(void **state)
{
	static struct run out;
	struct shares s;
	struct run r;
	char *prog[] = { workload, "threads", "4", E2E_CPU, NULL };
	char *check[] = { profil_bin, "check", (char *)tmp("threads.prf"), NULL };

	(void)state;
	record_for(&s, &out, "auto", tmp("threads.prf"), prog, 4, split_need(3),
	    e2e_split_samples);
	assert_split(&s, 3);
	assert_threads_as_measured(tmp("threads.prf"), 4, s.total, out.out);
	run(&r, check);
	assert_int_equal(r.status, 0);
	if (strstr(r.out, " 4 threads") == NULL && strstr(r.out, " 5 threads") == NULL)
		fail_msg("threads not all seen: %s", r.out);
}

static void
test_half_in_libm(void **state)
{
	struct shares s;
	char *prog[] = { workload, "libm", "0.6", NULL };
	double libm, share, margin;

	(void)state;
	record_ok(tmp("libm.prf"), prog);
	report(&s, tmp("libm.prf"));
	libm = samples_of(&s, NULL, "libm.so.6");
	share = libm / s.total;
	/* the loop calling jn() is ours: allow 2 points for it */
	margin = harness_margin(0.5, s.total / s.scale, 4, 0.01) + 0.02;
	if (fabs(share - 0.5) > margin)
		fail_msg("libm share %.3f of %.0f (want 0.50 +- %.3f)", share,
		    s.total, margin);
}

static void expect_status_and_profile(char **argv, int want, int sig, int whom,
    unsigned after_ms, const char *prf);

/* The same known splits through the timer engine (libprofil injected). */
static void
test_timer_engine_splits(void **state)
{
	static struct run out;
	struct shares s;
	struct run r;
	char *single[] = { workload, "split", E2E_CPU, NULL };
	char *threads[] = { workload, "threads", "4", E2E_CPU, NULL };
	char *fe[] = { workload, "forkexec", E2E_CPU, NULL };
	char *check[] = { profil_bin, "check", (char *)tmp("tfe.prf"), NULL };

	(void)state;
	record_for(&s, &r, "timer", tmp("tsingle.prf"), single, 1,
	    split_need(3), e2e_split_samples);
	assert_split(&s, 3);
	record_for(&s, &out, "timer", tmp("tthreads.prf"), threads, 4,
	    split_need(3), e2e_split_samples);
	assert_split(&s, 3);
	assert_threads_as_measured(tmp("tthreads.prf"), 4, s.total, out.out);
	record_for(&s, &r, "timer", tmp("tfe.prf"), fe, 2, split_need(3),
	    e2e_split_samples);
	assert_split(&s, 3);
	run(&r, check);
	if (strstr(r.out, " 2 processes") == NULL)
		fail_msg("the child process is missing: %s", r.out);
}

/*
 * Processes that live a few tens of ms (a compiler's `as`, a script's
 * commands): the timer engine unwound their captures before it had read
 * their maps, and put 14% of these samples in [unknown] (code in no
 * file).  A recorder kept off the CPU for a child's whole life may still
 * miss that one child's maps: a thirtieth of the samples.
 */
static void
test_timer_engine_short_processes(void **state)
{
	static struct run r;
	char cmd[PATH_MAX + 64];
	char *prog[] = { "/bin/sh", "-c", cmd, NULL };
	struct profil_profile *p;
	char cause[256];

	(void)state;
	snprintf(cmd, sizeof cmd, "for i in $(seq 30); do %s split 0.03; done",
	    workload);
	record_run(&r, "timer", tmp("short.prf"), prog);
	p = profil_profile_read(tmp("short.prf"), cause, sizeof cause);
	assert_non_null(p);
	if (p->samples < 1000 || p->unknown > p->samples / 30)
		fail_msg("%llu of %llu samples in no object",
		    (unsigned long long)p->unknown,
		    (unsigned long long)p->samples);
	profil_profile_free(p);
}

/*
 * Asked for more than the library's most (PROFIL_MAX_HZ), the injected
 * agent samples at its most: it started no session at all, and the
 * profile had 0 samples.
 */
static void
test_timer_engine_above_the_library_most(void **state)
{
	char *argv[] = { profil_bin, "record", "-q", "-F", "20000", "-e",
	    "timer", "-o", (char *)tmp("t20k.prf"), workload, "split", "0.33",
	    NULL };
	struct shares s;
	struct run r;

	(void)state;
	run(&r, argv);
	if (r.status != 0)
		fail_msg("record exited %d: %s", r.status, r.err);
	report(&s, tmp("t20k.prf"));
	/* ~0.35 s of CPU at up to 10 kHz */
	if (s.total < 100)
		fail_msg("%.0f samples", s.total);
}

static void
test_timer_engine_faults_and_limits(void **state)
{
	char *crash[] = { profil_bin, "record", "-q", "-e", "timer", "-o",
	    (char *)tmp("tcrash.prf"), workload, "crash", NULL };
	char *forever[] = { profil_bin, "record", "-q", "-e", "timer", "-o",
	    (char *)tmp("tf.prf"), workload, "forever", NULL };
	char *stat[] = { profil_bin, "record", "-e", "timer", "-o",
	    (char *)tmp("tstatic.prf"), workload_static, "split", "0.011", NULL };
	struct run r;

	(void)state;
	expect_status_and_profile(crash, 128 + SIGSEGV, 0, 0, 0, tmp("tcrash.prf"));
	/* counts live in shared memory: a SIGKILLed program loses nothing */
	expect_status_and_profile(forever, 128 + SIGKILL, SIGKILL, TO_CHILD, 500,
	    tmp("tf.prf"));
	run(&r, stat);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "statically linked"));

	/* never into a set-uid program: the loader would ignore LD_PRELOAD */
	char cmd[3 * PATH_MAX];
	const char *suid = tmp("workload-suid");
	snprintf(cmd, sizeof cmd, "cp %s %s && chmod u+s %s", workload, suid, suid);
	assert_int_equal(system(cmd), 0);
	char *setuid[] = { profil_bin, "record", "-e", "timer", "-o",
	    (char *)tmp("tsuid.prf"), (char *)suid, "split", "0.011", NULL };
	run(&r, setuid);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "set-user-ID"));
	assert_null(strchr(strchr(r.err, '\n') + 1, '\n'));	/* one line */
	assert_int_equal(access(tmp("tsuid.prf"), F_OK), -1);
}

/*
 * Where perf events are refused (perf_event_paranoid 3, containers; here
 * a seccomp filter, since root bypasses the sysctl), auto says why and
 * falls back to the timer engine.
 */
static void
test_auto_falls_back_when_perf_is_refused(void **state)
{
	struct run r;
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	char cmd[3 * PATH_MAX];
	char *check[] = { profil_bin, "check", (char *)tmp("fb.prf"), NULL };

	(void)state;
	snprintf(cmd, sizeof cmd, "exec %s/helper-noperf %s record -o %s %s split 0.22",
	    bindir, profil_bin, tmp("fb.prf"), workload);
	argv[2] = cmd;
	run(&r, argv);
	if (r.status != 0)
		fail_msg("exit %d: %s", r.status, r.err);
	assert_non_null(strstr(r.err, "perf events refused"));
	assert_non_null(strstr(r.err, "perf_event_paranoid"));
	assert_non_null(strstr(r.err, "timer engine"));
	run(&r, check);
	assert_int_equal(r.status, 0);
}

static void
test_fork_exec_children(void **state)
{
	struct shares s;
	static struct run r;
	char *prog[] = { workload, "forkexec", E2E_CPU, NULL };
	char *check[] = { profil_bin, "check", (char *)tmp("fe.prf"), NULL };

	(void)state;
	record_for(&s, &r, "auto", tmp("fe.prf"), prog, 2, split_need(3),
	    e2e_split_samples);
	run(&r, check);
	if (strstr(r.out, " 2 processes") == NULL)
		fail_msg("the child process is missing: %s", r.out);
	assert_split(&s, 3);
}

static void
test_static_binary(void **state)
{
	static struct run r;
	struct shares s;
	char *prog[] = { workload_static, "split", E2E_CPU, NULL };

	(void)state;
	record_for(&s, &r, "auto", tmp("static.prf"), prog, 1, split_need(3),
	    e2e_split_samples);
	assert_split(&s, 3);
}

static void
expect_status_and_profile(char **argv, int want, int sig, int whom,
    unsigned after_ms, const char *prf)
{
	struct run r;
	char *check[] = { profil_bin, "check", (char *)prf, NULL };

	run_full(&r, argv, NULL, sig, whom, after_ms);
	if (r.status != want)
		fail_msg("exit status %d, want %d (%s)", r.status, want, r.err);
	run(&r, check);
	if (r.status != 0)
		fail_msg("the profile is not complete: %s", r.err);
}

static void
test_faults_lose_nothing(void **state)
{
	char *crash[] = { profil_bin, "record", "-q", "-o", (char *)tmp("crash.prf"),
	    workload, "crash", NULL };
	char *ex[] = { profil_bin, "record", "-q", "-o", (char *)tmp("exit.prf"),
	    workload, "exit", "42", NULL };
	char *uex[] = { profil_bin, "record", "-q", "-o", (char *)tmp("uexit.prf"),
	    workload, "_exit", "7", NULL };
	char *forever[] = { profil_bin, "record", "-q", "-o", (char *)tmp("f.prf"),
	    workload, "forever", NULL };

	(void)state;
	expect_status_and_profile(crash, 128 + SIGSEGV, 0, 0, 0, tmp("crash.prf"));
	expect_status_and_profile(ex, 42, 0, 0, 0, tmp("exit.prf"));
	expect_status_and_profile(uex, 7, 0, 0, 0, tmp("uexit.prf"));
	/* Ctrl-C: the terminal signals the whole foreground group */
	expect_status_and_profile(forever, 128 + SIGINT, SIGINT, TO_GROUP, 500,
	    tmp("f.prf"));
	/* the program killed from outside */
	expect_status_and_profile(forever, 128 + SIGKILL, SIGKILL, TO_CHILD, 500,
	    tmp("f.prf"));
	/* the recorder told to stop: it stops the program and writes */
	expect_status_and_profile(forever, 128 + SIGTERM, SIGTERM, TO_RECORDER,
	    500, tmp("f.prf"));
}

/*
 * Above the highest rate (10 kHz: each sample is an interrupt) both
 * engines say so and record at the highest; the timer engine used to
 * start no sampling at all and write a profile of 0 samples.
 */
static void
test_rate_above_the_highest(void **state)
{
	static const char *engines[] = { "timer", "perf" };
	static const char *asks[][2] = { { "-F", "20000" }, { "-i", "50" } };

	(void)state;
	for (size_t e = 0; e < 2; e++)
		for (size_t a = 0; a < 2; a++) {
			const char *prf = tmp("fast.prf");
			char *argv[] = { profil_bin, "record", "-e",
			    (char *)engines[e], (char *)asks[a][0],
			    (char *)asks[a][1], "-o", (char *)prf, workload,
			    "split", "0.22", NULL };
			struct shares s;
			struct run r;

			run(&r, argv);
			if (r.status != 0 || strstr(r.err, "recording at 10000 Hz")
			    == NULL)
				fail_msg("%s %s %s: exit %d: %s", engines[e],
				    asks[a][0], asks[a][1], r.status, r.err);
			report(&s, prf);
			/* about 0.2 s of CPU at 10 kHz */
			if (s.total < 500)
				fail_msg("%s %s %s: %.0f samples: %s", engines[e],
				    asks[a][0], asks[a][1], s.total, r.err);
		}
}

/*
 * The file grows with the code hit, not with the run time: the flat
 * profile's size is the same for a run 4x as long; with stacks it grows
 * with the distinct stacks seen, which a longer run meets a few more of
 * (rare ones: an interrupt in the kernel, a page fault), not with time.
 */
static void
test_size_does_not_grow_with_time(void **state)
{
	static const char *const modes[] = { "--no-call-graph", "--stack-size" };
	struct stat a, b;

	(void)state;
	for (int m = 0; m < 2; m++) {
		/* "--stack-size 8192", or "--no-call-graph" and no argument */
		const char *arg = m ? "8192" : NULL;
		char *one[] = { profil_bin, "record", "-q", (char *)modes[m],
		    (char *)arg, NULL, NULL, NULL, NULL, NULL, NULL };
		char *four[11];
		int k = arg ? 5 : 4;
		struct run r;

		one[k++] = "-o";
		one[k++] = (char *)tmp("1x.prf");
		one[k++] = workload;
		one[k++] = "split";
		one[k] = "0.033";
		memcpy(four, one, sizeof four);
		four[k - 3] = (char *)tmp("4x.prf");
		four[k] = "0.132";
		run(&r, one);
		assert_int_equal(r.status, 0);
		run(&r, four);
		assert_int_equal(r.status, 0);
		assert_int_equal(stat(tmp("1x.prf"), &a), 0);
		assert_int_equal(stat(tmp("4x.prf"), &b), 0);
		if (m == 0 ? llabs((long long)b.st_size - (long long)a.st_size) >
		    64 + a.st_size / 5 : b.st_size > 2 * a.st_size + 2048 ||
		    b.st_size > 65536)
			fail_msg("%s: 1x: %lld bytes, 4x: %lld bytes", modes[m],
			    (long long)a.st_size, (long long)b.st_size);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_thread_split),
		cmocka_unit_test(test_four_threads_split),
		cmocka_unit_test(test_half_in_libm),
		cmocka_unit_test(test_timer_engine_splits),
		cmocka_unit_test(test_timer_engine_short_processes),
		cmocka_unit_test(test_timer_engine_above_the_library_most),
		cmocka_unit_test(test_timer_engine_faults_and_limits),
		cmocka_unit_test(test_auto_falls_back_when_perf_is_refused),
		cmocka_unit_test(test_fork_exec_children),
		cmocka_unit_test(test_static_binary),
		cmocka_unit_test(test_faults_lose_nothing),
		cmocka_unit_test(test_rate_above_the_highest),
		cmocka_unit_test(test_size_does_not_grow_with_time),
	};
	/*
	 * These tests are of flat shares: sanitized, the recorder would lose
	 * samples unwinding stacks at 5 kHz (Makefile, check)
	 */
	e2e_flat_when_sanitized = 1;
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
