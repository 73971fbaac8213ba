/*
 * test-share.c - the error of a share (cli/report/share.c), end to end on
 * profiles made here, whose every count is known: every view of `profil
 * report` and diff give a share the error of what was sampled and none
 * for what was measured, each bar computed here again from the counts
 * the views and the profile give (Wilson's interval, as e2e.c writes it
 * out), never over 100 points; the columns named samples count samples,
 * the seconds columns the time.  Recordings are test-sharerecorded.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

#include "csv-table.h"

/* Wilson's half-width of k of n, as a fraction (e2e_wilson95 in points). */
#define W(k, n)	(e2e_wilson95((k), (n), 1) / 100)

/* In points, the error sqrt(a^2 + b^2 + ...) in counts over a whole of n. */
static double
points(double n, int terms, ...)
{
	va_list ap;
	double sum = 0;

	va_start(ap, terms);
	for (int i = 0; i < terms; i++) {
		double t = va_arg(ap, double);

		sum += t * t;
	}
	va_end(ap);
	return 100 * sqrt(sum) / n;
}

/* ---- a wall profile whose every count is known ----------------------------- */

#define MS 1000000ull	/* its interval: 1 ms */

static void *
must(void *ptr)
{
	assert_non_null(ptr);
	return ptr;
}

/*
 * Frames of object 0 (app) by address, then the off-CPU leaves, then a
 * cut: as profiles keep them, sorted by object and address.
 */
enum { F_MAIN, F_COMPUTE, F_OTHER, F_READER, F_POLLER, F_SLEEPER, F_WORKER,
	F_READ, F_POLL, F_SLEEP, F_RUNNABLE, F_BLOCKED, F_CUT, NFRAMES };

struct stack_spec {
	uint32_t tid;
	uint64_t count, off_ms, sampled_ms, looks;
	size_t depth;
	uint32_t frames[4];
};

/*
 * A wall profile of app, pid 1, saved to path (the stacks given, leaf
 * first; the CPU counts in the histogram and threads as the stacks have
 * them).  Functions main, compute, other, reader, poller, sleeper,
 * worker; leaves [off-cpu: read], [off-cpu: poll], [off-cpu:
 * clock_nanosleep], [off-cpu: runnable], [off-cpu: blocked].
 */
