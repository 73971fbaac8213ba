/*
 * test-htmltime.c - the timeline of `profil report --html` in headless
 * Chromium (tests/browser/check-html-time.js): profiles made here with a
 * known timeline (two threads; a() then b() in one, c() in the other;
 * and a wall profile where the first waits in read() between them), a
 * real mouse drag across the tracks, and the page's redrawn figures
 * (the window's samples, the functions' shares, the flame graph's root)
 * against what the profile made here holds in those slices, worked out
 * here from its stacks and timeline by the documented rules, not by the
 * page's code.  Also: the tracks' colours where each thread ran and
 * waited, the phases where each part was, and a profile without a
 * timeline drawing no tracks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "e2e.h"
#include "harness.h"

#include "flame-checks.h"
#include "profiles.h"

/*
 * The slices: 2^23 ns (8.4 ms, so that their bounds fall between
 * microseconds and the page must round them the right way), 250 of them
 * (2.1 s); samples of 1 ms.
 */
#define SLICE_NS	8388608ull
#define NSLICES		250
#define INTERVAL_NS	1000000ull

/* The functions, kept names at these addresses of the one object. */
enum { F_MAIN, F_A, F_B, F_C, NFUNCS };
static const char *const names[NFUNCS] = { "main", "a", "b", "c" };

/* A part of a thread's run: a stack's value in each of its slices. */
struct part {
	uint32_t tid;
	int func;		/* F_* on the CPU, or -1: off it */
	uint64_t code;		/* off it: what it waited in */
	uint32_t first, end;	/* slices [first, end) */
	uint64_t value;		/* samples, or ns off the CPU, a slice */
};

/*
 * The CPU profile: thread 10 ("main") runs a() 8 samples a slice in
 * slices 0-99 and b() 8 a slice in 150-249; thread 11 ("worker") c() 4
 * a slice in 50-199.
 */
static const struct part cpu_parts[] = {
	{ 10, F_A, 0, 0, 100, 8 },
	{ 10, F_B, 0, 150, 250, 8 },
	{ 11, F_C, 0, 50, 200, 4 },
};

/*
 * The wall profile: the same, and thread 10 blocked in read() all of
 * slices 100-149, thread 11 asleep in slices 0-49 and waiting for a CPU
 * 1.23 ms of each slice of 50-199 (so that a window's intervals depend
 * on the remainder carried from the stacks before: in three of the
 * windows below, one more than each stack's own would make).
 */
static const struct part wall_parts[] = {
	{ 10, F_A, 0, 0, 100, 8 },
	{ 10, -1, 0 /* read */, 100, 150, SLICE_NS },
	{ 10, F_B, 0, 150, 250, 8 },
	{ 11, -1, 230 /* clock_nanosleep */, 0, 50, SLICE_NS },
	{ 11, F_C, 0, 50, 200, 4 },
	{ 11, -1, PROFIL_OFFCPU_RUNNABLE, 50, 200, 1234567 },
};

/*
 * A profile of parts (n of them; a wall profile if any is off the CPU)
 * over nslices, of nthreads threads of process 10 (thread 10 "main",
 * 11 "work<er>&", then "t2", "t3", ...), saved to path and read back;
 * the parts' stacks are its stacks, in order, each called from main().
 */
static struct profil_profile *
made_of(const char *path, const struct part *parts, size_t n,
    uint32_t nthreads, uint64_t nslices)
{
	static const struct profil_bucket none[] = { { 0, 0 } };
	struct profil_profile *p = new_profile(1), *q;
	size_t e = 0, entries = 0;
	char cause[256];
	int wall = 0;

	add_object(p, "/nonexistent/phases/app", 0, 0, 0x100, 1, none, 0);
	p->symbols = xcalloc(NFUNCS, sizeof *p->symbols);
	for (int i = 0; i < NFUNCS; i++)
		p->symbols[i] = (struct profil_symbol){ 0, 0x40 * (uint64_t)i,
		    0x40 * (uint64_t)i + 0x40, xstrdup(names[i]) };
	p->nsymbols = NFUNCS;
	p->threads = xcalloc(nthreads, sizeof *p->threads);
	for (uint32_t k = 0; k < nthreads; k++) {
		char name[16];

		snprintf(name, sizeof name, "t%u", k);
		p->threads[k] = (struct profil_thread){ 10, 10 + k,
		    xstrdup(k == 0 ? "main" : k == 1 ? "work<er>&" : name), 0 };
	}
	p->nthreads = nthreads;
	for (size_t i = 0; i < n; i++) {
		const struct part *pt = &parts[i];
		uint64_t total = pt->value * (pt->end - pt->first);
		struct profil_frame fr[2] = { { 0, 0x40 * (uint64_t)pt->func + 8 },
		    { 0, 0x10 } };

		if (pt->func < 0) {
			fr[0] = (struct profil_frame){ PROFIL_FRAME_OFFCPU,
			    pt->code };
			wall = 1;
		} else {
			p->threads[pt->tid - 10].samples += total;
		}
		add_stack(p, 10, pt->tid, total, 2, fr);
		entries += pt->end - pt->first;
	}
	p->slice_ns = SLICE_NS;
	p->nslices = nslices;
	p->timeline = xcalloc(entries, sizeof *p->timeline);
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = parts[i].first; k < parts[i].end; k++)
			p->timeline[e++] = (struct profil_timeline_entry){
			    (uint32_t)i, k, parts[i].value };
	p->ntimeline = entries;
	p->duration_ns = SLICE_NS * nslices;
	p->cpu_ns = p->samples * INTERVAL_NS;
	if (wall)
		make_wall(p, 5000000, 100, 10, 0);
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
	if ((q = profil_profile_read(path, cause, sizeof cause)) == NULL)
		fail_msg("%s: %s", path, cause);
	assert_int_equal(q->nstacks, n);
	assert_int_equal(q->ntimeline, entries);
	return q;
}

