/*
 * test-stackmemo.c - cli/record/unwind/stackmemo.c: an entry answers a sample
 * only when every one of its facts holds of it (registers, and stack
 * words inside the sample's copy), whatever else differs; one key keeps
 * its newest entries; the memo stays within its bound.  And which facts
 * an unwinding depended on, step by step through its rules: the return
 * addresses and what the CFAs were computed from, not the other saved
 * registers; everything when a rule is not understood.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "harness.h"

#include "../../cli/record/unwind/stackmemo.c"
#include "../../cli/hmap.c"
#include "../../cli/util.c"

#define SP	0x7ffd0000f000ull
#define PC	0x401234ull

static uint64_t regs[ARCH_NREGS];
static uint64_t stack[64];		/* the copy, from SP */

static void
reset_sample(void)
{
	for (int r = 0; r < ARCH_NREGS; r++)
		regs[r] = 0x1000 + (uint64_t)r;
	regs[ARCH_REG_SP] = SP;
	regs[ARCH_REG_PC] = PC;
	for (int i = 0; i < 64; i++)
		stack[i] = 0xdead0000 + (uint64_t)i;
}

static const struct bframe frames[3] = { { 0, 0x1234 }, { 0, 0x2000 },
	{ 1, 0x300 } };

/* An entry of facts sp, pc, rbp and the words at SP + 8 and SP + 40. */
static void
add_entry(struct stack_memo *m, uint64_t word_at_8)
{
	struct memo_fact f[] = { { MEMO_REG(6), regs[6] },
		{ MEMO_REG(7), SP }, { MEMO_REG(16), PC },
		{ SP + 8, word_at_8 }, { SP + 40, stack[5] } };

	stack_memo_add(m, PC, SP, f, 5, frames, 3);
}

static size_t
find(const struct stack_memo *m, size_t size, size_t room)
{
	struct bframe out[8];
	size_t n = stack_memo_find(m, regs, SP, (const unsigned char *)stack,
	    size, out, room);

	for (size_t i = 0; i < n; i++)
		if (out[i].obj != frames[i].obj || out[i].value != frames[i].value)
			fail_msg("frame %zu: %d 0x%llx", i, out[i].obj,
			    (unsigned long long)out[i].value);
	return n;
}

static void
test_answers_only_when_every_fact_holds(void **state)
{
	struct stack_memo m;

	(void)state;
	reset_sample();
	stack_memo_init(&m);
	assert_int_equal(find(&m, sizeof stack, 8), 0);
	add_entry(&m, stack[1]);
	assert_int_equal(find(&m, sizeof stack, 8), 3);
	/* what is no fact may differ: rax, another stack word */
	regs[0] = 99;
	stack[2] = 7;
	assert_int_equal(find(&m, sizeof stack, 8), 3);
	/* a fact's word, a fact's register, the pc, the stack pointer */
	stack[1]++;
	assert_int_equal(find(&m, sizeof stack, 8), 0);
	stack[1]--;
	regs[6]++;
	assert_int_equal(find(&m, sizeof stack, 8), 0);
	regs[6]--;
	regs[ARCH_REG_PC]++;
	assert_int_equal(find(&m, sizeof stack, 8), 0);
	regs[ARCH_REG_PC]--;
	regs[ARCH_REG_SP] += 8;
	assert_int_equal(find(&m, sizeof stack, 8), 0);
	regs[ARCH_REG_SP] -= 8;
	/* a fact's word beyond the copy (SP + 40 .. 48): not known to hold */
	assert_int_equal(find(&m, 44, 8), 0);
	assert_int_equal(find(&m, 48, 8), 3);
	/* more frames than the room left */
	assert_int_equal(find(&m, sizeof stack, 2), 0);
	assert_int_equal(find(&m, sizeof stack, 3), 3);
	stack_memo_clear(&m);
	assert_int_equal(find(&m, sizeof stack, 8), 0);
	stack_memo_free(&m);
}

static void
test_a_key_keeps_its_newest_entries(void **state)
{
	struct stack_memo m;

	(void)state;
	reset_sample();
	stack_memo_init(&m);
	/* 20 callers of one leaf at one depth: the word at SP + 8 differs */
	for (uint64_t i = 0; i < 20; i++)
		add_entry(&m, 0x5000 + i);
	for (uint64_t i = 0; i < 20; i++) {
		stack[1] = 0x5000 + i;
		/* the oldest give way to the newest, CHAIN_MAX kept */
		assert_int_equal(find(&m, sizeof stack, 8),
		    i < 20 - CHAIN_MAX ? 0 : 3);
	}
	stack_memo_free(&m);
}