static void
save_wall(const char *path, const struct stack_spec *spec, size_t n)
{
	static const char *const names[] = { "main", "compute", "other",
	    "reader", "poller", "sleeper", "worker" };
	struct profil_profile *p = must(calloc(1, sizeof *p));
	struct profil_object *o;
	uint64_t tid_cpu[3] = { 0, 0, 0 };
	char cause[256];

	p->interval_ns = MS;
	p->bucket_bytes = 1;
	p->engine = must(strdup("perf"));
	p->argc = 1;
	p->argv = must(calloc(2, sizeof *p->argv));
	p->argv[0] = must(strdup("app"));
	p->nobjects = 1;
	p->objects = o = must(calloc(1, sizeof *o));
	o->path = must(strdup("/nonexistent/share/app"));
	o->lowpc = 0x1000;
	o->highpc = 0x1700;
	o->bucket_bytes = 1;
	o->buckets = must(calloc(n, sizeof *o->buckets));
	p->nsymbols = 7;
	p->symbols = must(calloc(7, sizeof *p->symbols));
	for (size_t i = 0; i < 7; i++)
		p->symbols[i] = (struct profil_symbol){ 0, 0x1000 + 0x100 * i,
		    0x1100 + 0x100 * i, must(strdup(names[i])) };
	p->nframes = NFRAMES;
	p->frames = must(calloc(NFRAMES, sizeof *p->frames));
	for (size_t i = 0; i <= F_WORKER; i++)
		p->frames[i] = (struct profil_frame){ 0, 0x1010 + 0x100 * i };
	p->frames[F_READ] = (struct profil_frame){ PROFIL_FRAME_OFFCPU, 0 };
	p->frames[F_POLL] = (struct profil_frame){ PROFIL_FRAME_OFFCPU, 7 };
	p->frames[F_SLEEP] = (struct profil_frame){ PROFIL_FRAME_OFFCPU, 230 };
	p->frames[F_RUNNABLE] = (struct profil_frame){ PROFIL_FRAME_OFFCPU,
	    PROFIL_OFFCPU_RUNNABLE };
	p->frames[F_BLOCKED] = (struct profil_frame){ PROFIL_FRAME_OFFCPU,
	    PROFIL_OFFCPU_BLOCKED };
	p->frames[F_CUT] = (struct profil_frame){ PROFIL_FRAME_CUT,
	    PROFIL_CUT_NOT_TAKEN };
	p->stacks = must(calloc(n, sizeof *p->stacks));
	for (size_t i = 0; i < n; i++) {
		struct profil_stack *st = &p->stacks[p->nstacks++];

		st->pid = 1;
		st->tid = spec[i].tid;
		st->count = spec[i].count;
		st->off_ns = spec[i].off_ms * MS;
		st->sampled_ns = spec[i].sampled_ms * MS;
		st->observations = spec[i].looks;
		st->depth = spec[i].depth;
		st->frames = must(calloc(st->depth, sizeof *st->frames));
		memcpy(st->frames, spec[i].frames, st->depth * sizeof *st->frames);
		if (st->count > 0) {
			/* a CPU sample: its leaf's address in the histogram */
			o->buckets[o->nbuckets++] = (struct profil_bucket){
			    p->frames[st->frames[0]].addr, st->count };
			o->samples += st->count;
			p->samples += st->count;
			tid_cpu[st->tid] += st->count;
		}
	}
	p->cpu_ns = p->samples * MS;
	p->duration_ns = 3000 * MS;
	p->nthreads = 2;
	p->threads = must(calloc(2, sizeof *p->threads));
	for (uint32_t t = 1; t <= 2; t++)
		p->threads[t - 1] = (struct profil_thread){ 1, t,
		    must(strdup("app")), tid_cpu[t] };
	p->nprocesses = 1;
	p->processes = must(calloc(1, sizeof *p->processes));
	p->processes[0] = (struct profil_process){ 1, 0, must(strdup("app")),
	    0, p->samples };
	p->wall = must(calloc(1, sizeof *p->wall));
	*p->wall = (struct profil_wall){ 5 * MS, 100, 10, 0 };
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
}

/*
 * Thread 1: main;compute on the CPU (100 samples), main;sleeper asleep
 * 1 s (measured: a look found it), its short blocks (600 ms, placed by
 * its 40 looks: 30 in main;reader's read, 10 in main;poller's poll), and
 * 20 ms runnable at main;compute (5 preemptions).  Thread 2:
 * worker;other on the CPU (300 samples), 60 ms runnable there (15
 * preemptions), 50 ms blocked where no look found it.  In all 2130 ms.
 */
static const struct stack_spec known[] = {
	{ 1, 100, 0, 0, 0, 2, { F_COMPUTE, F_MAIN } },
	{ 2, 300, 0, 0, 0, 2, { F_OTHER, F_WORKER } },
	{ 1, 0, 1000, 0, 0, 3, { F_SLEEP, F_SLEEPER, F_MAIN } },
	{ 1, 0, 400, 400, 30, 3, { F_READ, F_READER, F_MAIN } },
	{ 1, 0, 200, 200, 10, 3, { F_POLL, F_POLLER, F_MAIN } },
	{ 1, 0, 20, 20, 5, 3, { F_RUNNABLE, F_COMPUTE, F_MAIN } },
	{ 2, 0, 60, 60, 15, 3, { F_RUNNABLE, F_OTHER, F_WORKER } },
	{ 2, 0, 50, 50, 0, 2, { F_BLOCKED, F_CUT } },
};
#define KNOWN_ALL 2130.0
#define KNOWN_CPU 400.0

/*
 * Every view of the profile above, each bar against the one definition
 * worked out here: the CPU samples' binomial error (of 400) for rows of
 * code, each thread's sampled time by its looks (600 ms on 40 looks;
 * 20 ms on 5, 60 ms on 15 preemptions), nothing for what was measured
 * (the sleep; the 50 ms no look found, a row of its own), nothing at all
 * for threads and processes (their time is theirs, counted).
 */
