/*
 * test-time.c - --time windows end to end: report (the flat profile and
 * the threads, their shares and error bars those of the window, the
 * caption saying it), export (folded; pprof read by an independent
 * decoder, its time and duration the window's), and diff of two windows of one
 * profile, on profiles made here whose every slice is known (a CPU
 * profile of two threads, and a wall one); each window's figures are
 * worked out here from what was put in.  Every form of the text
 * (seconds, ms, percent, empty sides), rounding out to whole slices,
 * and what is refused, in one line: garbage, END before START, a window
 * past the run, a profile without a timeline.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "e2e.h"
#include "harness.h"

#include "csv-table.h"
#include "export-checks.h"
#include "profiles.h"

#define MS		1000000ull
#define SLICE_NS	(10 * MS)
#define NSLICES		100		/* a run of 1 s */
#define PID		100
#define WORKER		101
#define START_NS	(1700000000 * (int64_t)1000000000)

/*
 * The program's functions, kept names of app: main calls a() for the
 * first half of the run (8 samples a slice), then b() (6 a slice); its
 * worker thread runs c() throughout (2 a slice).  In the wall profile,
 * main spends the second half in read() instead of b(), 10 ms a slice.
 */
enum { MAIN, A, B, C, WORKER_FN, NFUNCS };
static const char *const names[NFUNCS] = { "main", "a", "b", "c", "worker" };
#define AT(f)	(0x40 * (uint64_t)(f) + 0x10)	/* an address in f */

struct stack_def {
	uint32_t tid;
	int leaf, caller;	/* function, or -1: the leaf is read() */
	unsigned from, to;	/* its slices [from, to) */
	uint64_t per_slice;	/* samples, or ns off the CPU */
};

static const struct stack_def cpu_stacks[] = {
	{ PID, A, MAIN, 0, 50, 8 },
	{ PID, B, MAIN, 50, 100, 6 },
	{ WORKER, C, WORKER_FN, 0, 100, 2 },
};
static const struct stack_def wall_stacks[] = {
	{ PID, A, MAIN, 0, 50, 8 },
	{ PID, -1, MAIN, 50, 100, 10 * MS },
	{ WORKER, C, WORKER_FN, 0, 100, 2 },
};

/*
 * A profile of the stacks defs (n of them) saved to path, with their
 * timeline (timeline 0: none, as a file before timelines); weighted,
 * each sample counted as if of weight 2 (its squared weights twice its
 * samples), so that an error bar shows whose samples it is of.
 */
static void
save_profile(const char *path, const struct stack_def *defs, size_t n,
    int timeline)
{
	static const struct profil_bucket none[] = { { 0, 0 } };
	struct profil_profile *p = new_profile(1);
	uint64_t per_thread[2] = { 0, 0 };
	char cause[256];
	int wall = 0;

	add_object(p, "/nonexistent/time/app", 0, 0, 0x40 * NFUNCS, 1, none, 0);
	for (size_t i = 0; i < n; i++) {
		const struct stack_def *def = &defs[i];
		uint64_t total = def->per_slice * (def->to - def->from);
		struct profil_frame f[2] = { { 0, AT(def->leaf) },
		    { 0, AT(def->caller) } };

		if (def->leaf < 0) {
			f[0] = (struct profil_frame){ PROFIL_FRAME_OFFCPU, 0 };
			wall = 1;
		} else {
			per_thread[def->tid == WORKER] += total;
		}
		add_stack(p, PID, def->tid, total, 2, f);
	}
	if (wall)
		make_wall(p, 5 * MS, 100, 10, 0);
	p->symbols = xcalloc(NFUNCS, sizeof *p->symbols);
	for (int f = 0; f < NFUNCS; f++)
		p->symbols[p->nsymbols++] = (struct profil_symbol){ 0,
		    0x40 * (uint64_t)f, 0x40 * (uint64_t)f + 0x40,
		    xstrdup(names[f]) };
	p->threads = xcalloc(2, sizeof *p->threads);
	p->threads[p->nthreads++] = (struct profil_thread){ PID, PID,
	    xstrdup("app"), per_thread[0] };
	p->threads[p->nthreads++] = (struct profil_thread){ PID, WORKER,
	    xstrdup("worker"), per_thread[1] };
	p->processes = xcalloc(1, sizeof *p->processes);
	p->processes[p->nprocesses++] = (struct profil_process){ PID, 1,
	    xstrdup("app"), 0, p->samples };
	p->start_ns = START_NS;
	p->duration_ns = NSLICES * SLICE_NS;
	p->cpu_ns = p->samples * p->interval_ns;
	p->taken = p->samples;
	p->weight_sq = 2 * p->samples;
	if (timeline) {
		p->slice_ns = SLICE_NS;
		p->nslices = NSLICES;
		p->timeline = xcalloc(NSLICES * n, sizeof *p->timeline);
		for (size_t i = 0; i < n; i++)
			for (unsigned s = defs[i].from; s < defs[i].to; s++)
				p->timeline[p->ntimeline++] =
				    (struct profil_timeline_entry){ (uint32_t)i, s,
				    defs[i].per_slice };
	}
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
}

