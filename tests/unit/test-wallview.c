/*
 * test-wallview.c - cli/profile/wall-view.c and copy.c on a wall profile
 * made here: a copy is the profile again (the same bytes encoded) and
 * owns all it points to; the view keeps the frames whose callers were
 * found by frame pointer (a JIT program's under record --wall: the view
 * was once made by encoding the profile without its stacks, which the
 * codec refused, and report said "out of memory"); its counts add up
 * the profile's and its time off the CPU in intervals; a view whose
 * counts would overflow is refused with its cause, not wrapped round;
 * and a view's timeline follows the stacks it keeps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tests link with libprofil only: the command's modules are compiled in. */
#include "../../cli/profile/wall-view.c"
#include "../../cli/profile/copy.c"
#include "../../cli/hmap.c"
#include "../../cli/symbols/offcpu.c"
#include "../../cli/util.c"

#define INTERVAL_NS	1000
#define CPU_SAMPLES	3
#define OFF_NS		5500	/* 5 intervals and a half */

/*
 * One thread of one process: 3 samples in prog's 0x1010, called from
 * 0x2010 (its caller found by frame pointer), and 5.5 intervals off the
 * CPU in read(2) under the same caller.
 */
static struct profil_profile *
wall_profile(void)
{
	struct profil_profile *p = xcalloc(1, sizeof *p);

	p->interval_ns = INTERVAL_NS;
	p->bucket_bytes = 1;
	p->engine = xstrdup("perf");
	p->argc = 1;
	p->argv = xcalloc(2, sizeof *p->argv);
	p->argv[0] = xstrdup("prog");
	p->cpu_ns = CPU_SAMPLES * INTERVAL_NS;
	p->duration_ns = CPU_SAMPLES * INTERVAL_NS + OFF_NS;
	p->samples = CPU_SAMPLES;
	p->nobjects = 1;
	p->objects = xcalloc(1, sizeof *p->objects);
	p->objects[0] = (struct profil_object){ .path = xstrdup("/bin/prog"),
	    .lowpc = 0x1000, .highpc = 0x3000, .bucket_bytes = 1,
	    .samples = CPU_SAMPLES, .nbuckets = 1 };
	p->objects[0].buckets = xcalloc(1, sizeof *p->objects[0].buckets);
	p->objects[0].buckets[0] = (struct profil_bucket){ 0x1010, CPU_SAMPLES };
	p->nthreads = 1;
	p->threads = xcalloc(1, sizeof *p->threads);
	p->threads[0] = (struct profil_thread){ 7, 7, xstrdup("prog"),
	    CPU_SAMPLES };
	p->nprocesses = 1;
	p->processes = xcalloc(1, sizeof *p->processes);
	p->processes[0] = (struct profil_process){ 7, 1, xstrdup("prog"), 0,
	    CPU_SAMPLES };
	p->nframes = 3;
	p->frames = xcalloc(3, sizeof *p->frames);
	p->frames[0] = (struct profil_frame){ 0, 0x1010 };
	p->frames[1] = (struct profil_frame){ 0, 0x2010 };
	p->frames[2] = (struct profil_frame){ PROFIL_FRAME_OFFCPU, 0 };
	p->nfp_frames = 1;
	p->fp_frames = xcalloc(1, sizeof *p->fp_frames);
	p->fp_frames[0] = 1;
	p->nstacks = 2;
	p->stacks = xcalloc(2, sizeof *p->stacks);
	p->stacks[0] = (struct profil_stack){ 7, 7, CPU_SAMPLES, 2, NULL, 0, 0,
	    0 };
	p->stacks[0].frames = xcalloc(2, sizeof *p->stacks[0].frames);
	p->stacks[0].frames[0] = 0;
	p->stacks[0].frames[1] = 1;
	p->stacks[1] = (struct profil_stack){ 7, 7, 0, 2, NULL, OFF_NS, 0, 0 };
	p->stacks[1].frames = xcalloc(2, sizeof *p->stacks[1].frames);
	p->stacks[1].frames[0] = 2;
	p->stacks[1].frames[1] = 1;
	p->taken = CPU_SAMPLES;
	p->weight_sq = CPU_SAMPLES;
	p->wall = xcalloc(1, sizeof *p->wall);
	p->wall->poll_ns = 5000000;
	p->wall->switches = 2;
	/* when: the samples in slice 0, the read across slices 1 to 6 */
	p->slice_ns = 1000;
	p->nslices = 10;
	p->ntimeline = 2;
	p->timeline = xcalloc(2, sizeof *p->timeline);
	p->timeline[0] = (struct profil_timeline_entry){ 0, 0, CPU_SAMPLES };
	p->timeline[1] = (struct profil_timeline_entry){ 1, 1, OFF_NS };
	return p;
}

