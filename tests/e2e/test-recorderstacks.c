/*
 * test-recorderstacks.c - the recorder keeping up with stacks, end to
 * end: the stack memo answers as unwinding would (PROFIL_UNWIND_VERIFY),
 * a recorder stopped while its program runs loses nothing its rings hold,
 * and the timer engine's capture ring, full, counts each sample once.
 */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

/*
 * The stack memo (cli/record/unwind/stackmemo.h) answers most samples of a
 * program that spends its time in a few loops, and every answer is the
 * stack libdwfl gives: with PROFIL_UNWIND_VERIFY=1 the recorder unwinds
 * each answered sample again, and fails the run on any difference.  On
 * programs whose stacks vary (qsort's recursion, C++ exceptions in
 * flight through the unwinder, a signal handler, threads, recursion)
 * and with both engines.
 */
static void
memo_run(const char *engine, char **prog, double *answered, double *all)
{
	static struct run r;
	const char *at;
	unsigned long long hits, misses, wrong;

	setenv("PROFIL_UNWIND_VERIFY", "1", 1);
	record_run(&r, engine, tmp("memo.prf"), prog);
	unsetenv("PROFIL_UNWIND_VERIFY");
	at = strstr(r.err, "unwind memo: ");
	if (at == NULL || sscanf(at, "unwind memo: %llu answered, %llu "
	    "unwound, %llu wrong", &hits, &misses, &wrong) != 3)
		fail_msg("%s %s: no memo counts: %s", engine, prog[1], r.err);
	if (wrong != 0)
		fail_msg("%s %s: %llu memo answers wrong", engine, prog[1], wrong);
	*answered = (double)hits;
	*all = (double)(hits + misses);
}

/*
 * A loop under the same callers: answered but for the first few stacks
 * (5 to 42 here, the loader's and start-up's among them), so most of
 * 200 samples at the least; the run is sized for them.
 */
static void
assert_memo_answers_split(const char *engine)
{
	const double need = 200;
	double cpu = atof(e2e_cpu_for(need, 1)), answered, all;
	char secs[32];
	char *split[] = { workload, "split", secs, NULL };
	int runs = 0;

	for (;;) {
		snprintf(secs, sizeof secs, "%.3f", cpu);
		memo_run(engine, split, &answered, &all);
		if (all >= need)
			break;
		cpu = e2e_longer(cpu, all, need, &runs);
	}
	if (answered < 0.5 * all)
		fail_msg("split, %s engine: %.0f of %.0f samples answered by the "
		    "memo", engine, answered, all);
}

static void
test_memo_answers_as_unwinding_would(void **state)
{
	char *paths[] = { workload, "paths", "0.111", NULL };
	char *threads[] = { workload, "threads", "3", "0.055", NULL };
	char *sig[] = { workload, "signal", "0.11", NULL };
	char *throws[] = { cxx_workload, "throw", "0.39", NULL };
	char *deep[] = { workload, "deep", "60", "0.15", NULL };
	char **progs[] = { paths, threads, sig, throws, deep, NULL };
	double answered, all;

	(void)state;
	assert_memo_answers_split("perf");
	assert_memo_answers_split("timer");
	for (int i = 0; progs[i] != NULL; i++)
		memo_run("perf", progs[i], &answered, &all);
	memo_run("timer", throws, &answered, &all);
}

/*
 * The recorder's program (a child of the recorder at pid, running
 * workload), once it has run `cpu` seconds of CPU: the tests that stop
 * the recorder stop it while its program runs, whatever the machine's
 * load.  Polls /proc; fails after 60 s.
 */
static pid_t
program_running(pid_t recorder, double cpu)
{
	struct timespec ms = { 0, 1000000 };
	pid_t program;

	for (int i = 0; i < 60000; i++) {
		program = e2e_child_of(recorder);
		if (program > 0 && e2e_runs(program, workload) &&
		    e2e_cpu_seconds(program) >= cpu)
			return program;
		nanosleep(&ms, NULL);
	}
	fail_msg("the recorder's program did not run %.2f s of CPU in 60 s",
	    cpu);
	return 0;
}

