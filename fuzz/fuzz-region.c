/*
 * fuzz-region.c - the timer engine's recorder reading the memory it
 * shares with the profiled program (cli/record/timer/timer-region.c,
 * timer-slots.c, timer-stacks.c), which the program can write over as it
 * likes.  A small region (64 pcs, 16 threads, 4 captures of 256 bytes of
 * stack) is laid out as the recorder lays it out, then written over as
 * the input says, and read as a recording reads it: slots opened, the
 * ring drained (and drained last), the maps read, the tables resolved,
 * the weights taken.  The input:
 *
 *   elapsed:u16 (ms since the start)  flags:u8 (1: --no-children,
 *   2: no call stacks)  then writes: anchor:u8 offset:u16 len:u8 bytes
 *
 * an anchor being where the offset counts from (0 the header, 1 the
 * first process slot, 2-5 the pc keys, pc counts, thread keys, thread
 * counts, 6 the ring's header, 7 its first slot), the offset taken
 * modulo what is left of the region from there.  Whatever was written,
 * nothing reads outside the region, the profile the builder makes is
 * accepted by the reader, and its samples and lost samples together stay
 * within what the machine's CPUs could have given since the start.
 */
#include <errno.h>
#include <unistd.h>

#include "fuzz.h"
#include "record/core/builder.h"
#include "record/jit/jit.h"
#include "record/timer/timer-region.h"
#include "record/timer/timer-slots.h"
#include "record/timer/timer-stacks.h"
#include "record/unwind/unwind.h"

#define PERIOD_NS	1000000ull
#define START_NS	1000000000ull

static uint64_t last_refused;	/* of the last input, for fuzz_expect */

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

/* Where anchor a starts in r's mapping (the ring's, 0 when none). */
static size_t
anchor(const struct timer_region *r, unsigned a)
{
	switch (a % 8) {
	case 0: return 0;
	case 1: return offsetof(struct agent_region, procs[1]);
	case 2: return r->keys_offset;
	case 3: return r->counts_offset;
	case 4: return r->tkeys_offset;
	case 5: return r->tcounts_offset;
	case 6: return r->ring.shared != NULL ?
	    (size_t)((char *)r->ring.shared - (char *)r->shared) : 0;
	default: return r->ring.shared != NULL ?
	    (size_t)(r->ring.slots - (unsigned char *)r->shared) : 0;
	}
}

/* The input's writes over r; where they stop, the rest is ignored. */
static void
write_over(struct timer_region *r, const uint8_t *data, size_t size)
{
	for (size_t i = 0; i + 4 <= size; ) {
		size_t at = anchor(r, data[i]), len = data[i + 3], room;
		uint16_t off;

		memcpy(&off, data + i + 1, 2);
		i += 4;
		if (len > size - i)
			len = size - i;
		room = r->size - at;
		at += off % room;
		if (len > r->size - at)
			len = r->size - at;
		memcpy((char *)r->shared + at, data + i, len);
		i += len;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t elapsed = 0;
	uint8_t flags = size > 2 ? data[2] : 0;
	uint64_t now, most, ncpus;
	struct record_opts o = { .period_ns = PERIOD_NS };
	struct record_result res = { 0 };
	struct timer_region *r;
	struct slot_maps *slots;
	struct profil_profile *p;
	struct builder *b;
	pid_t only = 0;

	if (size >= 2)
		memcpy(&elapsed, data, 2);
	now = START_NS + (uint64_t)elapsed * 1000000u;
	r = timer_region_new_sized(1000, 0, flags & 2 ? 0 : 256, PERIOD_NS,
	    START_NS, 64, 16, 4);
	if (r == NULL)
		fuzz_fail("no region: %s", strerror(errno));
	b = builder_new(1);
	if (!(flags & 2))
		builder_stacks(b);
	builder_external_threads(b);
	jit_begin(b);
	slots = calloc(AGENT_MAX_PROCS, sizeof *slots);
	if (slots == NULL)
		abort();
	if (size > 3)
		write_over(r, data + 3, size - 3);
	timer_slots_open_new(b, r, slots, 1);
	if (flags & 1)
		only = slots[1].pid;
	if (r->ring.shared != NULL) {
		timer_stacks_drain(b, r, slots, only, NULL, 0, now);
		timer_stacks_drain(b, r, slots, only, NULL, 1, now);
	}
	timer_slots_snapshot_all(b, r, slots);
	timer_region_resolve(b, r, slots, only, now);
	timer_region_weights(r, &o, only, slots, &res);

	p = builder_finish(b);
	builder_free(b);
	jit_end(p, NULL);
	p->taken = res.taken;
	p->weight_sq = res.weight_sq;
	if (p->weight_sq < p->taken)
		p->weight_sq = p->taken;
	if ((p->taken > 0 || p->weight_sq > 0) && p->weight_sq < p->samples)
		p->weight_sq = p->samples;
	p->refused = last_refused = r->refused;
	ncpus = (uint64_t)sysconf(_SC_NPROCESSORS_CONF);
	most = 2 * (now - START_NS) * ncpus / PERIOD_NS + 1024;
	if (p->samples > most || p->lost > most - p->samples)
		fuzz_fail("%llu samples and %llu lost, %llu at most in %u ms",
		    (unsigned long long)p->samples, (unsigned long long)p->lost,
		    (unsigned long long)most, elapsed);
	fuzz_profile_reads_back(p, PERIOD_NS, "timer");
	for (int i = 0; i < AGENT_MAX_PROCS; i++) {
		unwind_space_free(slots[i].uw);
		addr_space_free(slots[i].space);
	}
	free(slots);
	timer_region_free(r);
	return 0;
}

/*
 * ok-* (a region as an agent leaves it) must come out with something
 * refused by nobody; bad-* (written over) with something refused.
 */
const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	(void)data, (void)size;	/* the replay has just run it */
	if (strncmp(name, "ok-", 3) == 0 && last_refused != 0)
		return "a region as an agent leaves it had records refused";
	if (strncmp(name, "bad-", 4) == 0 && last_refused == 0)
		return "a region written over had nothing refused";
	return NULL;
}
