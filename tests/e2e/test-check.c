/*
 * test-check.c - `profil check` end to end: on profiles with call stacks
 * made here (cuts of each kind and of a reason this profil does not
 * know), it says how many stacks, and how many samples' stacks were cut
 * short, a line per reason, most first; nothing more for a profile
 * without stacks, nothing at all with -q; and a recording's stacks, and
 * their share cut the one figure record and report give too; a
 * timeline's line, and the thread a damaged one does not add up in.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

/*
 * One object with a bucket at 0x10 (all the samples), frames (sorted as
 * the format wants): app 0x10 (the leaf), app 0x50 (main), and cuts of
 * reasons 1, 3 and 99; stacks of counts[0..3] samples: main alone, then
 * cut too deep, cut in code without unwind information, cut for 99.
 */
static void
save_profile(const char *path, const uint64_t counts[4], int with_stacks)
{
	struct profil_bucket bucket = { 0x10, 0 };
	struct profil_object app = { .path = "/bin/app", .lowpc = 0,
	    .highpc = 0x100, .bucket_bytes = 1, .nbuckets = 1,
	    .buckets = &bucket };
	struct profil_frame frames[] = { { 0, 0x10 }, { 0, 0x50 },
	    { PROFIL_FRAME_CUT, PROFIL_CUT_DEPTH },
	    { PROFIL_FRAME_CUT, PROFIL_CUT_NO_UNWIND },
	    { PROFIL_FRAME_CUT, 99 } };
	uint32_t whole[] = { 0, 1 }, deep[] = { 0, 1, 2 }, bare[] = { 0, 3 },
	    odd[] = { 0, 4 };
	struct profil_stack stacks[] = {
	    { .pid = 1, .tid = 1, .count = counts[0], .depth = 2, .frames = whole },
	    { .pid = 1, .tid = 1, .count = counts[1], .depth = 3, .frames = deep },
	    { .pid = 1, .tid = 1, .count = counts[2], .depth = 2, .frames = bare },
	    { .pid = 1, .tid = 1, .count = counts[3], .depth = 2, .frames = odd } };
	char *argv[] = { "app", NULL };
	struct profil_profile p = { .interval_ns = 1000000, .bucket_bytes = 1,
	    .engine = "perf", .argc = 1, .argv = argv, .nobjects = 1,
	    .objects = &app, .nframes = 5, .frames = frames };
	char cause[256];
	size_t n = 0;

	for (int i = 0; i < 4; i++)
		if (counts[i] > 0)
			stacks[n++] = stacks[i];
	for (size_t i = 0; i < n; i++)
		app.samples += stacks[i].count;
	bucket.count = p.samples = app.samples;
	if (with_stacks) {
		p.stacks = stacks;
		p.nstacks = n;
	}
	if (profil_profile_save(&p, path, cause, sizeof cause) < 0)
		fail_msg("save %s: %s", path, cause);
}

static void
check(struct run *r, const char *path, int quiet)
{
	char *argv[] = { profil_bin, "check", (char *)path, quiet ? "-q" : NULL,
	    NULL };

	run(r, argv);
	if (r->status != 0)
		fail_msg("check %s: exit %d, %s", path, r->status, r->err);
	assert_string_equal(r->err, "");
}

static void
test_check_counts_cut_stacks(void **state)
{
	static const uint64_t counts[4] = { 10, 3, 5, 2 };
	char path[PATH_MAX], want[6 * PATH_MAX];
	struct run r;

	(void)state;
	snprintf(path, sizeof path, "%s/cut.prf", tmpdir);
	save_profile(path, counts, 1);
	check(&r, path, 0);
	snprintf(want, sizeof want,
	    "%s: ok: 20 samples in 1 objects (+0 kernel, 0 unknown, 0 lost), "
	    "0 threads, 0 processes\n"
	    "%s: 4 call stacks (5 frames, the deepest 3); cut short: 10 samples "
	    "(50.00%%)\n"
	    "%s:   5 samples (25.00%%): in code without unwind information\n"
	    "%s:   3 samples (15.00%%): deeper than the unwinder goes\n"
	    "%s:   2 samples (10.00%%): for a reason this profil does not know\n",
	    path, path, path, path, path);
	assert_string_equal(r.out, want);
	check(&r, path, 1);
	assert_string_equal(r.out, "");
}

/*
 * Every reason profil itself writes has a name: the recorder's "behind"
 * cuts were once "for a reason this profil does not know".
 */
