/*
 * test-speedscope.c - `profil export --format speedscope` read by the
 * real speedscope: the file imported into speedscope's own page (the
 * speedscope npm package) in headless Chromium by
 * tests/browser/check-speedscope.js, which also checks it against
 * speedscope's published schema, and what the page shows compared with
 * report: the profiles (a thread each, "comm tid") and their totals with
 * report --threads, each function's total and self, summed over the
 * threads, with the flat report's, at the precision the page shows.  On
 * profiles made here with a known timeline (a CPU and a wall profile:
 * the time order view must draw each phase at its time; --cpu; --time;
 * without a timeline; -o -), and on real recordings of
 * tests/programs/workload.c (both engines, --inline: names, files and
 * lines too) and of tests/programs/phases.c (both engines, --wall: each
 * phase drawn at the time the program's own clock gave it).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "e2e.h"
#include "harness.h"

#include "csv-table.h"
#include "export-checks.h"
#include "profiles.h"

/* What check-speedscope.js printed: the page's profiles and rows. */
#define MAX_PROFILES 64
#define MAX_ROWS 4096
struct page {
	size_t nprofiles, nrows, nats;
	struct { char name[256], weight[32]; } profiles[MAX_PROFILES];
	struct {
		size_t profile;
		char name[512], total[32], self[32], file[1024];
	} rows[MAX_ROWS];
	struct { size_t profile; double t; char stack[2048]; } ats[32];
};

/* 1 if the browser check can run; skips (or fails, when required) if not. */
static int
browser_ready(void)
{
	char sh[PATH_MAX + 64];

	snprintf(sh, sizeof sh, "%s/tests/browser/check-speedscope.sh", srcdir);
	if (access(sh, X_OK) == 0 && system("command -v chromium >/dev/null "
	    "&& command -v node >/dev/null") == 0)
		return 1;
	if (getenv("PROFIL_REQUIRE_BROWSER") != NULL)
		fail_msg("PROFIL_REQUIRE_BROWSER is set but chromium, node or "
		    "%s is missing", sh);
	SKIP("chromium or node not installed (PROFIL_REQUIRE_BROWSER=1 "
	    "makes it a failure)");
	return 0;
}

/*
 * Open json in speedscope (check-speedscope.sh), asking for the stacks
 * drawn at the times of ats ("I:NS", NULL-ended); what it shows into pg.
 */
static void
speedscope_shows(struct page *pg, const char *json, const char *const *ats)
{
	char sh[PATH_MAX + 64], shot[PATH_MAX + 16], *argv[40], err[8192];
	char *out, *line, *save;
	size_t n = 0;

	snprintf(sh, sizeof sh, "%s/tests/browser/check-speedscope.sh", srcdir);
	snprintf(shot, sizeof shot, "%s.png", json);
	argv[n++] = sh;
	argv[n++] = (char *)json;
	argv[n++] = shot;
	for (size_t i = 0; ats != NULL && ats[i] != NULL && n < 38; i++)
		argv[n++] = (char *)ats[i];
	argv[n] = NULL;
	if (capture(argv, &out, err, sizeof err) != 0 ||
	    strstr(out, "\nok\n") == NULL)
		fail_msg("speedscope check of %s failed:\n%s%s", json, out, err);
	memset(pg, 0, sizeof *pg);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *f[6] = { 0 };
		size_t k = 0;

		for (char *at = line; k < 6; k++) {
			f[k] = at;
			if ((at = strchr(at, '\t')) == NULL)
				break;
			*at++ = '\0';
		}
		if (strcmp(f[0], "profile") == 0 && k >= 3 &&
		    pg->nprofiles < MAX_PROFILES) {
			assert_int_equal(atol(f[1]), pg->nprofiles);
			COPY(pg->profiles[pg->nprofiles].name, f[2]);
			COPY(pg->profiles[pg->nprofiles++].weight, f[3]);
		} else if (strcmp(f[0], "row") == 0 && k >= 5) {
			assert_true(pg->nrows < MAX_ROWS);
			pg->rows[pg->nrows].profile = (size_t)atol(f[1]);
			COPY(pg->rows[pg->nrows].name, f[2]);
			COPY(pg->rows[pg->nrows].total, f[3]);
			COPY(pg->rows[pg->nrows].self, f[4]);
			COPY(pg->rows[pg->nrows++].file, f[5]);
		} else if (strcmp(f[0], "at") == 0 && k >= 3 && pg->nats < 32) {
			pg->ats[pg->nats].profile = (size_t)atol(f[1]);
			pg->ats[pg->nats].t = atof(f[2]);
			COPY(pg->ats[pg->nats++].stack, f[3]);
		}
	}
	free(out);
	if (pg->nprofiles == 0)
		fail_msg("speedscope check of %s lists no profile", json);
}

