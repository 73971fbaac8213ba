/*
 * test-recordviews.c - what report, check and export say of recordings
 * of known contents, end to end: report's views and options, gmon for
 * GNU gprof, captions whose figures and error bars are never cut apart,
 * stacks cut short said in record's and report's words, and a sample
 * budget's counts named as counts.
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

/*
 * Stacks cut where the copy of the stack ended: record and report say so
 * in a line each and name what keeps more (a program with a 16 KiB
 * buffer on its stack had every stack cut, and only check said it).  A
 * frame of 32 KiB, written: --stack-size; the same with its middle
 * never touched, which the kernel does not copy whatever the size: the
 * timer engine; a copy that holds it: nothing said.
 */
static void
test_cut_stacks_said(void **state)
{
	static const struct {
		const char *mode, *engine, *size, *hint;
	} cases[] = {
		{ "bigframe", "perf", "16384", "--stack-size" },
		{ "bigframe", "perf", "65000", NULL },
		{ "holeframe", "perf", "65000", "-e timer" },
		{ "holeframe", "timer", "65000", NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *prf = tmp("cut.prf");
		char *argv[] = { profil_bin, "record", "-F", "2000", "-e",
		    (char *)cases[i].engine, "--stack-size", (char *)cases[i].size,
		    "-o", (char *)prf, workload, (char *)cases[i].mode, "0.2",
		    NULL };
		char *rep[] = { profil_bin, "report", (char *)prf, NULL };
		static struct run r, rr;
		const char *warn, *note;

		if (strcmp(cases[i].engine, "perf") == 0 &&
		    !harness_perf_allowed())
			continue;	/* perf events refused here */
		run(&r, argv);
		assert_int_equal(r.status, 0);
		run(&rr, rep);
		assert_int_equal(rr.status, 0);
		warn = strstr(r.err, "call stacks were cut");
		note = strstr(rr.out, "note: ");
		if (cases[i].hint == NULL) {
			if (warn != NULL || note != NULL)
				fail_msg("%s %s %s: %s%s", cases[i].mode,
				    cases[i].engine, cases[i].size, r.err, rr.out);
			continue;
		}
		/* one line each, naming what helps */
		if (warn == NULL || strstr(warn, cases[i].hint) == NULL ||
		    strstr(warn, cases[i].hint) > strchr(warn, '\n'))
			fail_msg("%s %s %s: record said: %s", cases[i].mode,
			    cases[i].engine, cases[i].size, r.err);
		if (note == NULL || strstr(note, cases[i].hint) == NULL ||
		    strstr(note, cases[i].hint) > strchr(note, '\n') ||
		    strchr(note, '\n') - note > 80)
			fail_msg("%s %s %s: report said: %s", cases[i].mode,
			    cases[i].engine, cases[i].size, rr.out);
	}
}

/*
 * Captions fold at spaces to the width, but never between a figure and
 * its error bar ("91.61% ±" above "0.88 of all"; "± = 95%" above
 * "error"): at every width from 30 to 100 columns, no line of a caption
 * ends or starts inside "X% ± Y of all" or "± = 95% error".
 */
static void
test_captions_keep_figures_whole(void **state)
{
	static const char *const views[][3] = {
		{ "--callers", "six", NULL }, { "--threads", NULL, NULL },
		{ "--objects", NULL, NULL }, { NULL, NULL, NULL },
	};
	static const char *const no_end[] = { " ±", " =", " 95%", "+-" };
	static const char *const no_start[] = { "=", "error", "of all", "95%" };
	const char *prf = tmp("wrap.prf");
	/* with stacks, sanitized too (this file records flat there) */
	char *rec[] = { profil_bin, "record", "-q", "-F", "5000",
	    "--stack-size", "8192", "-o", (char *)prf, workload, "split", "0.1",
	    NULL };
	static struct run r;

	(void)state;
	run(&r, rec);
	if (r.status != 0)
		fail_msg("record exited %d: %s", r.status, r.err);
	for (int cols = 30; cols <= 100; cols += 2) {
		char width[16];

		snprintf(width, sizeof width, "%d", cols);
		setenv("COLUMNS", width, 1);
		for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
			char *argv[8] = { profil_bin, "report" };
			int k = 2;

			for (int j = 0; j < 3 && views[v][j] != NULL; j++)
				argv[k++] = (char *)views[v][j];
			argv[k++] = (char *)prf;
			argv[k] = NULL;
			run(&r, argv);
			if (r.status != 0)
				fail_msg("%d columns, report %s: exit %d: %s", cols,
				    argv[2], r.status, r.err);
			/* the caption: up to the first blank line */
			for (const char *line = r.out; *line && *line != '\n';) {
				const char *eol = strchr(line, '\n');
				size_t len = (size_t)(eol - line);

				for (size_t i = 0; i < sizeof no_end / sizeof *no_end;
				    i++) {
					size_t n = strlen(no_end[i]);

					if (len >= n && memcmp(eol - n, no_end[i], n) == 0)
						fail_msg("%d columns, %s: a line ends "
						    "\"%s\":\n%s", cols, argv[2],
						    no_end[i], r.out);
				}
				/* "±" after a figure on the line before */
				if (line != r.out && strncmp(line, "±", 2) == 0 &&
				    strchr("0123456789%", line[-2]) != NULL)
					fail_msg("%d columns, %s: a figure and its "
					    "error apart:\n%s", cols, argv[2], r.out);
				for (size_t i = 0; line != r.out && i <
				    sizeof no_start / sizeof *no_start; i++)
					if (strncmp(line, no_start[i],
					    strlen(no_start[i])) == 0)
						fail_msg("%d columns, %s: a line starts "
						    "\"%s\":\n%s", cols, argv[2],
						    no_start[i], r.out);
				line = eol + 1;
			}
		}
	}
	unsetenv("COLUMNS");
}