static void
test_check_names_every_reason(void **state)
{
	(void)state;
	for (uint64_t why = PROFIL_CUT_DEPTH; why <= PROFIL_CUT_BEHIND; why++) {
		struct profil_bucket bucket = { 0x10, 4 };
		struct profil_object app = { .path = "/bin/app", .lowpc = 0,
		    .highpc = 0x100, .bucket_bytes = 1, .samples = 4,
		    .nbuckets = 1, .buckets = &bucket };
		struct profil_frame frames[] = { { 0, 0x10 },
		    { PROFIL_FRAME_CUT, why } };
		uint32_t cut[] = { 0, 1 };
		struct profil_stack stack = { .pid = 1, .tid = 1, .count = 4,
		    .depth = 2, .frames = cut };
		char *argv[] = { "app", NULL };
		struct profil_profile p = { .interval_ns = 1000000,
		    .bucket_bytes = 1, .engine = "perf", .argc = 1, .argv = argv,
		    .samples = 4, .nobjects = 1, .objects = &app, .nframes = 2,
		    .frames = frames, .nstacks = 1, .stacks = &stack };
		char path[PATH_MAX], cause[256];
		struct run r;

		snprintf(path, sizeof path, "%s/why.prf", tmpdir);
		if (profil_profile_save(&p, path, cause, sizeof cause) < 0)
			fail_msg("save %s: %s", path, cause);
		check(&r, path, 0);
		if (strstr(r.out, "4 samples (100.00%): ") == NULL ||
		    strstr(r.out, "does not know") != NULL)
			fail_msg("reason %llu: %s", (unsigned long long)why, r.out);
	}
}

static void
test_check_stacks_whole_or_none(void **state)
{
	static const uint64_t whole[4] = { 7, 0, 0, 0 };
	char path[PATH_MAX], want[2 * PATH_MAX + 256];
	struct run r;

	(void)state;
	snprintf(path, sizeof path, "%s/whole.prf", tmpdir);
	save_profile(path, whole, 1);
	check(&r, path, 0);
	snprintf(want, sizeof want, "%s: 1 call stacks (5 frames, the deepest "
	    "2); cut short: none\n", path);
	assert_non_null(strstr(r.out, want));
	/* no stacks: the one line it always had */
	save_profile(path, whole, 0);
	check(&r, path, 0);
	assert_non_null(strstr(r.out, ": ok: 7 samples"));
	assert_int_equal(strchr(r.out, '\n') - r.out + 1, (long)strlen(r.out));
}

/*
 * A recording's stacks: counted, and their cuts add up to what is said;
 * then its timeline's line, of the slices the file has.
 */
static void
test_check_recorded_stacks(void **state)
{
	char *prog[] = { workload, "split", "0.11", NULL };
	char path[PATH_MAX], cause[256];
	struct profil_profile *p;
	struct run r;
	unsigned long long stacks, frames, deepest, cut = 0, in_lines = 0, n;
	const char *line;

	(void)state;
	snprintf(path, sizeof path, "%s/rec.prf", tmpdir);
	record_ok(path, prog);
	check(&r, path, 0);
	line = strchr(r.out, '\n') + 1;
	if (sscanf(line + strlen(path), ": %llu call stacks (%llu frames, the "
	    "deepest %llu); cut short: %llu", &stacks, &frames, &deepest,
	    &cut) < 3)
		fail_msg("no stacks line: %s", r.out);
	p = profil_profile_read(path, cause, sizeof cause);
	assert_non_null(p);
	assert_int_equal(stacks, p->nstacks);
	assert_int_equal(frames, p->nframes);
	/* the cuts' lines, then the timeline's (the recorder keeps one) */
	for (line = strchr(line, '\n') + 1; sscanf(line + strlen(path),
	    ":   %llu samples (", &n) == 1; line = strchr(line, '\n') + 1)
		in_lines += n;
	assert_int_equal(in_lines, cut);
	if (sscanf(line + strlen(path), ": timeline: %llu slices", &n) != 1 ||
	    n != p->nslices || p->nslices == 0)
		fail_msg("no timeline line of %llu slices: %s",
		    (unsigned long long)p->nslices, r.out);
	profil_profile_free(p);
}

/*
 * A wall profile of /bin/app: 5 samples at 0x10 under main (0x50), time
 * in read(2) under main, in the caller's stacks (on_cpu and in_read
 * their frames).
 */
static struct profil_bucket read_bucket = { 0x10, 5 };
static struct profil_object read_app = { .path = "/bin/app", .lowpc = 0,
    .highpc = 0x100, .bucket_bytes = 1, .samples = 5, .nbuckets = 1,
    .buckets = &read_bucket };
static struct profil_frame read_frames[] = { { 0, 0x10 }, { 0, 0x50 },
    { PROFIL_FRAME_OFFCPU, 0 } };		/* read(2) */
static uint32_t on_cpu[] = { 0, 1 }, in_read[] = { 2, 1 };
static struct profil_wall read_wall = { .poll_ns = 5000000, .switches = 2,
    .reads = 1 };