/*
 * A duration as speedscope's TimeFormatter shows it ("181.00ms",
 * "1.50s", "0.00ns", "1:05") in ns, and into *half what the shown
 * digits leave open either way.
 */
static double
shown_ns(const char *text, double *half)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(text, &end);

	if (*end == ':') {		/* minutes:seconds, seconds cut */
		*half = 0.5e9;
		return (v * 60 + atof(end + 1) + 0.5) * 1e9;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].unit) == 0) {
			*half = 0.005 * units[i].ns;
			return v * units[i].ns;
		}
	fail_msg("speedscope shows '%s': not a duration", text);
	return 0;
}

/* got (shown, ± half) is want ns within the rounding also allowed. */
static void
assert_shown(double got, double half, double want, double allowed,
    const char *what)
{
	if (fabs(got - want) > half + allowed + 1e-6 * want)
		fail_msg("%s: speedscope shows %.0f ns (+-%.0f), report %.0f "
		    "(+-%.0f)", what, got, half, want, allowed);
}

/*
 * The weight of profile k as the page shows it: in its list of profiles,
 * or where it shows no list (a file of one profile), as the self times
 * of its functions in its sandwich view sum up: each sample's weight is
 * its leaf's.  Into *half what the shown digits leave open.
 */
static double
profile_ns(const struct page *pg, size_t k, double *half)
{
	double sum = 0, h;

	if (pg->profiles[k].weight[0] != '\0')
		return shown_ns(pg->profiles[k].weight, half);
	*half = 0;
	for (size_t r = 0; r < pg->nrows; r++)
		if (pg->rows[r].profile == k) {
			sum += shown_ns(pg->rows[r].self, &h);
			*half += h;
		}
	return sum;
}

/*
 * A figure of report's, in ns: a CPU view's samples (column count)
 * times the interval, exactly; a wall view's seconds (column seconds),
 * to the CSV's 4 decimals, *half the rest.
 */
static double
report_ns(const struct csv *t, int row, int wall, const char *count,
    const char *seconds, double interval, double *half)
{
	*half = wall ? 0.5e5 : 0;
	return wall ? num(t, row, seconds) * 1e9 : num(t, row, count) * interval;
}

/*
 * What speedscope shows of json agrees with report on prf (report_opt:
 * an option both take, or NULL): one profile per thread of report
 * --threads, named "comm tid" and weighing its time (profile_ns), and
 * each function of the flat report (--sort inclusive: every function in
 * a stack, not only those with samples of their own) with its self and
 * total, summed over the threads and over functions of one name; nothing
 * else.
 * allowed: the ns report's counts may be off by besides (a wall
 * profile's time off the CPU is counted in whole intervals).
 */
