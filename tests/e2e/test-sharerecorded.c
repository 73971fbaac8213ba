/*
 * test-sharerecorded.c - the error of a share (cli/report/share.c) on
 * recordings, in both engines, as root and as an ordinary user: each bar
 * of every view is Wilson's interval of the counts the view gives, of the
 * samples they are worth (the weights the file records), computed here
 * again (csv-table.h); a thread's and a process's share is its clock's,
 * measured, with no bar.
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

/* ---- recordings: both engines, as root and as an ordinary user ---------- */

/* A directory any user may write in: the recorder run as nobody writes there. */
static char open_path[] = "/tmp/profil-share-XXXXXX";
static int opened;

static const char *
open_dir(void)
{
	if (!opened) {
		assert_non_null(mkdtemp(open_path));
		assert_int_equal(chmod(open_path, 0777), 0);
		opened = 1;
	}
	return open_path;
}

static int
cleanup(void **state)
{
	char cmd[128];

	if (opened) {
		snprintf(cmd, sizeof cmd, "rm -rf %s", open_path);
		if (system(cmd) != 0)
			return -1;
	}
	return e2e_teardown(state);
}

/*
 * `profil record args...` as root (nobody 0) or as user nobody, into
 * r; the samples its line reported in *samples.  0, or -1 when it cannot
 * be run that way here (no setpriv; perf events refused: the engine).
 */