static void
test_known_wall_profile(void **state)
{
	const char *prf = tmp("known.prf");
	struct csv t;
	int r;

	(void)state;
	save_wall(prf, known, sizeof known / sizeof known[0]);

	/* flat: self and inclusive */
	csv_of(&t, prf, NULL, NULL);
	r = row_of(&t, "function", "compute");
	assert_near(num(&t, r, "error95"), points(KNOWN_ALL, 1,
	    KNOWN_CPU * W(100, KNOWN_CPU)), "compute");
	assert_near(num(&t, r, "inclusive_error95"), points(KNOWN_ALL, 2,
	    KNOWN_CPU * W(100, KNOWN_CPU), 20 * W(5, 5)),
	    "compute, inclusive");
	assert_int_equal((int)num(&t, r, "samples"), 100);
	assert_near(num(&t, r, "inclusive_seconds"), 0.120, "compute's time");
	r = row_of(&t, "function", "[off-cpu: clock_nanosleep]");
	assert_near(num(&t, r, "error95"), 0, "the measured sleep");
	assert_near(num(&t, r, "inclusive_error95"), 0, "the measured sleep");
	assert_int_equal((int)num(&t, r, "samples"), 0);
	assert_near(num(&t, r, "seconds"), 1.0, "the sleep's seconds");
	r = row_of(&t, "function", "[off-cpu: read]");
	assert_near(num(&t, r, "error95"), points(KNOWN_ALL, 1,
	    600 * W(30, 40)), "read");
	r = row_of(&t, "function", "[off-cpu: poll]");
	assert_near(num(&t, r, "error95"), points(KNOWN_ALL, 1,
	    600 * W(10, 40)), "poll");
	r = row_of(&t, "function", "[off-cpu: runnable]");
	assert_near(num(&t, r, "error95"), points(KNOWN_ALL, 2,
	    20 * W(5, 5), 60 * W(15, 15)), "runnable");
	r = row_of(&t, "function", "[off-cpu: blocked]");
	assert_near(num(&t, r, "error95"), 0, "blocked where no look was");
	csv_free(&t);

	csv_of(&t, prf, "--sort", "inclusive", NULL);
	r = row_of(&t, "function", "main");
	assert_near(num(&t, r, "inclusive_error95"), points(KNOWN_ALL, 3,
	    KNOWN_CPU * W(100, KNOWN_CPU), 600 * W(40, 40),
	    20 * W(5, 5)), "main, inclusive");
	assert_int_equal((int)num(&t, r, "inclusive_samples"), 100);
	r = row_of(&t, "function", "reader");
	assert_near(num(&t, r, "inclusive_error95"), points(KNOWN_ALL, 2,
	    KNOWN_CPU * W(0, KNOWN_CPU), 600 * W(30, 40)),
	    "reader, inclusive");
	r = row_of(&t, "function", "sleeper");
	assert_near(num(&t, r, "inclusive_error95"), points(KNOWN_ALL, 1,
	    KNOWN_CPU * W(0, KNOWN_CPU)), "sleeper, inclusive");
	r = row_of(&t, "function", "worker");
	assert_near(num(&t, r, "inclusive_error95"), points(KNOWN_ALL, 2,
	    KNOWN_CPU * W(300, KNOWN_CPU), 60 * W(15, 15)),
	    "worker, inclusive");
	csv_free(&t);

	/* the tree: a node as the flat view's function on that one path */
	csv_of(&t, prf, "--tree", "--min-percent", "0", NULL);
	r = row_of(&t, "function", "main");
	assert_near(num(&t, r, "inclusive_error95"), points(KNOWN_ALL, 3,
	    KNOWN_CPU * W(100, KNOWN_CPU), 600 * W(40, 40),
	    20 * W(5, 5)), "tree: main");
	assert_int_equal((int)num(&t, r, "inclusive_samples"), 100);
	assert_near(num(&t, r, "inclusive_seconds"), 1.720, "tree: main's time");
	r = row_of(&t, "function", "[off-cpu: clock_nanosleep]");
	assert_near(num(&t, r, "inclusive_error95"), 0, "tree: the sleep");
	r = row_of(&t, "function", "[off-cpu: read]");
	assert_near(num(&t, r, "inclusive_error95"), points(KNOWN_ALL, 1,
	    600 * W(30, 40)), "tree: read");
	csv_free(&t);

	/*
	 * callers and callees: shares of the function's own time, its
	 * looks the whole's (main: 100 CPU samples, 40 looks of 600 ms, 5
	 * preemptions of 20 ms, in 1720 ms)
	 */
	csv_of(&t, prf, "--callees", "main", NULL);
	r = row_of(&t, "function", "reader");
	assert_near(num(&t, r, "error95"), points(1720, 2, 100 * W(0, 100),
	    600 * W(30, 40)), "callees of main: reader");
	r = row_of(&t, "function", "sleeper");
	assert_near(num(&t, r, "error95"), points(1720, 1, 100 * W(0, 100)),
	    "callees of main: sleeper");
	r = row_of(&t, "function", "compute");
	assert_near(num(&t, r, "error95"), points(1720, 2,
	    100 * W(100, 100), 20 * W(5, 5)), "callees of main: "
	    "compute");
	assert_int_equal((int)num(&t, r, "samples"), 100);
	assert_near(num(&t, r, "seconds"), 0.120, "callees of main: compute's "
	    "time");
	csv_free(&t);
	csv_of(&t, prf, "--callers", "[off-cpu: clock_nanosleep]", NULL);
	r = row_of(&t, "function", "sleeper");
	assert_near(num(&t, r, "error95"), 0, "callers of the sleep");
	assert_int_equal((int)num(&t, r, "samples"), 0);
	assert_near(num(&t, r, "seconds"), 1.0, "callers of the sleep: time");
	csv_free(&t);
	csv_of(&t, prf, "--callers", "[off-cpu: read]", NULL);
	r = row_of(&t, "function", "reader");
	assert_near(num(&t, r, "error95"), points(400, 1, 400 * W(30, 30)),
	    "callers of read");
	csv_free(&t);

	/* objects: the code's CPU samples, the kinds of waiting */
	csv_of(&t, prf, "--objects", NULL);
	r = row_of(&t, "object", "app");
	assert_near(num(&t, r, "error95"), points(KNOWN_ALL, 1,
	    KNOWN_CPU * W(KNOWN_CPU, KNOWN_CPU)), "objects: app");
	assert_int_equal((int)num(&t, r, "samples"), 400);
	assert_near(num(&t, r, "seconds"), 0.4, "objects: app's time");
	r = row_of(&t, "object", "[off-cpu: sleep]");
	assert_near(num(&t, r, "error95"), 0, "objects: sleep");
	assert_int_equal((int)num(&t, r, "samples"), 0);
	r = row_of(&t, "object", "[off-cpu: I/O]");
	assert_near(num(&t, r, "error95"), points(KNOWN_ALL, 1,
	    600 * W(30, 40)), "objects: I/O");
	r = row_of(&t, "object", "[off-cpu: polling]");
	assert_near(num(&t, r, "error95"), points(KNOWN_ALL, 1,
	    600 * W(10, 40)), "objects: polling");
	csv_free(&t);

	/* threads and processes: counted and timed, no error */
	csv_of(&t, prf, "--threads", NULL);
	for (int i = 0; i < t.nrows; i++) {
		assert_near(num(&t, i, "error95"), 0, "a thread");
		assert_int_equal((int)num(&t, i, "samples"),
		    (int)num(&t, i, "tid") == 1 ? 100 : 300);
	}
	assert_int_equal(t.nrows, 2);
	csv_free(&t);
	csv_of(&t, prf, "--pid", NULL);
	assert_int_equal(t.nrows, 1);
	assert_near(num(&t, 0, "error95"), 0, "a process");
	assert_near(num(&t, 0, "percent"), 100, "the process's share");
	assert_int_equal((int)num(&t, 0, "samples"), 400);
	assert_near(num(&t, 0, "seconds"), KNOWN_ALL / 1000, "its time");
	csv_free(&t);
}