static void
assert_page_is_report(struct page *pg, const char *prf,
    const char *report_opt, double allowed)
{
	struct profil_profile *p;
	struct csv threads, flat;
	char cause[256];
	double interval;
	int wall;

	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	interval = (double)p->interval_ns;
	wall = p->wall != NULL && (report_opt == NULL ||
	    strcmp(report_opt, "--cpu") != 0);
	profil_profile_free(p);
	/* --inline is the flat view's; the threads are the same either way */
	csv_of(&threads, prf, "--threads", report_opt != NULL &&
	    strcmp(report_opt, "--inline") == 0 ? NULL : report_opt,
	    (char *)NULL);
	csv_of(&flat, prf, "--sort", "inclusive", report_opt, (char *)NULL);
	assert_int_equal(pg->nprofiles, threads.nrows);
	/* the rows read are those of the profile listed: they sum to it */
	for (size_t k = 0; k < pg->nprofiles; k++) {
		char listed = pg->profiles[k].weight[0];
		double half, rows_half, weight = profile_ns(pg, k, &half), rows;

		pg->profiles[k].weight[0] = '\0';
		rows = profile_ns(pg, k, &rows_half);
		pg->profiles[k].weight[0] = listed;
		assert_shown(rows, rows_half, weight, half, pg->profiles[k].name);
	}
	for (int i = 0; i < threads.nrows; i++) {
		char want[300];
		size_t k;
		double half, got, want_ns, rhalf;

		snprintf(want, sizeof want, "%s %s", text_at(&threads, i, "name"),
		    text_at(&threads, i, "tid"));
		for (k = 0; k < pg->nprofiles &&
		    strcmp(pg->profiles[k].name, want) != 0; k++)
			;
		if (k == pg->nprofiles)
			fail_msg("speedscope lists no profile '%s'", want);
		got = profile_ns(pg, k, &half);
		want_ns = report_ns(&threads, i, wall, "samples", "seconds",
		    interval, &rhalf);
		assert_shown(got, half, want_ns, allowed + rhalf, want);
	}
	/* every function of report in speedscope, and every one shown */
	for (int i = 0; i < flat.nrows; i++) {
		const char *fn = text_at(&flat, i, "function");
		double self = 0, total = 0, self_half = 0, total_half = 0, h;
		double want_self = 0, want_total = 0, want_half = 0;
		int seen = 0;

		for (int j = 0; j < flat.nrows; j++) {
			if (strcmp(text_at(&flat, j, "function"), fn) != 0)
				continue;
			if (j < i)
				goto next;	/* this name is checked */
			want_self += report_ns(&flat, j, wall, "samples",
			    "seconds", interval, &h);
			want_total += report_ns(&flat, j, wall,
			    "inclusive_samples", "inclusive_seconds", interval, &h);
			want_half += h;
		}
		for (size_t r = 0; r < pg->nrows; r++) {
			if (strcmp(pg->rows[r].name, fn) != 0)
				continue;
			self += shown_ns(pg->rows[r].self, &h);
			self_half += h;
			total += shown_ns(pg->rows[r].total, &h);
			total_half += h;
			seen = 1;
		}
		if (!seen)
			fail_msg("speedscope shows no row for %s", fn);
		assert_shown(self, self_half, want_self, allowed + want_half, fn);
		assert_shown(total, total_half, want_total, allowed + want_half,
		    fn);
next:		;
	}
	/*
	 * and nothing report does not show, but time off the CPU under an
	 * interval, which its view leaves out
	 */
	for (size_t r = 0; r < pg->nrows; r++) {
		double h, total = shown_ns(pg->rows[r].total, &h);
		int i;

		for (i = 0; i < flat.nrows &&
		    strcmp(text_at(&flat, i, "function"), pg->rows[r].name) != 0;
		    i++)
			;
		if (i == flat.nrows && total > h + allowed)
			fail_msg("speedscope shows %s (%s), which report does "
			    "not", pg->rows[r].name, pg->rows[r].total);
	}
	csv_free(&threads);
	csv_free(&flat);
}

/* The stack the page drew at T ns of profile i (as asked). */
static const char *
stack_at(const struct page *pg, size_t i, double t)
{
	for (size_t k = 0; k < pg->nats; k++)
		if (pg->ats[k].profile == i && fabs(pg->ats[k].t - t) < 1)
			return pg->ats[k].stack;
	fail_msg("no stack asked at %zu:%.0f", i, t);
	return NULL;
}

/* `profil export --format speedscope ARGS... -o json prf`, which works. */
static void
export_speedscope(struct run *r, const char *prf, const char *json, ...)
{
	char *argv[16] = { profil_bin, "export", "--format", "speedscope" };
	size_t n = 4;
	va_list ap;
	char *a;

	va_start(ap, json);
	while ((a = va_arg(ap, char *)) != NULL && n < 11)
		argv[n++] = a;
	va_end(ap);
	argv[n++] = "-o";
	argv[n++] = (char *)json;
	argv[n++] = (char *)prf;
	argv[n] = NULL;
	run(r, argv);
	if (r->status != 0)
		fail_msg("export of %s: status %d: %s", prf, r->status, r->err);
}

/*
 * The profile made here, its phases as tests/programs/phases.c has them
 * (1 ms samples, 10 ms slices, 2.5 s): thread 100 runs a() from main()
 * for 1 s, waits in read() 0.5 s, runs b() 1 s; thread 101 sleeps 1 s,
 * then runs c() (8 of each 10 ms) and itself (2) for 1.5 s.  The stacks
 * and their slices:
 *
 *   0  100  main;a                       slices   0..99, 10 samples each
 *   1  100  main;b                       slices 150..249, 10
 *   2  101  thread_start;c               slices 100..249,  8
 *   3  101  thread_start                 slices 100..249,  2
 * and in the wall profile (wall), off the CPU:
 *   4  100  main;read;[off-cpu: read]    slices 100..149, 10 ms each
 *   5  101  thread_start;[off-cpu: clock_nanosleep]  slices 0..99, 10 ms
 *
 * Names kept in the profile (the object is no file here), with a line at
 * each function's start in phases.c: main 10, a 20, b 30, c 40,
 * thread_start 50, read 60.  Without timeline, none is kept.
 */