/*
 * Under a sample budget the counts are of intervals, not samples taken
 * (1,831 taken showed as 18,100 "samples"): report's text titles them
 * "counts" and check says how many samples were taken; a profile at a
 * fixed rate keeps "samples".
 */
static void
test_budget_counts_named(void **state)
{
	char *prog[] = { workload, "split", "1", NULL };
	const char *fixed = tmp("fixed.prf"), *budget = tmp("budget.prf");
	char *rec[] = { profil_bin, "record", "-q", "--samples", "500", "-o",
	    (char *)budget, workload, "split", "1", NULL };
	char *views[][5] = {
		{ "report", NULL }, { "report", "--threads", NULL },
		{ "report", "--objects", NULL },
	};
	struct profil_profile *p;
	int fixed_weighted;
	char cause[256], want[128], *check[] = { profil_bin, "check",
	    (char *)budget, NULL };
	static struct run r;

	(void)state;
	record_ok(fixed, prog);
	/*
	 * at a fixed rate a sample is an interval, but where a CPU-time
	 * timer fires once a tick (the timer engine without perf events)
	 * each stands for the ticks' intervals: counts too
	 */
	p = profil_profile_read(fixed, cause, sizeof cause);
	assert_non_null(p);
	fixed_weighted = p->taken > 0 && p->taken < p->samples;
	profil_profile_free(p);
	run(&r, rec);
	assert_int_equal(r.status, 0);
	for (int k = 0; k < 2; k++)
		for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
			char *argv[6] = { profil_bin };
			int n = 1;

			for (int j = 0; views[v][j] != NULL; j++)
				argv[n++] = views[v][j];
			argv[n++] = (char *)(k ? budget : fixed);
			argv[n] = NULL;
			run(&r, argv);
			assert_int_equal(r.status, 0);
			/* the header: the line after the caption's blank line */
			const char *head = strstr(r.out, "\n\n");
			assert_non_null(head);
			if ((strstr(head + 2, " counts ") != NULL &&
			    strstr(head + 2, " counts ") < strchr(head + 2, '\n')) !=
			    (k || fixed_weighted))
				fail_msg("%s %s: %s", k ? "budget" : "fixed rate",
				    argv[2], r.out);
		}
	p = profil_profile_read(budget, cause, sizeof cause);
	assert_non_null(p);
	assert_true(p->taken < p->samples);
	run(&r, check);
	assert_int_equal(r.status, 0);
	snprintf(want, sizeof want, "ok: %llu counts ",
	    (unsigned long long)p->samples);
	assert_non_null(strstr(r.out, want));
	snprintf(want, sizeof want, "from %llu samples taken",
	    (unsigned long long)p->taken);
	assert_non_null(strstr(r.out, want));
	profil_profile_free(p);
}

