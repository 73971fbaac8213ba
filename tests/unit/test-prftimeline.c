/*
 * test-prftimeline.c - the .prf timeline record (tag 13, lib/codec/
 * prf-timeline.c): a CPU and a wall profile's timelines read back as
 * written, a file without one reads with none, and each way a record can
 * be wrong is refused with a cause naming it: a second record, one before
 * the stacks or of no stacks, bad slices, entries past the last slice,
 * out of order, empty or of no stack, a short record, and sums that do
 * not add up to the stacks, naming the thread in samples or in ns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include <profil.h>
#include "codec/prf.h"

#include "prf-checks.h"

/* ---- a CPU profile's timeline ------------------------------------------- */

/*
 * sample_profile's samples in stacks: the program's 1000013 (1000003 of
 * thread 100 at 0x1000 under 0x2000, 10 of thread 101 at 0x1000), libm's
 * 18, 2 unknown, 11 in the kernel, all of thread 100 but those 10.
 */
static struct profil_frame cpu_frames[] = {
	{ 0, 0x1000 }, { 0, 0x2000 }, { 1, 0x20000 },
	{ PROFIL_FRAME_UNKNOWN, 0x7f00 }, { PROFIL_FRAME_KERNEL, 0x81000000 },
};
static uint32_t under_main[] = { 0, 1 }, alone[] = { 0 }, in_libm[] = { 2, 1 },
    unknown_[] = { 3 }, in_kernel[] = { 4, 1 };
static struct profil_stack cpu_stacks[5];

/*
 * 2.5 s in 2^21 ns slices: 1193 of them.  Stack 0's samples at the start
 * and in the last slice, thread 101's in slices 5 and 6, and so on.
 */
#define CPU_SLICE_NS	(1ull << 21)
#define CPU_NSLICES	1193
static struct profil_timeline_entry cpu_timeline[8];

static const struct profil_timeline_entry cpu_timeline_as_made[8] = {
	{ 0, 0, 500000 }, { 0, 1, 3 }, { 0, 1192, 500000 },
	{ 1, 5, 4 }, { 1, 6, 6 },
	{ 2, 0, 18 },
	{ 3, 1192, 2 },
	{ 4, 100, 11 },
};

static void
cpu_profile(struct profil_profile *p, struct profil_object o[2],
    struct profil_thread t[2], struct profil_process *pr)
{
	sample_profile(p, o, t, pr);
	cpu_stacks[0] = (struct profil_stack){ .pid = 100, .tid = 100,
	    .count = 1000003, .depth = 2, .frames = under_main };
	cpu_stacks[1] = (struct profil_stack){ .pid = 100, .tid = 101,
	    .count = 10, .depth = 1, .frames = alone };
	cpu_stacks[2] = (struct profil_stack){ .pid = 100, .tid = 100,
	    .count = 18, .depth = 2, .frames = in_libm };
	cpu_stacks[3] = (struct profil_stack){ .pid = 100, .tid = 100,
	    .count = 2, .depth = 1, .frames = unknown_ };
	cpu_stacks[4] = (struct profil_stack){ .pid = 100, .tid = 100,
	    .count = 11, .depth = 2, .frames = in_kernel };
	p->nframes = sizeof cpu_frames / sizeof cpu_frames[0];
	p->frames = cpu_frames;
	p->nstacks = 5;
	p->stacks = cpu_stacks;
	memcpy(cpu_timeline, cpu_timeline_as_made, sizeof cpu_timeline);
	p->slice_ns = CPU_SLICE_NS;
	p->nslices = CPU_NSLICES;
	p->ntimeline = 8;
	p->timeline = cpu_timeline;
}

/* ---- a wall profile's timeline ------------------------------------------ */

/*
 * wall_profile's 504 ms in 2^22 ns slices: 121.  Thread 7's 10 samples
 * in slices 0 and 1, then its 500 ms asleep from slice 1 on, each slice
 * full but the first and the last; thread 8's 3 ms preempted in slice 0
 * and its 1 ms blocked in the last.
 */
#define WALL_SLICE_NS	(1ull << 22)
#define WALL_NSLICES	121
static struct profil_timeline_entry wall_timeline[WALL_NSLICES + 8];