#define SLICE_NS 10000000ull
static void
save_phases(const char *path, int wall, int timeline)
{
	static const char *const names[] = { "main", "a", "b", "c",
	    "thread_start", "read" };
	static const struct profil_bucket none[] = { { 0, 0 } };
	static const struct {
		uint32_t tid;
		size_t depth;
		struct profil_frame frames[3];	/* leaf first */
		unsigned first, last;		/* slices */
		uint64_t per_slice;		/* samples, or ns */
	} stacks[] = {
		{ 100, 2, { { 0, 0x1110 }, { 0, 0x1010 } }, 0, 99, 10 },
		{ 100, 2, { { 0, 0x1210 }, { 0, 0x1020 } }, 150, 249, 10 },
		{ 101, 2, { { 0, 0x1310 }, { 0, 0x1410 } }, 100, 249, 8 },
		{ 101, 1, { { 0, 0x1420 } }, 100, 249, 2 },
		{ 100, 3, { { PROFIL_FRAME_OFFCPU, 0 }, { 0, 0x1510 },
		    { 0, 0x1030 } }, 100, 149, SLICE_NS },
		{ 101, 2, { { PROFIL_FRAME_OFFCPU, 230 }, { 0, 0x1430 } }, 0,
		    99, SLICE_NS },
	};
	size_t nstacks = wall ? 6 : 4;
	struct profil_profile *p = new_profile(1);
	uint64_t per_thread[2] = { 0, 0 };
	char cause[256];

	add_object(p, "/nonexistent/phases", 0, 0x1000, 0x1600, 1, none, 0);
	p->start_ns = 1700000000123456789;
	p->duration_ns = 250 * SLICE_NS;
	for (size_t i = 0; i < nstacks; i++) {
		uint64_t n = stacks[i].last - stacks[i].first + 1;

		add_stack(p, 100, stacks[i].tid, n * stacks[i].per_slice,
		    stacks[i].depth, stacks[i].frames);
		if (stacks[i].frames[0].object != PROFIL_FRAME_OFFCPU)
			per_thread[stacks[i].tid - 100] += n * stacks[i].per_slice;
	}
	p->taken = p->weight_sq = p->samples;
	p->threads = xcalloc(2, sizeof *p->threads);
	p->nthreads = 2;
	for (int t = 0; t < 2; t++)
		p->threads[t] = (struct profil_thread){ 100, 100 + t,
		    xstrdup("phases"), per_thread[t] };
	p->processes = xcalloc(1, sizeof *p->processes);
	p->nprocesses = 1;
	p->processes[0] = (struct profil_process){ 100, 1, xstrdup("phases"),
	    0, p->samples };
	p->symbols = xcalloc(6, sizeof *p->symbols);
	p->lines = xcalloc(6, sizeof *p->lines);
	for (size_t i = 0; i < 6; i++) {
		p->symbols[i] = (struct profil_symbol){ 0, 0x1000 + 0x100 * i,
		    0x1100 + 0x100 * i, xstrdup(names[i]) };
		p->lines[i] = (struct profil_line){ 0, 0, 0x1000 + 0x100 * i,
		    (uint32_t)(10 + 10 * i) };
	}
	p->nsymbols = p->nlines = 6;
	p->line_files = xcalloc(1, sizeof *p->line_files);
	p->line_files[0] = xstrdup("phases.c");
	p->nline_files = 1;
	if (wall)
		make_wall(p, 5000000, 100, 10, 0);
	if (timeline) {
		p->slice_ns = SLICE_NS;
		p->nslices = 250;
		p->timeline = xcalloc(250 * nstacks, sizeof *p->timeline);
		for (size_t i = 0; i < nstacks; i++)
			for (unsigned k = stacks[i].first; k <= stacks[i].last; k++)
				p->timeline[p->ntimeline++] =
				    (struct profil_timeline_entry){ (uint32_t)i, k,
				    stacks[i].per_slice };
	}
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
}

/* Where the time order view is asked: thread i ("I:NS") at ms. */
#define AT(i, ms) #i ":" #ms "000000"

static const char *const phase_times[] = {
	AT(0, 500), AT(0, 1250), AT(0, 2000), AT(1, 500), AT(1, 1502), NULL,
};

/*
 * The phases of save_phases as the time order view draws them: thread
 * 100 in a() at 0.5 s, in read() (or nothing, a CPU profile) at 1.25 s,
 * in b() at 2 s; thread 101 asleep (or nothing) at 0.5 s, in c() at
 * 1.502 s (2 ms into its slice).
 */
