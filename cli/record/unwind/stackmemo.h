/*
 * stackmemo.h - unwound stacks remembered by what they were computed
 * from, so that a sample whose unwinding would read the same things gets
 * the same frames without libdwfl stepping through them again.
 *
 * With an address space's modules fixed, what libdwfl's unwinder makes
 * of a sample is a function of the initial registers it is given and of
 * the stack words it reads (through the memory_read callback): each step
 * reads places computed from what the steps before it read.  An entry is
 * a list of such facts, "register n held v" and "the word at address a
 * held v", with the frames they gave.  A later sample of which every
 * fact holds would be unwound through the same reads to the same frames.
 *
 * Entries are found by the sample's pc and stack pointer, which are
 * always among their facts.  The owner clears the memo whenever its
 * modules change.  Memory is bounded: past STACK_MEMO_WORDS the memo
 * starts again empty.
 */
#ifndef PROFIL_RECORD_STACKMEMO_H
#define PROFIL_RECORD_STACKMEMO_H

#include <stddef.h>
#include <stdint.h>

#include "cfirules.h"
#include "hmap.h"
#include "record/core/builder.h"

#define STACK_MEMO_WORDS (1u << 17)	/* 1 MiB a process, at most */

/* A fact's where: a user address, or register n (DWARF numbering). */
#define MEMO_REG(n)	(UINT64_C(1) << 63 | (uint64_t)(n))
struct memo_fact {
	uint64_t where, value;
};

struct stack_memo {
	struct hmap heads;	/* key of (pc, sp) -> 1 + newest entry's offset */
	uint64_t *pool;		/* entries, one after another */
	size_t len, cap;
};

void stack_memo_init(struct stack_memo *m);
void stack_memo_clear(struct stack_memo *m);
void stack_memo_free(struct stack_memo *m);

/*
 * The frames of an entry whose facts all hold for a sample with
 * registers regs (DWARF 0-16; 7 the stack pointer, 16 the pc) and size
 * bytes of stack copied from stack_addr, copied to out: their number,
 * or 0 if no entry holds or its frames would take more than room.
 */
size_t stack_memo_find(const struct stack_memo *m, const uint64_t *regs,
    uint64_t stack_addr, const unsigned char *stack, size_t size,
    struct bframe *out, size_t room);

/*
 * What an unwinding that ended whole depended on, from what it did: in
 * step k it found frame k's caller from frame k's rules and CFA, reading
 * the stack words of reads[] marked k.  Written to facts (room for
 * ARCH_NREGS + nreads): the registers of regs and the words read that
 * the frames' pcs and CFAs were computed from, following each rule back;
 * every register and every word read if some step's rules are not
 * simple (cfirules.h).  Their number.
 */
struct memo_step {
	const struct cfi_rules *rules;
	uint64_t cfa;
	int cfa_known;
};
struct memo_read {
	uint64_t addr, value;
	uint32_t step;
};
size_t stack_memo_facts(const uint64_t *regs, const struct memo_step *steps,
    size_t nsteps, const struct memo_read *reads, size_t nreads,
    struct memo_fact *facts);

/*
 * Remember frames[0..nframes) as what facts[0..nfacts) give; the facts
 * must include registers 7 (sp = regs[ARCH_REG_SP]) and 16 (pc = regs[ARCH_REG_PC]).
 */
void stack_memo_add(struct stack_memo *m, uint64_t pc, uint64_t sp,
    const struct memo_fact *facts, size_t nfacts,
    const struct bframe *frames, size_t nframes);

#endif