static void
wall_profile_timed(struct profil_profile *p)
{
	uint64_t left = 500000000, first = 2000000;
	size_t n = 0;

	wall_profile(p);
	wall_timeline[n++] = (struct profil_timeline_entry){ 0, 0, 4 };
	wall_timeline[n++] = (struct profil_timeline_entry){ 0, 1, 6 };
	for (uint32_t k = 1; left > 0; k++) {
		uint64_t v = k == 1 ? first : left < WALL_SLICE_NS ? left :
		    WALL_SLICE_NS;

		wall_timeline[n++] = (struct profil_timeline_entry){ 1, k, v };
		left -= v;
	}
	assert_true(wall_timeline[n - 1].slice < WALL_NSLICES);
	wall_timeline[n++] = (struct profil_timeline_entry){ 2, 0, 3000000 };
	wall_timeline[n++] = (struct profil_timeline_entry){ 3, 120, 1000000 };
	p->slice_ns = WALL_SLICE_NS;
	p->nslices = WALL_NSLICES;
	p->ntimeline = n;
	p->timeline = wall_timeline;
}

/* ---- what both use ------------------------------------------------------ */

/* p encoded and read back, which must succeed. */
static struct profil_profile *
round_trip(const struct profil_profile *p, void **data, size_t *size)
{
	char cause[256] = "";
	struct profil_profile *q;

	*data = encoded(p, size);
	q = profil_profile_parse(*data, *size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	return q;
}

/* q's timeline is p's, entry for entry; and q encodes to data again. */
static void
expect_same_timeline(const struct profil_profile *p,
    const struct profil_profile *q, const void *data, size_t size)
{
	void *again;
	size_t again_size;

	assert_int_equal(q->slice_ns, p->slice_ns);
	assert_int_equal(q->nslices, p->nslices);
	assert_int_equal(q->ntimeline, p->ntimeline);
	for (size_t i = 0; i < p->ntimeline; i++) {
		const struct profil_timeline_entry *a = &p->timeline[i];
		const struct profil_timeline_entry *b = &q->timeline[i];

		if (a->stack != b->stack || a->slice != b->slice ||
		    a->value != b->value)
			fail_msg("entry %zu: (%u, %u, %llu) read back as (%u, %u, "
			    "%llu)", i, a->stack, a->slice,
			    (unsigned long long)a->value, b->stack, b->slice,
			    (unsigned long long)b->value);
	}
	again = encoded(q, &again_size);
	assert_int_equal(again_size, size);
	assert_memory_equal(again, data, size);
	free(again);
}

/* p encoded, then refused saying words. */
static void
expect_timeline_refusal(const struct profil_profile *p, const char *words)
{
	size_t size;
	void *data = encoded(p, &size);

	expect_refusal(data, size, words);
	free(data);
}

/* A varint (LEB128) at out: its length. */
static size_t
put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	do {
		out[n] = (uint8_t)(v & 0x7f) | (v >> 7 ? 0x80 : 0);
		v >>= 7;
		n++;
	} while (v);
	return n;
}

/*
 * data (size bytes, an encoded file) with a record of tag (optional)
 * holding payload inserted just before its end record: a new buffer,
 * its checksum right, its size in *out_size.
 */
static uint8_t *
with_record(const uint8_t *data, size_t size, unsigned tag,
    const uint8_t *payload, size_t len, size_t *out_size)
{
	size_t end = record_at(data, size, PRF_TAG_END);
	uint8_t *out = malloc(size + 8 + len);

	assert_non_null(out);
	assert_true(end > 0);
	memcpy(out, data, end);
	out[end] = (uint8_t)tag;
	out[end + 1] = (uint8_t)(tag >> 8);
	out[end + 2] = 1;			/* optional */
	out[end + 3] = 0;
	for (int k = 0; k < 4; k++)
		out[end + 4 + k] = (uint8_t)(len >> 8 * k);
	memcpy(out + end + 8, payload, len);
	memcpy(out + end + 8 + len, data + end, size - end);
	*out_size = size + 8 + len;
	fix_checksum(out, *out_size);
	return out;
}

/* ---- the tests ---------------------------------------------------------- */

static void
test_cpu_timeline_round_trip(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	size_t size;
	void *data;

	(void)state;
	cpu_profile(&p, o, t, &pr);
	q = round_trip(&p, &data, &size);
	assert_null(q->wall);
	assert_true(record_at(data, size, PRF_TAG_TIMELINE) > 0);
	expect_same_timeline(&p, q, data, size);
	profil_profile_free(q);
	free(data);

	/* the most slices a reader takes, entries at both ends */
	cpu_profile(&p, o, t, &pr);
	p.nslices = 1u << 24;
	cpu_timeline[2].slice = (1u << 24) - 1;
	q = round_trip(&p, &data, &size);
	expect_same_timeline(&p, q, data, size);
	profil_profile_free(q);
	free(data);
}

