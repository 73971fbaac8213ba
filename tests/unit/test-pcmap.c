/*
 * test-pcmap.c - a sample into the timer engine's tables
 * (lib/session/session-pcmap.c): it travels one way, with its stack
 * capture or, when that fails, in the pc table; the thread table counts
 * it either way, and what neither kept is lost.
 */
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "harness.h"
#include "plan/plan.h"
#include "sampler/stackring.h"
#include "session/session-internal.h"

#define STACK_BYTES	256

struct tables {
	struct plan_pcmap m;
	uint64_t keys[64], counts[64], lost;
	uint64_t tkeys[64], tcounts[64], tlost;
	void *mem;			/* the ring's memory */
	struct stackring ring;
};

/* Tables of capacity keys (a power of 2), with a ring of nslots or none. */
static void
tables_init(struct tables *t, uint64_t capacity, uint64_t nslots)
{
	memset(t, 0, sizeof *t);
	t->m.keys = t->keys;
	t->m.counts = t->counts;
	t->m.mask = capacity - 1;
	t->m.lost = &t->lost;
	t->m.tkeys = t->tkeys;
	t->m.tcounts = t->tcounts;
	t->m.tmask = 63;
	t->m.tlost = &t->tlost;
	if (nslots == 0)
		return;
	t->mem = aligned_alloc(64, STACKRING_BYTES(nslots, STACK_BYTES));
	assert_non_null(t->mem);
	memset(t->mem, 0, STACKRING_BYTES(nslots, STACK_BYTES));
	stackring_layout(&t->ring, t->mem, nslots, STACK_BYTES);
	t->m.stacks = &t->ring;
}

static uint64_t
sum(const uint64_t *counts, size_t n)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += counts[i];
	return total;
}

/* Weight of the captures published in the ring. */
static uint64_t
captured(const struct stackring *r)
{
	uint64_t total = 0, head = atomic_load(&r->shared->head);

	for (uint64_t h = 0; h < head; h++) {
		const struct stackring_slot *s = stackring_slot(r, h);

		if (atomic_load(&s->seq) == h + 1)
			total += s->weight;
	}
	return total;
}

/* n samples of weight at pc, from here: a stack there is to copy */
static void
sample(struct tables *t, uintptr_t pc, unsigned long weight, int n)
{
	ucontext_t uc;

	assert_int_equal(getcontext(&uc), 0);
	for (int i = 0; i < n; i++)
		session_count_pc(&t->m, pc, weight, 0, &uc);
}

static void
test_captured_samples_skip_the_pc_table(void **state)
{
	struct tables t;

	(void)state;
	tables_init(&t, 64, 4);
	sample(&t, 0x401000, 3, 4);
	assert_int_equal(captured(&t.ring), 12);
	assert_int_equal(sum(t.counts, 64), 0);
	assert_int_equal(sum(t.tcounts, 64), 12);
	assert_int_equal(t.lost, 0);
	assert_int_equal(t.tlost, 0);
	free(t.mem);
}

static void
test_a_full_ring_counts_by_pc(void **state)
{
	struct tables t;

	(void)state;
	tables_init(&t, 64, 2);
	sample(&t, 0x401000, 1, 5);	/* two captured, three not */
	assert_int_equal(atomic_load(&t.ring.shared->dropped), 3);
	assert_int_equal(captured(&t.ring), 2);
	assert_int_equal(sum(t.counts, 64), 3);
	assert_int_equal(sum(t.tcounts, 64), 5);
	assert_int_equal(t.lost, 0);
	free(t.mem);
}

static void
test_no_ring_counts_every_sample_by_pc(void **state)
{
	struct tables t;

	(void)state;
	tables_init(&t, 64, 0);
	sample(&t, 0x401000, 2, 3);
	assert_int_equal(sum(t.counts, 64), 6);
	assert_int_equal(sum(t.tcounts, 64), 6);
	assert_int_equal(t.lost, 0);
}