static char cpu_prf[PATH_MAX], wall_prf[PATH_MAX], old_prf[PATH_MAX];

static int
setup(void **state)
{
	if (export_setup(state) != 0)
		return -1;
	save_profile(scratch(cpu_prf, "time.prf"), cpu_stacks, 3, 1);
	save_profile(scratch(wall_prf, "time-wall.prf"), wall_stacks, 3, 1);
	save_profile(scratch(old_prf, "time-old.prf"), cpu_stacks, 3, 0);
	return 0;
}

/*
 * The flat profile of the window text: a(), b() and c()'s samples as
 * put in its slices, [first, end): the shares of the window, and their
 * errors those of its samples, weighted as the profile's (worth half as
 * many).
 */
static void
assert_flat_window(const char *text, unsigned first, unsigned end)
{
	uint64_t want[NFUNCS] = { 0 }, total = 0;
	struct csv t;

	for (size_t i = 0; i < 3; i++) {
		const struct stack_def *def = &cpu_stacks[i];
		unsigned from = def->from > first ? def->from : first;
		unsigned to = def->to < end ? def->to : end;

		if (to > from) {
			want[def->leaf] = def->per_slice * (to - from);
			total += want[def->leaf];
		}
	}
	csv_of(&t, cpu_prf, "--time", text, NULL);
	for (int f = A; f <= C; f++) {
		int row = -1;
		char what[64];

		for (int r = 0; r < t.nrows; r++)
			if (strcmp(text_at(&t, r, "function"), names[f]) == 0)
				row = r;
		if (want[f] == 0) {
			if (row >= 0)
				fail_msg("--time %s: %s has samples", text, names[f]);
			continue;
		}
		if (row < 0)
			fail_msg("--time %s: no row of %s", text, names[f]);
		snprintf(what, sizeof what, "--time %s: %s's", text, names[f]);
		assert_near(num(&t, row, "samples"), (double)want[f], what);
		assert_near(num(&t, row, "percent"), 100.0 * (double)want[f] /
		    (double)total, what);
		assert_near(num(&t, row, "error95"), e2e_wilson95((double)want[f],
		    (double)total, 2), what);
	}
	csv_free(&t);
}

/* Seconds, ms, percent, empty sides; each rounded out to its slices. */
static void
test_report_flat_windows(void **state)
{
	(void)state;
	assert_flat_window("0.2s..0.4s", 20, 40);
	assert_flat_window("0.2..0.4", 20, 40);
	assert_flat_window("200ms..400000us", 20, 40);
	assert_flat_window("90%..", 90, 100);
	assert_flat_window("..150ms", 0, 15);
	assert_flat_window("45%..55%", 45, 55);
	assert_flat_window("..", 0, 100);
	/* rounded out: 20.5 to 21.5 slices is slices 20 and 21 */
	assert_flat_window("205ms..215ms", 20, 22);
	assert_flat_window("0.455s..0.5s", 45, 50);
	assert_flat_window("0.999s..", 99, 100);
	/* past the end of the run: to its end */
	assert_flat_window("0.95s..10s", 95, 100);
}

/* The text report's caption says the window, under its first line. */
static void
test_report_caption_says_the_window(void **state)
{
	char *argv[] = { profil_bin, "report", "--time", "0.2s..0.4s",
	    cpu_prf, NULL };
	char *html[] = { profil_bin, "report", "--time", "0.2s..0.4s",
	    "--html", (char *)tmp("time.html"), cpu_prf, NULL };
	static const char want[] = "window 0.20\xe2\x80\x93" "0.40 s of 1.00 s\n";
	struct run r;
	const char *second;

	(void)state;
	run(&r, argv);
	assert_int_equal(r.status, 0);
	second = strchr(r.out, '\n');
	assert_non_null(second);
	if (strncmp(second + 1, want, strlen(want)) != 0)
		fail_msg("no window under the caption's first line: %s", r.out);
	/* 400 samples taken in the window of 2,800 (160 of a, 40 of c) */
	assert_non_null(strstr(r.out, "200 samples"));
	run(&r, html);		/* every view: the page too */
	assert_int_equal(r.status, 0);
}

