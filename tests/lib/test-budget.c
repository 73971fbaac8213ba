/*
 * test-budget.c - the sample budget (sampler/budget.h): its arithmetic,
 * and `profil record --samples` end to end on both engines, and with perf
 * events refused.  The rate must really come down, the weighted counts
 * still add up to the CPU time, a 30 ms program must get several times
 * the samples of 1 kHz, and shares must stay within the errors of the
 * samples they are worth: of a steady split, and of a program whose two
 * halves run at very different rates (libm: our code first, then as
 * long in libm), where counting every sample once would put libm near
 * 20% instead of 50%.  Margins come from the profile's own effective
 * sample count (4 standard errors), never from constants; each check
 * says how wide it may be, and its run is as long as that needs (see
 * budget_cpu_for).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sampler/budget.h"
#include "e2e.h"
#include "harness.h"
#include <profil.h>

enum { PERF, TIMER, NOPERF };
static const char *const engine_names[] = { "perf", "timer", "timer" };
static const char *const cases[] = { "perf engine", "timer engine",
	"timer engine, perf refused" };

static void
test_policy(void **state)
{
	(void)state;
	assert_int_equal(budget_stage_samples(10000), 1250);
	assert_int_equal(budget_stage_samples(5), 1);
	/* from 10 kHz, 9 doublings: 51.2 ms; a tenth doubling passes 100 ms */
	assert_int_equal(budget_max_shift(100000), 9);
	assert_int_equal(budget_max_shift(1000000), 6);
	assert_int_equal(budget_max_shift(100000000), 0);
	assert_int_equal(budget_max_shift(200000000), 0);
	assert_int_equal(budget_shift(0, 100000, 1000000), 0);
	assert_int_equal(budget_shift(10000, 100000, 0), 0);
	assert_int_equal(budget_shift(10000, 100000, 1249), 0);
	assert_int_equal(budget_shift(10000, 100000, 1250), 1);
	assert_int_equal(budget_shift(10000, 100000, 8 * 1250), 8);
	assert_int_equal(budget_shift(10000, 100000, 1ull << 40), 9);
}

/* What a sample weighs, and its square, as both engines count them. */
static void
test_weights(void **state)
{
	(void)state;
	assert_int_equal(budget_weight(100000, 100000), 1);
	assert_int_equal(budget_weight(100000 << 5, 100000), 32);
	assert_int_equal(budget_weight(50000, 100000), 1);	/* below the base */
	assert_int_equal(budget_weight(100000, 0), 1);		/* no base */
	assert_true(budget_weight_sq(32, 0, 1) == 1024);
	/* 3 user, 8 kernel at a unit of 4: 9 + 2 samples of 4 each */
	assert_true(budget_weight_sq(3, 8, 4) == 9 + 32);
	assert_true(budget_weight_sq(1ull << 32, 0, 1) == UINT64_MAX);
	assert_true(budget_weight_sq(UINT32_MAX, 0, 1) ==
	    (uint64_t)UINT32_MAX * UINT32_MAX);
	assert_true(budget_sum_saturating(UINT64_MAX - 1, 1) == UINT64_MAX);
	assert_true(budget_sum_saturating(UINT64_MAX - 1, 2) == UINT64_MAX);
	assert_true(budget_sum_saturating(5, 7) == 12);
}

/*
 * `profil record -q --samples N [-F HZ] -e ENGINE -o prf PROGRAM...`,
 * through helper-noperf for NOPERF; it must succeed.  Returns the
 * profile (free it).
 */
