/*
 * prf-checks.c - what the tests of the .prf codec share (prf-checks.h):
 * profiles whose every field is known (a CPU one without stacks, a wall
 * one with them), encoded, the reader's refusals checked, and the records
 * of a file found and edited.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include <profil.h>
#include "codec/prf.h"

#include "prf-checks.h"

struct profil_bucket exe_buckets[4] = {
	{ 0x1000, 5 }, { 0x1004, 7 }, { 0x2000, 1 }, { 0x9ffc, 1000000 },
};
static struct profil_bucket lib_buckets[] = {
	{ 0x20000, 3 }, { 0x20001, 4 }, { 0x20002, 5 }, { 0x20004, 6 },
};
char *argv_[4] = { "./app", "--flag", "", NULL };

void
sample_profile(struct profil_profile *p, struct profil_object o[2],
    struct profil_thread t[2], struct profil_process *pr)
{
	memset(p, 0, sizeof *p);
	memset(o, 0, 2 * sizeof *o);
	o[0].path = "/usr/bin/app";
	memcpy(o[0].build_id, "\x01\x02\x03\x04\x05", 5);
	o[0].build_id_len = 5;
	o[0].lowpc = 0x1000;
	o[0].highpc = 0xa000;
	o[0].bucket_bytes = 4;
	o[0].samples = 5 + 7 + 1 + 1000000;
	o[0].nbuckets = 4;
	o[0].buckets = exe_buckets;
	o[1].path = "/lib/libm.so.6";
	o[1].lowpc = 0x20000;
	o[1].highpc = 0x20010;
	o[1].bucket_bytes = 1;
	o[1].samples = 18;	/* dense: every bucket but one is hit */
	o[1].nbuckets = 4;
	o[1].buckets = lib_buckets;
	p->interval_ns = 1000000;
	p->bucket_bytes = 4;
	p->engine = "perf";
	p->argc = 3;
	p->argv = argv_;
	p->start_ns = 1763700000000000000;
	p->duration_ns = 2500000000u;
	p->cpu_ns = 2400000000u;
	p->kernel = 11;
	p->unknown = 2;
	p->lost = 9;
	p->samples = o[0].samples + o[1].samples + 11 + 2;
	p->nobjects = 2;
	p->objects = o;
	t[0] = (struct profil_thread){ 100, 100, "app", p->samples - 10 };
	t[1] = (struct profil_thread){ 100, 101, "worker", 10 };
	p->nthreads = 2;
	p->threads = t;
	*pr = (struct profil_process){ 100, 1, "./app --flag", 0, p->samples };
	p->nprocesses = 1;
	p->processes = pr;
}

void *
encoded(const struct profil_profile *p, size_t *size)
{
	void *data;

	assert_int_equal(profil_profile_encode(p, &data, size), 0);
	return data;
}

void
expect_refusal(const void *data, size_t size, const char *words)
{
	char cause[256] = "";
	struct profil_profile *q = profil_profile_parse(data, size, cause,
	    sizeof cause);

	if (q != NULL)
		fail_msg("accepted a bad file (expected '%s')", words);
	assert_int_equal(errno, EINVAL);
	if (strstr(cause, words) == NULL)
		fail_msg("cause '%s' does not say '%s'", cause, words);
}

/*
 * A wall profile: app's 10 samples at 0x10 under main (0x50), and time
 * off the CPU at 3 stacks of its threads: 500 ms in clock_nanosleep
 * under 0x20 (measured), 3 ms preempted at the last sample's stack (all
 * sampled, on 4 looks), 1 ms blocked where is not known.
 */
struct profil_bucket wall_bucket = { 0x10, 10 };
struct profil_object wall_app;
struct profil_frame wall_frames[7] = {
	{ 0, 0x10 }, { 0, 0x20 }, { 0, 0x50 },
	{ PROFIL_FRAME_OFFCPU, 230 },			/* clock_nanosleep */
	{ PROFIL_FRAME_OFFCPU, PROFIL_OFFCPU_RUNNABLE },
	{ PROFIL_FRAME_OFFCPU, PROFIL_OFFCPU_BLOCKED },
	{ PROFIL_FRAME_CUT, PROFIL_CUT_NOT_TAKEN },
};
static uint32_t on_cpu[] = { 0, 2 }, asleep[] = { 3, 1, 2 },
    preempted[] = { 4, 0, 2 }, unplaced[] = { 5, 6 };
struct profil_stack wall_stacks[4];
struct profil_wall wall_stats;
struct profil_thread wall_threads[2];

void
wall_profile(struct profil_profile *p)
{
	wall_app = (struct profil_object){ .path = "/bin/app", .lowpc = 0,
	    .highpc = 0x100, .bucket_bytes = 1, .samples = 10, .nbuckets = 1,
	    .buckets = &wall_bucket };
	wall_stacks[0] = (struct profil_stack){ .pid = 7, .tid = 7,
	    .count = 10, .depth = 2, .frames = on_cpu };
	wall_stacks[1] = (struct profil_stack){ .pid = 7, .tid = 7,
	    .depth = 3, .frames = asleep, .off_ns = 500000000 };
	wall_stacks[2] = (struct profil_stack){ .pid = 7, .tid = 8,
	    .depth = 3, .frames = preempted, .off_ns = 3000000,
	    .sampled_ns = 3000000, .observations = 4 };
	wall_stacks[3] = (struct profil_stack){ .pid = 7, .tid = 8,
	    .depth = 2, .frames = unplaced, .off_ns = 1000000,
	    .sampled_ns = 1000000 };
	wall_stats = (struct profil_wall){ .poll_ns = 5000000, .switches = 12,
	    .reads = 3, .unread_ns = 0 };
	wall_threads[0] = (struct profil_thread){ 7, 7, "app", 10 };
	wall_threads[1] = (struct profil_thread){ 7, 8, "waiter", 0 };
	memset(p, 0, sizeof *p);
	p->interval_ns = 1000000;
	p->bucket_bytes = 1;
	p->engine = "perf";
	p->argc = 1;
	p->argv = argv_;
	p->duration_ns = 504000000;
	p->samples = 10;
	p->nobjects = 1;
	p->objects = &wall_app;
	p->nthreads = 2;
	p->threads = wall_threads;
	p->nframes = sizeof wall_frames / sizeof wall_frames[0];
	p->frames = wall_frames;
	p->nstacks = 4;
	p->stacks = wall_stacks;
	p->wall = &wall_stats;
}

/* The byte offset of the first record of tag in data, or 0. */
size_t
record_at(const uint8_t *data, size_t size, unsigned tag)
{
	for (size_t at = PRF_MAGIC_LEN + 4; at + 8 <= size;) {
		unsigned t = data[at] | data[at + 1] << 8;
		size_t len = (size_t)data[at + 4] | (size_t)data[at + 5] << 8 |
		    (size_t)data[at + 6] << 16 | (size_t)data[at + 7] << 24;

		if (t == tag)
			return at;
		at += 8 + len;
	}
	return 0;
}

size_t
record_size(const uint8_t *data, size_t at)
{
	return 8 + ((size_t)data[at + 4] | (size_t)data[at + 5] << 8 |
	    (size_t)data[at + 6] << 16 | (size_t)data[at + 7] << 24);
}

/* The end record's checksum made right after an edit (CRC-32, zlib's). */
void
fix_checksum(uint8_t *data, size_t size)
{
	size_t end = record_at(data, size, PRF_TAG_END);
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < end; i++) {
		crc ^= data[i];
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	crc = ~crc;
	for (int k = 0; k < 4; k++)
		data[end + 8 + k] = (uint8_t)(crc >> 8 * k);
}