static void
assert_phases_drawn(const struct page *pg, int wall)
{
	assert_string_equal(pg->profiles[0].name, "phases 100");
	assert_string_equal(pg->profiles[1].name, "phases 101");
	assert_string_equal(stack_at(pg, 0, 500e6),
	    "main@phases.c:10;a@phases.c:20");
	assert_string_equal(stack_at(pg, 0, 1250e6), wall ?
	    "main@phases.c:10;read@phases.c:60;[off-cpu: read]" : "-");
	assert_string_equal(stack_at(pg, 0, 2000e6),
	    "main@phases.c:10;b@phases.c:30");
	assert_string_equal(stack_at(pg, 1, 500e6), wall ?
	    "thread_start@phases.c:50;[off-cpu: clock_nanosleep]" : "-");
	assert_string_equal(stack_at(pg, 1, 1502e6),
	    "thread_start@phases.c:50;c@phases.c:40");
}

/*
 * A CPU profile with a timeline: speedscope lists its two threads, with
 * report's totals and functions, and draws each phase at its time.
 */
static void
test_speedscope_cpu_timeline(void **state)
{
	SCRATCH(prf, "phases.prf");
	SCRATCH(json, "phases.speedscope.json");
	static struct page pg;
	struct run r;

	(void)state;
	save_phases(prf, 0, 1);
	assert_int_equal(checked_samples(prf), 3500);
	export_speedscope(&r, prf, json, (char *)NULL);
	assert_string_equal(r.err, "");
	if (!browser_ready())
		return;
	speedscope_shows(&pg, json, phase_times);
	assert_int_equal(pg.nprofiles, 2);
	assert_page_is_report(&pg, prf, NULL, 0);
	assert_phases_drawn(&pg, 0);
}

/*
 * The wall profile: time off the CPU as frames of their own, each at its
 * time (read() between a() and b(); the second thread's sleep); its
 * totals report's, to the nanosecond here (whole intervals off the CPU).
 * The export says once what its weights are.  With --cpu, the CPU part:
 * what speedscope shows is what it shows of the CPU profile.
 */
static void
test_speedscope_wall_timeline(void **state)
{
	SCRATCH(prf, "phases-wall.prf");
	SCRATCH(json, "phases-wall.speedscope.json");
	SCRATCH(cpu_json, "phases-wall-cpu.speedscope.json");
	static struct page pg, cpu_pg;
	struct run r;

	(void)state;
	save_phases(prf, 1, 1);
	export_speedscope(&r, prf, json, (char *)NULL);
	assert_one_line(&r, "export");
	assert_non_null(strstr(r.err, "wall profile"));
	export_speedscope(&r, prf, cpu_json, "--cpu", (char *)NULL);
	assert_string_equal(r.err, "");
	if (!browser_ready())
		return;
	speedscope_shows(&pg, json, phase_times);
	assert_page_is_report(&pg, prf, NULL, 0);
	assert_phases_drawn(&pg, 1);
	/* a thread's wall time is its life here: 2.5 s each */
	assert_string_equal(pg.profiles[0].weight, "2.50s");
	assert_string_equal(pg.profiles[1].weight, "2.50s");

	speedscope_shows(&cpu_pg, cpu_json, phase_times);
	assert_page_is_report(&cpu_pg, prf, "--cpu", 0);
	assert_phases_drawn(&cpu_pg, 0);
}

/*
 * export --time 1s..2.5s of the wall profile: the window's profile,
 * from its start (run's 1 s: the worker in read(), the late thread in
 * c()), its totals report --time's, b() at its time in the window.
 */
static void
test_speedscope_window(void **state)
{
	SCRATCH(prf, "phases-window.prf");
	SCRATCH(json, "phases-window.speedscope.json");
	static const char *const times[] = { AT(0, 250), AT(0, 1000),
	    AT(1, 500), NULL };
	static struct page pg;
	struct run r;

	(void)state;
	save_phases(prf, 1, 1);
	export_speedscope(&r, prf, json, "--time=1s..2.5s", (char *)NULL);
	if (!browser_ready())
		return;
	speedscope_shows(&pg, json, times);
	assert_page_is_report(&pg, prf, "--time=1s..2.5s", 0);
	assert_string_equal(pg.profiles[0].weight, "1.50s");
	assert_string_equal(stack_at(&pg, 0, 250e6),
	    "main@phases.c:10;read@phases.c:60;[off-cpu: read]");
	assert_string_equal(stack_at(&pg, 0, 1000e6),
	    "main@phases.c:10;b@phases.c:30");
	assert_string_equal(stack_at(&pg, 1, 500e6),
	    "thread_start@phases.c:50;c@phases.c:40");
}