/*
 * --threads: the window's samples per thread (slices 45-55: main 5 of
 * a's and 5 of b's slices, the worker 10 of c's), and their shares.
 */
static void
test_report_threads_window(void **state)
{
	struct csv t;
	int main_row, worker_row, row;

	(void)state;
	csv_of(&t, cpu_prf, "--threads", "--time", "450ms..550ms", NULL);
	assert_int_equal(t.nrows, 2);
	main_row = row_of(&t, "name", "app");
	worker_row = row_of(&t, "name", "worker");
	assert_near(num(&t, main_row, "samples"), 5 * 8 + 5 * 6, "main's");
	assert_near(num(&t, worker_row, "samples"), 10 * 2, "the worker's");
	assert_near(num(&t, main_row, "percent"), 100.0 * 70 / 90, "main's %");
	csv_free(&t);

	/* the first half of the wall profile: main never waited */
	csv_of(&t, wall_prf, "--time", "..50%", NULL);
	assert_near(num(&t, row_of(&t, "function", "a"), "samples"), 400, "a's");
	for (int r = 0; r < t.nrows; r++)
		if (strstr(text_at(&t, r, "function"), "off-cpu") != NULL)
			fail_msg("time off the CPU in a window without any");
	csv_free(&t);
	/*
	 * the second: 500 ms in read(), c's 100 samples (100 ms): shares of
	 * the window's 600 ms of threads' time
	 */
	csv_of(&t, wall_prf, "--time", "0.5s..", NULL);
	row = row_of(&t, "function", "[off-cpu: read]");
	assert_near(num(&t, row, "seconds"), 0.5, "read's seconds");
	assert_near(num(&t, row, "percent"), 100.0 * 500 / 600, "read's %");
	assert_near(num(&t, row_of(&t, "function", "c"), "samples"), 100,
	    "c's");
	for (int r = 0; r < t.nrows; r++)
		if (strcmp(text_at(&t, r, "function"), "a") == 0)
			fail_msg("a() in a window after it ran");
	csv_free(&t);
}

/* export --format folded of a window: its stacks, its counts. */
static void
test_export_folded_window(void **state)
{
	char *argv[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    "--time", "500ms..", cpu_prf, NULL };
	char *wall[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    "--time", "..200ms", wall_prf, NULL };
	struct run r;

	(void)state;
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "main;b 300\nworker;c 100\n");
	/* a wall profile's: microseconds, 20 slices of a (8 ms) and c (2 ms) */
	run(&r, wall);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "main;a 160000\nworker;c 40000\n");
}

/*
 * export --format pprof of a window, read by pprof-format: its samples
 * the window's, its time_nanos and duration_nanos the window's start and
 * length.
 */
static void
test_export_pprof_window(void **state)
{
	SCRATCH(pb, "time.pb.gz");
	char *argv[] = { profil_bin, "export", "--format", "pprof", "-o", pb,
	    "--time", "0.2s..0.45s", cpu_prf, NULL };
	struct run r;

	(void)state;
	need_decoder();
	run(&r, argv);
	assert_int_equal(r.status, 0);
	decode(pb);
	assert_int_equal(d.time_ns, START_NS + 200 * (int64_t)MS);
	assert_int_equal(d.duration_ns, 250 * MS);
	assert_int_equal(pprof_symbol_samples("a"), 25 * 8);
	assert_int_equal(pprof_symbol_samples("c"), 25 * 2);
	assert_int_equal(pprof_symbol_samples("b"), 0);
}

/* diff --format csv of args, its rows' before and after samples. */
static void
diff_samples(char *const argv[], double before[NFUNCS], double after[NFUNCS])
{
	struct run r;
	const char *line;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("diff exited %d: %s", r.status, r.err);
	for (int f = 0; f < NFUNCS; f++)
		before[f] = after[f] = -1;
	for (line = strchr(r.out, '\n'); line != NULL && line[1] != '\0';
	    line = strchr(line, '\n')) {
		char fn[64], obj[64], b[32], a[32];

		line++;
		csv_field(&line, fn, sizeof fn);
		csv_field(&line, obj, sizeof obj);
		csv_field(&line, b, sizeof b);
		csv_field(&line, a, sizeof a);
		for (int f = 0; f < NFUNCS; f++)
			if (strcmp(fn, names[f]) == 0) {
				before[f] = atof(b);
				after[f] = atof(a);
			}
	}
}

/*
 * Two windows of one profile: what changed when it slowed down (a()
 * gave way to b(), c() steady); --time for both sides, a side's own
 * over it.
 */