static char *read_argv[] = { "app", NULL };

static struct profil_profile
read_profile(struct profil_stack *stacks, size_t nstacks)
{
	return (struct profil_profile){ .interval_ns = 1000000,
	    .bucket_bytes = 1, .engine = "perf", .argc = 1, .argv = read_argv,
	    .samples = 5, .nobjects = 1, .objects = &read_app, .nframes = 3,
	    .frames = read_frames, .nstacks = nstacks, .stacks = stacks,
	    .wall = &read_wall };
}

/*
 * A wall profile (record --wall) is checked like any other; one whose
 * off-CPU frame is not its stack's leaf is refused: a non-zero exit and
 * one line saying why.
 */
static void
test_check_refuses_bad_wall_profile(void **state)
{
	uint32_t bad[] = { 0, 2, 1 };
	struct profil_stack stacks[] = {
	    { .pid = 1, .tid = 1, .count = 5, .depth = 2, .frames = on_cpu },
	    { .pid = 1, .tid = 1, .depth = 2, .frames = in_read,
	      .off_ns = 250000000 } };
	struct profil_profile p = read_profile(stacks, 2);
	char path[PATH_MAX], cause[256], *argv_check[] = { profil_bin, "check",
	    path, NULL };
	struct run r;

	(void)state;
	snprintf(path, sizeof path, "%s/wall.prf", tmpdir);
	if (profil_profile_save(&p, path, cause, sizeof cause) < 0)
		fail_msg("save %s: %s", path, cause);
	check(&r, path, 0);
	assert_non_null(strstr(r.out, ": ok: 5 samples"));
	stacks[0].frames = bad;
	stacks[0].depth = 3;
	if (profil_profile_save(&p, path, cause, sizeof cause) < 0)
		fail_msg("save %s: %s", path, cause);
	run(&r, argv_check);
	if (r.status == 0)
		fail_msg("check took a wall profile with an off-CPU frame inside "
		    "a stack: %s", r.out);
	if (strstr(r.err, "off-CPU frame") == NULL ||
	    strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
		fail_msg("check's refusal is not one line saying why: '%s'",
		    r.err);
}

/* p saved at path, and checked: what check says of it, which holds line. */
static void
check_says(struct run *r, const char *path, const struct profil_profile *p,
    const char *line)
{
	char cause[256], *argv_check[] = { profil_bin, "check", (char *)path,
	    NULL };

	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("save %s: %s", path, cause);
	run(r, argv_check);
	if (strstr(r->status == 0 ? r->out : r->err, line) == NULL)
		fail_msg("check exit %d, no [%s] in:\n%s%s", r->status, line,
		    r->out, r->err);
}

/*
 * A profile with a timeline gets a line saying its slices, their width
 * and entries, and that they add up to the stacks thread by thread; a
 * damaged one is refused (exit 1) in one line naming the thread that
 * does not add up, and in what.  A wall profile of two threads: thread
 * 1's 5 samples and 250 ms in read, thread 2's 100 ms in read, over
 * three slices of 2^27 ns; then its CPU part alone.
 */
static void
test_check_timeline(void **state)
{
	struct profil_stack stacks[] = {
	    { .pid = 1, .tid = 1, .count = 5, .depth = 2, .frames = on_cpu },
	    { .pid = 1, .tid = 1, .depth = 2, .frames = in_read,
	      .off_ns = 250000000 },
	    { .pid = 1, .tid = 2, .depth = 2, .frames = in_read,
	      .off_ns = 100000000 } };
	struct profil_timeline_entry timeline[] = {
	    { 0, 0, 3 }, { 0, 2, 2 },
	    { 1, 0, 100000000 }, { 1, 1, 1u << 27 },
	    { 1, 2, 150000000 - (1u << 27) },
	    { 2, 1, 100000000 } };
	struct profil_profile p = read_profile(stacks, 3);
	char path[PATH_MAX], want[PATH_MAX + 256];
	struct run r;

	(void)state;
	p.slice_ns = 1u << 27;
	p.nslices = 3;
	p.ntimeline = 6;
	p.timeline = timeline;
	snprintf(path, sizeof path, "%s/timeline.prf", tmpdir);
	snprintf(want, sizeof want, "%s: timeline: 3 slices of 134.218 ms "
	    "(0.403 s), 6 entries, adding up to the stacks thread by thread "
	    "(2 threads, 5 samples, 0.350 s off the CPU)\n", path);
	check_says(&r, path, &p, want);
	assert_int_equal(r.status, 0);
	check(&r, path, 1);
	assert_string_equal(r.out, "");

	/* thread 2's read one ns short: refused, in one line */
	timeline[5].value--;
	snprintf(want, sizeof want, "profil: check: %s: the timeline does not "
	    "add up: thread 2 of process 1 has 99999999 ns off the CPU in its "
	    "slices, 100000000 in its stacks\n", path);
	check_says(&r, path, &p, want);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, want);
	assert_string_equal(r.out, "");

	/* the CPU part alone; then thread 1's samples one too many */
	p.wall = NULL;
	p.nstacks = 1;
	p.nframes = 2;
	p.ntimeline = 2;
	snprintf(want, sizeof want, "%s: timeline: 3 slices of 134.218 ms "
	    "(0.403 s), 2 entries, adding up to the stacks thread by thread "
	    "(1 thread, 5 samples)\n", path);
	check_says(&r, path, &p, want);
	assert_int_equal(r.status, 0);
	timeline[1].value++;
	snprintf(want, sizeof want, "profil: check: %s: the timeline does not "
	    "add up: thread 1 of process 1 has 6 samples in its slices, 5 in "
	    "its stacks\n", path);
	check_says(&r, path, &p, want);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.err, want);
}

