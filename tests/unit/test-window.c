/*
 * test-window.c - cli/profile/window.c, window-parse.c and copy.c on
 * profiles made here, every count of every slice known: --time's text
 * read (every unit, percentages, empty sides, garbage refused), windows
 * rounded out to whole slices, and the profile of a window checked
 * against the counts put in (stacks, histograms bucketed from lowpc,
 * the kernel's record, unknown code, threads, processes, the header,
 * the weights, a wall profile's time off the CPU and what of it was
 * sampled, the timeline renumbered), and sound as a file is (encoded
 * and read back).  A copy owns its timeline; stacks dropped from one
 * take their entries with them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tests link with libprofil only: the command's modules are compiled in. */
#include "../../cli/profile/window.c"
#include "../../cli/profile/window-parse.c"
#include "../../cli/profile/copy.c"
#include "../../cli/hmap.c"
#include "../../cli/util.c"

#include "profiles.h"

#define MS		1000000ull
#define SLICE_NS	(10 * MS)
#define NSLICES		10
#define RUN_NS		(95 * MS)	/* the last slice half in the run */
#define START_NS	1700000000000000000ll
#define KADDR		0xffffffff81000010ull

/* The frames, sorted as the codec wants them: app's, then the others. */
enum { F_A, F_MAIN, F_B, F_C, F_START, NAPP };

/* Where frame kind sits in the frames of a (wall) profile. */
static uint32_t
frame_at(int wall, uint32_t object)
{
	if (object == PROFIL_FRAME_OFFCPU)
		return NAPP;
	if (object == PROFIL_FRAME_UNKNOWN)
		return NAPP + (uint32_t)wall;
	return NAPP + 1 + (uint32_t)wall;	/* the kernel: last */
}

/*
 * A stack's samples (or ns off the CPU) slice by slice, and its frames:
 * app's frames by F_*, the others by their object.
 */
struct known_stack {
	uint32_t tid;
	uint64_t per_slice[NSLICES];
	size_t depth;
	uint32_t frames[2];
	int app[2];		/* frames[k] is app's F_*, else an object */
};

/*
 * Thread 1 (the process's first): a() 10 samples a slice in slices 0-4,
 * b() 8 in 5-9, one sample of unknown code in slice 0.  Thread 2: c()
 * 5 a slice in 3-6 and the kernel under it, 3 in slice 4 and 2 in 9;
 * in the wall profile, 10 ms a slice in read() in slices 0-2.
 */
static const struct known_stack known[] = {
	{ 1, { 10, 10, 10, 10, 10 }, 2, { F_A, F_MAIN }, { 1, 1 } },
	{ 1, { [5] = 8, 8, 8, 8, 8 }, 2, { F_B, F_MAIN }, { 1, 1 } },
	{ 2, { [3] = 5, 5, 5, 5 }, 2, { F_C, F_START }, { 1, 1 } },
	{ 2, { [4] = 3, [9] = 2 }, 2, { PROFIL_FRAME_KERNEL, F_C }, { 0, 1 } },
	{ 1, { 1 }, 2, { PROFIL_FRAME_UNKNOWN, F_MAIN }, { 0, 1 } },
	{ 2, { 10 * MS, 10 * MS, 10 * MS }, 2, { PROFIL_FRAME_OFFCPU, F_C },
	    { 0, 1 } },
};
#define OFF_STACK	5
#define WHOLE_SAMPLES	116	/* 50 + 40 + 20 + 5 + 1 */
#define TAKEN		58
#define WEIGHT_SQ	232
#define LOST		10

static const uint64_t app_addrs[NAPP] = { 0x1013, 0x1101, 0x1205, 0x1301,
    0x1401 };

/* The stacks' counts into p, and their timeline. */
static void
add_known_stacks(struct profil_profile *p, int wall)
{
	size_t n = wall ? OFF_STACK + 1 : OFF_STACK;

	p->stacks = xcalloc(n, sizeof *p->stacks);
	p->timeline = xcalloc(n * NSLICES, sizeof *p->timeline);
	for (size_t i = 0; i < n; i++) {
		struct profil_stack *st = &p->stacks[p->nstacks++];
		uint64_t sum = 0;

		st->pid = 1;
		st->tid = known[i].tid;
		st->depth = known[i].depth;
		st->frames = xcalloc(st->depth, sizeof *st->frames);
		for (size_t k = 0; k < st->depth; k++)
			st->frames[k] = known[i].app[k] ? known[i].frames[k] :
			    frame_at(wall, known[i].frames[k]);
		for (uint32_t s = 0; s < NSLICES; s++) {
			if (known[i].per_slice[s] == 0)
				continue;
			sum += known[i].per_slice[s];
			p->timeline[p->ntimeline++] = (struct profil_timeline_entry){
			    (uint32_t)i, s, known[i].per_slice[s] };
		}
		if (i == OFF_STACK) {
			st->off_ns = sum;
			st->sampled_ns = 15 * MS;
			st->observations = 6;
		} else {
			st->count = sum;
		}
	}
}