/* The same of the two threads and the slices above. */
static struct profil_profile *
made(const char *path, const struct part *parts, size_t n)
{
	return made_of(path, parts, n, 2, NSLICES);
}

/* The name the views give a part's leaf. */
static const char *
leaf_name(const struct part *pt)
{
	if (pt->func >= 0)
		return names[pt->func];
	switch (pt->code) {
	case 0: return "[off-cpu: read]";
	case 230: return "[off-cpu: clock_nanosleep]";
	case PROFIL_OFFCPU_RUNNABLE: return "[off-cpu: runnable]";
	}
	fail_msg("no name for code %llu", (unsigned long long)pt->code);
	return NULL;
}

/* A row of report --time's flat view. */
struct time_row {
	char name[256];
	unsigned long long samples;
	double percent, error;
};

/*
 * `profil report --time OPTION --format csv` of prf (with --cpu if
 * cpu_only), the window the page names by option: its rows, at most
 * max, into rows; how many.
 */
static size_t
time_rows(const char *prf, const char *option, int cpu_only,
    struct time_row *rows, size_t max)
{
	char *argv[] = { profil_bin, "report", "--time", (char *)option,
	    "--format", "csv", "--min-percent", "0", (char *)prf,
	    cpu_only ? "--cpu" : NULL, NULL };
	static struct run r;
	const char *line;
	size_t n = 0;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report --time %s exited %d: %s", option, r.status, r.err);
	for (line = strchr(r.out, '\n') + 1; *line && n < max; n++) {
		char f[6][256];
		int k;

		for (k = 0; k < 6 && csv_field(&line, f[k], sizeof f[k]); k++)
			;
		assert_true(k == 6);
		snprintf(rows[n].name, sizeof rows[n].name, "%s", f[0]);
		rows[n].samples = strtoull(f[2], NULL, 10);
		rows[n].percent = atof(f[3]);
		rows[n].error = atof(f[4]);
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "";
	}
	return n;
}

/*
 * The row of report --time's rows (n of them) for name, holding samples
 * CPU samples and amount counts of total, as the page must: its error,
 * or -1 if report has no row for it (then amount must be 0).
 */
static double
time_row_of(const struct time_row *rows, size_t n, const char *name,
    uint64_t samples, uint64_t amount, uint64_t total, const char *option)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(rows[i].name, name) != 0)
			continue;
		if (rows[i].samples != samples || fabs(rows[i].percent - 100.0 *
		    (double)amount / (double)total) > 0.00006)
			fail_msg("--time %s: %s has %llu samples, %.4f%%; the "
			    "window's slices %llu, %.4f%%", option, name,
			    rows[i].samples, rows[i].percent,
			    (unsigned long long)samples,
			    100.0 * (double)amount / (double)total);
		return rows[i].error;
	}
	if (amount > 0)
		fail_msg("--time %s: no row for %s", option, name);
	return -1;
}

/* The percentages of report --time's rows add up to 100 (all of them). */
static void
time_rows_whole(const struct time_row *rows, size_t n, const char *option)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += rows[i].percent;
	if (n > 0 && fabs(sum - 100) > 0.0001 * (double)n)
		fail_msg("--time %s: the rows add up to %.4f%%", option, sum);
}

/*
 * What the page must show for the window [first, end) of p (made of
 * parts): each stack's entries in those slices summed (the windowed
 * profile), then as a wall view counts it (wall-view.h: time off the CPU
 * in whole intervals, the remainder carried from stack to stack; with
 * cpu_only, none of it); as the JSON of a drag from slice from to slice
 * to, appended to out.  With c_left_out, c()'s box is not drawn (its
 * samples in its caller's): its boxes and a search for it find none.
 */
