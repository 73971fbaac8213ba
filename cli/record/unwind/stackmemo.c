/*
 * stackmemo.c - unwound stacks remembered by the registers and stack
 * words they were computed from.  See stackmemo.h.
 *
 * An entry in the pool: the offset + 1 of the next entry under the same
 * key (0: none), its number of facts and of frames, the facts (where,
 * value), the frames (object, value).  Registers come first among the
 * facts, so that most entries that do not hold are told apart by the
 * first few words.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackmemo.h"

#define ENTRY_HEAD	3
/*
 * Entries under one pc and stack pointer, at most (the same leaf called
 * from many places); a new one then takes the place of the oldest.
 */
#define CHAIN_MAX	16

static uint64_t
key_of(uint64_t pc, uint64_t sp)
{
	uint64_t k = pc * UINT64_C(0x9e3779b97f4a7c15) ^ sp;

	return k == UINT64_MAX ? 0 : k;	/* hmap's reserved key */
}

void
stack_memo_init(struct stack_memo *m)
{
	memset(m, 0, sizeof *m);
	hmap_init(&m->heads);
}

void
stack_memo_clear(struct stack_memo *m)
{
	hmap_free(&m->heads);
	hmap_init(&m->heads);
	m->len = 0;
}

void
stack_memo_free(struct stack_memo *m)
{
	hmap_free(&m->heads);
	free(m->pool);
	memset(m, 0, sizeof *m);
}

static int
holds(const uint64_t *e, const uint64_t *regs, uint64_t stack_addr,
    const unsigned char *stack, size_t size)
{
	const uint64_t *f = e + ENTRY_HEAD;

	for (uint64_t i = 0; i < e[1]; i++, f += 2) {
		uint64_t v;

		if (f[0] & MEMO_REG(0)) {
			if (regs[f[0] & 31] != f[1])
				return 0;
			continue;
		}
		if (f[0] < stack_addr || f[0] - stack_addr > size ||
		    size - (f[0] - stack_addr) < sizeof v)
			return 0;
		memcpy(&v, stack + (f[0] - stack_addr), sizeof v);
		if (v != f[1])
			return 0;
	}
	return 1;
}

size_t
stack_memo_find(const struct stack_memo *m, const uint64_t *regs,
    uint64_t stack_addr, const unsigned char *stack, size_t size,
    struct bframe *out, size_t room)
{
	uint64_t at = hmap_get(&m->heads, key_of(regs[ARCH_REG_PC], regs[ARCH_REG_SP]));

	for (; at != 0; at = m->pool[at - 1]) {
		const uint64_t *e = &m->pool[at - 1];
		const uint64_t *fr = e + ENTRY_HEAD + 2 * e[1];

		if (!holds(e, regs, stack_addr, stack, size))
			continue;
		if (e[2] > room)
			return 0;
		for (uint64_t i = 0; i < e[2]; i++)
			out[i] = (struct bframe){ (int)(int64_t)fr[2 * i],
			    fr[2 * i + 1] };
		return (size_t)e[2];
	}
	return 0;
}