static int
record_as(struct run *r, int nobody, char **args, unsigned long long *samples)
{
	char *argv[32] = { "/usr/bin/setpriv", "--reuid=nobody",
	    "--regid=nogroup", "--clear-groups", profil_bin, "record" };
	int n = nobody ? 6 : 0;
	const char *line;

	if (!nobody) {
		argv[n++] = profil_bin;
		argv[n++] = "record";
	}
	for (; *args != NULL && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	run(r, argv);
	if (nobody && (r->status == 126 || r->status == 127 ||
	    strstr(r->err, "setpriv:") != NULL))
		return -1;
	if (r->status != 0)
		fail_msg("record exited %d: %s", r->status, r->err);
	line = strstr(r->err, "profil: ");
	if (line == NULL || sscanf(line, "profil: %llu samples", samples) != 1)
		fail_msg("no record line: %s", r->err);
	return 0;
}

/* The engines to record with here: perf where allowed, timer always. */
static const char *const engines[] = { "perf", "timer" };

static int
engine_here(int e)
{
	return e == 1 || harness_perf_allowed();
}

/* The error scale of the profile in file prf (e2e_error_scale). */
static double
scale_of(const char *prf)
{
	char cause[256];
	struct profil_profile *p = profil_profile_read(prf, cause, sizeof cause);
	double scale;

	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	scale = e2e_error_scale(p);
	profil_profile_free(p);
	return scale;
}

/* Sum of a column over the rows (those whose key column is not skip). */
static double
sum_of(const struct csv *t, const char *name, const char *key,
    const char *skip)
{
	double sum = 0;

	for (int i = 0; i < t->nrows; i++)
		if (key == NULL || strcmp(text_at(t, i, key), skip) != 0)
			sum += num(t, i, name);
	return sum;
}

/*
 * A CPU profile: each bar is Wilson's of the counts the view gives, of
 * the samples they are worth (the weights the file records), over the
 * samples the record line reported (the samples columns add up to
 * them); a thread's and a process's share is its clock's, measured.
 */
static void
check_cpu_profile(const char *prf, unsigned long long taken, int perf,
    const char *how)
{
	double scale = scale_of(prf), n, incl_six = -1;
	struct csv t;

	(void)perf;
	csv_of(&t, prf, NULL, NULL);
	n = sum_of(&t, "samples", NULL, NULL);
	if (n != (double)taken)
		fail_msg("%s: the flat rows have %.0f samples, the record line "
		    "said %llu", how, n, taken);
	for (int i = 0; i < t.nrows; i++) {
		assert_near(num(&t, i, "error95"), e2e_wilson95(num(&t, i,
		    "samples"), n, scale), text_at(&t, i, "function"));
		if (t.ncols > 7)
			assert_near(num(&t, i, "inclusive_error95"), e2e_wilson95(
			    num(&t, i, "inclusive_samples"), n, scale),
			    text_at(&t, i, "function"));
		if (strcmp(text_at(&t, i, "function"), "six") == 0 && t.ncols > 7)
			incl_six = num(&t, i, "inclusive_samples");
	}
	csv_free(&t);

	csv_of(&t, prf, "--objects", NULL);
	n = sum_of(&t, "samples", NULL, NULL);	/* lost ones too */
	if (sum_of(&t, "samples", "object", "[lost]") != (double)taken)
		fail_msg("%s: the objects have %.0f samples, the record line "
		    "said %llu", how, sum_of(&t, "samples", "object", "[lost]"),
		    taken);
	for (int i = 0; i < t.nrows; i++)
		assert_near(num(&t, i, "error95"), e2e_wilson95(num(&t, i,
		    "samples"), n, scale), text_at(&t, i, "object"));
	csv_free(&t);

	csv_of(&t, prf, "--pid", NULL);
	assert_true(sum_of(&t, "samples", NULL, NULL) == (double)taken);
	for (int i = 0; i < t.nrows; i++)
		assert_near(num(&t, i, "error95"), 0, "a process");
	csv_free(&t);
	csv_of(&t, prf, "--threads", NULL);
	for (int i = 0; i < t.nrows; i++)
		assert_near(num(&t, i, "error95"), 0, "a thread");
	csv_free(&t);

	if (incl_six < 0)
		return;		/* no stacks */
	csv_of(&t, prf, "--tree", "--min-percent", "0", NULL);
	for (int i = 0; i < t.nrows; i++)
		assert_near(num(&t, i, "inclusive_error95"), e2e_wilson95(
		    num(&t, i, "inclusive_samples"), (double)taken, scale),
		    text_at(&t, i, "function"));
	csv_free(&t);
	csv_of(&t, prf, "--callers", "six", NULL);
	if (sum_of(&t, "samples", NULL, NULL) != incl_six)
		fail_msg("%s: callers of six have %.0f samples, its inclusive "
		    "%.0f", how, sum_of(&t, "samples", NULL, NULL), incl_six);
	for (int i = 0; i < t.nrows; i++)
		assert_near(num(&t, i, "error95"), e2e_wilson95(num(&t, i,
		    "samples"), incl_six, scale), text_at(&t, i, "function"));
	csv_free(&t);
}

/*
 * Record program (NULL-ended) in each engine here, as root and as
 * nobody, with the option given first (or none), and check each profile:
 * check(prf, samples the record line said, perf engine, how).
 */
static void
each_recording(const char *option, char **program,
    void (*check)(const char *, unsigned long long, int, const char *))
{
	for (int e = 0; e < 2; e++)
		for (int nobody = 0; nobody < 2; nobody++) {
			char prf[128], how[64];
			char *args[16] = { (char *)option };
			int n = option != NULL;
			unsigned long long taken;
			static struct run r;

			if (!engine_here(e))
				continue;
			snprintf(prf, sizeof prf, "%s/%s-%s-%d.prf", open_dir(),
			    option ? "wall" : "cpu", engines[e], nobody);
			snprintf(how, sizeof how, "%s%s engine%s", option ? "--wall, " :
			    "", engines[e], nobody ? ", as nobody" : "");
			args[n++] = "-e";
			args[n++] = (char *)engines[e];
			args[n++] = "-o";
			args[n++] = prf;
			for (char **a = program; *a != NULL && n < 15; a++)
				args[n++] = *a;
			args[n] = NULL;
			if (record_as(&r, nobody, args, &taken) < 0)
				continue;
			print_message("%s: %llu samples\n", how, taken);
			check(prf, taken, e == 0, how);
		}
}

/*
 * A wall profile of a program that computes, then sleeps 0.3 s: the
 * sleep's rows, in every view, err by no more than what of them was
 * placed by sampling (half of it: no Wilson half-width is wider), and
 * not at all when none was (the perf engine: its switches time the
 * sleep, and a look found it); threads and processes not at all.  The
 * samples columns count the samples the record line reported.
 */
static void
check_wall_profile(const char *prf, unsigned long long taken, int perf,
    const char *how)
{
	char cause[256];
	struct profil_profile *p = profil_profile_read(prf, cause, sizeof cause);
	double sampled = 0, slept = 0, all, bound, incl_six = -1;
	char *html[] = { profil_bin, "report", "--html", (char *)tmp("w.html"),
	    (char *)prf, NULL };
	static struct run r;
	struct csv t;
	const char *at;

	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	all = (double)p->samples;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];

		all += (double)st->off_ns / (double)p->interval_ns;
		if (st->off_ns > 0 && p->frames[st->frames[0]].addr == 230) {
			slept += (double)st->off_ns / (double)p->interval_ns;
			sampled += (double)st->sampled_ns / (double)p->interval_ns;
		}
	}
	profil_profile_free(p);
	if (slept < 290)
		fail_msg("%s: the sleep is %.0f intervals", how, slept);
	/* in points of all the threads' time, and of the sleep's */
	bound = 100 * 0.5 * sampled / all + 0.02;
	print_message("%s: %.1f of the sleep's %.1f intervals sampled, of "
	    "%.1f\n", how, sampled, slept, all);
	if (perf && sampled > 0)
		fail_msg("%s: switches timed the sleep, yet %.1f intervals of "
		    "it are placed by sampling", how, sampled);

	csv_of(&t, prf, NULL, NULL);
	at = text_at(&t, row_of(&t, "function", "[off-cpu: clock_nanosleep]"),
	    "error95");
	if (atof(at) > (sampled > 0 ? bound : 0))
		fail_msg("%s: flat, the sleep: +- %s", how, at);
	at = text_at(&t, row_of(&t, "function", "[off-cpu: clock_nanosleep]"),
	    "inclusive_error95");
	if (atof(at) > (sampled > 0 ? bound : 0))
		fail_msg("%s: flat, the sleep inclusive: +- %s", how, at);
	if (sum_of(&t, "samples", NULL, NULL) != (double)taken)
		fail_msg("%s: the flat rows have %.0f samples, the record line "
		    "said %llu", how, sum_of(&t, "samples", NULL, NULL), taken);
	for (int i = 0; i < t.nrows; i++)
		if (strcmp(text_at(&t, i, "function"), "six") == 0)
			incl_six = num(&t, i, "inclusive_samples");
	csv_free(&t);

	csv_of(&t, prf, "--tree", "--min-percent", "0", NULL);
	for (int i = 0; i < t.nrows; i++)
		if (strcmp(text_at(&t, i, "function"),
		    "[off-cpu: clock_nanosleep]") == 0 &&
		    num(&t, i, "inclusive_error95") > (sampled > 0 ? bound : 0))
			fail_msg("%s: tree, the sleep: +- %.4f", how,
			    num(&t, i, "inclusive_error95"));
	csv_free(&t);

	/* its CPU part (--cpu): a CPU profile's bars, of its samples alone */
	csv_of(&t, prf, "--tree", "--cpu", "--min-percent", "0", NULL);
	for (int i = 0; i < t.nrows; i++)
		assert_near(num(&t, i, "inclusive_error95"), e2e_wilson95(
		    num(&t, i, "inclusive_samples"), (double)taken,
		    scale_of(prf)), text_at(&t, i, "function"));
	csv_free(&t);

	csv_of(&t, prf, "--callers", "[off-cpu: clock_nanosleep]", NULL);
	for (int i = 0; i < t.nrows; i++)
		if (num(&t, i, "error95") > (sampled > 0 ? 100 * 0.5 * sampled /
		    slept + 0.02 : 0))
			fail_msg("%s: callers of the sleep: %s +- %.4f", how,
			    text_at(&t, i, "function"), num(&t, i, "error95"));
	assert_true(sum_of(&t, "samples", NULL, NULL) == 0);
	csv_free(&t);
	if (incl_six >= 0) {
		csv_of(&t, prf, "--callers", "six", NULL);
		if (sum_of(&t, "samples", NULL, NULL) != incl_six)
			fail_msg("%s: callers of six have %.0f samples, its "
			    "inclusive %.0f", how, sum_of(&t, "samples", NULL,
			    NULL), incl_six);
		csv_free(&t);
	}

	csv_of(&t, prf, "--objects", NULL);
	at = text_at(&t, row_of(&t, "object", "[off-cpu: sleep]"), "error95");
	if (atof(at) > (sampled > 0 ? bound : 0))
		fail_msg("%s: objects, the sleep: +- %s", how, at);
	if (sum_of(&t, "samples", "object", "[lost]") != (double)taken)
		fail_msg("%s: the objects have %.0f samples, the record line "
		    "said %llu", how, sum_of(&t, "samples", "object", "[lost]"),
		    taken);
	csv_free(&t);

	csv_of(&t, prf, "--threads", NULL);
	for (int i = 0; i < t.nrows; i++)
		assert_near(num(&t, i, "error95"), 0, "a thread");
	if (sum_of(&t, "samples", NULL, NULL) != (double)taken)
		fail_msg("%s: the threads have %.0f samples, the record line "
		    "said %llu", how, sum_of(&t, "samples", NULL, NULL), taken);
	csv_free(&t);
	csv_of(&t, prf, "--pid", NULL);
	for (int i = 0; i < t.nrows; i++)
		assert_near(num(&t, i, "error95"), 0, "a process");
	if (sum_of(&t, "samples", NULL, NULL) != (double)taken)
		fail_msg("%s: the processes have %.0f samples, the record line "
		    "said %llu", how, sum_of(&t, "samples", NULL, NULL), taken);
	csv_free(&t);

	/* the page: its samples, and the sleep's row in its flat table */
	run(&r, html);
	assert_int_equal(r.status, 0);
	{
		FILE *f = fopen(tmp("w.html"), "r");
		static char page[4 << 20];
		size_t len = f ? fread(page, 1, sizeof page - 1, f) : 0;
		unsigned long long said;
		const char *row;
		double err;

		assert_non_null(f);
		fclose(f);
		page[len] = '\0';
		at = strstr(page, "samples</th><td>");
		if (at == NULL || sscanf(at + 16, "%llu", &said) != 1 ||
		    said != taken)
			fail_msg("%s: the page's samples: %.60s", how, at ? at : "");
		row = strstr(page, "[off-cpu: clock_nanosleep]</td>");
		assert_non_null(row);
		while (row > page && strncmp(row, "<tr>", 4) != 0)
			row--;
		/* <tr><td data-v="%wall">..</td><td class="err" data-v="err"> */
		at = strstr(row, "class=\"err\" data-v=\"");
		assert_non_null(at);
		err = atof(at + 20);
		if (err > (sampled > 0 ? bound : 0))
			fail_msg("%s: the page's flat table, the sleep: +- %.4f",
			    how, err);
	}
}

static void
test_cpu_profiles(void **state)
{
	char *program[] = { workload, "split", "0.3", NULL };

	(void)state;
	each_recording(NULL, program, check_cpu_profile);
}

static void
test_wall_profiles(void **state)
{
	char script[PATH_MAX + 64];
	char *program[] = { "sh", "-c", script, NULL };

	(void)state;
	snprintf(script, sizeof script, "%s split 0.05 && sleep 0.3", workload);
	each_recording("--wall", program, check_wall_profile);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_profiles),
		cmocka_unit_test(test_wall_profiles),
	};
	return cmocka_run_group_tests(tests, e2e_setup, cleanup);
}