static void
window_json_of(char *out, size_t size, const char *prf,
    const struct profil_profile *p, const struct part *parts, uint32_t from,
    uint32_t to, int cpu_only, int c_left_out)
{
	uint32_t first = from < to ? from : to, end = (from < to ? to : from) + 1;
	uint64_t total = 0, cpu = 0, carry = 0;
	uint64_t *count = xcalloc(p->nstacks, sizeof *count);
	size_t len = strlen(out), nrows;
	uint64_t us0 = (first * SLICE_NS + 999) / 1000, us1 = end * SLICE_NS / 1000;
	static struct time_row rows[64];
	char option[64];

	for (size_t k = 0; k < p->ntimeline; k++) {
		const struct profil_timeline_entry *e = &p->timeline[k];

		if (e->slice >= first && e->slice < end)
			count[e->stack] += e->value;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		if (p->stacks[i].off_ns == 0) {
			cpu += count[i];
		} else if (cpu_only) {
			count[i] = 0;
		} else {
			carry += count[i];
			count[i] = carry / INTERVAL_NS;
			carry -= count[i] * INTERVAL_NS;
		}
		total += count[i];
	}
	/* what the page prints for --time, and what report gives for it */
	snprintf(option, sizeof option, "%llu.%06llus..%llu.%06llus",
	    (unsigned long long)(us0 / 1000000), (unsigned long long)(us0 % 1000000),
	    (unsigned long long)(us1 / 1000000), (unsigned long long)(us1 % 1000000));
	nrows = time_rows(prf, option, cpu_only, rows, 64);
	time_rows_whole(rows, nrows, option);
	len += (size_t)snprintf(out + len, size - len, "%s{\"from\":%u,\"to\":%u,"
	    "\"first\":%u,\"end\":%u,\"range\":\"%llu.%06llu\\u2013%llu.%06llu s\","
	    "\"option\":\"%s\",\"total\":%llu,\"cpu\":%llu,\"functions\":[",
	    len > 0 && out[len - 1] == '}' ? "," : "", from, to, first, end,
	    (unsigned long long)(us0 / 1000000), (unsigned long long)(us0 % 1000000),
	    (unsigned long long)(us1 / 1000000), (unsigned long long)(us1 % 1000000),
	    option, (unsigned long long)total, (unsigned long long)cpu);
	/* by function: the stacks of the first part of each name */
	for (size_t i = 0; i < p->nstacks; i++) {
		uint64_t samples = 0, amount = 0;
		size_t k;

		for (k = 0; strcmp(leaf_name(&parts[k]), leaf_name(&parts[i])); k++)
			;
		if (k < i)
			continue;
		for (k = i; k < p->nstacks; k++)
			if (strcmp(leaf_name(&parts[k]), leaf_name(&parts[i])) == 0) {
				samples += p->stacks[k].off_ns ? 0 : count[k];
				amount += count[k];
			}
		len += (size_t)snprintf(out + len, size - len, "%s{\"name\":\"%s\","
		    "\"samples\":%llu,\"amount\":%llu,\"boxed\":%llu,"
		    "\"error\":%.4f}", i ? "," : "", leaf_name(&parts[i]),
		    (unsigned long long)samples, (unsigned long long)amount,
		    (unsigned long long)(c_left_out && parts[i].func == F_C ? 0 :
		    amount), time_row_of(rows, nrows, leaf_name(&parts[i]),
		    samples, amount, total, option));
	}
	/* c's samples by a search, as by its row */
	for (size_t i = 0; i < p->nstacks; i++)
		if (parts[i].func == F_C)
			len += (size_t)snprintf(out + len, size - len, "],"
			    "\"searches\":[{\"re\":\"^c$\",\"matched\":%llu}]}",
			    (unsigned long long)(c_left_out ? 0 : count[i]));
	assert_true(len < size);
	free(count);
}

static void
window_json(char *out, size_t size, const char *prf,
    const struct profil_profile *p, const struct part *parts, uint32_t from,
    uint32_t to, int cpu_only)
{
	window_json_of(out, size, prf, p, parts, from, to, cpu_only, 0);
}

/*
 * The expectations of check-html-time.js for p (of parts, saved as prf):
 * the whole
 * run, the tracks, and windows dragged across: a() and b()'s edges with
 * c() across both, the whole run from end to end, a few slices inside
 * the gap between a() and b(), and a drag right to left.
 */
static void
expect_json(char *out, size_t size, const char *prf,
    const struct profil_profile *p, const struct part *parts, int cpu_only,
    const char *colours, const char *phases)
{
	static const uint32_t drags[][2] = { { 74, 174 }, { 0, NSLICES - 1 },
	    { 120, 129 }, { 180, 60 } };
	uint64_t cpu = 0, total = 0, carry = 0;
	char windows[8192] = "";
	size_t len;

	for (size_t i = 0; i < p->nstacks; i++) {
		if (p->stacks[i].off_ns == 0) {
			cpu += p->stacks[i].count;
			total += p->stacks[i].count;
		} else if (!cpu_only) {
			carry += p->stacks[i].off_ns;
			total += carry / INTERVAL_NS;
			carry %= INTERVAL_NS;
		}
	}
	for (size_t k = 0; k < sizeof drags / sizeof drags[0]; k++)
		window_json(windows, sizeof windows, prf, p, parts, drags[k][0],
		    drags[k][1], cpu_only);
	len = (size_t)snprintf(out, size, "{\"nslices\":%d,\"whole\":{\"total\":"
	    "%llu,\"cpu\":%llu},\"tracks\":[\"main\",\"work<er>&\"],"
	    "\"colours\":[%s],\"phases\":[%s],\"drags\":[%s]}", NSLICES,
	    (unsigned long long)total, (unsigned long long)cpu, colours, phases,
	    windows);
	assert_true(len < size);
}