void
stack_memo_add(struct stack_memo *m, uint64_t pc, uint64_t sp,
    const struct memo_fact *facts, size_t nfacts,
    const struct bframe *frames, size_t nframes)
{
	size_t need = ENTRY_HEAD + 2 * nfacts + 2 * nframes;
	uint64_t key = key_of(pc, sp), head, *e;
	size_t n;

	if (need > STACK_MEMO_WORDS)
		return;
	n = 0;
	for (uint64_t at = hmap_get(&m->heads, key); at != 0;
	    at = m->pool[at - 1])
		if (++n == CHAIN_MAX - 1) {
			m->pool[at - 1] = 0;	/* the oldest goes */
			break;
		}
	if (m->len + need > STACK_MEMO_WORDS)
		stack_memo_clear(m);
	if (m->len + need > m->cap) {
		size_t cap = m->cap ? m->cap : 4096;

		while (cap < m->len + need)
			cap *= 2;
		m->pool = xrealloc(m->pool, cap * sizeof *m->pool);
		m->cap = cap;
	}
	e = &m->pool[m->len];
	head = hmap_get(&m->heads, key);
	e[0] = head;
	e[1] = nfacts;
	e[2] = nframes;
	memcpy(e + ENTRY_HEAD, facts, nfacts * sizeof *facts);
	for (size_t i = 0; i < nframes; i++) {
		e[ENTRY_HEAD + 2 * nfacts + 2 * i] = (uint64_t)(int64_t)frames[i].obj;
		e[ENTRY_HEAD + 2 * nfacts + 2 * i + 1] = frames[i].value;
	}
	/* the head becomes this entry: hmap adds, so add the difference */
	hmap_add(&m->heads, key, (uint64_t)m->len + 1 - head);
	m->len += need;
}

/* The read at addr in step k, as relevant; 0 if there is none. */
static int
mark_read(const struct memo_read *reads, size_t nreads, uint32_t k,
    uint64_t addr, unsigned char *relevant)
{
	for (size_t i = 0; i < nreads; i++)
		if (reads[i].step == k && reads[i].addr == addr) {
			relevant[i] = 1;
			return 1;
		}
	return 0;
}

/*
 * From the outermost step in: which of frame k + 1's registers its
 * callers' unwinding used (live), so which of frame k's, through the
 * rules of step k.  The caller's pc (the return address, 16) is always
 * used.  A register saved at CFA + n makes the word read there a fact
 * and the CFA used; one unchanged makes frame k's own used; the CFA
 * uses its base register.  What frame 0 uses are facts of regs.
 */
static int
follow(const struct memo_step *steps, size_t nsteps,
    const struct memo_read *reads, size_t nreads, unsigned char *relevant,
    uint32_t *regs_used)
{
	uint32_t live = 0;

	for (size_t k = nsteps; k-- > 0;) {
		const struct cfi_rules *r = steps[k].rules;
		uint32_t need = live | 1u << 16, used = 0;
		int cfa = 0;

		if (!r->simple || !steps[k].cfa_known)
			return 0;
		for (int reg = 0; reg < ARCH_NREGS; reg++) {
			if (!(need & 1u << reg))
				continue;
			switch (r->kind[reg]) {
			case RULE_SAME:
				used |= 1u << reg;
				break;
			case RULE_AT_CFA:
				if (!mark_read(reads, nreads, (uint32_t)k,
				    steps[k].cfa + (uint64_t)r->off[reg],
				    relevant))
					return 0;
				cfa = 1;
				break;
			case RULE_IS_CFA:
				cfa = 1;
				break;
			default:	/* used, yet undefined: not understood */
				return 0;
			}
		}
		if (cfa)
			used |= 1u << r->cfa_reg;
		live = used;
	}
	*regs_used = live;
	return 1;
}

size_t
stack_memo_facts(const uint64_t *regs, const struct memo_step *steps,
    size_t nsteps, const struct memo_read *reads, size_t nreads,
    struct memo_fact *facts)
{
	unsigned char relevant[nreads ? nreads : 1];
	uint32_t used;
	size_t n = 0;

	memset(relevant, 0, sizeof relevant);
	if (!follow(steps, nsteps, reads, nreads, relevant, &used)) {
		used = (1u << ARCH_NREGS) - 1;
		memset(relevant, 1, sizeof relevant);
	}
	used |= 1u << 7 | 1u << 16;	/* the memo's key */
	for (int reg = 0; reg < ARCH_NREGS; reg++)
		if (used & 1u << reg)
			facts[n++] = (struct memo_fact){ MEMO_REG(reg), regs[reg] };
	for (size_t i = 0; i < nreads; i++)
		if (relevant[i])
			facts[n++] = (struct memo_fact){ reads[i].addr,
			    reads[i].value };
	return n;
}