static void
test_diff_of_two_windows(void **state)
{
	char *halves[] = { profil_bin, "diff", "--format", "csv",
	    "--time-before", "..0.5s", "--time-after", "0.5s..", cpu_prf,
	    cpu_prf, NULL };
	char *both[] = { profil_bin, "diff", "--format", "csv", "--time",
	    "0.3s..0.4s", "--time-after", "60%..70%", cpu_prf, cpu_prf, NULL };
	char *text[] = { profil_bin, "diff", "--time-before", "..0.5s",
	    "--time-after", "0.5s..", cpu_prf, cpu_prf, NULL };
	double before[NFUNCS], after[NFUNCS];
	struct run r;

	(void)state;
	diff_samples(halves, before, after);
	assert_true(before[A] == 400 && after[A] == 0);
	assert_true(before[B] == 0 && after[B] == 300);
	assert_true(before[C] == 100 && after[C] == 100);
	diff_samples(both, before, after);
	assert_true(before[A] == 80 && after[A] == 0);
	assert_true(before[B] == 0 && after[B] == 60);
	assert_true(before[C] == 20 && after[C] == 20);
	/* the sides named with their windows */
	run(&r, text);
	assert_int_equal(r.status, 0);
	if (strstr(r.out, "time.prf (window 0.00\xe2\x80\x93" "0.50 s of "
	    "1.00 s)") == NULL || strstr(r.out, "time.prf (window "
	    "0.50\xe2\x80\x93" "1.00 s of 1.00 s)") == NULL ||
	    strstr(r.out, "(500 samples") == NULL ||
	    strstr(r.out, "(400 samples") == NULL)
		fail_msg("the sides not named with their windows: %s", r.out);
}

/* argv refused with status, one line on stderr holding want. */
static void
refused(char *const argv[], int status, const char *command,
    const char *want)
{
	struct run r;

	run(&r, argv);
	if (r.status != status)
		fail_msg("exit %d, want %d: %s", r.status, status, r.err);
	assert_one_line(&r, command);
	if (strstr(r.err, want) == NULL)
		fail_msg("'%s' does not say '%s'", r.err, want);
	assert_string_equal(r.out, "");
}

static void
test_time_refused(void **state)
{
	char *garbage[] = { profil_bin, "report", "--time", "soon", cpu_prf,
	    NULL };
	char *reversed[] = { profil_bin, "report", "--time", "3s..1s", cpu_prf,
	    NULL };
	char *mixed[] = { profil_bin, "report", "--time", "0.5s..10%", cpu_prf,
	    NULL };
	char *past[] = { profil_bin, "report", "--threads", "--time", "2s..",
	    cpu_prf, NULL };
	char *none[] = { profil_bin, "report", "--time", "..1s", old_prf, NULL };
	char *exported[] = { profil_bin, "export", "--format", "folded", "-o",
	    "-", "--time", "1..2..3", cpu_prf, NULL };
	char *export_past[] = { profil_bin, "export", "--format", "pprof", "-o",
	    (char *)tmp("past.pb.gz"), "--time", "100%..", cpu_prf, NULL };
	char *diff_side[] = { profil_bin, "diff", "--time-after", "5s..",
	    cpu_prf, cpu_prf, NULL };
	char *diff_bad[] = { profil_bin, "diff", "--time-before", "x..",
	    cpu_prf, cpu_prf, NULL };
	char *diff_none[] = { profil_bin, "diff", "--time", "..1s", cpu_prf,
	    old_prf, NULL };
	char *no_value[] = { profil_bin, "report", cpu_prf, "--time", NULL };

	(void)state;
	refused(garbage, 2, "report", "--time 'soon': not START..END");
	refused(reversed, 2, "report", "END is before START");
	refused(mixed, 2, "report", "END (0.100 s) is before START (0.500 s)");
	refused(past, 1, "report", "past the run's end (1.000 s)");
	refused(none, 1, "report", "time-old.prf: --time '..1s': no timeline");
	refused(exported, 2, "export", "'2..3' is not a time");
	refused(export_past, 1, "export", "past the run's end");
	assert_false(exists(tmp("past.pb.gz")));
	refused(diff_side, 1, "diff", "--time-after '5s..': the window starts at "
	    "5.000 s");
	refused(diff_bad, 2, "diff", "--time-before 'x..': 'x' is not a time");
	refused(diff_none, 1, "diff", "time-old.prf: --time '..1s': no "
	    "timeline");
	refused(no_value, 2, "report", "needs a value");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_flat_windows),
		cmocka_unit_test(test_report_caption_says_the_window),
		cmocka_unit_test(test_report_threads_window),
		cmocka_unit_test(test_export_folded_window),
		cmocka_unit_test(test_export_pprof_window),
		cmocka_unit_test(test_diff_of_two_windows),
		cmocka_unit_test(test_time_refused),
	};

	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