static void
test_wall_timeline_round_trip(void **state)
{
	struct profil_profile p, *q;
	uint64_t off = 0;
	size_t size;
	void *data;

	(void)state;
	wall_profile_timed(&p);
	for (size_t i = 0; i < p.ntimeline; i++)
		if (p.timeline[i].stack == 1)
			off += p.timeline[i].value;
	assert_int_equal(off, wall_stacks[1].off_ns);	/* as made */
	q = round_trip(&p, &data, &size);
	assert_non_null(q->wall);
	expect_same_timeline(&p, q, data, size);
	profil_profile_free(q);
	free(data);
}

/*
 * A profile without a timeline (every file before the record, one with
 * no stacks) writes no record and reads back with none.
 */
static void
test_no_timeline(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	size_t size;
	void *data;

	(void)state;
	cpu_profile(&p, o, t, &pr);
	p.slice_ns = p.nslices = 0;
	p.ntimeline = 0;
	p.timeline = NULL;
	q = round_trip(&p, &data, &size);
	assert_int_equal(record_at(data, size, PRF_TAG_TIMELINE), 0);
	assert_true(q->slice_ns == 0 && q->nslices == 0);
	assert_int_equal(q->ntimeline, 0);
	assert_null(q->timeline);
	assert_int_equal(q->nstacks, 5);
	profil_profile_free(q);
	free(data);

	/* a timeline but no stacks: none written, none read */
	sample_profile(&p, o, t, &pr);
	p.slice_ns = CPU_SLICE_NS;
	p.nslices = CPU_NSLICES;
	q = round_trip(&p, &data, &size);
	assert_int_equal(record_at(data, size, PRF_TAG_TIMELINE), 0);
	assert_true(q->slice_ns == 0 && q->timeline == NULL);
	profil_profile_free(q);
	free(data);
}

/* Entries that cannot be, each refused with a cause saying which. */
static void
test_bad_entries(void **state)
{
	struct profil_profile p;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;

	(void)state;
	/* a stack's first entry past the last slice, and a later one */
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[3].slice = CPU_NSLICES;
	expect_timeline_refusal(&p, "an entry past the last slice");
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[2].slice = CPU_NSLICES;
	expect_timeline_refusal(&p, "an entry past the last slice");
	/* one (stack, slice) twice */
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[4].slice = 5;
	expect_timeline_refusal(&p, "entries out of order");
	/* slices backwards: no distance says it, so it reads as past the end */
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[3].slice = 7;
	expect_timeline_refusal(&p, "an entry past the last slice");
	/* an entry of 0 */
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[5].value = 0;
	expect_timeline_refusal(&p, "an empty entry");
	/* a stack past the stacks: the last one's number, one more */
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[7].stack = 5;
	expect_timeline_refusal(&p, "an entry of no stack");
	/* stacks backwards: the same */
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[6].stack = 1;
	expect_timeline_refusal(&p, "an entry of no stack");
	/* bad slices: none, more than a reader takes, a run past 2^64 ns */
	cpu_profile(&p, o, t, &pr);
	p.nslices = 0;
	expect_timeline_refusal(&p, "bad slices");
	cpu_profile(&p, o, t, &pr);
	p.nslices = (1u << 24) + 1;
	expect_timeline_refusal(&p, "bad slices");
	cpu_profile(&p, o, t, &pr);
	p.slice_ns = 1ull << 41;
	p.nslices = 1u << 23;
	expect_timeline_refusal(&p, "bad slices");
}

/*
 * Sums that do not add up: refused naming the thread and what it has, in
 * samples for a CPU stack, in ns for one off the CPU; a wall profile's
 * thread with both is said in the kind that does not add up, never the
 * two summed.
 */