/* p's bytes as the codec writes them; malloc'd, *size of them. */
static void *
encoded(const struct profil_profile *p, size_t *size)
{
	void *data = NULL;

	assert_int_equal(profil_profile_encode(p, &data, size), 0);
	return data;
}

/* A copy encodes as its original does, and outlives it. */
static void
test_copy_is_the_profile(void **state)
{
	struct profil_profile *p = wall_profile(), *q = profile_copy(p);
	size_t n, m;
	void *a = encoded(p, &n), *b;

	(void)state;
	assert_ptr_not_equal(q->stacks, p->stacks);
	assert_ptr_not_equal(q->timeline, p->timeline);
	assert_ptr_not_equal(q->objects[0].path, p->objects[0].path);
	profil_profile_free(p);
	b = encoded(q, &m);
	assert_int_equal(n, m);
	assert_memory_equal(a, b, n);
	free(a);
	free(b);
	profil_profile_free(q);
}

/*
 * The view of a wall profile with frames found by frame pointer: made,
 * fp frames kept, time off the CPU in whole intervals at [off-cpu], the
 * counts the profile's and the profile left as it was.
 */
static void
test_view_keeps_fp_frames(void **state)
{
	struct profil_profile *p = wall_profile(), *v = NULL;
	char cause[256] = "";
	long o;

	(void)state;
	assert_int_equal(wall_view(p, 0, &v, cause, sizeof cause), 0);
	assert_non_null(v);
	assert_null(v->wall);
	assert_int_equal(v->nfp_frames, 1);
	assert_int_equal(v->fp_frames[0], 1);
	o = wall_view_object(v);
	assert_int_equal(o, 1);
	assert_int_equal(v->objects[o].samples, OFF_NS / INTERVAL_NS);
	assert_int_equal(v->samples, CPU_SAMPLES + OFF_NS / INTERVAL_NS);
	assert_int_equal(v->threads[0].samples, v->samples);
	assert_int_equal(v->processes[0].samples, v->samples);
	assert_int_equal(wall_view_cpu_samples(v), CPU_SAMPLES);
	assert_int_equal(v->stacks[1].count, OFF_NS / INTERVAL_NS);
	assert_int_equal(v->frames[2].object, (uint32_t)o);
	assert_string_equal(v->symbols[0].name, "[off-cpu: read]");
	/* the profile read is not the view's */
	assert_int_equal(p->samples, CPU_SAMPLES);
	assert_int_equal(p->stacks[1].count, 0);
	assert_int_equal(p->frames[2].object, PROFIL_FRAME_OFFCPU);
	assert_non_null(p->wall);
	profil_profile_free(v);
	profil_profile_free(p);
}

/*
 * The CPU part (report --cpu, export gmon): the CPU stacks alone, their
 * counts the samples', the fp frames kept.
 */
static void
test_cpu_part(void **state)
{
	struct profil_profile *p = wall_profile(), *v = NULL;
	char cause[256] = "";

	(void)state;
	assert_int_equal(wall_view(p, 1, &v, cause, sizeof cause), 0);
	assert_non_null(v);
	assert_null(v->wall);
	assert_int_equal(v->nstacks, 1);
	assert_int_equal(v->stacks[0].off_ns, 0);
	assert_int_equal(v->stacks[0].count, v->samples);
	assert_int_equal(v->samples, CPU_SAMPLES);
	assert_int_equal(v->nfp_frames, 1);
	assert_int_equal(wall_view_object(v), -1);
	profil_profile_free(v);
	profil_profile_free(p);
}