/*
 * One figure for the stacks cut: record, report and check give the same
 * share, of the profile's time, for the same profile.  A wall profile
 * tells them apart: sh waiting for a program whose every stack is cut
 * past the 16 KiB copied (workload bigframe), then for sleep, whose
 * stacks are whole.  Record counted the CPU samples only (nearly all
 * cut), report the view's wall time too: "99%" and "42%" of the same
 * profile.  Both engines, as root and as nobody.
 */
static int
percent_before(const char *text, const char *after)
{
	const char *at = strstr(text, after);

	if (at == NULL)
		fail_msg("no [%s] in:\n%s", after, text);
	while (at > text && (at[-1] == '.' || (at[-1] >= '0' && at[-1] <= '9')))
		at--;
	return (int)lround(atof(at));
}

static void
test_cut_share_one_figure(void **state)
{
	static const char *const engines[] = { "perf", "timer" };
	char dir[PATH_MAX], prf[PATH_MAX + 16], cmd[PATH_MAX + 64];
	char *rep[] = { profil_bin, "report", "--limit", "1", prf, NULL };
	char *chk[] = { profil_bin, "check", prf, NULL };
	struct run r;

	(void)state;
	/* as root, and as nobody (who may pass through the scratch dir) */
	snprintf(dir, sizeof dir, "%s/cutshare", tmpdir);
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(chmod(tmpdir, 0711), 0);
	snprintf(prf, sizeof prf, "%s/cut.prf", dir);
	snprintf(cmd, sizeof cmd, "'%s' bigframe 0.3; sleep 0.1", workload);
	for (size_t e = 0; e < 2 * (sizeof engines / sizeof engines[0]); e++) {
		const char *engine = engines[e % 2];
		int as_nobody = e >= 2, n = 0, recorded, reported, checked;
		char *rec[20];

		if (as_nobody && geteuid() != 0)
			break;
		if (strcmp(engine, "perf") == 0 && (as_nobody ?
		    !harness_perf_allowed_to_users() :
		    !harness_perf_allowed()))
			continue;
		if (as_nobody)
			n += e2e_as_nobody(rec);
		memcpy(rec + n, (char *[]){ profil_bin, "record", "--wall", "-e",
		    (char *)engine, "-o", prf, "/bin/sh", "-c", cmd, NULL },
		    11 * sizeof *rec);
		unlink(prf);
		run(&r, rec);
		if (r.status != 0)
			fail_msg("record -e %s%s: exit %d: %s", engine, as_nobody ?
			    " as nobody" : "", r.status, r.err);
		recorded = percent_before(r.err, "% of the call stacks were cut "
		    "where the");
		run(&r, rep);
		assert_int_equal(r.status, 0);
		reported = percent_before(r.out, "% of the stacks cut past the "
		    "stack copied");
		run(&r, chk);
		assert_int_equal(r.status, 0);
		checked = percent_before(r.out, "% of the threads' time): past "
		    "the stack copied");
		if (recorded != reported || checked != reported)
			fail_msg("-e %s%s: record says %d%%, report %d%%, check %d%% "
			    "of the stacks cut:\n%s", engine, as_nobody ?
			    " as nobody" : "", recorded, reported, checked, r.out);
	}
	assert_int_equal(chmod(tmpdir, 0700), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_counts_cut_stacks),
		cmocka_unit_test(test_check_names_every_reason),
		cmocka_unit_test(test_check_stacks_whole_or_none),
		cmocka_unit_test(test_check_recorded_stacks),
		cmocka_unit_test(test_check_refuses_bad_wall_profile),
		cmocka_unit_test(test_check_timeline),
		cmocka_unit_test(test_cut_share_one_figure),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