/* Captured, a sample needs no room in the pc table; failing both, lost. */
static void
test_lost_only_when_neither_keeps_it(void **state)
{
	struct tables t;

	(void)state;
	tables_init(&t, 1, 1);
	sample(&t, 0x401000, 1, 1);	/* captured */
	sample(&t, 0x402000, 1, 1);	/* ring full: the one pc slot */
	sample(&t, 0x403000, 1, 2);	/* ring full, no room: lost */
	assert_int_equal(captured(&t.ring), 1);
	assert_int_equal(t.keys[0], (1ull << 48) | 0x402000);
	assert_int_equal(t.counts[0], 1);
	assert_int_equal(t.lost, 2);
	assert_int_equal(sum(t.tcounts, 64), 2);	/* the kept ones */
	free(t.mem);
}

/*
 * The program can write over the ring's header as it likes: the writer
 * keeps the geometry it opened the ring with, so its captures stay in
 * the ring's slots, and a header that describes no ring that fits is
 * refused when opened.
 */
static void
test_a_ring_written_over_keeps_captures_inside(void **state)
{
	size_t bytes = STACKRING_BYTES(4, STACK_BYTES);
	unsigned char *mem = aligned_alloc(64, bytes + 4096);
	struct stackring_shared *h = (struct stackring_shared *)mem;
	struct stackring laid, opened, bad;
	struct tables t;
	ucontext_t uc;

	(void)state;
	assert_non_null(mem);
	memset(mem, 0, bytes + 4096);
	stackring_layout(&laid, mem, 4, STACK_BYTES);
	assert_int_equal(stackring_open(&opened, mem, bytes), 0);
	assert_int_equal(opened.nslots, 4);
	assert_ptr_equal(opened.slots, laid.slots);
	/* each field out of its bounds, in turn */
	assert_int_equal(stackring_open(&bad, mem, bytes - 1), -1);
	h->nslots = 3;
	assert_int_equal(stackring_open(&bad, mem, bytes), -1);
	h->nslots = 1ull << 62;
	assert_int_equal(stackring_open(&bad, mem, bytes), -1);
	h->nslots = 4;
	h->stack_size = STACK_BYTES + 64;	/* slot_bytes now too small */
	assert_int_equal(stackring_open(&bad, mem, bytes), -1);
	h->stack_size = ~0ull - 63;
	h->slot_bytes = STACKRING_SLOT_BYTES(h->stack_size);	/* wraps */
	assert_int_equal(stackring_open(&bad, mem, bytes), -1);
	h->stack_size = STACK_BYTES;
	h->slot_bytes = STACKRING_SLOT_BYTES(STACK_BYTES);
	h->slots_offset = ~0ull - 63;
	assert_int_equal(stackring_open(&bad, mem, bytes), -1);
	h->slots_offset = 8;
	assert_int_equal(stackring_open(&bad, mem, bytes), -1);
	/* written over after it was opened: captures go where they belong */
	h->slots_offset = ~0ull - 63;
	h->slot_bytes = ~0ull / 3;
	h->stack_size = ~0ull;
	h->nslots = 1ull << 62;
	atomic_store(&h->head, 1ull << 40);
	atomic_store(&h->tail, (1ull << 40) - 2);
	memset(&t, 0, sizeof t);
	t.m.keys = t.keys;
	t.m.counts = t.counts;
	t.m.mask = 63;
	t.m.lost = &t.lost;
	t.m.stacks = &opened;
	assert_int_equal(getcontext(&uc), 0);
	for (int i = 0; i < 3; i++)
		session_count_pc(&t.m, 0x401000, 1, 0, &uc);
	/* two fit before the writer meets the tail: in slots 0 and 1 */
	assert_int_equal(atomic_load(&stackring_slot(&opened, 0)->seq),
	    (1ull << 40) + 1);
	assert_int_equal(atomic_load(&stackring_slot(&opened, 1)->seq),
	    (1ull << 40) + 2);
	assert_true(stackring_slot(&opened, 1)->size <= STACK_BYTES);
	assert_int_equal(sum(t.counts, 64), 1);		/* the third */
	for (size_t i = bytes; i < bytes + 4096; i++)
		assert_int_equal(mem[i], 0);
	free(mem);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured_samples_skip_the_pc_table),
		cmocka_unit_test(test_a_full_ring_counts_by_pc),
		cmocka_unit_test(test_no_ring_counts_every_sample_by_pc),
		cmocka_unit_test(test_lost_only_when_neither_keeps_it),
		cmocka_unit_test(test_a_ring_written_over_keeps_captures_inside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