/*
 * The profile of known[] (with the wall stack and record when wall): its
 * flat profile as a recorder would have counted the same samples, app's
 * buckets 4 bytes wide from 0x1002.
 */
static struct profil_profile *
known_profile(int wall)
{
	struct profil_profile *p = new_profile(4);	/* 1 kHz: MS */
	struct profil_object *o;

	p->start_ns = START_NS;
	p->duration_ns = RUN_NS;
	p->cpu_ns = 120 * MS;
	p->samples = WHOLE_SAMPLES;
	p->kernel = 5;
	p->unknown = 1;
	p->lost = LOST;
	p->taken = TAKEN;
	p->weight_sq = WEIGHT_SQ;
	p->nobjects = 1;
	p->objects = o = xcalloc(1, sizeof *o);
	*o = (struct profil_object){ .path = xstrdup("/nonexistent/app"),
	    .lowpc = 0x1002, .highpc = 0x2000, .bucket_bytes = 4,
	    .samples = 110, .nbuckets = 3 };
	o->buckets = xcalloc(3, sizeof *o->buckets);
	o->buckets[0] = (struct profil_bucket){ 0x1012, 50 };	/* a */
	o->buckets[1] = (struct profil_bucket){ 0x1202, 40 };	/* b */
	o->buckets[2] = (struct profil_bucket){ 0x12fe, 20 };	/* c */
	p->kernel_code = xcalloc(1, sizeof *p->kernel_code);
	p->kernel_code->release = xstrdup("6.1.0");
	p->kernel_code->code = (struct profil_object){
	    .path = xstrdup("[kernel.kallsyms]"), .lowpc = KADDR,
	    .highpc = KADDR + 1, .bucket_bytes = 1, .samples = 5,
	    .nbuckets = 1 };
	p->kernel_code->code.buckets = xcalloc(1, sizeof(struct profil_bucket));
	p->kernel_code->code.buckets[0] = (struct profil_bucket){ KADDR, 5 };
	p->nthreads = 2;
	p->threads = xcalloc(2, sizeof *p->threads);
	p->threads[0] = (struct profil_thread){ 1, 1, xstrdup("app"), 91 };
	p->threads[1] = (struct profil_thread){ 1, 2, xstrdup("worker"), 25 };
	p->nprocesses = 1;
	p->processes = xcalloc(1, sizeof *p->processes);
	p->processes[0] = (struct profil_process){ 1, 0, xstrdup("app"), 0,
	    WHOLE_SAMPLES };
	p->nframes = NAPP + 2 + (size_t)wall;
	p->frames = xcalloc(p->nframes, sizeof *p->frames);
	for (size_t i = 0; i < NAPP; i++)
		p->frames[i] = (struct profil_frame){ 0, app_addrs[i] };
	if (wall)
		p->frames[frame_at(1, PROFIL_FRAME_OFFCPU)] = (struct profil_frame){
		    PROFIL_FRAME_OFFCPU, 0 };	/* read(2) */
	p->frames[frame_at(wall, PROFIL_FRAME_UNKNOWN)] = (struct profil_frame){
	    PROFIL_FRAME_UNKNOWN, 0x7000 };
	p->frames[frame_at(wall, PROFIL_FRAME_KERNEL)] = (struct profil_frame){
	    PROFIL_FRAME_KERNEL, KADDR };
	if (wall) {
		p->wall = xcalloc(1, sizeof *p->wall);
		*p->wall = (struct profil_wall){ 5 * MS, 20, 3, 0 };
	}
	p->slice_ns = SLICE_NS;
	p->nslices = NSLICES;
	add_known_stacks(p, wall);
	return p;
}

