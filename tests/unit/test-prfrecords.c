/*
 * test-prfrecords.c - the .prf format's optional records: weights (record
 * --samples), wall time (a wall profile, while a CPU profile stays
 * version 1), source lines, frames whose callers were found by frame
 * pointer, and what the timer engine's recorder refused: each read back
 * as written, absent when there is nothing to say, and refused with a
 * one-line cause when it cannot be right.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include <profil.h>
#include "codec/prf.h"

#include "prf-checks.h"

/*
 * The weights record (record --samples): read back as written, absent
 * when a profile has none, and refused when its figures cannot be.
 */
static void
test_weights_record(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	char cause[256] = "";
	size_t size, plain;
	void *data;

	(void)state;
	sample_profile(&p, o, t, &pr);
	free(encoded(&p, &plain));
	p.taken = 4000;
	p.weight_sq = 3 * p.samples;
	p.budget = 10000;
	p.slowest_ns = 8 * p.interval_ns;
	data = encoded(&p, &size);
	assert_int_equal(size, plain + 8 + 32);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_true(q->taken == 4000 && q->weight_sq == 3 * p.samples);
	assert_true(q->budget == 10000 && q->slowest_ns == 8 * p.interval_ns);
	profil_profile_free(q);
	free(data);

	p.weight_sq = p.taken - 1;
	data = encoded(&p, &size);
	expect_refusal(data, size, "less than the samples taken");
	free(data);
	p.weight_sq = p.samples - 1;
	p.taken = 10;
	data = encoded(&p, &size);
	expect_refusal(data, size, "less than the 1000044 samples");
	free(data);
	p.weight_sq = p.samples;
	p.slowest_ns = p.interval_ns * 3 / 2;
	data = encoded(&p, &size);
	expect_refusal(data, size, "not a whole number of intervals");
	free(data);
}

/*
 * The refused record (what the timer engine's recorder refused of the
 * memory the program could write): read back as written, absent when
 * nothing was refused, so a file of before it reads as it did, and
 * refused when it says nothing or comes twice.
 */
static void
test_refused_record(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	char cause[256] = "";
	size_t size, plain, twice;
	unsigned char *data, *copy;

	(void)state;
	sample_profile(&p, o, t, &pr);
	free(encoded(&p, &plain));
	p.refused = 37;
	data = encoded(&p, &size);
	assert_int_equal(size, plain + 8 + 8);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_int_equal(q->refused, 37);
	profil_profile_free(q);

	/* the record's count made 0 (it sits just before the end record) */
	memset(data + size - 8 - 4 - 8, 0, 8);
	fix_checksum(data, size);
	expect_refusal(data, size, "none refused");
	/* and written twice */
	data[size - 8 - 4 - 8] = 1;
	twice = size + 16;
	copy = malloc(twice);
	assert_non_null(copy);
	memcpy(copy, data, size - 12);
	memcpy(copy + size - 12, data + size - 12 - 16, 16);
	memcpy(copy + size + 4, data + size - 12, 12);
	fix_checksum(copy, twice);
	expect_refusal(copy, twice, "a second refused record");
	free(copy);
	free(data);
}

/* ---- wall profiles (record --wall): version 2 ------------------------------- */

static uint32_t
file_version(const uint8_t *data)
{
	return (uint32_t)data[PRF_MAGIC_LEN] | (uint32_t)data[PRF_MAGIC_LEN + 1] << 8 |
	    (uint32_t)data[PRF_MAGIC_LEN + 2] << 16 |
	    (uint32_t)data[PRF_MAGIC_LEN + 3] << 24;
}

static void
test_wall_round_trip(void **state)
{
	struct profil_profile p, *q;
	char cause[256] = "";
	size_t size;
	uint8_t *data;

	(void)state;
	wall_profile(&p);
	data = encoded(&p, &size);
	assert_int_equal(file_version(data), 2);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_non_null(q->wall);
	assert_memory_equal(q->wall, &wall_stats, sizeof wall_stats);
	assert_int_equal(q->nframes, p.nframes);
	assert_memory_equal(q->frames, wall_frames, sizeof wall_frames);
	assert_int_equal(q->nstacks, p.nstacks);
	for (size_t i = 0; i < p.nstacks; i++) {
		const struct profil_stack *a = &p.stacks[i], *b = &q->stacks[i];

		assert_int_equal(b->pid, a->pid);
		assert_int_equal(b->tid, a->tid);
		assert_int_equal(b->count, a->count);
		assert_int_equal(b->off_ns, a->off_ns);
		assert_int_equal(b->sampled_ns, a->sampled_ns);
		assert_int_equal(b->observations, a->observations);
		assert_int_equal(b->depth, a->depth);
		assert_memory_equal(b->frames, a->frames,
		    a->depth * sizeof *a->frames);
	}
	assert_int_equal(q->nthreads, 2);
	assert_string_equal(q->threads[1].name, "waiter");
	assert_true(q->samples == 10 && q->duration_ns == p.duration_ns);
	profil_profile_free(q);
	free(data);
}