/*
 * Wait until program has run `cpu` more seconds of CPU than `from` (or
 * has ended); its CPU time then.  While the recorder is stopped, what
 * its rings must hold is what the program ran: its samples follow its
 * CPU time, not the time on the clock.
 */
static double
program_ran(pid_t program, double from, double cpu)
{
	struct timespec ms = { 0, 1000000 };
	double now = from;

	for (int i = 0; i < 60000; i++) {
		double c = e2e_cpu_seconds(program);

		if (c < 0)
			return now;	/* reaped: as far as it got */
		now = c;
		if (now - from >= cpu)
			return now;
		nanosleep(&ms, NULL);
	}
	fail_msg("the program did not run %.2f s of CPU in 60 s", cpu);
	return now;
}

/*
 * The bytes of a CPU's ring the recorder may map, as cli/record/perf/perf.c
 * (ring_pages) works them out: 8 MiB, or as root any; else what
 * perf_event_mlock_kb allows a CPU and RLIMIT_MEMLOCK beside, shared by
 * the CPUs, a power of 2 (4 MiB for an ordinary user here).
 */
static double
ring_bytes(void)
{
	double most = 8 << 20, kb = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rlimit rl;
	FILE *f;

	if (geteuid() == 0 || cpus < 1)
		return most;
	f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
	if (f != NULL) {
		if (fscanf(f, "%lf", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		double each = (kb * 1024 * (double)cpus + (double)rl.rlim_cur) /
		    (double)cpus - 4096, ring = 256 * 1024;

		while (ring * 2 <= each && ring * 2 <= most)
			ring *= 2;
		return ring;
	}
	return most;
}

/*
 * With stacks a sample is some 16 KiB, and the rings must hold what a
 * recorder kept off its CPU misses: 8 MiB a CPU, half a second at 1 kHz
 * (docs/design.md); an ordinary user may lock less (4 MiB here, a
 * quarter second).  The recorder stopped while its program runs 300 ms
 * of CPU loses nothing (a 2 MiB ring lost a third of them), or 60% of
 * what its ring holds where that is less.  The stop is measured in the
 * program's CPU time (its samples follow it), so that a loaded machine,
 * where the program gets less of the CPU, stops the recorder longer, not
 * the test weaker; only a stop that overran (this process woken late)
 * to 90% of what a ring holds excuses a loss.  Sanitized, the recorder
 * drains several times slower and may be behind when it is stopped: it
 * copies 8 KiB of stack, as the other tests there do.
 */
static void
test_recorder_stopped_loses_nothing(void **state)
{
	const char *prf = tmp("stall.prf");
	int sanitized = getenv("PROFIL_TEST_SANITIZED") != NULL;
	char *rec[] = { profil_bin, "record", "-q", "-e", "perf", "-F", "1000",
	    "-o", (char *)prf, "--stack-size", sanitized ? "8192" : "16384",
	    workload, "split", "1.32", NULL };
	/* a sample: the stack copied, registers, its header; 1 kHz */
	double holds_ms = ring_bytes() / ((sanitized ? 8192 : 16384) + 256);
	double stop_ms = fmin(300, 0.6 * holds_ms), stopped_ms, from;
	char *caption[] = { profil_bin, "report", "--limit", "0", (char *)prf,
	    NULL };
	const char *at;
	struct run r;
	int status;
	pid_t pid, program;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execv(profil_bin, rec);
		_exit(127);
	}
	program = program_running(pid, 0.05);
	kill(pid, SIGSTOP);
	from = e2e_cpu_seconds(program);
	stopped_ms = 1e3 * (program_ran(program, from, stop_ms / 1e3) - from);
	kill(pid, SIGCONT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	run(&r, caption);
	assert_int_equal(r.status, 0);
	at = strstr(r.out, " lost");
	assert_non_null(at);
	while (at > r.out && at[-1] >= '0' && at[-1] <= '9')
		at--;
	if (atoi(at) != 0 && stopped_ms <= 0.9 * holds_ms)
		fail_msg("samples lost while the recorder was stopped for %.0f ms "
		    "of its program's CPU (its rings hold %.0f ms): %s",
		    stopped_ms, holds_ms, r.out);
	if (atoi(at) != 0)
		print_message("the recorder was stopped for %.0f ms of CPU (%.0f "
		    "asked, its rings hold %.0f), and lost samples: not held "
		    "against it\n", stopped_ms, stop_ms, holds_ms);
	/* and the program ran long enough for the stops to count */
	assert_true(stopped_ms >= 0.9 * stop_ms);
	assert_true(strstr(r.out, "samples") != NULL && atoi(strchr(r.out, ' ') +
	    1) >= 600);
}

/*
 * The timer engine's sample travels one way: with its stack capture, or,
 * when the capture failed (its ring of 256 full while the recorder is
 * stopped), counted by pc with no stack.  Either way once: the stacks,
 * cut or not, and the threads' counts add up to the samples, and none is
 * lost.  The recorder stays stopped until its program has run the CPU
 * time of half as many samples again as the ring holds (at the rate the
 * CPU timer reaches: the tick rate at most), so that the ring fills
 * however loaded the machine is.
 */
static void
test_timer_ring_full_counts_each_sample_once(void **state)
{
	const char *prf = tmp("ringfull.prf");
	struct timespec tick;
	double rate, fill_s;
	char secs[32];
	char *rec[] = { profil_bin, "record", "-q", "-e", "timer", "-F", "1000",
	    "-o", (char *)prf, workload, "split", secs, NULL };
	char *check[] = { profil_bin, "check", (char *)prf, NULL };
	char *threads[] = { profil_bin, "report", "--threads", "--format", "csv",
	    (char *)prf, NULL };
	double samples = 0, lost = -1, untaken = 0, in_threads = 0;
	const char *at;
	struct run r;
	int status;
	pid_t pid, program;

	(void)state;
	/* the CPU timer fires at ticks: HZ a CPU-second at most */
	assert_int_equal(clock_getres(CLOCK_MONOTONIC_COARSE, &tick), 0);
	rate = fmin(1000, 1e9 / (double)(tick.tv_sec * 1000000000L +
	    tick.tv_nsec));
	fill_s = 1.5 * 256 / rate;
	snprintf(secs, sizeof secs, "%.3f", 0.05 + fill_s + 0.3);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execv(profil_bin, rec);
		_exit(127);
	}
	program = program_running(pid, 0.05);
	kill(pid, SIGSTOP);
	program_ran(program, e2e_cpu_seconds(program), fill_s);
	kill(pid, SIGCONT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	run(&r, check);
	assert_int_equal(r.status, 0);
	at = strstr(r.out, ": ok: ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, ": ok: %lf samples", &samples), 1);
	at = strstr(at, " unknown, ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, " unknown, %lf lost", &lost), 1);
	/* "FILE:   N samples (S%...): no stack taken" */
	if ((at = strstr(r.out, "): no stack taken")) != NULL) {
		while (at > r.out && at[-1] != '\n')
			at--;
		at = strstr(at, ":   ");
		assert_non_null(at);
		untaken = atof(at + 4);
	}
	assert_true(samples >= 300);
	assert_true(lost == 0);
	if (untaken == 0)
		fail_msg("the ring never filled in the stop:\n%s", r.out);
	assert_true(untaken < samples);	/* the stacks taken still count */

	run(&r, threads);
	assert_int_equal(r.status, 0);
	for (at = strchr(r.out, '\n'); at != NULL && at[1] != '\0';
	    at = strchr(at + 1, '\n')) {
		double n;

		/* pid,tid,name,samples,... */
		assert_int_equal(sscanf(at + 1, "%*d,%*d,%*[^,],%lf", &n), 1);
		in_threads += n;
	}
	if (in_threads != samples)
		fail_msg("the threads have %.0f samples, the profile %.0f (%.0f "
		    "with no stack taken)", in_threads, samples, untaken);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memo_answers_as_unwinding_would),
		cmocka_unit_test(test_recorder_stopped_loses_nothing),
		cmocka_unit_test(test_timer_ring_full_counts_each_sample_once),
	};

	/* sanitized, the recorder unwinds 1 kHz of stacks, not 5 (TSan's:
	   50 of 3,062 samples unwound at 5 kHz, all 996 at 1 kHz) */
	e2e_rate_when_sanitized = "1000";
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