static struct profil_profile *
record_budget_run(struct run *r, int how, const char *prf,
    const char *samples, const char *hz, char *const *program)
{
	char *argv[40];
	char noperf[PATH_MAX], cause[256];
	struct profil_profile *p;
	int n = 0;

	if (how == NOPERF) {
		snprintf(noperf, sizeof noperf, "%s/helper-noperf", bindir);
		argv[n++] = noperf;
	}
	argv[n++] = profil_bin;
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-e";
	argv[n++] = (char *)engine_names[how];
	argv[n++] = "-o";
	argv[n++] = (char *)prf;
	if (samples != NULL) {
		argv[n++] = "--samples";
		argv[n++] = (char *)samples;
	}
	if (hz != NULL) {
		argv[n++] = "-F";
		argv[n++] = (char *)hz;
	}
	/*
	 * Sanitized, the recorder cannot unwind 10 kHz of stacks: it falls
	 * behind, the rings overflow early in the run, and the losses are
	 * not even in time.  The budget is not about stacks.
	 */
	if (getenv("PROFIL_TEST_SANITIZED") != NULL)
		argv[n++] = "--no-call-graph";
	while (*program != NULL && n < 39)
		argv[n++] = *program++;
	argv[n] = NULL;
	run(r, argv);
	if (r->status != 0)
		fail_msg("record exited %d: %s", r->status, r->err);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	return p;
}

static struct profil_profile *
record_budget(int how, const char *prf, const char *samples, const char *hz,
    char *const *program)
{
	static struct run r;	/* 72 KiB: not on the test's stack */

	return record_budget_run(&r, how, prf, samples, hz, program);
}

/* The samples the counts are worth: samples^2 / their squared weights. */
static double
worth(const struct profil_profile *p)
{
	return p->weight_sq ? (double)p->samples * (double)p->samples /
	    (double)p->weight_sq : (double)p->samples;
}

static uint64_t tick_ns;	/* the scheduler's tick, set by main() */

/*
 * The CPU seconds from which a run under a budget of n samples, starting
 * every base_ns, is worth `need` samples of equal weight, has doubled its
 * period `stage` times and taken at most taken_share of the samples the
 * starting rate would have (1: any), as the policy (budget.h) makes it;
 * with ticks (perf refused: CPU timers fire on the scheduler's tick, and
 * a sample weighs the periods since the last), on ticks.  A budget's
 * worth levels off at about 3n/8, each doubling of a run's length adding
 * n/8 samples of twice the weight, and dips a little as each doubling
 * starts: the run must be worth need from then on, not once (looked at
 * up to 4 times as long).  On ticks the weights vary with the ticks a
 * timer catches or misses (worth 258 of 309 samples taken here): 80% of
 * the model's worth is counted on.  Fails if the budget never gets
 * there: a test asking more than its budget gives.
 */
static double
budget_cpu_for(uint64_t n, uint64_t base_ns, int ticks, double need,
    unsigned stage, double taken_share)
{
	double t = 0, taken = 0, counts = 0, squares = 0, since = 0;

	while (t < 120) {
		unsigned k = budget_shift(n, base_ns, (uint64_t)taken);
		uint64_t period = base_ns << k;
		double w, seen;

		if (ticks)
			period = (period + tick_ns - 1) / tick_ns * tick_ns;
		w = (double)period / (double)base_ns;
		t += (double)period / 1e9;
		taken++;
		counts += w;
		squares += w * w;
		seen = (ticks ? 0.8 : 1) * counts * counts / squares;
		if (seen < need || budget_shift(n, base_ns, (uint64_t)taken) <
		    stage || taken > taken_share * counts)
			since = 0;
		else if (since == 0)
			since = t;
		if (since > 0 && t > 4 * since)
			return since;
	}
	fail_msg("a budget of %llu samples is never worth %.0f%s",
	    (unsigned long long)n, need, ticks ? " on ticks" : "");
	return 0;
}

/*
 * What every budgeted profile must say: the weights record, the budget
 * asked, counts that stand for the CPU time (each sample weighs its
 * period), and fewer samples taken than the start rate would have.
 */