/*
 * A profile without a timeline still exports, saying so in one line: a
 * sample per stack, in stack order (a() then b() in thread 100), the
 * totals report's.  -o - writes the same file to standard output.
 */
static void
test_speedscope_without_timeline(void **state)
{
	SCRATCH(prf, "phases-notl.prf");
	SCRATCH(json, "phases-notl.speedscope.json");
	static const char *const times[] = { AT(0, 500), AT(0, 1500), NULL };
	char *to_stdout[] = { profil_bin, "export", "--format", "speedscope",
	    "-o", "-", prf, NULL };
	static struct page pg;
	char *out, err[8192], *file;
	struct run r;
	size_t len;
	FILE *f;

	(void)state;
	save_phases(prf, 0, 0);
	export_speedscope(&r, prf, json, (char *)NULL);
	assert_one_line(&r, "export");
	assert_non_null(strstr(r.err, "no timeline"));
	assert_true(strncmp(r.out, json, strlen(json)) == 0 &&
	    strcmp(r.out + strlen(json), "\n") == 0);	/* the file, named */
	assert_int_equal(capture(to_stdout, &out, err, sizeof err), 0);
	f = fopen(json, "r");
	assert_non_null(f);
	file = xcalloc(1, 1 << 20);
	len = fread(file, 1, (1 << 20) - 1, f);
	fclose(f);
	assert_true(len > 0 && strlen(out) == len);
	assert_string_equal(out, file);
	free(out);
	free(file);
	if (!browser_ready())
		return;
	speedscope_shows(&pg, json, times);
	assert_page_is_report(&pg, prf, NULL, 0);
	assert_string_equal(stack_at(&pg, 0, 500e6),
	    "main@phases.c:10;a@phases.c:20");
	assert_string_equal(stack_at(&pg, 0, 1500e6),
	    "main@phases.c:10;b@phases.c:30");
}

/*
 * The line of the frame named name in the exported json (its frames one
 * a line: {"name":NAME,"file":FILE,"line":N}); its file into file.
 */
static long
json_frame_line(const char *json, const char *name, char *file, size_t size)
{
	char want[300], line[PATH_MAX + 600], *at;
	long n = -1;
	FILE *f = fopen(json, "r");

	assert_non_null(f);
	snprintf(want, sizeof want, "{\"name\":\"%s\",\"file\":\"", name);
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, want, strlen(want)) == 0) {
			at = line + strlen(want);
			snprintf(file, size, "%.*s", (int)strcspn(at, "\""), at);
			at = strstr(at, "\"line\":");
			n = at ? atol(at + 7) : 0;
			break;
		}
	fclose(f);
	if (n < 0)
		fail_msg("%s: no frame %s with a file", json, name);
	return n;
}

/*
 * Real recordings, in each engine: workload's threads (a profile each,
 * with report's totals and functions), six() in its file at the line
 * that defines it; and with inlines (once: the names --inline gives are
 * no engine's), inlined() a function of its own in speedscope as in
 * report --inline.
 */
static void
recorded_in(const char *engine, int inlines)
{
	char prf[PATH_MAX], json[PATH_MAX], inl_prf[PATH_MAX], inl_json[PATH_MAX];
	char *threads[] = { workload, "threads", "3", "0.2", NULL };
	char *inlined[] = { workload, "inlined", "0.3", NULL };
	char file[PATH_MAX], want[PATH_MAX + 32];
	static struct page pg;
	struct run r;
	long line;

	snprintf(prf, sizeof prf, "%s/threads-%s.prf", tmpdir, engine);
	snprintf(json, sizeof json, "%s/threads-%s.json", tmpdir, engine);
	snprintf(inl_prf, sizeof inl_prf, "%s/inlined-%s.prf", tmpdir, engine);
	snprintf(inl_json, sizeof inl_json, "%s/inlined-%s.json", tmpdir,
	    engine);
	record_with(engine, prf, threads);
	export_speedscope(&r, prf, json, (char *)NULL);
	line = json_frame_line(json, "six", file, sizeof file);
	snprintf(want, sizeof want, "%s/tests/programs/workload.c", srcdir);
	assert_string_equal(file, want);
	assert_int_equal(line, workload_line(" void six(void)", 0));
	if (!browser_ready())
		return;
	speedscope_shows(&pg, json, NULL);
	assert_true(pg.nprofiles >= 3);
	assert_page_is_report(&pg, prf, NULL, 0);
	if (!inlines)
		return;		/* what --inline names is no engine's */
	record_with(engine, inl_prf, inlined);
	export_speedscope(&r, inl_prf, inl_json, "--inline", (char *)NULL);
	speedscope_shows(&pg, inl_json, NULL);
	assert_page_is_report(&pg, inl_prf, "--inline", 0);
	for (size_t i = 0; i < pg.nrows; i++)
		if (strcmp(pg.rows[i].name, "inlined") == 0)
			return;
	fail_msg("speedscope shows no inlined() with --inline");
}

