/*
 * test-timephases.c - --time windows of a recorded program whose phases
 * it times by its own clock (tests/programs/phases.c: the worker runs
 * a() 1 s, blocks in read() 0.5 s, runs b() 1 s; "late" sleeps 1.25 s,
 * then runs c() 1 s), both engines, record --wall: the window of a()'s
 * phase is a(), the window after c() ended is b() alone, the window of
 * the read is c()'s on the CPU and the read's time off it; each share
 * within margins set from the window's samples; diff of two windows of
 * the one profile says a() gave way to b(); windows given in ns, s and
 * percent of the run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

#include "csv-table.h"

static char phases[PATH_MAX];

/* A phase as the program timed it: ns after the profile's start. */
struct phase {
	double t0, t1;
};

/* The program's "phase NAME START END" line for name, against start_ns. */
static struct phase
phase_of(const char *err, const char *name, int64_t start_ns)
{
	char key[32];
	const char *at;
	unsigned long long t0, t1;

	snprintf(key, sizeof key, "phase %s ", name);
	if ((at = strstr(err, key)) == NULL ||
	    sscanf(at + strlen(key), "%llu %llu", &t0, &t1) != 2)
		fail_msg("the program did not say its phase %s: %s", name, err);
	return (struct phase){ (double)t0 - (double)start_ns,
	    (double)t1 - (double)start_ns };
}

/* What a window of the CPU part holds: a(), b() and c() (inclusive). */
struct held {
	double a, b, c, all;
};

/*
 * The CPU part of prf in the window text (report --cpu --time): each
 * function's samples with it on the stack (its vDSO clock reads too),
 * and all the window's samples.
 */
static void
held_in(const char *prf, const char *text, struct held *h)
{
	struct csv t;

	csv_of(&t, prf, "--cpu", "--time", text, NULL);
	*h = (struct held){ 0, 0, 0, 0 };
	for (int r = 0; r < t.nrows; r++) {
		const char *fn = text_at(&t, r, "function");
		double incl = num(&t, r, "inclusive_samples");

		h->all += num(&t, r, "samples");
		if (strcmp(fn, "a") == 0)
			h->a = incl;
		else if (strcmp(fn, "b") == 0)
			h->b = incl;
		else if (strcmp(fn, "c") == 0)
			h->c = incl;
	}
	csv_free(&t);
}

/*
 * Of a window where fn alone ran (got of its all samples): the rest is
 * start-up or exit (E2E_STARTUP) and what the timeline may place out of
 * its phase (test-when's bound: 2% and 2 samples); each function that
 * did not run there has no more than that bound.  1 if the window has
 * too few samples to tell (a loaded machine: run longer).
 */
static int
alone(const char *what, const char *fn, double got, const struct held *h,
    double least)
{
	double stray = 2 + 0.02 * h->all;

	print_message("%s: %s %.0f of %.0f samples (a %.0f, b %.0f, c %.0f)\n",
	    what, fn, got, h->all, h->a, h->b, h->c);
	if (h->all < least)
		return 1;
	if (h->all - got > E2E_STARTUP + stray)
		fail_msg("%s: %s has %.0f of the window's %.0f samples", what, fn,
		    got, h->all);
	if ((h->a != got && h->a > stray) || (h->b != got && h->b > stray) ||
	    (h->c != got && h->c > stray))
		fail_msg("%s: a %.0f, b %.0f, c %.0f samples where %s alone ran",
		    what, h->a, h->b, h->c, fn);
	return 0;
}

/*
 * The worker's read() in its window, in the wall view: its time there
 * is no more than the window's length (a thread waits in one place at
 * a time), and at least 70% of the program's own time of it (which
 * holds its wait for a CPU after the timer fired: test-when).
 */
static void
read_in(const char *what, const char *prf, const char *text, double len_s,
    double slice_s)
{
	struct csv t;
	double s;

	csv_of(&t, prf, "--time", text, NULL);
	s = num(&t, row_of(&t, "function", "[off-cpu: read]"), "seconds");
	print_message("%s: read() %.3f s in its window, %.3f s by the program\n",
	    what, s, len_s);
	if (s > len_s + 2 * slice_s + 0.001 || s < 0.7 * len_s)
		fail_msg("%s: %.3f s in read() in its window; it took %.3f s",
		    what, s, len_s);
	csv_free(&t);
}

/*
 * diff of the window before (a() alone) and after (b() alone) of prf:
 * a() on the stack of all but the stray samples alone() allows of the
 * one (least_pct) and of none of the other, b() the reverse, and both
 * changes significant.
 */