static void
assert_budgeted(const struct profil_profile *p, uint64_t budget,
    const char *what)
{
	double periods = (double)p->cpu_ns / (double)p->interval_ns;
	double counted = (double)(p->samples + p->lost);

	if (p->budget != budget || p->taken == 0 || p->weight_sq < p->samples)
		fail_msg("%s: budget %llu, %llu taken, weights squared %llu for "
		    "%llu samples", what, (unsigned long long)p->budget,
		    (unsigned long long)p->taken,
		    (unsigned long long)p->weight_sq,
		    (unsigned long long)p->samples);
	if (counted < 0.85 * periods || counted > 1.1 * periods)
		fail_msg("%s: counts stand for %.0f intervals of %.0f of CPU time",
		    what, counted, periods);
}

/* The worth of every sample of p (count of record_budget_for). */
static double
whole_worth(const struct profil_profile *p, const char *prf)
{
	(void)prf;
	return worth(p);
}

/*
 * record_budget_run of program, whose argument E2E_CPU stands for its CPU
 * seconds, sized for need as count tells (of the profile and its file):
 * for cpu seconds of the whole program's CPU (budget_cpu_for's), a
 * program using per CPU-seconds for each second asked, with 15% room for
 * start-up and the recorder's losses; short of need, again, longer by
 * what was missing (3 runs at most, as record_for).
 */
static struct profil_profile *
record_budget_for(struct run *r, int how, const char *prf,
    const char *samples, const char *hz, char **program, double cpu,
    double per, double need,
    double (*count)(const struct profil_profile *, const char *))
{
	double asked = 1.15 * cpu / per;
	int runs = 0;

	for (;;) {
		char *argv[32], arg[32];
		struct profil_profile *p;
		double got;

		snprintf(arg, sizeof arg, "%.3f", asked);
		e2e_program_for(argv, 32, program, arg);
		p = record_budget_run(r, how, prf, samples, hz, argv);
		got = count(p, prf);
		if (got >= need)
			return p;
		profil_profile_free(p);
		asked = e2e_longer(asked, got, need, &runs);
	}
}

/*
 * What the counts of six, three and one in prf are worth: their share of
 * the samples' worth (a steady split: each function's samples weigh as
 * the others').
 */
static double
split_worth(const struct profil_profile *p, const char *prf)
{
	struct shares s;

	report(&s, prf);
	return (samples_of(&s, "six", NULL) + samples_of(&s, "three", NULL) +
	    samples_of(&s, "one", NULL)) * worth(p) / (double)p->samples;
}

/*
 * The worth assert_split_worth of max_points needs of them: the share of
 * 0.6 has the widest error, and the margin's fixed half point is not
 * sampling's.
 */
static double
split_need(double max_points)
{
	return e2e_samples_for_share(0.6, 4, max_points / 100 - 0.005);
}

/*
 * six, three, one hold 6:3:1 of their counts within 4 errors of worth,
 * a margin of max_points at most (the run was sized for it: split_need).
 */
static void
assert_split_worth(const struct profil_profile *p, const char *prf,
    const char *what, double max_points)
{
	const char *fns[3] = { "six", "three", "one" };
	const double want[3] = { 0.6, 0.3, 0.1 };
	double k[3], n = 0, scale = (double)p->samples / worth(p);
	struct shares s;

	report(&s, prf);
	for (int i = 0; i < 3; i++)
		n += k[i] = samples_of(&s, fns[i], NULL);
	if (n < 0.85 * (s.total - samples_of(&s, NULL, "[kernel]")))
		fail_msg("%s: only %.0f of %.0f counts in the three functions",
		    what, n, s.total);
	for (int i = 0; i < 3; i++) {
		double margin = harness_margin(want[i], n / scale, 4, 0.005) + 0.005;

		if (margin > max_points / 100)
			fail_msg("%s: %.0f counts worth %.0f samples, %.0f needed "
			    "for a %.1f-point check", what, n, n / scale,
			    split_need(max_points), max_points);
		if (fabs(k[i] / n - want[i]) > margin)
			fail_msg("%s: %s has %.2f%% (want %.0f%% +- %.2f) of %.0f "
			    "counts, worth %.0f samples", what, fns[i],
			    100 * k[i] / n, 100 * want[i], 100 * margin, n,
			    n / scale);
	}
}