/*
 * The CPU profile's page: a track per thread, their names escaped in the
 * markup; orange where each ran, nothing where it did not; the phases
 * a(), idle, b() and idle, c(), idle where they were; and each window
 * dragged the samples of its slices, as the profile has them.
 */
static void
test_cpu_timeline_in_browser(void **state)
{
	const char *prf = tmp("time-cpu.prf"), *html = tmp("time-cpu.html");
	struct profil_profile *p = made(prf, cpu_parts, 3);
	char expect[16384], *page;

	(void)state;
	page = html_of(prf, html);
	assert_non_null(strstr(page, "work&lt;er&gt;&amp;"));
	assert_null(strstr(page, "work<er>"));
	expect_json(expect, sizeof expect, prf, p, cpu_parts, 0,
	    "{\"track\":0,\"slice\":50,\"kind\":\"cpu\"},"
	    "{\"track\":0,\"slice\":120,\"kind\":\"none\"},"
	    "{\"track\":1,\"slice\":20,\"kind\":\"none\"},"
	    "{\"track\":1,\"slice\":120,\"kind\":\"cpu\"}",
	    "{\"track\":0,\"name\":\"a\",\"first\":0,\"end\":100},"
	    "{\"track\":0,\"name\":\"idle\",\"first\":100,\"end\":150},"
	    "{\"track\":0,\"name\":\"b\",\"first\":150,\"end\":250},"
	    "{\"track\":1,\"name\":\"idle\",\"first\":0,\"end\":50},"
	    "{\"track\":1,\"name\":\"c\",\"first\":50,\"end\":200},"
	    "{\"track\":1,\"name\":\"idle\",\"first\":200,\"end\":250}");
	browser_check_with("--time", html, tmp("time-cpu.png"), expect);
	free(page);
	profil_profile_free(p);
}

/* The wall profile's phases, on the CPU and off it. */
static const char wall_phases[] =
	"{\"track\":0,\"name\":\"a\",\"first\":0,\"end\":100},"
	"{\"track\":0,\"name\":\"[off-cpu: read]\",\"first\":100,\"end\":150},"
	"{\"track\":0,\"name\":\"b\",\"first\":150,\"end\":250},"
	"{\"track\":1,\"name\":\"[off-cpu: clock_nanosleep]\",\"first\":0,"
	"\"end\":50},"
	"{\"track\":1,\"name\":\"c\",\"first\":50,\"end\":200},"
	"{\"track\":1,\"name\":\"not running\",\"first\":200,\"end\":250}";

/*
 * The wall profile's page: waiting in read() and asleep drawn as
 * waiting, c()'s waits for a CPU above its time on it; the phases, the
 * waits among them; each window's counts its intervals off the CPU (the
 * remainder carried from stack to stack over the window's time, not the
 * run's) and its samples.  Then its CPU part (--cpu): the windows count
 * the samples alone, the tracks still show the waits.
 */
static void
test_wall_timeline_in_browser(void **state)
{
	const char *prf = tmp("time-wall.prf"), *html = tmp("time-wall.html");
	const char *cpu_html = tmp("time-wall-cpu.html");
	struct profil_profile *p = made(prf, wall_parts, 6);
	const char *colours =
	    "{\"track\":0,\"slice\":50,\"kind\":\"cpu\"},"
	    "{\"track\":0,\"slice\":120,\"kind\":\"wait\"},"
	    "{\"track\":1,\"slice\":20,\"kind\":\"wait\"},"
	    "{\"track\":1,\"slice\":120,\"kind\":\"cpu\"},"
	    "{\"track\":1,\"slice\":120,\"up\":17,\"kind\":\"run\"},"
	    "{\"track\":1,\"slice\":220,\"kind\":\"none\"}";
	char expect[16384], *page;

	(void)state;
	page = html_of(prf, html);
	expect_json(expect, sizeof expect, prf, p, wall_parts, 0, colours,
	    wall_phases);
	browser_check_with("--time", html, tmp("time-wall.png"), expect);
	free(page);
	page = html_of_with(prf, cpu_html, "--cpu");
	expect_json(expect, sizeof expect, prf, p, wall_parts, 1, colours,
	    wall_phases);
	browser_check_with("--time", cpu_html, tmp("time-wall-cpu.png"), expect);
	free(page);
	profil_profile_free(p);
}

/*
 * 40 threads, thread k running a() k + 1 samples a slice in 5 slices of
 * its own, across a timeline of 2^24 slices (the most a file may have):
 * the page draws the 31 busiest threads' tracks in the order the threads
 * came and the other 9 in one, its figures the profile's, and a phase
 * chosen and the whole run again work, with no error on the page.
 */