/* report's views and options, on profiles with known contents. */
static int
count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void
test_report_views(void **state)
{
	struct run r;
	char *prog[] = { workload, "split", "0.22", NULL };
	char *fe[] = { workload, "forkexec", "0.11", NULL };
	char *th[] = { workload, "threads", "4", "0.044", NULL };
	const char *prf = tmp("views.prf");
	double six_pct = 0, six_err = 0, n = 0, last_cum = 0;
	char fn[64], obj[64];
	const char *line;

	(void)state;
	record_ok(prf, prog);
	/* flat CSV: the stable columns, and error bars computed independently */
	char *flat[] = { profil_bin, "report", "--format", "csv", (char *)prf, NULL };
	run(&r, flat);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "function,object,samples,percent,error95,"
	    "cumulative,seconds\n", 54) == 0);
	for (line = strchr(r.out, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		double k, pct, err, cum, sec;

		if (sscanf(line, "%63[^,],%63[^,],%lf,%lf,%lf,%lf,%lf", fn, obj, &k,
		    &pct, &err, &cum, &sec) != 7)
			fail_msg("bad line: %s", line);
		n += k;
		last_cum = cum;
		if (strcmp(fn, "six") == 0)
			six_pct = pct, six_err = err;
	}
	/*
	 * of the samples the counts are worth: where a CPU-time timer fires
	 * once a tick (the timer engine without perf events, HZ 250, at
	 * -F 5000) 1,125 counts are 55 samples of 20 intervals each
	 */
	struct profil_profile *pp = profil_profile_read(prf, fn, sizeof fn);
	assert_non_null(pp);
	double worth = n / e2e_error_scale(pp);
	profil_profile_free(pp);
	double p6 = six_pct / 100, want = 100 * 1.96 * sqrt(p6 * (1 - p6) /
	    worth);
	if (fabs(six_err - want) > 0.1 * want)
		fail_msg("error95 %.3f, a 95%% interval for %.1f%% of %.0f "
		    "samples' worth is %.3f", six_err, six_pct, worth, want);
	assert_true(fabs(last_cum - 100) < 0.01);

	char *limit[] = { profil_bin, "report", "--format", "csv", "--limit", "1",
	    (char *)prf, NULL };
	run(&r, limit);
	assert_int_equal(count_lines(r.out), 2);
	char *minp[] = { profil_bin, "report", "--format", "csv", "--min-percent",
	    "20", (char *)prf, NULL };
	run(&r, minp);
	assert_int_equal(count_lines(r.out), 3);	/* six and three */
	char *sorted[] = { profil_bin, "report", "--format", "csv", "--sort",
	    "function", "--min-percent", "5", (char *)prf, NULL };
	run(&r, sorted);
	assert_non_null(strstr(r.out, "\none,"));
	assert_true(strstr(r.out, "\none,") < strstr(r.out, "\nsix,"));
	assert_true(strstr(r.out, "\nsix,") < strstr(r.out, "\nthree,"));

	/* objects: every sample taken, lost included, adds up to 100% */
	char *objs[] = { profil_bin, "report", "--objects", "--format", "csv",
	    (char *)prf, NULL };
	run(&r, objs);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "object,path,samples,percent,error95,seconds\n",
	    44) == 0);
	double total_pct = 0;
	for (line = strchr(r.out, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		const char *f = line;

		for (int k = 0; k < 3; k++)
			f = strchr(f, ',') + 1;
		total_pct += atof(f);
	}
	assert_true(fabs(total_pct - 100) < 0.01);
	assert_non_null(strstr(r.out, "\nworkload,"));

	/* threads (JSON) and processes */
	record_ok(tmp("views-th.prf"), th);
	char *threads[] = { profil_bin, "report", "--threads", "--format", "json",
	    (char *)tmp("views-th.prf"), NULL };
	run(&r, threads);
	assert_int_equal(r.status, 0);
	int nthreads = 0;
	for (line = r.out; (line = strstr(line, "\"tid\"")) != NULL; line++)
		nthreads++;
	if (nthreads < 4 || nthreads > 5)
		fail_msg("%d threads in: %s", nthreads, r.out);
	record_ok(tmp("views-fe.prf"), fe);
	char *procs[] = { profil_bin, "report", "--pid", "--format", "csv",
	    (char *)tmp("views-fe.prf"), NULL };
	run(&r, procs);
	assert_int_equal(r.status, 0);
	assert_int_equal(count_lines(r.out), 3);	/* header + 2 processes */

	static const char *bad[][2] = { { "--min-percent", "abc" },
	    { "--min-percent", "101" }, { "--limit", "-1" }, { "--sort", "x" },
	    { "--format", "xml" } };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *argv[] = { profil_bin, "report", (char *)bad[i][0],
		    (char *)bad[i][1], (char *)prf, NULL };

		run(&r, argv);
		if (r.status != 2 || strncmp(r.err, "profil: report: ", 16) != 0)
			fail_msg("'%s %s': exit %d, %s", bad[i][0], bad[i][1],
			    r.status, r.err);
	}
}