/*
 * A steady split, one thread: shares within the errors of what the
 * samples are worth, the rate really lower at the end, and far fewer
 * samples than the start rate would take.  With perf events refused
 * CPU timers fire on ticks (250 a second here), so the budget can only
 * slow them down, later: a smaller budget there.
 *
 * How fine a check a budget allows is the budget's: a budget of 10,000
 * levels off at a worth near 3,000 (a 4.3-point check of the 6:3:1 by
 * 1.2 s here), so the check is of 4.5 points; on ticks, 250 samples a
 * second of about equal weight, 13 points (258 worth in 1.2 s here).  The
 * run is as long as that needs, as its doubling to 4 times the period
 * (stage 2) needs and, on perf events and timers above the tick, as
 * taking less than half the samples of 10 kHz needs: the three
 * functions hold 95% of the samples or more.
 */
static void
test_split(void **state)
{
	char *prog[] = { workload, "split", E2E_CPU, NULL };
	static struct run out;

	(void)state;
	for (int how = PERF; how <= NOPERF; how++) {
		const char *prf = tmp("split.prf");
		const char *n = how == NOPERF ? "800" : "10000";
		double points = how == NOPERF ? 13 : 4.5;
		double cpu = budget_cpu_for((uint64_t)atoi(n), 100000,
		    how == NOPERF, split_need(points) / 0.95, 2,
		    how == NOPERF ? 1 : 0.5);
		struct profil_profile *p = record_budget_for(&out, how, prf, n,
		    NULL, prog, cpu, 1, split_need(points), split_worth);
		double periods = (double)p->cpu_ns / (double)p->interval_ns;

		fprintf(stderr, "%s: %llu taken, %.0f Hz at the end, worth %.0f, "
		    "for %.2f s of CPU\n", cases[how], (unsigned long long)p->taken,
		    1e9 / (double)p->slowest_ns, worth(p), (double)p->cpu_ns / 1e9);
		assert_budgeted(p, (uint64_t)atoi(n), cases[how]);
		if (p->interval_ns != 100000)
			fail_msg("%s: starts every %llu ns", cases[how],
			    (unsigned long long)p->interval_ns);
		if (p->slowest_ns < 4 * p->interval_ns)
			fail_msg("%s: the period went from %llu to %llu ns only",
			    cases[how], (unsigned long long)p->interval_ns,
			    (unsigned long long)p->slowest_ns);
		if (how != NOPERF && (double)p->taken > 0.5 * periods)
			fail_msg("%s: %llu samples taken, 10 kHz would be %.0f",
			    cases[how], (unsigned long long)p->taken, periods);
		assert_split_worth(p, prf, cases[how], points);
		profil_profile_free(p);
	}
}

/*
 * Two halves at different rates: libm 0.6 spends 0.6 s of CPU in its own
 * loop, then 0.6 s in libm.  The budget samples the first half at up to
 * 10 kHz, the second at a few hundred Hz: counted once each, libm would
 * have a fifth of the samples; weighed by their periods, half (the loop
 * that calls jn() is the program's: 2 points for it, as test-record).
 * The margin must keep half apart from that fifth: 15 points at most,
 * half the 30 between them, so the run is worth as much as that needs,
 * and its halves 0.6 s at the least, for the rates to come apart.
 */
