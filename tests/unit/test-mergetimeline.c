/*
 * test-mergetimeline.c - merge_profiles() keeping timelines
 * (cli/profile/merge-timeline.c), on profiles made here with every entry
 * known: runs side by side, each from its own start; slices re-sliced to
 * the coarsest width; stacks summed with their entries; a wall profile's
 * ns as its samples; and the timeline dropped, said in one line, when an
 * input with stacks has none or a width does not divide the coarsest.
 * Every merged profile must encode and read back (the reader checks
 * that each stack's entries add up to it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "profiles.h"

/* Tests link with libprofil only: merge is the command's, compiled in. */
#include "../../cli/profile/merge.c"
#include "../../cli/profile/merge-objects.c"
#include "../../cli/profile/merge-kernel.c"
#include "../../cli/profile/merge-stacks.c"
#include "../../cli/profile/merge-timeline.c"
#include "../../cli/profile/merge-jit.c"
#include "../../cli/profile/merge-lines.c"
#include "../../cli/util.c"

#define W	(1ull << 20)		/* a slice: 1.05 ms, as the recorder's */

static const struct profil_bucket none[] = { { 0, 0 } };
static const struct profil_frame main_f = { 0, 0x50 };
static const struct profil_frame in_f[] = { { 0, 0x10 }, main_f };
static const struct profil_frame in_g[] = { { 0, 0x20 }, main_f };

/* What merge said to warn, its lines one after the other. */
static char said[4096];
static int nsaid;

static void
keep_line(const char *line)
{
	size_t at = strlen(said);

	if (strchr(line, '\n') != NULL)
		fail_msg("a warning of more than one line: %s", line);
	snprintf(said + at, sizeof said - at, "%s|", line);
	nsaid++;
}

/* A profile of /bin/app with no stacks yet. */
static struct profil_profile *
app(void)
{
	struct profil_profile *p = new_profile(1);

	add_object(p, "/bin/app", 1, 0, 0x100, 1, none, 0);
	return p;
}

/* p's timeline: slices of slice_ns, entries (stack, slice, value) sorted. */
static void
timed(struct profil_profile *p, uint64_t slice_ns, uint64_t nslices,
    const struct profil_timeline_entry *entries, size_t n)
{
	p->slice_ns = slice_ns;
	p->nslices = nslices;
	p->timeline = xcalloc(n, sizeof *p->timeline);
	memcpy(p->timeline, entries, n * sizeof *entries);
	p->ntimeline = n;
}

/*
 * in[0..n-1] merged, which must succeed, what it said in said; the
 * result must encode and read back.
 */
static struct profil_profile *
merged_n(struct profil_profile **in, size_t n)
{
	static const char *names[] = { "a.prf", "b.prf", "c.prf" };
	struct profil_profile *m;
	char cause[512] = "";

	said[0] = '\0';
	nsaid = 0;
	if (merge_profiles(in, names, n, &m, keep_line, cause,
	    sizeof cause) < 0)
		fail_msg("merge refused: %s", cause);
	assert_reads_back(m, "the merged profile");
	return m;
}

static struct profil_profile *
merged(struct profil_profile *a, struct profil_profile *b)
{
	struct profil_profile *in[2] = { a, b };

	return merged_n(in, 2);
}

/* The value of m's stack st in slice, 0 if it has no entry there. */
static uint64_t
at_slice(const struct profil_profile *m, const struct profil_stack *st,
    uint32_t slice)
{
	assert_non_null(st);
	for (size_t i = 0; i < m->ntimeline; i++)
		if (m->timeline[i].stack == (uint32_t)(st - m->stacks) &&
		    m->timeline[i].slice == slice)
			return m->timeline[i].value;
	return 0;
}

/* How many entries m's stack st has. */
static size_t
entries_of(const struct profil_profile *m, const struct profil_stack *st)
{
	size_t n = 0;

	assert_non_null(st);
	for (size_t i = 0; i < m->ntimeline; i++)
		n += m->timeline[i].stack == (uint32_t)(st - m->stacks);
	return n;
}