/* p encoded and read back: the codec's checks pass on it. */
static void
assert_sound(const struct profil_profile *p)
{
	assert_reads_back(p, "the window");
}

/* The stack of p whose leaf is frame leaf of thread tid, or NULL. */
static const struct profil_stack *
stack_at(const struct profil_profile *p, uint32_t tid, uint32_t leaf)
{
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].tid == tid && p->stacks[i].frames[0] == leaf)
			return &p->stacks[i];
	return NULL;
}

/* The count of bucket addr of object o (0 if it has none there). */
static uint64_t
bucket_count(const struct profil_object *o, uint64_t addr)
{
	for (size_t i = 0; i < o->nbuckets; i++)
		if (o->buckets[i].addr == addr)
			return o->buckets[i].count;
	return 0;
}

/*
 * Slices 3 and 4 (30-50 ms): a() 20, c() 10, the kernel 3; b() and the
 * unknown sample not in it, their stacks gone.  The histograms, threads,
 * header and weights follow; the timeline is those two slices, from 0.
 */
static void
test_window_of_two_slices(void **state)
{
	struct profil_profile *p = known_profile(0);
	struct profil_profile *w = profile_window(p, 3, 5);
	static const struct profil_timeline_entry want[] = {
		{ 0, 0, 10 }, { 0, 1, 10 }, { 1, 0, 5 }, { 1, 1, 5 },
		{ 2, 1, 3 },
	};

	(void)state;
	assert_non_null(w);
	assert_sound(w);
	assert_int_equal(w->nstacks, 3);
	assert_int_equal(stack_at(w, 1, F_A)->count, 20);
	assert_int_equal(stack_at(w, 2, F_C)->count, 10);
	assert_int_equal(stack_at(w, 2, frame_at(0, PROFIL_FRAME_KERNEL))->count,
	    3);
	assert_null(stack_at(w, 1, F_B));
	assert_int_equal(w->samples, 33);
	assert_int_equal(w->kernel, 3);
	assert_int_equal(w->unknown, 0);
	/* buckets of 4 bytes from lowpc 0x1002: 0x1013 in 0x1012, 0x1301 in 0x12fe */
	assert_int_equal(w->objects[0].samples, 30);
	assert_int_equal(w->objects[0].nbuckets, 2);
	assert_int_equal(bucket_count(&w->objects[0], 0x1012), 20);
	assert_int_equal(bucket_count(&w->objects[0], 0x12fe), 10);
	assert_int_equal(w->kernel_code->code.samples, 3);
	assert_int_equal(bucket_count(&w->kernel_code->code, KADDR), 3);
	assert_int_equal(w->nthreads, 2);
	assert_int_equal(w->threads[0].samples, 20);
	assert_int_equal(w->threads[1].samples, 13);
	assert_string_equal(w->threads[1].name, "worker");
	assert_int_equal(w->nprocesses, 1);
	assert_int_equal(w->processes[0].samples, 33);
	/* the header: when, how long, what CPU time the samples stand for */
	assert_true(w->start_ns == START_NS + 30 * (int64_t)MS);
	assert_int_equal(w->duration_ns, 20 * MS);
	assert_int_equal(w->cpu_ns, 33 * MS);
	/* 33 of 116 samples: 58 * 33 / 116 = 16.5, 232 * 33 / 116 = 66 */
	assert_int_equal(w->taken, 17);
	assert_int_equal(w->weight_sq, 66);
	assert_int_equal(w->lost, 3);	/* 10 * 33 / 116 = 2.8 */
	assert_int_equal(w->slice_ns, SLICE_NS);
	assert_int_equal(w->nslices, 2);
	assert_int_equal(w->ntimeline, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < w->ntimeline; i++) {
		assert_int_equal(w->timeline[i].stack, want[i].stack);
		assert_int_equal(w->timeline[i].slice, want[i].slice);
		assert_int_equal(w->timeline[i].value, want[i].value);
	}
	/* p as it was */
	assert_int_equal(p->samples, WHOLE_SAMPLES);
	assert_int_equal(p->nstacks, 5);
	assert_int_equal(p->ntimeline, 17);
	profil_profile_free(w);
	profil_profile_free(p);
}

/*
 * The last two slices: the run ends half way through the last, so the
 * window is 15 ms long; slice 0 alone: thread 2 had nothing, and is not
 * listed; the one unknown sample is.
 */
