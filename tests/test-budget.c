/*
 * test-budget.c - the sample budget (lib/budget.h): its arithmetic, and
 * `profil record --samples` end to end on both engines, and with perf
 * events refused.  The rate must really come down, the weighted counts
 * still add up to the CPU time, a 30 ms program must get several times
 * the samples of 1 kHz, and shares must stay within the errors of the
 * samples they are worth: of a steady split, and of a program whose two
 * halves run at very different rates (libm: our code first, then as
 * long in libm), where counting every sample once would put libm near
 * 20% instead of 50%.  Margins come from the profile's own effective
 * sample count (4 standard errors), never from constants.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"
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

/* six, three, one hold 6:3:1 of their counts within 4 errors of worth. */
static void
assert_split_worth(const struct profil_profile *p, const char *prf,
    const char *what)
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
 */
static void
test_split(void **state)
{
	char *prog[] = { workload, "split", "1.21", NULL };

	(void)state;
	for (int how = PERF; how <= NOPERF; how++) {
		const char *prf = tmp("split.prf");
		const char *n = how == NOPERF ? "800" : "10000";
		struct profil_profile *p = record_budget(how, prf, n, NULL, prog);
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
		assert_split_worth(p, prf, cases[how]);
		profil_profile_free(p);
	}
}

/*
 * Two halves at different rates: libm 0.6 spends 0.6 s of CPU in its own
 * loop, then 0.6 s in libm.  The budget samples the first half at up to
 * 10 kHz, the second at a few hundred Hz: counted once each, libm would
 * have a fifth of the samples; weighed by their periods, half (the loop
 * that calls jn() is the program's: 2 points for it, as test-record).
 */
static void
test_halves_at_different_rates(void **state)
{
	char *prog[] = { workload, "libm", "0.6", NULL };

	(void)state;
	for (int how = PERF; how <= NOPERF; how++) {
		const char *prf = tmp("halves.prf");
		struct profil_profile *p = record_budget(how, prf, "2000", NULL,
		    prog);
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
 * thread and start-up took outside that measure (a point allowed).
 */
static void
test_threads(void **state)
{
	char *prog[] = { workload, "threads", "4", "0.308", NULL };
	static struct run out;

	(void)state;
	for (int how = PERF; how <= TIMER; how++) {
		const char *prf = tmp("threads.prf");
		struct profil_profile *p = record_budget_run(&out, how, prf,
		    "4000", NULL, prog);
		double scale = (double)p->samples / worth(p);
		double cpu[4], cpu_sum = 0;
		long tids[4];
		int measured = 0, busy = 0;

		assert_budgeted(p, 4000, cases[how]);
		assert_split_worth(p, prf, cases[how]);
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
			    (double)p->samples, want;
			int k;

			for (k = 0; k < 4 && tids[k] != (long)p->threads[i].tid; k++)
				;
			if (k == 4)
				continue;
			want = cpu[k] / cpu_sum;
			if (fabs(share - want) > harness_margin(want,
			    (double)p->samples / scale, 4, 0.02) + 0.01)
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
 * call stacks weighs its samples as the stacks do.
 */
static void
test_start_rate_and_no_stacks(void **state)
{
	char *prog[] = { "--no-call-graph", workload, "split", "0.66", NULL };
	const char *prf = tmp("start.prf");
	struct profil_profile *p;

	(void)state;
	p = record_budget(PERF, prf, "1000", "2000", prog);
	assert_int_equal(p->interval_ns, 500000);
	assert_int_equal(p->nstacks, 0);
	assert_budgeted(p, 1000, "perf engine, -F 2000, no stacks");
	if (p->slowest_ns <= p->interval_ns)
		fail_msg("the period stayed %llu ns",
		    (unsigned long long)p->slowest_ns);
	assert_split_worth(p, prf, "perf engine, -F 2000, no stacks");
	profil_profile_free(p);
}

/* The 95% half-width (Wilson) of k of n samples, in points. */
static double
wilson95(double k, double n)
{
	const double z = 1.959964;
	double p = k / n;

	return 100 * z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) /
	    (1 + z * z / n);
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
	if (fabs(err - wilson95(k / scale, (double)p->samples / scale)) > 0.011)
		fail_msg("six: error %.2f, %.2f for %.0f of %.0f samples worth",
		    err, wilson95(k / scale, (double)p->samples / scale),
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
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy),
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
