/*
 * test-every.c - rolling profiles (record --every, issue 27): a program
 * that times its own phases and threads (tests/programs/phases.c) is
 * recorded a period at a time; each period's file is sound by itself,
 * the periods follow each other without a gap or an overlap, and what
 * they hold sums to what the kernel counted of the threads (their CPU
 * time and lives) and to the time the program was blocked in read();
 * --keep keeps the last N; bad options are refused in one line.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

static char phases[PATH_MAX];

/* The files in dir whose names start with prefix, sorted; how many. */
static size_t
files_of(const char *dir, const char *prefix, char names[][PATH_MAX],
    size_t max)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);
	size_t k = 0;

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (strncmp(list[i]->d_name, prefix, strlen(prefix)) == 0 &&
		    k < max)
			snprintf(names[k++], PATH_MAX, "%s/%s", dir,
			    list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return k;
}

/*
 * The program's "thread NAME START END CPU" and "born NAME NS" lines: its
 * life from its first code and its age by the kernel's start of it (a
 * tick over at most), and its CPU, s.
 */
static void
thread_said(const char *err, const char *name, double *life, double *age,
    double *cpu)
{
	char key[32];
	const char *at;
	unsigned long long t0, t1, c, born;

	snprintf(key, sizeof key, "thread %s ", name);
	if ((at = strstr(err, key)) == NULL ||
	    sscanf(at + strlen(key), "%llu %llu %llu", &t0, &t1, &c) != 3)
		fail_msg("the program did not say its thread %s: %s", name, err);
	snprintf(key, sizeof key, "born %s ", name);
	if ((at = strstr(err, key)) == NULL ||
	    sscanf(at + strlen(key), "%llu", &born) != 1)
		fail_msg("the program did not say its thread %s's birth: %s",
		    name, err);
	*life = (double)(t1 - t0) / 1e9;
	*age = (double)(t1 - born) / 1e9;
	*cpu = (double)c / 1e9;
}

static double
phase_len(const char *err, const char *name)
{
	char key[32];
	const char *at;
	unsigned long long t0, t1;

	snprintf(key, sizeof key, "phase %s ", name);
	if ((at = strstr(err, key)) == NULL ||
	    sscanf(at + strlen(key), "%llu %llu", &t0, &t1) != 2)
		fail_msg("the program did not say its phase %s", name);
	return (double)(t1 - t0) / 1e9;
}

/*
 * Periods of a wall recording: each sound, back to back, and summing to
 * the kernel's counts of the worker thread (the main one) and to the
 * program's own read().
 */
static void
periods_sum_to_the_run(const char *engine)
{
	static struct run r;
	static char names[256][PATH_MAX];
	char dir[PATH_MAX], out[PATH_MAX + 16], scale[32], cause[512];
	char *argv[] = { profil_bin, "record", "-e", (char *)engine, "--wall",
	    "--every", "300ms", "-o", out, phases, scale, NULL };
	double cpu = 0, life = 0, reading = 0, wcpu, wlife, wage, interval = 0;
	double own, block;
	int64_t next = 0;
	size_t n;

	if (strcmp(engine, "perf") == 0 && !harness_perf_allowed())
		SKIP("perf events refused here: the perf engine cannot run");
	scratch(dir, engine);
	assert_int_equal(mkdir(dir, 0777), 0);
	snprintf(out, sizeof out, "%s/p-%%n.prf", dir);
	snprintf(scale, sizeof scale, "%.2f", harness_work_scale());
	run(&r, argv);
	if (r.status != 0)
		fail_msg("record exited %d: %s", r.status, r.err);
	n = files_of(dir, "p-", names, 256);
	print_message("%zu periods\n", n);
	/* 2.5 s of phases in periods of 0.3 s */
	if (n < 6)
		fail_msg("%zu periods for a run of 2.5 s at 0.3 s", n);
	for (size_t i = 0; i < n; i++) {
		struct profil_profile *p = profil_profile_read(names[i], cause,
		    sizeof cause);

		if (p == NULL)
			fail_msg("%s: %s", names[i], cause);
		if (i > 0 && p->start_ns != next)
			fail_msg("period %zu starts %lld ns after the last one's "
			    "end", i + 1, (long long)(p->start_ns - next));
		next = p->start_ns + (int64_t)p->duration_ns;
		if (i + 1 < n && fabs((double)p->duration_ns / 1e9 - 0.3) > 0.25)
			fail_msg("period %zu lasts %.3f s, not 0.3", i + 1,
			    (double)p->duration_ns / 1e9);
		interval = (double)p->interval_ns / 1e9;
		for (size_t k = 0; k < p->nstacks; k++) {
			const struct profil_stack *st = &p->stacks[k];

			if (st->tid != st->pid)
				continue;	/* the worker is the main thread */
			cpu += (double)st->count * interval;
			life += (double)st->count * interval +
			    (double)st->off_ns / 1e9;
			if (st->off_ns > 0 &&
			    p->frames[st->frames[0]].addr == 0)
				reading += (double)st->off_ns / 1e9;
		}
		profil_profile_free(p);
	}
	thread_said(r.err, "worker", &wlife, &wage, &wcpu);
	own = phase_len(r.err, "read");
	block = fmin(own, 0.5 * harness_work_scale());
	print_message("%s: worker: %.3f s on the CPU (the kernel: %.3f), life "
	    "%.3f s (its own clock: %.3f, the kernel's %.3f), read() %.3f s "
	    "(%.3f)\n", engine, cpu, wcpu, life, wlife, wage, reading, own);
	/* the periods' samples: the kernel's count, to the sampling error */
	if (fabs(cpu - wcpu) > 0.05 * wcpu + 4 * sqrt(wcpu / interval) *
	    interval + 0.005)
		fail_msg("the periods hold %.3f s of the worker's CPU, the "
		    "kernel counted %.3f", cpu, wcpu);
	/*
	 * No time lost at a cut, none counted twice: the worker's life, at
	 * least its own clock's from main and at most its age by the
	 * kernel's start of it (before main the loader and the timer
	 * engine's library start, which load stretches: 2.569 s against
	 * 2.500 from main at load 10).
	 */
	if (life < wlife * 0.98 - 0.01 || life > wage * 1.02 + 0.01 +
	    1 / (double)sysconf(_SC_CLK_TCK))
		fail_msg("the periods hold %.3f s of the worker's life, it "
		    "lived %.3f from main, %.3f by the kernel", life, wlife,
		    wage);
	/*
	 * The read: the program's clock of it holds the wait for a CPU
	 * after its timer, which is no time in read(), so it is its upper
	 * bound and the timer's 0.5 s its lower.  The timer engine's time
	 * blocked is its estimate from the thread's counters, which load
	 * delays (0.465 s of 0.5 at load 10; test-wall holds it to the
	 * kernel's): 90% of the block.
	 */
	if (reading > own + 0.03 || reading < (strcmp(engine, "timer") == 0 ?
	    0.9 : 1) * block - 0.03)
		fail_msg("the periods hold %.3f s in read(), it read for %.3f "
		    "(blocked %.3f)", reading, own, block);
}