static void
test_window_ends_and_threads_left_out(void **state)
{
	struct profil_profile *p = known_profile(0);
	struct profil_profile *w = profile_window(p, 8, 10);

	(void)state;
	assert_sound(w);
	assert_int_equal(w->samples, 18);	/* b 16, the kernel 2 */
	assert_int_equal(w->duration_ns, 15 * MS);
	assert_true(w->start_ns == START_NS + 80 * (int64_t)MS);
	assert_int_equal(bucket_count(&w->objects[0], 0x1202), 16);
	profil_profile_free(w);

	w = profile_window(p, 0, 1);
	assert_sound(w);
	assert_int_equal(w->samples, 11);
	assert_int_equal(w->unknown, 1);
	assert_int_equal(w->kernel, 0);
	assert_int_equal(w->kernel_code->code.nbuckets, 0);
	assert_int_equal(w->nthreads, 1);
	assert_int_equal(w->threads[0].tid, 1);
	assert_int_equal(w->threads[0].samples, 11);
	profil_profile_free(w);

	/* the whole timeline: the profile again, but for its cpu_ns */
	w = profile_window(p, 0, NSLICES);
	assert_sound(w);
	assert_int_equal(w->samples, WHOLE_SAMPLES);
	assert_int_equal(w->taken, TAKEN);
	assert_int_equal(w->weight_sq, WEIGHT_SQ);
	assert_int_equal(w->duration_ns, RUN_NS);
	assert_int_equal(w->ntimeline, p->ntimeline);
	profil_profile_free(w);
	profil_profile_free(p);
}

/*
 * A wall profile: read()'s 30 ms in slices 0-2, 15 ms of it sampled on
 * 6 looks; slices 1-2 keep 20 ms, 10 ms sampled on 4 looks.  Slice 0:
 * thread 2 only waited, and is listed, with no samples.
 */
static void
test_window_of_a_wall_profile(void **state)
{
	struct profil_profile *p = known_profile(1);
	struct profil_profile *w = profile_window(p, 1, 3);
	const struct profil_stack *off;
	uint32_t read_leaf = frame_at(1, PROFIL_FRAME_OFFCPU);

	(void)state;
	assert_sound(p);
	assert_sound(w);
	off = stack_at(w, 2, read_leaf);
	assert_non_null(off);
	assert_int_equal(off->count, 0);
	assert_int_equal(off->off_ns, 20 * MS);
	assert_int_equal(off->sampled_ns, 10 * MS);
	assert_int_equal(off->observations, 4);
	assert_int_equal(w->samples, 20);	/* a()'s */
	assert_non_null(w->wall);
	profil_profile_free(w);

	w = profile_window(p, 0, 1);
	assert_sound(w);
	assert_int_equal(w->nthreads, 2);
	assert_int_equal(w->threads[1].tid, 2);
	assert_int_equal(w->threads[1].samples, 0);
	assert_int_equal(stack_at(w, 2, read_leaf)->off_ns, 10 * MS);
	profil_profile_free(w);
	profil_profile_free(p);
}

/* Slices that are no window of p, and a profile without a timeline. */
static void
test_window_refuses_bad_slices(void **state)
{
	struct profil_profile *p = known_profile(0);

	(void)state;
	errno = 0;
	assert_null(profile_window(p, 3, 3));
	assert_int_equal(errno, EINVAL);
	assert_null(profile_window(p, 4, 3));
	assert_null(profile_window(p, 0, NSLICES + 1));
	p->slice_ns = 0;
	assert_null(profile_window(p, 0, 1));
	profil_profile_free(p);
}

/* The slices text covers in the known profile (failing if refused). */
static void
slices_of(const char *text, uint64_t first, uint64_t end)
{
	struct profil_profile *p = known_profile(0);
	struct window_spec w;
	char cause[256] = "";
	uint64_t f = 99, e = 99;

	if (window_parse(text, &w, cause, sizeof cause) < 0)
		fail_msg("'%s' refused: %s", text, cause);
	if (window_slices(p, &w, &f, &e, cause, sizeof cause) < 0)
		fail_msg("'%s': %s", text, cause);
	if (f != first || e != end)
		fail_msg("'%s': slices %llu..%llu, want %llu..%llu", text,
		    (unsigned long long)f, (unsigned long long)e,
		    (unsigned long long)first, (unsigned long long)end);
	profil_profile_free(p);
}