/*
 * diff of the profile with itself: no change, and its error that of the
 * two shares' errors, each as the flat view gives it: sqrt(2) e.
 */
static void
test_known_diff(void **state)
{
	const char *prf = tmp("known.prf"), *copy = tmp("known-copy.prf");
	char *argv[] = { profil_bin, "diff", "--format", "csv", (char *)prf,
	    (char *)copy, NULL };
	static struct run r;
	struct csv flat, d;

	(void)state;
	save_wall(prf, known, sizeof known / sizeof known[0]);
	save_wall(copy, known, sizeof known / sizeof known[0]);
	csv_of(&flat, prf, NULL, NULL);
	run(&r, argv);
	assert_int_equal(r.status, 0);
	csv_parse(&d, r.out);
	for (int i = 0; i < d.nrows; i++) {
		const char *fn = text_at(&d, i, "function");
		int f;

		if (num(&d, i, "before_samples") == 0)
			continue;	/* a caller: no self share */
		f = row_of(&flat, "function", fn);
		assert_near(num(&d, i, "change"), 0, fn);
		assert_near(num(&d, i, "error95"), sqrt(2) * num(&flat, f,
		    "error95"), fn);
	}
	/* the measured sleep: no error, no change */
	assert_near(num(&d, row_of(&d, "function",
	    "[off-cpu: clock_nanosleep]"), "error95"), 0, "diff: the sleep");
	csv_free(&d);
	csv_free(&flat);
}