static void
test_many_threads_long_timeline(void **state)
{
	const char *prf = tmp("time-many.prf"), *html = tmp("time-many.html");
	struct part parts[40];
	struct profil_profile *p;
	char expect[4096], *page;
	size_t len;

	(void)state;
	for (uint32_t k = 0; k < 40; k++)
		parts[k] = (struct part){ 10 + k, F_A, 0, k * 400000,
		    k * 400000 + 5, k + 1 };
	p = made_of(prf, parts, 40, 40, 1u << 24);
	page = html_of(prf, html);
	len = (size_t)snprintf(expect, sizeof expect, "{\"nslices\":%u,"
	    "\"whole\":{\"total\":%llu,\"cpu\":%llu},\"tracks\":[", 1u << 24,
	    (unsigned long long)p->samples, (unsigned long long)p->samples);
	for (uint32_t k = 9; k < 40; k++)
		len += (size_t)snprintf(expect + len, sizeof expect - len, "\"t%u \",",
		    k);
	snprintf(expect + len, sizeof expect - len, "\"9 other threads\"]}");
	browser_check_with("--time", html, tmp("time-many.png"), expect);
	free(page);
	profil_profile_free(p);
}

/*
 * With a timeline a box is left out only if it is under 0.1% of every
 * hundredth of the run: a() 1000 samples a slice all along, b() 5 in
 * slice 0 and c() 1 in slice 100 (each 0.002% of the run or less); b()
 * is 0.17% of the first hundredth (slices 0-2) and drawn, c() 0.03% of
 * its own and left out, its sample in main()'s box.  Dragged across the
 * first hundredth, b() is there with its 5 samples; across c()'s, c()'s
 * row has its sample and no box.
 */
static void
test_boxes_kept_for_a_hundredth(void **state)
{
	static const struct part parts[] = {
		{ 10, F_A, 0, 0, NSLICES, 1000 },
		{ 10, F_B, 0, 0, 1, 5 },
		{ 10, F_C, 0, 100, 101, 1 },
	};
	const char *prf = tmp("time-small.prf"), *html = tmp("time-small.html");
	struct profil_profile *p = made_of(prf, parts, 3, 1, NSLICES);
	char windows[4096] = "", expect[8192], *page;
	struct flame fl;
	int b = 0, c = 0;

	(void)state;
	page = html_of(prf, html);
	assert_non_null(strstr(page, "Boxes under 0.1% of the samples in every "
	    "hundredth of the run are left out: 1 of"));
	flame_parse(&fl, page);
	flame_check_tree(&fl);
	for (size_t i = 1; i < fl.n; i++) {
		b += strcmp(node_name(&fl, (long)i), "b") == 0 && fl.count[i] == 5;
		c += strcmp(node_name(&fl, (long)i), "c") == 0;
	}
	assert_int_equal(b, 1);
	assert_int_equal(c, 0);
	window_json_of(windows, sizeof windows, prf, p, parts, 0, 2, 0, 1);
	window_json_of(windows, sizeof windows, prf, p, parts, 99, 101, 0, 1);
	snprintf(expect, sizeof expect, "{\"nslices\":%d,\"whole\":{\"total\":"
	    "%llu,\"cpu\":%llu},\"tracks\":[\"main\"],\"phases\":[{\"track\":0,"
	    "\"name\":\"a\",\"first\":0,\"end\":%d}],\"drags\":[%s]}", NSLICES,
	    (unsigned long long)p->samples, (unsigned long long)p->samples,
	    NSLICES, windows);
	browser_check_with("--time", html, tmp("time-small.png"), expect);
	flame_free(&fl);
	free(page);
	profil_profile_free(p);
}

/* The program's own time of its phase name (e2e.h), in slices of p. */
static void
phase_slices(const struct profil_profile *p, const char *err,
    const char *name, double *first, double *end)
{
	struct e2e_phase ph = e2e_phase_of(err, name, p->start_ns);

	*first = ph.t0 * 1e9 / (double)p->slice_ns;
	*end = ph.t1 * 1e9 / (double)p->slice_ns;
}

/*
 * The end of the program's thread name ("thread NAME START END CPU"), in
 * slices of p.
 */
static double
thread_end(const struct profil_profile *p, const char *err, const char *name)
{
	char key[32];
	const char *at;
	unsigned long long t0, t1;

	snprintf(key, sizeof key, "thread %s ", name);
	if ((at = strstr(err, key)) == NULL ||
	    sscanf(at + strlen(key), "%llu %llu", &t0, &t1) != 2)
		fail_msg("phases did not say its thread %s ended: %s", name, err);
	return ((double)t1 - (double)p->start_ns) / (double)p->slice_ns;
}

/* The program's functions a, b, c: their link-time ranges, from nm. */
struct code {
	uint64_t lo[3], hi[3];
	uint32_t object;	/* the program's object in the profile */
};