/*
 * gprof's flat profile: top functions and their percentages.  A row is
 * "%time cumulative self [calls self/call total/call] name": the call
 * columns are there when the file has call arcs.
 */
static int
gprof_percent(const char *gmon, const char *function, double *pct)
{
	char cmd[3 * PATH_MAX], line[512], *name;
	FILE *f;
	double p;
	int found = 0;

	snprintf(cmd, sizeof cmd, "gprof -b -p %s %s 2>&1", workload, gmon);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		name = strrchr(line, ' ');
		if (name != NULL && sscanf(line, "%lf", &p) == 1 &&
		    strcmp(name + 1, function) == 0) {
			*pct = p;
			found = 1;
		}
	}
	pclose(f);
	return found;
}

/* export --format gmon, read back by the real gprof. */
static void
test_export_gmon_for_gprof(void **state)
{
	struct shares s;
	struct run r;
	char *prog[] = { workload, "split", "0.66", NULL };
	char *exp[] = { profil_bin, "export", "--format", "gmon", "-o", tmpdir,
	    (char *)tmp("gm.prf"), NULL };
	char *exp_big[] = { profil_bin, "export", "--format", "gmon", "-o", tmpdir,
	    (char *)tmp("gm-big.prf"), NULL };
	static const char *const fns[] = { "six", "three", "one" };
	char gmon[PATH_MAX], cause[256];
	struct profil_profile *p;
	double ours, theirs;

	(void)state;
	if (system("gprof --version >/dev/null 2>&1") != 0)
		SKIP("GNU gprof not installed (binutils)");
	record_ok(tmp("gm.prf"), prog);
	run(&r, exp);
	if (r.status != 0)
		fail_msg("export: %s", r.err);
	snprintf(gmon, sizeof gmon, "%s/gmon.workload.out", tmpdir);
	report(&s, tmp("gm.prf"));
	/* gprof's shares are of the object's samples (its gmon.out), not of
	 * every sample: the kernel's and libc's are elsewhere */
	double in_object = samples_of(&s, NULL, "workload");
	for (int i = 0; i < 3; i++) {
		ours = 100 * samples_of(&s, fns[i], NULL) / in_object;
		if (!gprof_percent(gmon, fns[i], &theirs))
			fail_msg("gprof does not list %s", fns[i]);
		if (fabs(ours - theirs) > 1)
			fail_msg("%s: gprof %.2f%%, profil %.2f%%", fns[i], theirs, ours);
	}

	/* counts beyond 16 bits go into repeated records gprof adds up */
	p = profil_profile_read(tmp("gm.prf"), cause, sizeof cause);
	assert_non_null(p);
	scale_profile(p, 10000);
	struct stat small, big;
	assert_int_equal(stat(gmon, &small), 0);
	assert_int_equal(profil_profile_save(p, tmp("gm-big.prf"), cause,
	    sizeof cause), 0);
	profil_profile_free(p);
	run(&r, exp_big);
	assert_int_equal(r.status, 0);
	assert_int_equal(stat(gmon, &big), 0);
	if (big.st_size < 2 * small.st_size - 20)
		fail_msg("no repeated records: %lld bytes, one record: %lld",
		    (long long)big.st_size, (long long)small.st_size);
	for (int i = 0; i < 3; i++) {
		ours = 100 * samples_of(&s, fns[i], NULL) / in_object;
		assert_true(gprof_percent(gmon, fns[i], &theirs));
		if (fabs(ours - theirs) > 1)
			fail_msg("x10000: %s: gprof %.2f%%, profil %.2f%%", fns[i],
			    theirs, ours);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_stacks_said),
		cmocka_unit_test(test_captions_keep_figures_whole),
		cmocka_unit_test(test_budget_counts_named),
		cmocka_unit_test(test_report_views),
		cmocka_unit_test(test_export_gmon_for_gprof),
	};
	/*
	 * These tests are of flat shares: sanitized, the recorder would lose
	 * samples unwinding stacks at 5 kHz (Makefile, check)
	 */
	e2e_flat_when_sanitized = 1;
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