static void
diff_windows(const char *what, const char *prf, const char *before,
    const char *after, double least_pct)
{
	char *argv[] = { profil_bin, "diff", "--cpu", "--format", "csv",
	    "--time-before", (char *)before, "--time-after", (char *)after,
	    (char *)prf, (char *)prf, NULL };
	static struct run r;
	struct csv t;
	int ra, rb;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("%s: diff exited %d: %s", what, r.status, r.err);
	csv_parse(&t, r.out);
	ra = row_of(&t, "function", "a");
	rb = row_of(&t, "function", "b");
	print_message("%s: diff: a %s%% -> %s%%, b %s%% -> %s%% (at least "
	    "%.1f%%)\n", what, text_at(&t, ra, "incl_before_percent"),
	    text_at(&t, ra, "incl_after_percent"),
	    text_at(&t, rb, "incl_before_percent"),
	    text_at(&t, rb, "incl_after_percent"), least_pct);
	if (num(&t, ra, "incl_before_percent") < least_pct ||
	    num(&t, rb, "incl_after_percent") < least_pct ||
	    num(&t, ra, "incl_after_percent") > 100 - least_pct ||
	    num(&t, rb, "incl_before_percent") > 100 - least_pct ||
	    num(&t, ra, "incl_significant") != 1 ||
	    num(&t, rb, "incl_significant") != 1)
		fail_msg("%s: diff: a %s%% -> %s%%, b %s%% -> %s%%", what,
		    text_at(&t, ra, "incl_before_percent"),
		    text_at(&t, ra, "incl_after_percent"),
		    text_at(&t, rb, "incl_before_percent"),
		    text_at(&t, rb, "incl_after_percent"));
	csv_free(&t);
}

/*
 * The windows of prf (recorded by what; err holds the program's lines).
 * 1 if a window had too few samples to tell, else 0: 150 at least (300
 * in a()'s, a second at 1 kHz), for what is not the function to be
 * within a seventh of them (E2E_STARTUP and the 2 and 2% that may
 * stray).
 */
static int
judge_windows(const char *what, const char *prf, const char *err)
{
	char cause[512], wa[96], wb[96], wr[96];
	struct profil_profile *p;
	struct phase a, b, c, rd;
	struct held h;
	double slice, run, fewest;
	int few = 0;

	if ((p = profil_profile_read(prf, cause, sizeof cause)) == NULL)
		fail_msg("%s: %s", what, cause);
	if (p->slice_ns == 0)
		fail_msg("%s: no timeline", what);
	slice = (double)p->slice_ns;
	run = (double)p->duration_ns;
	a = phase_of(err, "a", p->start_ns);
	b = phase_of(err, "b", p->start_ns);
	c = phase_of(err, "c", p->start_ns);
	rd = phase_of(err, "read", p->start_ns);
	profil_profile_free(p);
	/*
	 * Each window a slice wider than the phase on either side: the
	 * timeline puts a sample within a slice of when it came.  a()'s in
	 * ns; b() alone, after c() ended, in percent of the run; the read's
	 * in seconds, as the program timed it.
	 */
	snprintf(wa, sizeof wa, "%.0fns..%.0fns", fmax(a.t0 - slice, 0),
	    a.t1 + slice);
	snprintf(wb, sizeof wb, "%.9f%%..%.9f%%", 100 * (c.t1 + slice) / run,
	    fmin(100 * (b.t1 + slice) / run, 100));
	snprintf(wr, sizeof wr, "%.9fs..%.9fs", rd.t0 / 1e9, rd.t1 / 1e9);
	held_in(prf, wa, &h);
	few |= alone(what, "a", h.a, &h, 300);
	fewest = h.all;
	held_in(prf, wb, &h);
	few |= alone(what, "b", h.b, &h, 150);
	fewest = fmin(fewest, h.all);
	/* the read's window: the worker blocked, late in c() from 1.25 s */
	held_in(prf, wr, &h);
	few |= alone(what, "c", h.c, &h, 150);
	if (few)
		return 1;
	read_in(what, prf, wr, (rd.t1 - rd.t0) / 1e9, slice / 1e9);
	/* a() and b() alone but for what alone() allows the fewer samples */
	diff_windows(what, prf, wa, wb, 100 * (1 - (E2E_STARTUP + 2 +
	    0.02 * fewest) / fewest));
	return 0;
}

/* The phases' length for the runs-th try: longer while samples are few. */
static double
scale_for(int runs)
{
	double s = harness_work_scale();

	for (int i = 0; i < runs; i++)
		s *= 3;
	if (runs >= 3)
		fail_msg("too few samples after 3 runs, the last at scale %.2f: "
		    "the machine is too busy to tell", s / 3);
	return s;
}

static void
check(const char *engine)
{
	static struct run r;
	char prf[PATH_MAX], scale[32], what[32];
	char *argv[] = { profil_bin, "record", "-e", (char *)engine, "--wall",
	    "-o", prf, phases, scale, NULL };

	snprintf(what, sizeof what, "%s engine", engine);
	scratch(prf, "phases.prf");
	for (int runs = 0;; runs++) {
		snprintf(scale, sizeof scale, "%.2f", scale_for(runs));
		run(&r, argv);
		if (r.status != 0)
			fail_msg("%s: record exited %d: %s", what, r.status,
			    r.err);
		if (judge_windows(what, prf, r.err) == 0)
			return;
	}
}

static void test_perf(void **state) { (void)state; check("perf"); }
static void test_timer(void **state) { (void)state; check("timer"); }

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
		cmocka_unit_test(test_perf),
		cmocka_unit_test(test_timer),
	};

	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