/*
 * Every unit, a bare number, percentages of the 95 ms run, empty sides;
 * a window is rounded out to the slices it touches, and a bound on a
 * slice's edge takes no slice more.
 */
static void
test_window_text_to_slices(void **state)
{
	(void)state;
	slices_of("15ms..25ms", 1, 3);
	slices_of("10ms..20ms", 1, 2);
	slices_of("0.015..0.025", 1, 3);
	slices_of("0.015s..0.025s", 1, 3);
	slices_of("15000us..25000000ns", 1, 3);
	slices_of("15000\xc2\xb5s..25ms", 1, 3);
	slices_of("19.999999ms..20.000001ms", 1, 3);
	slices_of("90%..", 8, 10);		/* 85.5 ms */
	slices_of("..50%", 0, 5);		/* 47.5 ms */
	slices_of("..52.7%", 0, 6);		/* 50.065 ms */
	slices_of("42.10526315%..", 3, 10);	/* 39.99999 ms */
	slices_of("..", 0, 10);
	slices_of("94ms..", 9, 10);
	slices_of("80ms..1000s", 8, 10);	/* past the run: to its end */
}

/*
 * A merged profile (profil merge) has the runs' summed duration and
 * their timelines side by side, as long as the longest: its percentages
 * are of the timeline, not of the sum.  With three runs of 95 ms the
 * sum, 285 ms, put "50%.." past the timeline's end (refused) and
 * "..30%" at 85.5 ms, most of each run.
 */
static void
test_window_of_merged_runs(void **state)
{
	struct profil_profile *p = known_profile(0);
	struct window_spec w;
	char cause[256] = "";
	uint64_t f = 99, e = 99;
	static const struct { const char *text; uint64_t first, end; } want[] = {
		{ "50%..", 5, 10 }, { "..30%", 0, 3 }, { "..", 0, 10 } };

	(void)state;
	p->duration_ns = 3 * p->duration_ns;
	assert_int_equal(window_run_ns(p), p->slice_ns * p->nslices);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		if (window_parse(want[i].text, &w, cause, sizeof cause) < 0 ||
		    window_slices(p, &w, &f, &e, cause, sizeof cause) < 0)
			fail_msg("'%s': %s", want[i].text, cause);
		if (f != want[i].first || e != want[i].end)
			fail_msg("'%s' of merged runs: slices %llu..%llu, want "
			    "%llu..%llu", want[i].text, (unsigned long long)f,
			    (unsigned long long)e,
			    (unsigned long long)want[i].first,
			    (unsigned long long)want[i].end);
	}
	profil_profile_free(p);
}

/* text refused by window_parse, its cause holding want. */
static void
refused(const char *text, const char *want)
{
	struct window_spec w;
	char cause[256] = "";

	if (window_parse(text, &w, cause, sizeof cause) == 0)
		fail_msg("'%s' taken", text);
	if (strstr(cause, want) == NULL || strchr(cause, '\n') != NULL)
		fail_msg("'%s': the cause '%s' does not say '%s'", text, cause,
		    want);
}

/* What window_slices says of text in p: its return, its cause in cause. */
static int
slices_refused(struct profil_profile *p, const char *text, char *cause,
    size_t size)
{
	struct window_spec w;
	uint64_t f, e;

	if (window_parse(text, &w, cause, size) < 0)
		fail_msg("'%s' refused: %s", text, cause);
	return window_slices(p, &w, &f, &e, cause, size);
}