static void
test_bounded(void **state)
{
	struct stack_memo m;

	(void)state;
	reset_sample();
	stack_memo_init(&m);
	/* many keys: the pool starts again rather than grow past its bound */
	for (uint64_t i = 0; i < 200000; i++) {
		struct memo_fact f[] = { { MEMO_REG(7), SP }, { MEMO_REG(16), i } };

		stack_memo_add(&m, i, SP, f, 2, frames, 3);
	}
	assert_true(m.len <= STACK_MEMO_WORDS);
	assert_true(m.cap <= STACK_MEMO_WORDS);
	/* the newest still answers */
	regs[ARCH_REG_PC] = 199999;
	{
		struct bframe out[4];

		assert_int_equal(stack_memo_find(&m, regs, SP,
		    (const unsigned char *)stack, sizeof stack, out, 4), 3);
	}
	stack_memo_free(&m);
}

/* Rules: CFA = base + off; return address at CFA - 8; the rest unchanged */
static struct cfi_rules
rules(int base, int32_t off)
{
	struct cfi_rules r;

	memset(&r, 0, sizeof r);
	r.has_cfi = r.simple = 1;
	r.cfa_reg = (uint8_t)base;
	r.cfa_off = off;
	for (int i = 0; i < ARCH_NREGS; i++)
		r.kind[i] = RULE_SAME;
	r.kind[7] = RULE_IS_CFA;
	r.kind[16] = RULE_AT_CFA;
	r.off[16] = -8;
	return r;
}

static int
has_fact(const struct memo_fact *f, size_t n, uint64_t where)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].where == where)
			return 1;
	return 0;
}

/*
 * Frame 0 (CFA = rsp + 16) saved rbx at CFA - 16 and left rbp alone;
 * frame 1's CFA is rbp + 16 (a frame pointer), rbp saved at CFA - 16;
 * frame 2 is outermost.  The facts: sp, pc, rbp (frame 1's CFA comes
 * from it, unchanged by frame 0), both return addresses; not rbx's slot,
 * not frame 1's saved rbp (the outermost frame's CFA is never needed),
 * no other register.
 */
static void
test_facts_follow_the_rules(void **state)
{
	struct cfi_rules r0 = rules(7, 16), r1 = rules(6, 16);
	uint64_t cfa0 = SP + 16, cfa1 = 0x7ffd0000f100ull + 16;
	struct memo_step steps[2] = { { &r0, cfa0, 1 }, { &r1, cfa1, 1 } };
	struct memo_read reads[] = {
		{ cfa0 - 16, 0xb0b, 0 },	/* rbx */
		{ cfa0 - 8, 0x402000, 0 },	/* return address */
		{ cfa1 - 16, 0x7ffd0000f200ull, 1 },	/* rbp */
		{ cfa1 - 8, 0x403000, 1 },	/* return address */
	};
	struct memo_fact f[ARCH_NREGS + 4];
	size_t n;

	(void)state;
	reset_sample();
	r0.kind[3] = RULE_AT_CFA;
	r0.off[3] = -16;
	r1.kind[6] = RULE_AT_CFA;
	r1.off[6] = -16;
	n = stack_memo_facts(regs, steps, 2, reads, 4, f);
	assert_int_equal(n, 5);
	assert_true(has_fact(f, n, MEMO_REG(6)));
	assert_true(has_fact(f, n, MEMO_REG(7)));
	assert_true(has_fact(f, n, MEMO_REG(16)));
	assert_true(has_fact(f, n, cfa0 - 8));
	assert_true(has_fact(f, n, cfa1 - 8));

	/* frame 0 saved rbp itself: its slot, not the register, is a fact */
	r0.kind[6] = RULE_AT_CFA;
	r0.off[6] = -24;
	{
		struct memo_read more[] = { reads[0], reads[1],
			{ cfa0 - 24, 0x7ffd0000f100ull, 0 }, reads[2], reads[3] };

		n = stack_memo_facts(regs, steps, 2, more, 5, f);
		assert_int_equal(n, 5);
		assert_false(has_fact(f, n, MEMO_REG(6)));
		assert_true(has_fact(f, n, cfa0 - 24));
		assert_false(has_fact(f, n, cfa0 - 16));
	}

	/* a rule not understood: every register, every word read */
	r1.simple = 0;
	n = stack_memo_facts(regs, steps, 2, reads, 4, f);
	assert_int_equal(n, ARCH_NREGS + 4);

	/* a slot the rules name that was never read: everything too */
	r1.simple = 1;
	r0.kind[6] = RULE_SAME;
	n = stack_memo_facts(regs, steps, 2, reads + 1, 3, f);
	assert_int_equal(n, 5);
	n = stack_memo_facts(regs, steps, 2, reads, 3, f);
	assert_int_equal(n, ARCH_NREGS + 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers_only_when_every_fact_holds),
		cmocka_unit_test(test_a_key_keeps_its_newest_entries),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_facts_follow_the_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