static void
test_halves_at_different_rates(void **state)
{
	char *prog[] = { workload, "libm", E2E_CPU, NULL };
	const double need = e2e_samples_for_share(0.5, 4, 0.15 - 0.02);
	static struct run out;

	(void)state;
	for (int how = PERF; how <= NOPERF; how++) {
		const char *prf = tmp("halves.prf");
		double cpu = fmax(1.2 / 1.15, budget_cpu_for(2000, 100000,
		    how == NOPERF, need, 0, 1));
		struct profil_profile *p = record_budget_for(&out, how, prf,
		    "2000", NULL, prog, cpu, 2, need, whole_worth);
		double libm, share, margin;
		struct shares s;

		assert_budgeted(p, 2000, cases[how]);
		report(&s, prf);
		libm = samples_of(&s, NULL, "libm.so.6");
		share = libm / s.total;
		margin = harness_margin(0.5, worth(p), 4, 0.01) + 0.02;
		fprintf(stderr, "%s: libm %.3f of %.0f counts (%llu taken, worth "
		    "%.0f), margin %.3f\n", cases[how], share, s.total,
		    (unsigned long long)p->taken, worth(p), margin);
		if (margin > 0.15)
			fail_msg("%s: worth %.0f samples, %.0f needed for a margin "
			    "of 0.15", cases[how], worth(p), need);
		if (fabs(share - 0.5) > margin)
			fail_msg("%s: libm share %.3f (want 0.50 +- %.3f)",
			    cases[how], share, margin);
		profil_profile_free(p);
	}
}

/*
 * Threads: the budget is the whole run's, every thread's clock comes
 * down, and each thread's share is what it ran: its share of the
 * threads' CPU time as the program measured it (equal work is not equal
 * CPU time on a loaded machine: 27:27:23:23 in CI), less what the main
 * thread and start-up took outside that measure (a point allowed).  Both
 * checks are of 6 points, and the run is as long as their larger need,
 * that of the split (a thread's share is near 0.25: each runs the same
 * CPU seconds), asks of the smaller worth, the split's.  A budget of
 * 4,000 levelled off near a worth of 1,300, where a 6-point split needs
 * 1,336: 5,000, near 1,600.
 */
static void
test_threads(void **state)
{
	char *prog[] = { workload, "threads", "4", E2E_CPU, NULL };
	const double points = 6;
	const double need = fmax(split_need(points),
	    e2e_samples_for_share(0.25, 4, points / 100 - 0.01));
	static struct run out;

	(void)state;
	for (int how = PERF; how <= TIMER; how++) {
		const char *prf = tmp("threads.prf");
		struct profil_profile *p = record_budget_for(&out, how, prf,
		    "5000", NULL, prog, budget_cpu_for(5000, 100000, 0,
		    need / 0.95, 0, 1), 4, need, split_worth);
		double scale = (double)p->samples / worth(p);
		double cpu[4], cpu_sum = 0;
		long tids[4];
		int measured = 0, busy = 0;

		fprintf(stderr, "%s: %llu taken, worth %.0f, for %.2f s of CPU\n",
		    cases[how], (unsigned long long)p->taken, worth(p),
		    (double)p->cpu_ns / 1e9);
		assert_budgeted(p, 5000, cases[how]);
		assert_split_worth(p, prf, cases[how], points);
		for (const char *s = strstr(out.out, "thread "); s != NULL &&
		    measured < 4; s = strstr(s + 1, "thread "))
			if (sscanf(s, "thread %ld cpu %lf", &tids[measured],
			    &cpu[measured]) == 2)
				cpu_sum += cpu[measured++];
		if (measured != 4 || cpu_sum <= 0)
			fail_msg("the program measured %d threads: %s", measured,
			    out.out);
		for (size_t i = 0; i < p->nthreads; i++) {
			double share = (double)p->threads[i].samples /
			    (double)p->samples, want, margin;
			int k;

			for (k = 0; k < 4 && tids[k] != (long)p->threads[i].tid; k++)
				;
			if (k == 4)
				continue;
			want = cpu[k] / cpu_sum;
			margin = harness_margin(want, (double)p->samples / scale,
			    4, 0.02) + 0.01;
			if (margin > points / 100)
				fail_msg("%s: worth %.0f samples, %.0f needed for "
				    "a %.1f-point check of a share of %.2f",
				    cases[how], worth(p), e2e_samples_for_share(want,
				    4, points / 100 - 0.01), points, want);
			if (fabs(share - want) > margin)
				fail_msg("%s: thread %ld has %.1f%% of %llu counts, "
				    "%.1f%% of the threads' CPU time", cases[how],
				    tids[k], 100 * share,
				    (unsigned long long)p->samples, 100 * want);
			busy++;
		}
		if (busy != 4)
			fail_msg("%s: %d of 4 measured threads in the profile",
			    cases[how], busy);
		profil_profile_free(p);
	}
}