static void
code_of(struct code *k, const struct profil_profile *p, const char *program)
{
	char cmd[PATH_MAX + 16], name[64];
	unsigned long long addr, size;
	FILE *f;

	memset(k, 0, sizeof *k);
	snprintf(cmd, sizeof cmd, "nm -S %s", program);
	assert_non_null(f = popen(cmd, "r"));
	while (fscanf(f, "%llx %llx %*c %63s", &addr, &size, name) == 3 ||
	    fscanf(f, "%*[^\n]") == 0)
		if (name[1] == '\0' && name[0] >= 'a' && name[0] <= 'c') {
			k->lo[name[0] - 'a'] = addr;
			k->hi[name[0] - 'a'] = addr + size;
		}
	pclose(f);
	k->object = UINT32_MAX;
	for (size_t i = 0; i < p->nobjects; i++)
		if (strcmp(p->objects[i].path, program) == 0)
			k->object = (uint32_t)i;
	if (k->object == UINT32_MAX || k->hi[0] == 0 || k->hi[1] == 0 ||
	    k->hi[2] == 0)
		fail_msg("%s: its functions not found in it or the profile",
		    program);
}

/* Which of a, b, c frame fr is in: 0 to 2, or -1. */
static int
in_code(const struct code *k, const struct profil_frame *fr)
{
	for (int i = 0; i < 3; i++)
		if (fr->object == k->object && fr->addr >= k->lo[i] &&
		    fr->addr < k->hi[i])
			return i;
	return -1;
}

/*
 * Where the tracks are: their x in the window and their width (a probe
 * of the page in the browser; the same layout each time it loads).
 */
struct tracks_at {
	double left, width;
};

static void
tracks_of(struct tracks_at *at, const char *html)
{
	const char *out = browser_output("--time", html, "", "{\"probe\":true}");

	if (out == NULL || sscanf(out, "canvas %lf %lf", &at->left,
	    &at->width) != 2 || at->width < 100)
		fail_msg("no tracks found on %s: %s", html, out ? out : "");
}

/*
 * The window x (whole: the mouse's is) of the first pixel in slice k of
 * n or after it, and the slice a drag starting (or ending) there takes:
 * the one the pixel is in, or up to the one it is in (html.h).
 */
static int
pixel_at(const struct tracks_at *at, uint64_t n, uint32_t k, int ends,
    uint32_t *slice)
{
	int x = (int)ceil(at->left + (double)k * at->width / (double)n + 0.01);
	double v = (x - at->left) * (double)n / at->width;

	*slice = ends ? (uint32_t)ceil(v) : (uint32_t)floor(v);
	return x;
}

/*
 * A drag on the page of recording p from the pixel of slice k0 to that
 * of slice k1 (what the mouse can do where slices are narrower than a
 * pixel: the slices those pixels are in, *first and *end): its counts as
 * the wall view counts them (the remainder carried), the rows of a, b, c
 * (their boxes: every stack through them) and of the worker's read();
 * appended to out.  The worker's time off the CPU there, in *off_ns.
 */
static void
real_window_json(char *out, size_t size, const char *prf,
    const struct profil_profile *p, const struct code *k,
    const struct tracks_at *at, uint32_t k0, uint32_t k1,
    uint32_t *first_out, uint32_t *end_out, uint64_t *off_ns)
{
	static const char *const name[] = { "a", "b", "c", "[off-cpu: read]" };
	static struct time_row rows[4096];
	char option[64];
	size_t nrows;
	uint32_t first, end;
	int x0 = pixel_at(at, p->nslices, k0, 0, &first);
	int x1 = pixel_at(at, p->nslices, k1, 1, &end);
	uint64_t *in = xcalloc(p->nstacks, sizeof *in), carry = 0;
	uint64_t total = 0, cpu = 0, leaf[4] = { 0 }, through[3] = { 0 };
	uint64_t us0 = (first * p->slice_ns + 999) / 1000;
	uint64_t us1 = end * p->slice_ns / 1000;
	size_t len = strlen(out);


	*off_ns = 0;
	for (size_t e = 0; e < p->ntimeline; e++)
		if (p->timeline[e].slice >= first && p->timeline[e].slice < end)
			in[p->timeline[e].stack] += p->timeline[e].value;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		const struct profil_frame *fr = &p->frames[st->frames[0]];
		uint64_t n = in[i];
		int f = in_code(k, fr);

		if (st->off_ns > 0) {
			carry += in[i];
			n = carry / p->interval_ns;
			carry -= n * p->interval_ns;
			if (fr->addr == 0 && st->tid == st->pid)
				leaf[3] += n;	/* the worker in read(2) */
			if (st->tid == st->pid)
				*off_ns += in[i];
		} else {
			cpu += n;
			if (f >= 0)
				leaf[f] += n;
		}
		total += n;
		for (size_t d = 0; d < st->depth; d++)
			if ((f = in_code(k, &p->frames[st->frames[d]])) >= 0) {
				through[f] += n;
				break;
			}
	}
	*first_out = first;
	*end_out = end;
	/* what the page prints for --time, and what report gives for it */
	snprintf(option, sizeof option, "%llu.%06llus..%llu.%06llus",
	    (unsigned long long)(us0 / 1000000), (unsigned long long)(us0 % 1000000),
	    (unsigned long long)(us1 / 1000000), (unsigned long long)(us1 % 1000000));
	nrows = time_rows(prf, option, 0, rows, 4096);
	time_rows_whole(rows, nrows, option);
	len += (size_t)snprintf(out + len, size - len, "%s{\"x0\":%d,\"x1\":%d,"
	    "\"first\":%u,\"end\":%u,\"range\":\"%llu.%06llu\\u2013%llu.%06llu s\","
	    "\"option\":\"%s\",\"total\":%llu,\"cpu\":%llu,\"functions\":[",
	    len > 0 ? "," : "", x0, x1, first, end,
	    (unsigned long long)(us0 / 1000000), (unsigned long long)(us0 % 1000000),
	    (unsigned long long)(us1 / 1000000), (unsigned long long)(us1 % 1000000),
	    option, (unsigned long long)total, (unsigned long long)cpu);
	for (int f = 0; f < 4; f++) {
		double err = time_row_of(rows, nrows, name[f], f < 3 ? leaf[f] : 0,
		    leaf[f], total, option);

		len += (size_t)snprintf(out + len, size - len, "%s{\"name\":\"%s\","
		    "\"samples\":%llu,\"amount\":%llu,\"boxed\":%llu", f ? "," :
		    "", name[f], (unsigned long long)(f < 3 ? leaf[f] : 0),
		    (unsigned long long)leaf[f], (unsigned long long)(f < 3 ?
		    through[f] : leaf[f]));
		if (err >= 0)
			len += (size_t)snprintf(out + len, size - len,
			    ",\"error\":%.4f", err);
		len += (size_t)snprintf(out + len, size - len, "}");
	}
	len += (size_t)snprintf(out + len, size - len, "]}");
	assert_true(len < size);
	free(in);
}