static void
free_all(struct profil_profile *a, struct profil_profile *b,
    struct profil_profile *m)
{
	profil_profile_free(a);
	profil_profile_free(b);
	profil_profile_free(m);
}

/*
 * Two runs of one width, side by side: a (pid 10, 10 slices) has 6
 * samples in f (2 at its start, 4 in its last slice) and 4 in g (slice
 * 3); b (pid 20, 6 slices) 5 in f (1 at its start, 4 in its slice 5).
 * Each keeps its own slices: slice 0 holds both runs' starts.
 */
static void
test_side_by_side(void **state)
{
	static const struct profil_timeline_entry ta[] = {
	    { 0, 0, 2 }, { 0, 9, 4 }, { 1, 3, 4 } };
	static const struct profil_timeline_entry tb[] = {
	    { 0, 0, 1 }, { 0, 5, 4 } };
	struct profil_profile *a = app(), *b = app(), *m;
	const struct profil_stack *af, *ag, *bf;

	(void)state;
	add_stack(a, 10, 10, 6, 2, in_f);
	add_stack(a, 10, 10, 4, 2, in_g);
	timed(a, W, 10, ta, 3);
	add_stack(b, 20, 20, 5, 2, in_f);
	timed(b, W, 6, tb, 2);
	m = merged(a, b);
	assert_int_equal(nsaid, 0);
	assert_int_equal(m->slice_ns, W);
	assert_int_equal(m->nslices, 10);
	assert_int_equal(m->ntimeline, 5);
	af = stack_of(m, 10, 10, 2, in_f);
	ag = stack_of(m, 10, 10, 2, in_g);
	bf = stack_of(m, 20, 20, 2, in_f);
	assert_int_equal(at_slice(m, af, 0), 2);
	assert_int_equal(at_slice(m, af, 9), 4);
	assert_int_equal(at_slice(m, ag, 3), 4);
	assert_int_equal(at_slice(m, bf, 0), 1);
	assert_int_equal(at_slice(m, bf, 5), 4);
	free_all(a, b, m);
}

/*
 * Widths W and 4W: a's slices (W, 10 of them) four to one of b's (4W,
 * 2 of them), so the result has 3 (a's 10 need ceil(10 / 4)), the most
 * of either.  a's and b's f stacks are one stack (same pid, tid,
 * frames): its entries are summed where they meet.
 *   a f: slice 0: 2, 9: 4       ->  0: 2, 2: 4
 *   b f: slice 0: 1, 1: 4       ->  0: 1, 1: 4
 *   f:                              0: 3, 1: 4, 2: 4
 *   a g: slice 3: 1, 4: 3       ->  0: 1, 1: 3
 */
static void
test_resliced_to_the_coarsest(void **state)
{
	static const struct profil_timeline_entry ta[] = {
	    { 0, 0, 2 }, { 0, 9, 4 }, { 1, 3, 1 }, { 1, 4, 3 } };
	static const struct profil_timeline_entry tb[] = {
	    { 0, 0, 1 }, { 0, 1, 4 } };
	struct profil_profile *a = app(), *b = app(), *m;
	const struct profil_stack *f, *g;

	(void)state;
	add_stack(a, 10, 10, 6, 2, in_f);
	add_stack(a, 10, 10, 4, 2, in_g);
	timed(a, W, 10, ta, 4);
	add_stack(b, 10, 10, 5, 2, in_f);
	timed(b, 4 * W, 2, tb, 2);
	/* either way round */
	for (int swap = 0; swap < 2; swap++) {
		m = swap ? merged(b, a) : merged(a, b);
		assert_int_equal(nsaid, 0);
		assert_int_equal(m->slice_ns, 4 * W);
		assert_int_equal(m->nslices, 3);
		assert_int_equal(m->nstacks, 2);
		f = stack_of(m, 10, 10, 2, in_f);
		g = stack_of(m, 10, 10, 2, in_g);
		assert_int_equal(f->count, 11);
		assert_int_equal(entries_of(m, f), 3);
		assert_int_equal(at_slice(m, f, 0), 3);
		assert_int_equal(at_slice(m, f, 1), 4);
		assert_int_equal(at_slice(m, f, 2), 4);
		assert_int_equal(entries_of(m, g), 2);
		assert_int_equal(at_slice(m, g, 0), 1);
		assert_int_equal(at_slice(m, g, 1), 3);
		profil_profile_free(m);
	}
	profil_profile_free(a);
	profil_profile_free(b);
}