/*
 * A CPU profile is still written as version 1 (readers of version 1 read
 * it), stacks and all, and reads back with no wall data.
 */
static void
test_cpu_profile_stays_version_1(void **state)
{
	struct profil_profile p, *q;
	char cause[256] = "";
	size_t size;
	uint8_t *data;

	(void)state;
	wall_profile(&p);
	p.wall = NULL;
	p.nstacks = 1;		/* the samples' stack only */
	p.nframes = 3;
	data = encoded(&p, &size);
	assert_int_equal(file_version(data), 1);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_null(q->wall);
	assert_int_equal(q->nstacks, 1);
	assert_true(q->stacks[0].count == 10 && q->stacks[0].off_ns == 0);
	profil_profile_free(q);
	free(data);
}

/* The wall profile p encoded, then refused saying words. */
static void
expect_wall_refusal(const struct profil_profile *p, const char *words)
{
	size_t size;
	void *data = encoded(p, &size);

	expect_refusal(data, size, words);
	free(data);
}

/*
 * What a wall profile's stacks and records must be, each refused with a
 * one-line cause: off-CPU frames only at leaves, off-CPU time only there
 * and never with samples, no more of it sampled than there is, off-CPU
 * frames only with the wall record, that record only in version 2 and
 * only once.
 */
static void
test_wall_refusals(void **state)
{
	struct profil_profile p;
	uint32_t inside[] = { 0, 3, 2 }, at_app[] = { 1, 2 };
	uint8_t *data, *copy, *wallrec;
	size_t size, at, len;
	char cause[256];

	(void)state;
	wall_profile(&p);
	wall_stacks[0].frames = inside;
	wall_stacks[0].depth = 3;
	expect_wall_refusal(&p, "an off-CPU frame that is not a stack's leaf");

	wall_profile(&p);
	wall_stacks[1].frames = at_app;
	wall_stacks[1].depth = 2;
	expect_wall_refusal(&p, "off-CPU time is not at an off-CPU leaf");

	wall_profile(&p);
	wall_stacks[0].off_ns = 1;	/* samples and time off the CPU */
	expect_wall_refusal(&p, "bad stack");

	wall_profile(&p);
	wall_stacks[1].count = 1;	/* the same, the other way */
	p.samples++;
	wall_app.samples++;
	wall_bucket.count++;
	wall_threads[0].samples++;
	expect_wall_refusal(&p, "bad stack");
	wall_bucket.count--;

	wall_profile(&p);
	wall_stacks[2].sampled_ns = wall_stacks[2].off_ns + 1;
	expect_wall_refusal(&p, "bad stack");

	/* the wall record taken out: a version 2 file says how it was taken */
	wall_profile(&p);
	data = encoded(&p, &size);
	at = record_at(data, size, PRF_TAG_WALL);
	assert_true(at > 0);
	len = record_size(data, at);
	wallrec = malloc(len);
	memcpy(wallrec, data + at, len);
	memmove(data + at, data + at + len, size - at - len);
	fix_checksum(data, size - len);
	expect_refusal(data, size - len,
	    "a version 2 file without its wall record");
	free(data);
	/* a second wall record, after the first */
	data = encoded(&p, &size);
	copy = malloc(size + len);
	memcpy(copy, data, at + len);
	memcpy(copy + at + len, wallrec, len);
	memcpy(copy + at + 2 * len, data + at + len, size - at - len);
	fix_checksum(copy, size + len);
	expect_refusal(copy, size + len, "a second wall record");
	free(copy);
	free(data);
	/* a wall record in a version 1 file (a CPU profile's), before its end */
	p.wall = NULL;
	p.nstacks = 1;
	p.nframes = 3;
	data = encoded(&p, &size);
	assert_int_equal(file_version(data), 1);
	at = record_at(data, size, PRF_TAG_END);
	copy = malloc(size + len);
	memcpy(copy, data, at);
	memcpy(copy + at, wallrec, len);
	memcpy(copy + at + len, data + at, size - at);
	fix_checksum(copy, size + len);
	expect_refusal(copy, size + len, "a wall record in a version 1 file");
	free(copy);
	free(data);
	free(wallrec);

	/* the refusals are one line */
	wall_profile(&p);
	wall_stacks[1].frames = at_app;
	wall_stacks[1].depth = 2;
	data = encoded(&p, &size);
	assert_null(profil_profile_parse(data, size, cause, sizeof cause));
	assert_null(strchr(cause, '\n'));
	free(data);
}