/*
 * A real recording (record --wall, with engine) of tests/programs/phases,
 * which says when each of its phases ran by its own clock: the page
 * lists the worker's phases a(), read(), b() and the late thread's sleep
 * and c() where the program says they were (a phase edge is found in the
 * data, by the rule the page states); a drag inside the read() gives the
 * profile's counts of those slices (and report --time's for the bounds
 * it prints), the worker off the CPU the most of the window (the
 * program's clock: it was all of it); one across a()'s end, its counts.
 */
static void
real_run(const char *engine)
{
	static struct run r;
	char prf[PATH_MAX], html[PATH_MAX], program[PATH_MAX], scale[32];
	char *argv[] = { profil_bin, "record", "-q", "-e", (char *)engine,
	    "--wall", "-o", prf, program, scale, NULL };
	char windows[4096] = "", phases[2048] = "", expect[8192], cause[256];
	char *page;
	static const char *const said[] = { "a", "read", "b", "sleep", "c" };
	static const char *const shown[] = { "a", "[off-cpu: read]", "b",
	    "[off-cpu: clock_nanosleep]", "c" };
	double first[5], end[5], late[5] = { 0 }, late_end;
	uint64_t off_ns, total = 0, cpu = 0, carry = 0;
	struct profil_profile *p;
	struct tracks_at at;
	uint32_t w0, w1;
	struct code k;
	size_t len = 0;

	snprintf(program, sizeof program, "%s/phases", bindir);
	snprintf(scale, sizeof scale, "%.2f", 0.6 * harness_work_scale());
	scratch(prf, "time-real.prf");
	scratch(html, "time-real.html");
	run(&r, argv);
	if (r.status != 0)
		fail_msg("%s: record exited %d: %s", engine, r.status, r.err);
	if ((p = profil_profile_read(prf, cause, sizeof cause)) == NULL)
		fail_msg("%s: %s", prf, cause);
	assert_true(p->ntimeline > 0);
	code_of(&k, p, program);
	for (int i = 0; i < 5; i++)
		phase_slices(p, r.err, said[i], &first[i], &end[i]);
	/*
	 * Each phase's edges between two phases of its thread (the first
	 * starts, and the last ends, with the run: what comes before the
	 * program's first phase and after the worker's last is merged into
	 * them, under 2% of the run), within 2 slices.  Not of the timer
	 * engine's recordings, whose time off the CPU is not always where
	 * it was (a loaded machine's: 85 ms of the late thread's sleep
	 * placed inside c(), which split c()'s phase; 0.06 s of 0.3 in
	 * read() in slices inside it): there the page is held to the
	 * profile it shows, the drags below.
	 */
	late_end = thread_end(p, r.err, "late");
	/*
	 * The read and the sleep end by a timer, then the thread waits for
	 * a CPU, which the program's clock puts in the wait and the view
	 * in what comes next (3 slices of it in CI, ASan's recorder beside
	 * it): either edge is right, from the timer's to the program's.
	 */
	for (int i = 1; i < 5; i += 2) {
		double timer = first[i] + (i == 1 ? 0.5 : 1.25) * 0.6 *
		    harness_work_scale() * 1e9 / (double)p->slice_ns;

		late[i] = end[i];
		late[i + 1] = first[i + 1];
		if (timer < end[i])
			end[i] = first[i + 1] = timer;
	}
	for (int i = 0; i < 5 && strcmp(engine, "perf") == 0; i++) {
		char e0[64] = "null", e1[32] = "null";

		if (i != 0 && i != 3)
			snprintf(e0, sizeof e0, "%.0f,\"first_by\":%.0f",
			    first[i], i == 2 || i == 4 ? late[i] : first[i]);
		/*
		 * c's end too, if the run goes on after the late thread by 2%
		 * or more: anywhere from c()'s end to the thread's (what it
		 * did after c(), on its way out, is under 2% of the run)
		 */
		if (i != 2 && (i != 4 || (double)p->nslices - late_end > 0.02 *
		    (double)p->nslices + 2))
			snprintf(e1, sizeof e1, "%.0f", end[i]);
		len += (size_t)snprintf(phases + len, sizeof phases - len,
		    "%s{\"track\":%d,\"name\":\"%s\",\"first\":%s,\"end\":%s,"
		    "\"end_by\":%.0f,\"within\":2}", i ? "," : "", i < 3 ? 0 : 1,
		    shown[i], e0, e1, i == 4 ? late_end : i == 1 || i == 3 ?
		    late[i] : end[i]);
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		if (p->stacks[i].off_ns == 0) {
			cpu += p->stacks[i].count;
			total += p->stacks[i].count;
		} else {
			carry += p->stacks[i].off_ns;
			total += carry / p->interval_ns;
			carry %= p->interval_ns;
		}
	}
	page = html_of(prf, html);
	tracks_of(&at, html);
	/*
	 * inside read(), two slices from its ends: the worker off the CPU
	 * all of it, blocked, or waiting for a CPU to go on after it (0.5 s
	 * of a loaded machine's 0.8), by the program's clock; the recorder
	 * spreads a block's time over its slices evenly, 98% of each here
	 * (test-when holds it to its bounds): for the most part, then, and
	 * no more than all of it
	 */
	real_window_json(windows, sizeof windows, prf, p, &k, &at,
	    (uint32_t)ceil(first[1]) + 2, (uint32_t)floor(end[1]) - 3, &w0, &w1,
	    &off_ns);
	if (strcmp(engine, "perf") == 0 && (w0 < first[1] || w1 > end[1] ||
	    (double)off_ns < 0.8 * (double)(w1 - w0) * (double)p->slice_ns ||
	    off_ns > (w1 - w0 + 1) * p->slice_ns))
		fail_msg("%s: %.3f s off the CPU in slices %u-%u of %.3f ms, "
		    "inside read() (%.1f-%.1f)", engine, (double)off_ns / 1e9, w0,
		    w1, (double)p->slice_ns / 1e6, first[1], end[1]);
	real_window_json(windows, sizeof windows, prf, p, &k, &at,
	    (uint32_t)((first[0] + end[0]) / 2), (uint32_t)((end[0] +
	    end[1]) / 2), &w0, &w1, &off_ns);
	snprintf(expect, sizeof expect, "{\"nslices\":%llu,\"whole\":{\"total\":"
	    "%llu,\"cpu\":%llu},\"phases\":[%s],\"drags\":[%s]}",
	    (unsigned long long)p->nslices, (unsigned long long)total,
	    (unsigned long long)cpu, phases, windows);
	browser_check_with("--time", html, tmp("time-real.png"), expect);
	free(page);
	profil_profile_free(p);
}