static void
test_window_text_refused(void **state)
{
	struct profil_profile *p = known_profile(0);
	char cause[256];

	(void)state;
	refused("1.5s", "not START..END");
	refused("", "not START..END");
	refused("abc..", "'abc' is not a time");
	refused("1x..2", "'1x' is not a time");
	refused("-1s..", "'-1s' is not a time");
	refused("1..2..3", "'2..3' is not a time");
	refused("1...2", "'.2' is not a time");
	refused(".5..", "'.5' is not a time");
	refused("1...", "'.' is not a time");
	refused("1 s..", "is not a time");
	refused("101%..", "more than the whole run");
	refused("99999999999s..", "too large");
	refused("99999999999999999999999..", "too large");
	refused("3s..1s", "END is before START");
	refused("50%..50%", "an empty window");
	refused("20ms..20ms", "an empty window");
	/* against the profile: past the run's 95 ms, END before START */
	assert_int_equal(slices_refused(p, "95ms..", cause, sizeof cause),
	    WINDOW_BAD_PROFILE);
	assert_non_null(strstr(cause, "past the run's end (0.095 s)"));
	assert_int_equal(slices_refused(p, "100%..", cause, sizeof cause),
	    WINDOW_BAD_PROFILE);
	assert_int_equal(slices_refused(p, "1s..2s", cause, sizeof cause),
	    WINDOW_BAD_PROFILE);
	assert_int_equal(slices_refused(p, "50ms..20%", cause, sizeof cause),
	    WINDOW_BAD_OPTION);
	assert_non_null(strstr(cause, "END (0.019 s) is before START (0.050 s)"));
	assert_int_equal(slices_refused(p, "..0", cause, sizeof cause),
	    WINDOW_BAD_OPTION);
	/* a timeline shorter than the run: a window past its end */
	p->nslices = 5;
	assert_int_equal(slices_refused(p, "60ms..", cause, sizeof cause),
	    WINDOW_BAD_PROFILE);
	assert_non_null(strstr(cause, "past the timeline's end (0.050 s)"));
	p->nslices = NSLICES;
	p->slice_ns = 0;
	assert_int_equal(slices_refused(p, "1s..", cause, sizeof cause),
	    WINDOW_BAD_PROFILE);
	assert_non_null(strstr(cause, "no timeline"));
	profil_profile_free(p);
}

/* window_replace: the profile replaced, the window said in words. */
static void
test_window_replace_and_words(void **state)
{
	struct profil_profile *p = known_profile(0);
	struct window_spec w;
	char label[128], cause[256];

	(void)state;
	assert_int_equal(window_parse("15ms..25ms", &w, cause, sizeof cause), 0);
	assert_int_equal(window_replace(&p, &w, label, sizeof label, cause,
	    sizeof cause), 0);
	assert_string_equal(label, "window 0.01\xe2\x80\x93" "0.03 s of 0.10 s");
	assert_int_equal(p->samples, 20);	/* a() 2 x 10 */
	/* refused: p as it was */
	assert_int_equal(window_parse("1s..", &w, cause, sizeof cause), 0);
	assert_int_equal(window_replace(&p, &w, label, sizeof label, cause,
	    sizeof cause), WINDOW_BAD_PROFILE);
	assert_int_equal(p->samples, 20);
	/* slices of 4 ms: a decimal more */
	p->slice_ns = 4 * MS;
	p->nslices = 25;
	p->duration_ns = 97 * MS;
	assert_string_equal(window_describe(p, 1, 25, label, sizeof label),
	    "window 0.004\xe2\x80\x93" "0.097 s of 0.097 s");
	profil_profile_free(p);
}

/*
 * A copy owns its timeline (it once shared the original's, which the
 * two then freed twice); stacks dropped from it take their entries.
 */
static void
test_copy_and_drop_keep_the_timeline(void **state)
{
	struct profil_profile *p = known_profile(1);
	struct profil_profile *q = profile_copy(p);
	uint8_t drop[OFF_STACK + 1] = { 1, 0, 1, 0, 0, 1 };

	(void)state;
	assert_int_equal(q->ntimeline, p->ntimeline);
	assert_ptr_not_equal(q->timeline, p->timeline);
	assert_memory_equal(q->timeline, p->timeline,
	    p->ntimeline * sizeof *p->timeline);
	profile_drop_stacks(q, drop);
	assert_int_equal(q->nstacks, 3);	/* b, the kernel, unknown */
	assert_int_equal(q->ntimeline, 5 + 2 + 1);
	for (size_t i = 0; i < q->ntimeline; i++) {
		const struct profil_timeline_entry *e = &q->timeline[i];
		size_t was = e->stack == 0 ? 1 : e->stack == 1 ? 3 : 4;

		assert_int_equal(e->value, known[was].per_slice[e->slice]);
	}
	profil_profile_free(q);
	profil_profile_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_of_two_slices),
		cmocka_unit_test(test_window_ends_and_threads_left_out),
		cmocka_unit_test(test_window_of_a_wall_profile),
		cmocka_unit_test(test_window_refuses_bad_slices),
		cmocka_unit_test(test_window_text_to_slices),
		cmocka_unit_test(test_window_of_merged_runs),
		cmocka_unit_test(test_window_text_refused),
		cmocka_unit_test(test_window_replace_and_words),
		cmocka_unit_test(test_copy_and_drop_keep_the_timeline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