/*
 * Recorded without call stacks: said in one line, one profile of the
 * flat profile's functions, six() at the line that defines it.
 */
static void
test_speedscope_without_stacks(void **state)
{
	SCRATCH(prf, "flat.prf");
	SCRATCH(json, "flat.speedscope.json");
	char *prog[] = { workload, "split", "0.1", NULL };
	char file[PATH_MAX], want[PATH_MAX + 32];
	struct run r;

	(void)state;
	record_stacks_or_not_at(prf, prog, 0, NULL);
	export_speedscope(&r, prf, json, (char *)NULL);
	assert_one_line(&r, "export");
	assert_non_null(strstr(r.err, "no call stacks"));
	assert_int_equal(json_frame_line(json, "six", file, sizeof file),
	    workload_line(" void six(void)", 0));
	snprintf(want, sizeof want, "%s/tests/programs/workload.c", srcdir);
	assert_string_equal(file, want);
}

static void
test_speedscope_recorded_perf(void **state)
{
	(void)state;
	recorded_in("perf", 1);
}

static void
test_speedscope_recorded_timer(void **state)
{
	(void)state;
	recorded_in("timer", 0);
}

/* 1 if the stack the page drew (NAME@FILE:LINE;...) has a frame fn. */
static int
drawn(const char *stack, const char *fn)
{
	size_t n = strlen(fn);

	for (const char *at = stack; at != NULL; at = strchr(at, ';')) {
		at += *at == ';';
		if (strncmp(at, fn, n) == 0 && (at[n] == '@' || at[n] == ';' ||
		    at[n] == '\0'))
			return 1;
	}
	return 0;
}

/*
 * What the page drew in profile i at the middle of a phase and 20 ms
 * either side: fn (NULL: nothing, a gap) at one of them at least where
 * must; with strict, nothing but fn or a gap at any.
 */
static int
phase_drawn(const struct page *pg, size_t i, double mid, const char *fn,
    int strict, int must)
{
	int seen = 0;

	for (int k = -1; k <= 1; k++) {
		const char *st = stack_at(pg, i, mid + k * 20e6);
		int is = fn == NULL ? strcmp(st, "-") == 0 : drawn(st, fn);

		if (strict && !is && strcmp(st, "-") != 0)
			return 0;
		seen |= is;
	}
	return seen || !must;
}

/*
 * A real recording of tests/programs/phases.c, whose own clock times
 * each phase (engine; wall: record --wall): in speedscope its worker
 * (the main thread, first) runs a() in the middle of a() and b() in the
 * middle of b(), and between them waits in read() (wall) or has nothing
 * drawn (CPU); its late thread sleeps (or has nothing) in the middle of
 * its sleep and runs c() in the middle of c(); the totals are report's,
 * to the interval a wall view rounds each stack off the CPU to.  Looked
 * at in three places, 20 ms apart: in a wall profile a thread is drawn
 * all its life (on the CPU, or waiting: runnable too), and each phase
 * must be at one of them at least; in a CPU profile a thread a busy
 * machine runs a fifth of the time is drawn four fifths gap, and where
 * it is drawn, it must be in its phase.  With the perf engine, which
 * times the threads' switches where they happen, nothing else may be
 * drawn there; the timer engine reads the threads' counters every few ms
 * and places what it did not see at the last place seen (test-when
 * allows a tenth of the read() outside its phase): another phase's wait
 * may be drawn there.
 */