/*
 * Three inputs of widths W, 2W and 4W (2^20, 2^21, 2^22 ns: the
 * recorder's doublings), 12, 5 and 1 slices: 4W, max(3, 3, 1) slices.
 */
static void
test_three_widths(void **state)
{
	static const struct profil_timeline_entry ta[] = { { 0, 11, 1 } };
	static const struct profil_timeline_entry tb[] = { { 0, 4, 2 } };
	static const struct profil_timeline_entry tc[] = { { 0, 0, 3 } };
	struct profil_profile *in[3] = { app(), app(), app() }, *m;
	const struct profil_stack *f;

	(void)state;
	for (int i = 0; i < 3; i++)
		add_stack(in[i], 10, 10, (uint64_t)i + 1, 2, in_f);
	timed(in[0], W, 12, ta, 1);
	timed(in[1], 2 * W, 5, tb, 1);
	timed(in[2], 4 * W, 1, tc, 1);
	m = merged_n(in, 3);
	assert_int_equal(m->slice_ns, 4 * W);
	assert_int_equal(m->nslices, 3);
	f = stack_of(m, 10, 10, 2, in_f);
	assert_int_equal(at_slice(m, f, 0), 3);
	assert_int_equal(at_slice(m, f, 2), 1 + 2);	/* a's 11, b's 4 */
	assert_int_equal(entries_of(m, f), 2);
	profil_profile_free(m);
	for (int i = 0; i < 3; i++)
		profil_profile_free(in[i]);
}

/*
 * Wall profiles: ns off the CPU moved and summed as samples are.  a (W)
 * reads 1 ms in slice 0 and 3 ms in slice 3; b (2W) reads 2 ms in its
 * slice 1 and sleeps 5 ms in slice 0; CPU samples beside them.
 */
static void
test_wall_ns(void **state)
{
	const struct profil_frame rd[] = { { PROFIL_FRAME_OFFCPU, 0 }, main_f };
	const struct profil_frame sl[] = { { PROFIL_FRAME_OFFCPU, 230 },
	    main_f };
	static const struct profil_timeline_entry ta[] = {
	    { 0, 2, 3 }, { 1, 0, 1000000 }, { 1, 3, 3000000 } };
	static const struct profil_timeline_entry tb[] = {
	    { 0, 1, 2000000 }, { 1, 0, 5000000 } };
	struct profil_profile *a = app(), *b = app(), *m;
	const struct profil_stack *st;

	(void)state;
	add_stack(a, 10, 10, 3, 2, in_f);
	add_stack(a, 10, 10, 4000000, 2, rd);
	make_wall(a, 5000000, 10, 4, 0);
	timed(a, W, 4, ta, 3);
	add_stack(b, 10, 10, 2000000, 2, rd);
	add_stack(b, 10, 11, 5000000, 2, sl);
	make_wall(b, 5000000, 10, 4, 0);
	timed(b, 2 * W, 2, tb, 2);
	m = merged(a, b);
	assert_int_equal(m->slice_ns, 2 * W);
	assert_int_equal(m->nslices, 2);
	st = stack_of(m, 10, 10, 2, rd);
	assert_int_equal(st->off_ns, 6000000);
	assert_int_equal(at_slice(m, st, 0), 1000000);
	assert_int_equal(at_slice(m, st, 1), 3000000 + 2000000);
	assert_int_equal(at_slice(m, stack_of(m, 10, 11, 2, sl), 0), 5000000);
	assert_int_equal(at_slice(m, stack_of(m, 10, 10, 2, in_f), 1), 3);
	free_all(a, b, m);
}