/* Counts that would wrap round are refused, with why. */
static void
test_overflow_refused(void **state)
{
	struct profil_profile *p = wall_profile(), *v = NULL;
	char cause[256] = "";

	(void)state;
	p->samples = UINT64_MAX - 2;
	assert_int_equal(wall_view(p, 0, &v, cause, sizeof cause), -1);
	assert_null(v);
	assert_non_null(strstr(cause, "overflow"));
	assert_int_equal(wall_view_replace(&p, 0, cause, sizeof cause), -1);
	assert_int_equal(p->samples, UINT64_MAX - 2);	/* as it was */
	profil_profile_free(p);
}

/* A CPU profile is its own view. */
static void
test_cpu_profile_as_it_is(void **state)
{
	struct profil_profile *p = wall_profile(), *v = p, *was;
	char cause[256] = "";

	(void)state;
	free(p->wall);
	p->wall = NULL;
	assert_int_equal(wall_view(p, 0, &v, cause, sizeof cause), 0);
	assert_null(v);
	was = p;
	assert_int_equal(wall_view_replace(&p, 1, cause, sizeof cause), 0);
	assert_ptr_equal(p, was);
	profil_profile_free(p);
}

/*
 * wall_profile with a timeline, and a wait of 400 ns before its 5.5
 * intervals, too short to come to an interval of its own: CPU samples
 * in slices 0 (2) and 2 (1), the short wait in slice 0, the long one in
 * slice 1.
 */
static struct profil_profile *
wall_profile_with_timeline(void)
{
	struct profil_profile *p = wall_profile();

	p->stacks = xrealloc(p->stacks, 3 * sizeof *p->stacks);
	p->stacks[2] = p->stacks[1];
	p->stacks[1] = (struct profil_stack){ 7, 7, 0, 2, NULL, 400, 0, 0 };
	p->stacks[1].frames = xcalloc(2, sizeof *p->stacks[1].frames);
	p->stacks[1].frames[0] = 2;
	p->stacks[1].frames[1] = 1;
	p->nstacks = 3;
	p->slice_ns = 1000;
	p->nslices = 3;
	p->ntimeline = 4;
	free(p->timeline);	/* wall_profile's, of its own stacks */
	p->timeline = xcalloc(4, sizeof *p->timeline);
	p->timeline[0] = (struct profil_timeline_entry){ 0, 0, 2 };
	p->timeline[1] = (struct profil_timeline_entry){ 0, 2, 1 };
	p->timeline[2] = (struct profil_timeline_entry){ 1, 0, 400 };
	p->timeline[3] = (struct profil_timeline_entry){ 2, 1, OFF_NS };
	return p;
}

/*
 * The views drop stacks (the short wait, which comes to no interval;
 * every wait, for the CPU part): the timeline's entries go with theirs,
 * and the others still name the stacks they did (they once kept the
 * numbers of the stacks before, past the view's last).
 */
static void
test_views_keep_the_timeline_on_its_stacks(void **state)
{
	struct profil_profile *p = wall_profile_with_timeline(), *v = NULL;
	char cause[256] = "";

	(void)state;
	assert_int_equal(wall_view(p, 0, &v, cause, sizeof cause), 0);
	assert_int_equal(v->nstacks, 2);
	assert_int_equal(v->stacks[1].off_ns, OFF_NS);
	assert_int_equal(v->ntimeline, 3);
	assert_int_equal(v->timeline[2].stack, 1);
	assert_int_equal(v->timeline[2].slice, 1);
	assert_int_equal(v->timeline[2].value, OFF_NS);
	assert_int_equal(v->timeline[1].stack, 0);
	assert_int_equal(v->timeline[1].slice, 2);
	assert_ptr_not_equal(v->timeline, p->timeline);
	profil_profile_free(v);

	assert_int_equal(wall_view(p, 1, &v, cause, sizeof cause), 0);
	assert_int_equal(v->nstacks, 1);
	assert_int_equal(v->ntimeline, 2);
	assert_int_equal(v->timeline[0].stack, 0);
	assert_int_equal(v->timeline[1].stack, 0);
	assert_int_equal(v->timeline[1].value, 1);
	profil_profile_free(v);
	assert_int_equal(p->ntimeline, 4);	/* the profile's as it was */
	profil_profile_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_is_the_profile),
		cmocka_unit_test(test_view_keeps_fp_frames),
		cmocka_unit_test(test_cpu_part),
		cmocka_unit_test(test_overflow_refused),
		cmocka_unit_test(test_cpu_profile_as_it_is),
		cmocka_unit_test(test_views_keep_the_timeline_on_its_stacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