static void
phases_in(const char *engine, int wall)
{
	static struct run r;
	static struct page pg;
	static const char *const names[] = { "a", "read", "b", "sleep", "c" };
	char prf[PATH_MAX], json[PATH_MAX + 8], program[PATH_MAX], scale[32];
	char at[15][64], *argv[12];
	const char *ats[16];
	struct profil_profile *p;
	double mid[5], allowed = 0;
	size_t n = 0;
	char cause[256];

	snprintf(program, sizeof program, "%s/phases", bindir);
	snprintf(prf, sizeof prf, "%s/phases-%s%s.prf", tmpdir, engine,
	    wall ? "-wall" : "");
	snprintf(json, sizeof json, "%s.json", prf);
	snprintf(scale, sizeof scale, "%.2f", harness_work_scale());
	argv[n++] = profil_bin;
	argv[n++] = "record";
	argv[n++] = "-e";
	argv[n++] = (char *)engine;
	if (wall)
		argv[n++] = "--wall";
	argv[n++] = "-o";
	argv[n++] = prf;
	argv[n++] = program;
	argv[n++] = scale;
	argv[n] = NULL;
	run(&r, argv);
	if (r.status != 0)
		fail_msg("record exited %d: %s", r.status, r.err);
	if ((p = profil_profile_read(prf, cause, sizeof cause)) == NULL)
		fail_msg("%s: %s", prf, cause);
	if (p->ntimeline == 0)
		fail_msg("%s: recorded without a timeline", prf);
	for (size_t i = 0; i < p->nstacks; i++)
		allowed += p->stacks[i].off_ns > 0 ? (double)p->interval_ns : 0;
	/* the worker is the main thread: profile 0, in tid order */
	for (int k = 0; k < 5; k++) {
		struct e2e_phase ph = e2e_phase_of(r.err, names[k],
		    p->start_ns);

		mid[k] = (ph.t0 + ph.t1) / 2 * 1e9;	/* ns, as at[] has them */
		for (int j = 0; j < 3; j++) {
			snprintf(at[3 * k + j], sizeof at[0], "%d:%.0f",
			    k < 3 ? 0 : 1, mid[k] + (j - 1) * 20e6);
			ats[3 * k + j] = at[3 * k + j];
		}
	}
	ats[15] = NULL;
	profil_profile_free(p);
	export_speedscope(&r, prf, json, (char *)NULL);
	if (!browser_ready())
		return;
	speedscope_shows(&pg, json, ats);
	assert_int_equal(pg.nprofiles, 2);
	assert_page_is_report(&pg, prf, NULL, allowed);
	for (int k = 0; k < 5; k++) {
		size_t i = k < 3 ? 0 : 1;
		const char *fn = k == 0 ? "a" : k == 2 ? "b" : k == 4 ? "c" :
		    !wall ? NULL : k == 1 ? "[off-cpu: read]" :
		    "[off-cpu: clock_nanosleep]";

		if (!phase_drawn(&pg, i, mid[k], fn, strcmp(engine, "perf") == 0,
		    wall))
			fail_msg("%s, in the middle of %s(): %s; %s; %s", engine,
			    names[k], stack_at(&pg, i, mid[k] - 20e6),
			    stack_at(&pg, i, mid[k]),
			    stack_at(&pg, i, mid[k] + 20e6));
	}
}

static void
test_speedscope_phases_perf(void **state)
{
	(void)state;
	phases_in("perf", 1);
	phases_in("perf", 0);
}

static void
test_speedscope_phases_timer(void **state)
{
	(void)state;
	phases_in("timer", 1);
}

/*
 * What export refuses, in one line, writing nothing: a file not written
 * by profil in the way of -o; a corrupt profile.  Its own file it
 * replaces.
 */
static void
test_speedscope_errors(void **state)
{
	SCRATCH(prf, "phases-err.prf");
	SCRATCH(json, "phases-err.speedscope.json");
	SCRATCH(theirs, "theirs.json");
	char *over[] = { profil_bin, "export", "--format", "speedscope", "-o",
	    theirs, prf, NULL };
	char *corrupt[] = { profil_bin, "export", "--format", "speedscope",
	    "-o", json, theirs, NULL };
	struct run r;
	FILE *f;

	(void)state;
	save_phases(prf, 0, 1);
	export_speedscope(&r, prf, json, (char *)NULL);
	export_speedscope(&r, prf, json, (char *)NULL);	/* replaced */
	f = fopen(theirs, "w");
	assert_non_null(f);
	fputs("{\"mine\": true}\n", f);
	fclose(f);
	run(&r, over);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "export");
	assert_non_null(strstr(r.err, "not written by profil"));
	assert_int_equal(unlink(json), 0);
	run(&r, corrupt);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "export");
	assert_int_equal(access(json, F_OK), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speedscope_cpu_timeline),
		cmocka_unit_test(test_speedscope_wall_timeline),
		cmocka_unit_test(test_speedscope_without_timeline),
		cmocka_unit_test(test_speedscope_window),
		cmocka_unit_test(test_speedscope_without_stacks),
		cmocka_unit_test(test_speedscope_recorded_perf),
		cmocka_unit_test(test_speedscope_recorded_timer),
		cmocka_unit_test(test_speedscope_phases_perf),
		cmocka_unit_test(test_speedscope_phases_timer),
		cmocka_unit_test(test_speedscope_errors),
	};

	return cmocka_run_group_tests(tests, export_setup, e2e_teardown);
}