static void
test_sums_name_the_thread(void **state)
{
	struct profil_profile p;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;

	(void)state;
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[4].value = 5;
	expect_timeline_refusal(&p, "the timeline does not add up: thread 101 "
	    "of process 100 has 9 samples in its slices, 10 in its stacks");
	/* one too many, in thread 100: its CPU stacks sum to 1000034 */
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[7].value = 12;
	expect_timeline_refusal(&p, "thread 100 of process 100 has 1000035 "
	    "samples in its slices, 1000034 in its stacks");
	/* a stack with no entry at all */
	cpu_profile(&p, o, t, &pr);
	p.ntimeline = 7;
	expect_timeline_refusal(&p, "thread 100 of process 100 has 1000023 "
	    "samples in its slices, 1000034 in its stacks");
	/* counts past 2^64 */
	cpu_profile(&p, o, t, &pr);
	cpu_timeline[0].value = cpu_timeline[1].value = 1ull << 63;
	expect_timeline_refusal(&p, "the timeline's counts overflow");

	/* thread 7: 10 samples and 500 ms asleep; its samples one short */
	wall_profile_timed(&p);
	wall_timeline[1].value = 5;
	expect_timeline_refusal(&p, "the timeline does not add up: thread 7 of "
	    "process 7 has 9 samples in its slices, 10 in its stacks");
	/* its time asleep 1 ns short */
	wall_profile_timed(&p);
	wall_timeline[2].value--;
	expect_timeline_refusal(&p, "thread 7 of process 7 has 499999999 ns off "
	    "the CPU in its slices, 500000000 in its stacks");
	/* thread 8: only off the CPU, 4 ms */
	wall_profile_timed(&p);
	wall_timeline[p.ntimeline - 2].value++;
	expect_timeline_refusal(&p, "thread 8 of process 7 has 4000001 ns off "
	    "the CPU in its slices, 4000000 in its stacks");
}

/*
 * What only the bytes can say wrong: a second record, one before the
 * stacks, one of no stacks, a slice of 0 ns, more entries than the record
 * has bytes for (refused before anything is allocated for them).
 */
static void
test_bad_records(void **state)
{
	struct profil_profile p;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	uint8_t *data, *copy, payload[64];
	size_t size, at, len, stacks_at, n, copy_size;

	(void)state;
	cpu_profile(&p, o, t, &pr);
	data = encoded(&p, &size);
	at = record_at(data, size, PRF_TAG_TIMELINE);
	stacks_at = record_at(data, size, PRF_TAG_STACKS);
	assert_true(at > stacks_at && stacks_at > 0);
	len = record_size(data, at);

	/* the same record twice */
	copy = with_record(data, size, PRF_TAG_TIMELINE, data + at + 8, len - 8,
	    &copy_size);
	expect_refusal(copy, copy_size, "a second timeline record");
	free(copy);

	/* moved before the stacks */
	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, data, stacks_at);
	memcpy(copy + stacks_at, data + at, len);
	memcpy(copy + stacks_at + len, data + stacks_at, at - stacks_at);
	memcpy(copy + at + len, data + at + len, size - at - len);
	fix_checksum(copy, size);
	expect_refusal(copy, size, "a timeline before the stacks");
	free(copy);

	/* slices of 0 ns: the first varint of the record */
	copy = malloc(size);
	assert_non_null(copy);
	memcpy(copy, data, size);
	n = put_varint(payload, CPU_SLICE_NS);
	assert_true(n == 4);
	memcpy(copy + at + 8, "\x80\x80\x80\x00", 4);	/* 0, in 4 bytes */
	fix_checksum(copy, size);
	expect_refusal(copy, size, "bad slices");
	free(copy);
	free(data);

	/* no stacks: an empty stacks record, then an empty timeline */
	sample_profile(&p, o, t, &pr);
	data = encoded(&p, &size);
	copy = with_record(data, size, PRF_TAG_STACKS, (const uint8_t *)"\0\0\0",
	    3, &copy_size);
	free(data);
	data = with_record(copy, copy_size, PRF_TAG_TIMELINE,
	    (const uint8_t *)"\1\1\0", 3, &size);
	free(copy);
	expect_refusal(data, size, "a timeline of no stacks");
	free(data);

	/* 2^40 entries claimed, in a record of a few bytes */
	cpu_profile(&p, o, t, &pr);
	p.slice_ns = p.nslices = 0;
	data = encoded(&p, &size);
	n = put_varint(payload, CPU_SLICE_NS);
	n += put_varint(payload + n, CPU_NSLICES);
	n += put_varint(payload + n, 1ull << 40);
	n += put_varint(payload + n, 0);
	n += put_varint(payload + n, 0);
	n += put_varint(payload + n, 1000003);
	copy = with_record(data, size, PRF_TAG_TIMELINE, payload, n, &copy_size);
	expect_refusal(copy, copy_size, "truncated timeline record");
	free(copy);
	free(data);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_timeline_round_trip),
		cmocka_unit_test(test_wall_timeline_round_trip),
		cmocka_unit_test(test_no_timeline),
		cmocka_unit_test(test_bad_entries),
		cmocka_unit_test(test_sums_name_the_thread),
		cmocka_unit_test(test_bad_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