/*
 * Kept source lines (a JIT runtime's, tag 10) come back as written, and
 * each way they can be wrong is refused with a cause: a file index out of
 * range, a line 0, lines out of order or twice at one address, a line of
 * no object of the profile.
 */
static char *line_files_[] = { "gen.js", "lib.js" };

static void
lines_profile(struct profil_profile *p, struct profil_object o[2],
    struct profil_thread t[2], struct profil_process *pr,
    struct profil_line *l)
{
	sample_profile(p, o, t, pr);
	l[0] = (struct profil_line){ 0, 0, 0x1000, 10 };
	l[1] = (struct profil_line){ 0, 1, 0x1004, 7 };
	l[2] = (struct profil_line){ 1, 0, 0x20000, 12 };
	p->nline_files = 2;
	p->line_files = line_files_;
	p->nlines = 3;
	p->lines = l;
}

static void
expect_lines_refusal(const struct profil_profile *p, const char *words)
{
	size_t size;
	void *data = encoded(p, &size);

	expect_refusal(data, size, words);
	free(data);
}

static void
test_lines_record(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	struct profil_line l[3];
	char cause[256] = "";
	size_t size;
	void *data;

	(void)state;
	lines_profile(&p, o, t, &pr, l);
	data = encoded(&p, &size);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_int_equal(q->nline_files, 2);
	assert_string_equal(q->line_files[1], "lib.js");
	assert_int_equal(q->nlines, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(q->lines[i].object, l[i].object);
		assert_int_equal(q->lines[i].file, l[i].file);
		assert_true(q->lines[i].addr == l[i].addr);
		assert_int_equal(q->lines[i].line, l[i].line);
	}
	profil_profile_free(q);
	free(data);

	lines_profile(&p, o, t, &pr, l);
	l[1].file = 2;
	expect_lines_refusal(&p, "bad line");
	lines_profile(&p, o, t, &pr, l);
	l[2].line = 0;
	expect_lines_refusal(&p, "bad line");
	lines_profile(&p, o, t, &pr, l);
	l[1].addr = 0x1000;	/* twice at one address */
	expect_lines_refusal(&p, "lines out of order");
	lines_profile(&p, o, t, &pr, l);
	l[1] = l[2], l[2] = (struct profil_line){ 0, 0, 0x2000, 3 };
	expect_lines_refusal(&p, "lines out of order");
	lines_profile(&p, o, t, &pr, l);
	l[2].object = 2;	/* there are two objects */
	expect_lines_refusal(&p, "a kept source line belongs to no object");
}

/*
 * The fp frames record: the frames whose callers were found by frame
 * pointer come back as written; indices out of order, or past the
 * frames of the stacks, are refused.
 */
static void
test_fp_frames_record(void **state)
{
	struct profil_profile p, *q;
	uint32_t fp[2] = { 0, 2 };
	char cause[256] = "";
	size_t size;
	void *data;

	(void)state;
	wall_profile(&p);
	p.nfp_frames = 2;
	p.fp_frames = fp;
	data = encoded(&p, &size);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_int_equal(q->nfp_frames, 2);
	assert_int_equal(q->fp_frames[0], 0);
	assert_int_equal(q->fp_frames[1], 2);
	profil_profile_free(q);
	free(data);

	fp[0] = 2;	/* twice the same */
	data = encoded(&p, &size);
	expect_refusal(data, size, "fp frames out of order");
	free(data);
	fp[0] = 0;
	fp[1] = (uint32_t)p.nframes;	/* one past the last */
	data = encoded(&p, &size);
	expect_refusal(data, size, "no frame of the stacks");
	free(data);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_record),
		cmocka_unit_test(test_wall_round_trip),
		cmocka_unit_test(test_cpu_profile_stays_version_1),
		cmocka_unit_test(test_wall_refusals),
		cmocka_unit_test(test_lines_record),
		cmocka_unit_test(test_fp_frames_record),
		cmocka_unit_test(test_refused_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