/*
 * A 30 ms program: the budget's 10 kHz start gives it several times the
 * samples of 1 kHz (perf events, whose clocks are not tick-bound).
 */
static void
test_short_program(void **state)
{
	char *prog[] = { workload, "split", "0.022", NULL };

	(void)state;
	for (int how = PERF; how <= TIMER; how++) {
		struct profil_profile *fixed = record_budget(how, tmp("short-1k.prf"),
		    NULL, "1000", prog);
		struct profil_profile *budget = record_budget(how,
		    tmp("short-budget.prf"), "10000", NULL, prog);
		uint64_t at_1k = fixed->taken ? fixed->taken : fixed->samples;

		fprintf(stderr, "%s, %.0f ms of CPU: 1 kHz %llu samples, --samples "
		    "10000 %llu\n", cases[how], (double)budget->cpu_ns / 1e6,
		    (unsigned long long)at_1k, (unsigned long long)budget->taken);
		if (budget->taken < 4 * at_1k || at_1k == 0)
			fail_msg("%s: %llu samples with a budget, %llu at 1 kHz",
			    cases[how], (unsigned long long)budget->taken,
			    (unsigned long long)at_1k);
		profil_profile_free(fixed);
		profil_profile_free(budget);
	}
}

/*
 * -F with --samples is where the budget starts; the flat profile without
 * call stacks weighs its samples as the stacks do.  A budget of 1,000
 * from 2 kHz is worth some 280 by 0.66 s (12.5 points of the 6:3:1): a
 * 13-point check, the run as long as that needs.
 */
static void
test_start_rate_and_no_stacks(void **state)
{
	char *prog[] = { "--no-call-graph", workload, "split", E2E_CPU, NULL };
	const char *prf = tmp("start.prf");
	struct profil_profile *p;
	static struct run out;

	(void)state;
	p = record_budget_for(&out, PERF, prf, "1000", "2000", prog,
	    budget_cpu_for(1000, 500000, 0, split_need(13) / 0.95, 1, 1), 1,
	    split_need(13), split_worth);
	assert_int_equal(p->interval_ns, 500000);
	assert_int_equal(p->nstacks, 0);
	assert_budgeted(p, 1000, "perf engine, -F 2000, no stacks");
	if (p->slowest_ns <= p->interval_ns)
		fail_msg("the period stayed %llu ns",
		    (unsigned long long)p->slowest_ns);
	assert_split_worth(p, prf, "perf engine, -F 2000, no stacks", 13);
	profil_profile_free(p);
}

/*
 * The errors every view gives are those of the samples the counts are
 * worth: the flat view's column, the caption, diff, the HTML page's
 * flame graph, and merge keeps what they come from.
 */