/*
 * Placement resting on next to nothing (the timer engine as an ordinary
 * user once printed 80.00 +- 159.3): one look for most of a thread's
 * time, a few CPU samples, time no look found.  No bar in any view is
 * over 100 points, nor reaches past 0 or 100.
 */
static void
assert_bars_within(const struct csv *t, const char *pct, const char *err)
{
	for (int i = 0; i < t->nrows; i++) {
		double s = num(t, i, pct), e = num(t, i, err);

		if (e < 0 || e > 100 || e > (s > 50 ? s : 100 - s) + 0.0001)
			fail_msg("%s %.4f +- %.4f", text_at(t, i, t->name[0]), s, e);
	}
}

static void
test_bars_stay_within_bounds(void **state)
{
	static const struct stack_spec thin[] = {
		{ 1, 3, 0, 0, 0, 2, { F_COMPUTE, F_MAIN } },
		{ 1, 0, 800, 800, 1, 3, { F_READ, F_READER, F_MAIN } },
		{ 1, 0, 100, 100, 1, 3, { F_POLL, F_POLLER, F_MAIN } },
		{ 2, 1, 0, 0, 0, 2, { F_OTHER, F_WORKER } },
		{ 2, 0, 97, 97, 0, 2, { F_BLOCKED, F_CUT } },
		{ 2, 0, 40, 40, 1, 3, { F_RUNNABLE, F_OTHER, F_WORKER } },
	};
	const char *prf = tmp("thin.prf");
	struct csv t;

	(void)state;
	save_wall(prf, thin, sizeof thin / sizeof thin[0]);
	csv_of(&t, prf, "--sort", "inclusive", NULL);
	assert_bars_within(&t, "percent", "error95");
	assert_bars_within(&t, "inclusive_percent", "inclusive_error95");
	csv_free(&t);
	csv_of(&t, prf, "--tree", "--min-percent", "0", NULL);
	assert_bars_within(&t, "inclusive_percent", "inclusive_error95");
	csv_free(&t);
	csv_of(&t, prf, "--objects", NULL);
	assert_bars_within(&t, "percent", "error95");
	csv_free(&t);
	csv_of(&t, prf, "--callees", "main", NULL);
	assert_bars_within(&t, "percent", "error95");
	csv_free(&t);
	csv_of(&t, prf, "--callers", "[off-cpu: read]", NULL);
	assert_bars_within(&t, "percent", "error95");
	csv_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_wall_profile),
		cmocka_unit_test(test_known_diff),
		cmocka_unit_test(test_bars_stay_within_bounds),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