static void
test_periods_sum_to_the_run(void **state)
{
	(void)state;
	periods_sum_to_the_run("perf");
}

static void
test_timer_periods_sum_to_the_run(void **state)
{
	(void)state;
	periods_sum_to_the_run("timer");
}

/* --keep 2: the last two periods' files, the others removed. */
static void
test_keep(void **state)
{
	static struct run r;
	static char names[256][PATH_MAX];
	char dir[PATH_MAX], out[PATH_MAX + 16], cause[512];
	/* auto: perf, or the timer engine where perf events are refused */
	char *argv[] = { profil_bin, "record", "-e", "auto", "--every",
	    "200ms", "--keep", "2", "-o", out, phases, "0.5", NULL };
	char *all[] = { profil_bin, "record", "-e", "auto", "--every",
	    "200ms", "-o", out, phases, "0.5", NULL };
	size_t n, before;

	(void)state;
	scratch(dir, "keep-all");
	assert_int_equal(mkdir(dir, 0777), 0);
	snprintf(out, sizeof out, "%s/k-%%n.prf", dir);
	run(&r, all);
	assert_int_equal(r.status, 0);
	before = files_of(dir, "k-", names, 256);
	scratch(dir, "keep");
	assert_int_equal(mkdir(dir, 0777), 0);
	snprintf(out, sizeof out, "%s/k-%%n.prf", dir);
	run(&r, argv);
	if (r.status != 0)
		fail_msg("record exited %d: %s", r.status, r.err);
	n = files_of(dir, "k-", names, 256);
	print_message("kept %zu of about %zu\n", n, before);
	if (before < 3)
		fail_msg("only %zu periods: nothing to keep from", before);
	assert_int_equal(n, 2);
	/* the last two: their numbers follow, and the second is the end */
	for (size_t i = 0; i < n; i++) {
		struct profil_profile *p = profil_profile_read(names[i], cause,
		    sizeof cause);

		if (p == NULL)
			fail_msg("%s: %s", names[i], cause);
		profil_profile_free(p);
	}
	if (strcmp(names[0] + strlen(names[0]) - 10, "k-0001.prf") == 0)
		fail_msg("the first period was kept: %s", names[0]);
}

/* Bad options: one line, a usage status, no file. */
static void
test_refused(void **state)
{
	static struct run r;
	char out[PATH_MAX + 16];
	struct {
		const char *a[6];
		int status;
	} cases[] = {
		{ { "--every", "0", "-o", "x-%n.prf" }, 2 },
		{ { "--every", "soon", "-o", "x-%n.prf" }, 2 },
		{ { "--every", "10ms", "-o", "x-%n.prf" }, 2 },
		{ { "--every", "1s", "-o", "x.prf" }, 2 },
		{ { "--keep", "2", "-o", "x.prf" }, 2 },
		{ { "--every", "1s", "--keep", "0", "-o", "x-%n.prf" }, 2 },
	};

	(void)state;
	snprintf(out, sizeof out, "%s", tmp("x-%n.prf"));
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *argv[16] = { profil_bin, "record" };
		int k = 2;

		for (int j = 0; j < 6 && cases[i].a[j] != NULL; j++)
			argv[k++] = strcmp(cases[i].a[j], "x-%n.prf") == 0 ?
			    out : (char *)cases[i].a[j];
		argv[k++] = "true";
		argv[k] = NULL;
		run(&r, argv);
		if (r.status != cases[i].status)
			fail_msg("case %zu: exit %d, not %d: %s", i, r.status,
			    cases[i].status, r.err);
		assert_one_line(&r, "record");
	}
}

static int
setup(void **state)
{
	if (e2e_setup(state) != 0)
		return -1;
	snprintf(phases, sizeof phases, "%s/phases", bindir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_periods_sum_to_the_run),
		cmocka_unit_test(test_timer_periods_sum_to_the_run),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