/*
 * No timeline kept, one line saying why, whichever side: an input with
 * stacks and no timeline (its samples have no time), widths of which one
 * does not divide the other (W and 1.5 W).  Nothing said when neither
 * has one.
 */
static void
test_dropped_and_said(void **state)
{
	static const struct profil_timeline_entry t1[] = { { 0, 0, 1 } };
	struct profil_profile *a = app(), *b = app(), *m;

	(void)state;
	add_stack(a, 10, 10, 1, 2, in_f);
	add_stack(b, 20, 20, 1, 2, in_f);
	m = merged(a, b);
	assert_int_equal(nsaid, 0);
	assert_true(m->slice_ns == 0 && m->timeline == NULL);
	profil_profile_free(m);

	timed(a, W, 1, t1, 1);
	m = merged(a, b);
	assert_int_equal(nsaid, 1);
	if (strstr(said, "b.prf has no timeline") == NULL ||
	    strstr(said, "keeps none") == NULL)
		fail_msg("said: %s", said);
	assert_true(m->slice_ns == 0 && m->nslices == 0);
	assert_true(m->ntimeline == 0 && m->timeline == NULL);
	assert_int_equal(m->nstacks, 2);	/* the stacks stay */
	profil_profile_free(m);
	m = merged(b, a);
	assert_int_equal(nsaid, 1);
	if (strstr(said, "a.prf has no timeline") == NULL)
		fail_msg("said: %s", said);
	assert_true(m->slice_ns == 0 && m->timeline == NULL);
	profil_profile_free(m);

	timed(b, W + W / 2, 1, t1, 1);
	m = merged(a, b);
	assert_int_equal(nsaid, 1);
	if (strstr(said, "a.prf's timeline has slices of 1048576 ns, b.prf's "
	    "of 1572864 ns") == NULL || strstr(said, "keeps no timeline") == NULL)
		fail_msg("said: %s", said);
	assert_true(m->slice_ns == 0 && m->timeline == NULL);
	free_all(a, b, m);
}

/*
 * A run of no samples has no stacks and so no timeline: nothing is lost
 * by it, and the others' timeline stays.  When the stacks go (more
 * frames than a reader takes), the timeline goes with them, and only
 * the stacks' line is said.
 */
static void
test_empty_run_and_dropped_stacks(void **state)
{
	static const struct profil_timeline_entry t[] = { { 0, 1, 1 } };
	struct profil_profile *a = app(), *b = app(), *m;

	(void)state;
	add_stack(a, 10, 10, 1, 2, in_f);
	timed(a, W, 2, t, 1);
	m = merged(a, b);
	assert_int_equal(nsaid, 0);
	assert_int_equal(m->ntimeline, 1);
	assert_int_equal(m->nslices, 2);
	profil_profile_free(m);

	add_stack(b, 10, 10, 1, 2, in_g);
	timed(b, W, 2, t, 1);
	merge_max_stack_frames = 2;
	m = merged(a, b);
	merge_max_stack_frames = (size_t)1 << 24;
	assert_int_equal(m->nstacks, 0);
	assert_true(m->slice_ns == 0 && m->timeline == NULL);
	assert_int_equal(nsaid, 1);
	if (strstr(said, "call stacks") == NULL)
		fail_msg("said: %s", said);
	free_all(a, b, m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_side_by_side),
		cmocka_unit_test(test_resliced_to_the_coarsest),
		cmocka_unit_test(test_three_widths),
		cmocka_unit_test(test_wall_ns),
		cmocka_unit_test(test_dropped_and_said),
		cmocka_unit_test(test_empty_run_and_dropped_stacks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