static void
test_recorded_perf(void **state)
{
	(void)state;
	if (!harness_perf_allowed())
		SKIP("perf events refused here: the perf engine cannot run");
	real_run("perf");
}

static void
test_recorded_timer(void **state)
{
	(void)state;
	real_run("timer");
}

/* A profile without a timeline: no tracks, and the flame graph as ever. */
static void
test_no_timeline_no_tracks(void **state)
{
	const char *prf = tmp("time-none.prf"), *html = tmp("time-none.html");
	struct profil_profile *p = made(prf, cpu_parts, 3);
	char cause[256], *page;
	struct flame fl;

	(void)state;
	free(p->timeline);
	p->timeline = NULL;
	p->ntimeline = 0;
	p->slice_ns = p->nslices = 0;
	if (profil_profile_save(p, prf, cause, sizeof cause) < 0)
		fail_msg("%s: %s", prf, cause);
	page = html_of(prf, html);
	assert_null(strstr(page, "id=\"timeline\""));
	assert_null(strstr(page, "id=\"tl-canvas\""));
	flame_parse(&fl, page);
	flame_check_tree(&fl);
	assert_true(fl.total == p->samples);
	flame_free(&fl);
	free(page);
	profil_profile_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_timeline_in_browser),
		cmocka_unit_test(test_wall_timeline_in_browser),
		cmocka_unit_test(test_many_threads_long_timeline),
		cmocka_unit_test(test_boxes_kept_for_a_hundredth),
		cmocka_unit_test(test_recorded_perf),
		cmocka_unit_test(test_recorded_timer),
		cmocka_unit_test(test_no_timeline_no_tracks),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
