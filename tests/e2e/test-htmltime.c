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
window_json_of(char *out, size_t size, const struct profil_profile *p,
    const struct part *parts, uint32_t from, uint32_t to, int cpu_only,
    int c_left_out)
{
	uint32_t first = from < to ? from : to, end = (from < to ? to : from) + 1;
	uint64_t total = 0, cpu = 0, carry = 0;
	uint64_t *count = xcalloc(p->nstacks, sizeof *count);
	size_t len = strlen(out);
	uint64_t us0 = (first * SLICE_NS + 999) / 1000, us1 = end * SLICE_NS / 1000;

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
	len += (size_t)snprintf(out + len, size - len, "%s{\"from\":%u,\"to\":%u,"
	    "\"first\":%u,\"end\":%u,\"range\":\"%llu.%06llu\\u2013%llu.%06llu s\","
	    "\"total\":%llu,\"cpu\":%llu,\"functions\":[", len > 0 &&
	    out[len - 1] == '}' ? "," : "", from, to, first, end,
	    (unsigned long long)(us0 / 1000000), (unsigned long long)(us0 % 1000000),
	    (unsigned long long)(us1 / 1000000), (unsigned long long)(us1 % 1000000),
	    (unsigned long long)total, (unsigned long long)cpu);
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
		    "\"samples\":%llu,\"amount\":%llu,\"boxed\":%llu}",
		    i ? "," : "", leaf_name(&parts[i]), (unsigned long long)samples,
		    (unsigned long long)amount, (unsigned long long)(c_left_out &&
		    parts[i].func == F_C ? 0 : amount));
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
window_json(char *out, size_t size, const struct profil_profile *p,
    const struct part *parts, uint32_t from, uint32_t to, int cpu_only)
{
	window_json_of(out, size, p, parts, from, to, cpu_only, 0);
}

/*
 * The expectations of check-html-time.js for p (of parts): the whole
 * run, the tracks, and windows dragged across: a() and b()'s edges with
 * c() across both, the whole run from end to end, a few slices inside
 * the gap between a() and b(), and a drag right to left.
 */
static void
expect_json(char *out, size_t size, const struct profil_profile *p,
    const struct part *parts, int cpu_only, const char *colours,
    const char *phases)
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
		window_json(windows, sizeof windows, p, parts, drags[k][0],
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
 * a(), none, b() and none, c(), none where they were; and each window
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
	expect_json(expect, sizeof expect, p, cpu_parts, 0,
	    "{\"track\":0,\"slice\":50,\"kind\":\"cpu\"},"
	    "{\"track\":0,\"slice\":120,\"kind\":\"none\"},"
	    "{\"track\":1,\"slice\":20,\"kind\":\"none\"},"
	    "{\"track\":1,\"slice\":120,\"kind\":\"cpu\"}",
	    "{\"track\":0,\"name\":\"a\",\"first\":0,\"end\":100},"
	    "{\"track\":0,\"name\":\"no samples\",\"first\":100,\"end\":150},"
	    "{\"track\":0,\"name\":\"b\",\"first\":150,\"end\":250},"
	    "{\"track\":1,\"name\":\"no samples\",\"first\":0,\"end\":50},"
	    "{\"track\":1,\"name\":\"c\",\"first\":50,\"end\":200},"
	    "{\"track\":1,\"name\":\"no samples\",\"first\":200,\"end\":250}");
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
	expect_json(expect, sizeof expect, p, wall_parts, 0, colours,
	    wall_phases);
	browser_check_with("--time", html, tmp("time-wall.png"), expect);
	free(page);
	page = html_of_with(prf, cpu_html, "--cpu");
	expect_json(expect, sizeof expect, p, wall_parts, 1, colours,
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
	window_json_of(windows, sizeof windows, p, parts, 0, 2, 0, 1);
	window_json_of(windows, sizeof windows, p, parts, 99, 101, 0, 1);
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
		cmocka_unit_test(test_no_timeline_no_tracks),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