static void
test_errors_of_what_samples_are_worth(void **state)
{
	char *prog[] = { workload, "split", "0.66", NULL };
	const char *prf = tmp("worth.prf"), *copy = tmp("worth-copy.prf");
	char *text[] = { profil_bin, "report", (char *)prf, NULL };
	char *diff[] = { profil_bin, "diff", (char *)prf, (char *)copy, NULL };
	char *html[] = { profil_bin, "report", "--html", (char *)tmp("w.html"),
	    (char *)prf, NULL };
	char *merge[] = { profil_bin, "merge", "-q", "-o", (char *)tmp("w2.prf"),
	    (char *)prf, (char *)copy, NULL };
	char cmd[3 * PATH_MAX], want[128], cause[256];
	struct profil_profile *p = record_budget(PERF, prf, "2000", NULL, prog);
	struct profil_profile *m;
	double scale = (double)p->samples / worth(p), k, err;
	const char *row;
	struct shares s;
	struct run r;

	(void)state;
	if (scale < 1.5)
		fail_msg("weights squared %llu for %llu samples: hardly weighted",
		    (unsigned long long)p->weight_sq,
		    (unsigned long long)p->samples);
	report(&s, prf);
	row = strstr(s.csv, "\nsix,");
	assert_non_null(row);
	if (sscanf(row, "\nsix,%*[^,],%lf,%*[^,],%lf", &k, &err) != 2)
		fail_msg("bad row: %.80s", row);
	if (fabs(err - e2e_wilson95(k, (double)p->samples, scale)) > 0.011)
		fail_msg("six: error %.2f, %.2f for %.0f of %.0f samples worth",
		    err, e2e_wilson95(k, (double)p->samples, scale),
		    k / scale, (double)p->samples / scale);
	run(&r, text);
	assert_int_equal(r.status, 0);
	snprintf(want, sizeof want, "as of %.0f samples of equal weight", worth(p));
	if (strstr(r.out, want) == NULL)
		fail_msg("the caption does not say '%s':\n%.400s", want, r.out);

	snprintf(cmd, sizeof cmd, "cp %s %s", prf, copy);
	assert_int_equal(system(cmd), 0);
	run(&r, diff);
	assert_int_equal(r.status, 0);
	snprintf(want, sizeof want, "samples, as %.0f of equal weight)", worth(p));
	if (strstr(r.out, want) == NULL)
		fail_msg("diff does not say '%s':\n%.400s", want, r.out);
	run(&r, html);
	assert_int_equal(r.status, 0);
	if (p->nstacks > 0) {
		FILE *f = fopen(tmp("w.html"), "r");
		static char page[1 << 20];
		size_t len = f ? fread(page, 1, sizeof page - 1, f) : 0;
		const char *at;

		if (f != NULL)
			fclose(f);
		page[len] = '\0';
		at = strstr(page, "\"scale\":");
		if (at == NULL || fabs(strtod(at + 8, NULL) / scale - 1) > 1e-3)
			fail_msg("the flame graph's errors are not scaled by %.4f: "
			    "%.20s", scale, at ? at : "(no scale)");
	}
	run(&r, merge);
	assert_int_equal(r.status, 0);
	m = profil_profile_read(tmp("w2.prf"), cause, sizeof cause);
	assert_non_null(m);
	assert_true(m->taken == 2 * p->taken && m->weight_sq == 2 * p->weight_sq);
	profil_profile_free(m);
	profil_profile_free(p);
}

/* A budget that is no number of samples, or with -p: one line, exit 2. */
static void
test_bad_input(void **state)
{
	static const char *const bad[][4] = {
		{ "--samples", "0" }, { "--samples", "-5" }, { "--samples", "99" },
		{ "--samples", "1000000001" }, { "--samples", "18446744073709551617" },
		{ "--samples", "abc" }, { "--samples", "" }, { "--samples", "1e4" },
		{ "--samples", "1000", "-p", "1" }, { "--samples" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *argv[8] = { profil_bin, "record" };
		struct run r;
		int k = 2;

		for (int j = 0; j < 4 && bad[i][j] != NULL; j++)
			argv[k++] = (char *)bad[i][j];
		if (bad[i][1] != NULL && bad[i][2] == NULL)
			argv[k++] = workload;
		argv[k] = NULL;
		run(&r, argv);
		if (r.status != 2)
			fail_msg("'--samples %s': exit %d", bad[i][1] ? bad[i][1] :
			    "", r.status);
		if (strncmp(r.err, "profil: record: ", 16) != 0 ||
		    strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
			fail_msg("'--samples %s': not one line: %s", bad[i][1] ?
			    bad[i][1] : "", r.err);
	}
}

int
main(void)
{
	struct profil_status st;

	profil_get_status(&st);
	tick_ns = 1000000000ull / (st.tick_hz > 0 ? st.tick_hz : 250);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_halves_at_different_rates),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_short_program),
		cmocka_unit_test(test_start_rate_and_no_stacks),
		cmocka_unit_test(test_errors_of_what_samples_are_worth),
	};

	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
