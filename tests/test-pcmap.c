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
	struct stackring *ring;
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
	t->ring = calloc(1, 64 + nslots * STACKRING_SLOT_BYTES(STACK_BYTES));
	assert_non_null(t->ring);
	t->ring->nslots = nslots;
	t->ring->slot_bytes = STACKRING_SLOT_BYTES(STACK_BYTES);
	t->ring->stack_size = STACK_BYTES;
	t->ring->slots_offset = 64;
	t->m.stacks = t->ring;
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
	uint64_t total = 0, head = atomic_load(&r->head);

	for (uint64_t h = 0; h < head; h++) {
		const struct stackring_slot *s = (const void *)((const char *)r +
		    r->slots_offset + (h & (r->nslots - 1)) * r->slot_bytes);

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
	assert_int_equal(captured(t.ring), 12);
	assert_int_equal(sum(t.counts, 64), 0);
	assert_int_equal(sum(t.tcounts, 64), 12);
	assert_int_equal(t.lost, 0);
	assert_int_equal(t.tlost, 0);
	free(t.ring);
}

static void
test_a_full_ring_counts_by_pc(void **state)
{
	struct tables t;

	(void)state;
	tables_init(&t, 64, 2);
	sample(&t, 0x401000, 1, 5);	/* two captured, three not */
	assert_int_equal(atomic_load(&t.ring->dropped), 3);
	assert_int_equal(captured(t.ring), 2);
	assert_int_equal(sum(t.counts, 64), 3);
	assert_int_equal(sum(t.tcounts, 64), 5);
	assert_int_equal(t.lost, 0);
	free(t.ring);
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
	assert_int_equal(captured(t.ring), 1);
	assert_int_equal(t.keys[0], (1ull << 48) | 0x402000);
	assert_int_equal(t.counts[0], 1);
	assert_int_equal(t.lost, 2);
	assert_int_equal(sum(t.tcounts, 64), 2);	/* the kept ones */
	free(t.ring);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured_samples_skip_the_pc_table),
		cmocka_unit_test(test_a_full_ring_counts_by_pc),
		cmocka_unit_test(test_no_ring_counts_every_sample_by_pc),
		cmocka_unit_test(test_lost_only_when_neither_keeps_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
