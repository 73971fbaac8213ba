/*
 * unwind.c - libdwfl's unwinder on sampled registers and stack copies
 * (unwind.h): the walk over one sample, the stack memo's use of it, and
 * the entry points.  libdwfl's thread callbacks answer from the sample
 * being unwound: the registers, and memory from the stack copy only
 * (never /proc/PID/mem: the process has moved on).  The space and its
 * modules are unwind-modules.c's; what the CFI says, unwind-cfi.c's.
 *
 * Invariant: no frame is made up.  libdwfl guesses a caller from the
 * frame pointer where a function has no CFI; so a frame is kept only if
 * the frame it was unwound from has CFI, or passes the frame-pointer
 * checks of unwind-cfi.c (generated code), else the stack is cut there.
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stackmemo.h"
#include "unwind-internal.h"
#include "unwind.h"

#define MEMO_READS	1024	/* stack words one unwinding reads, noted */
#define CFI_MEMO_MAX	32768	/* pcs remembered (3 MiB); then anew */

/*
 * What the unwinding at hand read and did, step by step, for the memo's
 * facts.  The recorder unwinds one sample at a time.
 */
static struct {
	struct memo_read reads[MEMO_READS];
	struct memo_step steps[UNWIND_MAX_DEPTH];
	size_t rule_index[UNWIND_MAX_DEPTH];
	struct memo_fact facts[ARCH_NREGS + MEMO_READS];
} scratch;

/* ---- libdwfl's thread callbacks: the sample at hand ---------------------- */

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_space *s = arg;

	(void)dwfl;
	if (*thread_argp != NULL)
		return 0;
	*thread_argp = s;
	return s->cur.tid;
}

static bool
get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;	/* whichever thread: the sample at hand */
	return true;
}

static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct current *c = &((struct unwind_space *)arg)->cur;

	(void)dwfl;
	if (addr >= c->stack_addr && addr - c->stack_addr <= c->size &&
	    c->size - (addr - c->stack_addr) >= sizeof *result) {
		memcpy(result, c->stack + (addr - c->stack_addr), sizeof *result);
		if (c->nreads == MEMO_READS)
			c->unfollowed = 1;
		else
			scratch.reads[c->nreads++] = (struct memo_read){ addr,
			    *result, c->step };
		return true;
	}
	if (addr >= c->stack_addr + c->size)
		c->read_above = 1;
	else
		c->read_other = 1;
	return false;
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct current *c = &((struct unwind_space *)arg)->cur;

	/* DWARF 0-16; 16 is the return address column, here the pc */
	if (!c->only_sp_pc)
		return dwfl_thread_state_registers(thread, 0, ARCH_NREGS,
		    (const Dwarf_Word *)c->regs);
	/*
	 * A blocked thread: its stack pointer and pc, and maybe a frame
	 * pointer; the others left undefined, so that an unwinding that
	 * needs one stops rather than goes on from a made-up value.
	 */
	if (!dwfl_thread_state_registers(thread, 7, 1,
	    (const Dwarf_Word *)&c->regs[ARCH_REG_SP]) ||
	    !dwfl_thread_state_registers(thread, 16, 1,
	    (const Dwarf_Word *)&c->regs[ARCH_REG_PC]))
		return false;
	return c->no_rbp || dwfl_thread_state_registers(thread, 6, 1,
	    (const Dwarf_Word *)&c->regs[ARCH_REG_FP]);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- unwinding ----------------------------------------------------------- */

static int
take_frame(Dwfl_Frame *frame, void *arg)
{
	struct current *c = arg;
	struct unwind_space *s = c->space;
	const struct cfi_rules *r;
	struct memo_step *step;
	Dwarf_Addr pc;
	Dwarf_Word base;
	bool activation;
	int planted;
	size_t k = c->n - c->first, i;

	/*
	 * The frame's caller is found from now on: to tell activation,
	 * libdwfl unwinds the frame, and if it has not, it will when we
	 * return (the first frame).
	 */
	c->step = (uint32_t)k;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (c->n > c->first) {
		/* the previous frame had no caller: whatever follows is made up */
		if (c->prev_outermost)
			return DWARF_CB_ABORT;
		/* unwound from the previous frame: by its CFI, or guessed? */
		if (!c->prev_has_cfi && !(c->prev_by_fp &&
		    unwind_frame_pointer_caller(c, frame, pc))) {
			c->cut = PROFIL_CUT_NO_UNWIND;
			return DWARF_CB_ABORT;
		}
		if (pc == 0)
			return DWARF_CB_ABORT;	/* the end, as some set it */
	}
	if (c->n == c->max) {
		c->cut = PROFIL_CUT_DEPTH;
		return DWARF_CB_ABORT;
	}
	/* a return address: the call is the instruction before it */
	if (!activation)
		pc--;
	i = unwind_rules_index(s, pc);
	r = &s->rules[i];
	/* the trampoline makecontext put under a coroutine: its root */
	planted = !activation && !r->has_cfi &&
	    unwind_planted_return(s, pc + 1);
	unwind_locate(s, planted ? pc + 1 : pc, &c->out[c->n]);
	c->prev_has_cfi = r->has_cfi || planted;
	c->prev_outermost = r->outermost || planted;
	c->prev_by_fp = !c->prev_has_cfi && unwind_by_frame_pointer(s, pc,
	    &c->out[c->n]);
	if (dwfl_frame_reg(frame, ARCH_REG_SP, &base) != 0)
		base = 0;
	c->prev_sp = base;
	c->n++;
	if (k >= UNWIND_MAX_DEPTH) {
		c->unfollowed = 1;	/* deeper than the memo follows */
		return DWARF_CB_OK;
	}
	/* where libdwfl will look for this frame's caller: its CFA */
	scratch.rule_index[k] = i;
	step = &scratch.steps[k];
	step->cfa_known = r->simple &&
	    dwfl_frame_reg(frame, r->cfa_reg, &base) == 0;
	step->cfa = step->cfa_known ? base + (uint64_t)r->cfa_off : 0;
	return DWARF_CB_OK;
}

/* One unwinding of the sample in s->cur by libdwfl: frames, or a cut. */
static void
unwind_once(struct unwind_space *s)
{
	struct current *c = &s->cur;
	int rc;

	c->n = c->first;
	c->prev_has_cfi = c->prev_outermost = c->prev_by_fp = c->cut = 0;
	c->read_above = c->read_other = c->unfollowed = 0;
	c->nreads = 0;
	rc = dwfl_getthread_frames(s->dwfl, c->tid, take_frame, c);
	if (c->n == c->first) {
		/* not even the first frame: the pc as it is */
		unwind_locate(s, c->regs[ARCH_REG_PC], &c->out[c->n++]);
		c->cut = PROFIL_CUT_BROKEN;
	} else if (c->cut == 0 && !c->prev_outermost) {
		/*
		 * Stopped without reaching a frame whose CFI says it has no
		 * caller: find out why.
		 */
		if (!c->prev_has_cfi)
			c->cut = PROFIL_CUT_NO_UNWIND;
		else if (c->read_above)
			c->cut = PROFIL_CUT_STACK;
		else if (rc != 0 || c->read_other)
			c->cut = PROFIL_CUT_BROKEN;
		else
			c->cut = PROFIL_CUT_BROKEN;
	}
}

/*
 * Whether the unwinding just done is one the memo may give again: whole
 * (it ended at a frame whose CFI says it has no caller), with every read
 * it made noted.
 */
static int
memorable(const struct current *c)
{
	return c->cut == 0 && c->prev_outermost && !c->unfollowed;
}

static int
same_frames(const struct bframe *a, size_t na, const struct bframe *b,
    size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (a[i].obj != b[i].obj || a[i].value != b[i].value)
			return 0;
	return 1;
}

static struct unwind_memo_counts counts;

void
unwind_memo_counts(struct unwind_memo_counts *out)
{
	*out = counts;
}

/* PROFIL_UNWIND_VERIFY=1: unwind every sample the memo answers again. */
static int
verifying(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("PROFIL_UNWIND_VERIFY");

		v = e != NULL && strcmp(e, "1") == 0;
	}
	return v;
}

/* Remember the stack just unwound, by the facts it depended on. */
static void
memorize(struct unwind_space *s)
{
	struct current *c = &s->cur;
	size_t nsteps = c->n - c->first - 1, nfacts;

	/* the steps that found the frames' callers; the last found none */
	for (size_t k = 0; k < nsteps; k++)
		scratch.steps[k].rules = &s->rules[scratch.rule_index[k]];
	nfacts = stack_memo_facts(c->regs, scratch.steps, nsteps,
	    scratch.reads, c->nreads, scratch.facts);
	stack_memo_add(&s->memo, c->regs[ARCH_REG_PC], c->regs[ARCH_REG_SP], scratch.facts, nfacts,
	    &c->out[c->first], c->n - c->first);
}

/* unwind_stack, with only_sp_pc/no_rbp as struct current has them. */
static size_t
unwind_with(struct unwind_space *s, pid_t tid,
    const uint64_t regs[ARCH_NREGS], int only_sp_pc, int no_rbp,
    uint64_t stack_addr, const void *stack, size_t size, struct bframe *out,
    size_t n, size_t max)
{
	struct current *c = &s->cur;
	struct bframe known[UNWIND_MAX_DEPTH];
	size_t nknown;

	if (n >= max)
		return n;
	if (unwind_sync_modules(s, &thread_callbacks) < 0) {
		/* no unwinder at all: the place itself, and a cut */
		unwind_locate(s, regs[ARCH_REG_PC], &out[n++]);
		if (n < max)
			out[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_BROKEN };
		return n;
	}
	/* room as the unwinding has it: no cut for the depth in it */
	nknown = stack_memo_find(&s->memo, regs, stack_addr, stack, size,
	    known, max - n - 1 < UNWIND_MAX_DEPTH ? max - n - 1 :
	    UNWIND_MAX_DEPTH);
	if (nknown > 0) {
		counts.hits++;
		if (!verifying()) {
			memcpy(&out[n], known, nknown * sizeof *known);
			return n + nknown;
		}
	} else
		counts.misses++;
	if (s->nrules >= CFI_MEMO_MAX)
		unwind_forget(s);
	memset(c, 0, sizeof *c);
	c->tid = tid;
	c->regs = regs;
	c->only_sp_pc = only_sp_pc;
	c->no_rbp = no_rbp;
	c->stack_addr = stack_addr;
	c->stack = stack;
	c->size = size;
	c->out = out;
	c->first = n;
	c->max = max - 1;	/* room for a cut */
	c->space = s;
	unwind_once(s);
	if (nknown == 0 && memorable(c))
		memorize(s);
	if (c->cut != 0)
		out[c->n++] = (struct bframe){ BFRAME_CUT, (uint64_t)c->cut };
	if (nknown > 0 && !same_frames(known, nknown, &out[n], c->n - n) &&
	    counts.wrong++ == 0)
		counts.first_wrong_pc = regs[ARCH_REG_PC];	/* the first says where */
	return c->n;
}

size_t
unwind_stack(struct unwind_space *s, pid_t tid,
    const uint64_t regs[ARCH_NREGS], uint64_t stack_addr, const void *stack,
    size_t size, struct bframe *out, size_t n, size_t max)
{
	return unwind_with(s, tid, regs, 0, 0, stack_addr, stack, size, out, n,
	    max);
}

/* Whether frames out[from..n) end without a cut, or at one past the copy. */
static int
whole(const struct bframe *out, size_t from, size_t n)
{
	if (n <= from)
		return 0;
	return out[n - 1].obj != BFRAME_CUT ||
	    out[n - 1].value == PROFIL_CUT_STACK ||
	    out[n - 1].value == PROFIL_CUT_DEPTH;
}

#define RBP_TRIES	16	/* frame pointers tried, lowest first */

size_t
unwind_blocked(struct unwind_space *s, pid_t tid, uint64_t sp, uint64_t pc,
    const void *stack, size_t size, struct bframe *out, size_t n, size_t max)
{
	uint64_t regs[ARCH_NREGS] = { 0 };
	struct bframe *best = NULL;
	size_t got, tries = 0;
	const uint8_t *bytes = stack;

	regs[ARCH_REG_SP] = sp;
	regs[ARCH_REG_PC] = pc;
	got = unwind_with(s, tid, regs, 1, 1, sp, stack, size, out, n, max);
	if (whole(out, n, got) || size < 16)
		return got;
	/*
	 * Cut: code whose frames are found from the frame pointer (built
	 * with -fno-omit-frame-pointer) needs rbp, which the kernel does
	 * not tell.  Where a frame record is (saved rbp, then a return
	 * address into known code), try it as rbp, lowest first: a wrong
	 * one makes no whole stack out of return addresses.
	 */
	best = xcalloc(max, sizeof *best);
	memcpy(best, out, got * sizeof *out);
	for (size_t off = 0; off + 16 <= size && tries < RBP_TRIES; off += 8) {
		uint64_t saved, ret, at = sp + off;
		struct bframe f;
		size_t k;

		memcpy(&saved, bytes + off, 8);
		memcpy(&ret, bytes + off + 8, 8);
		if (saved != 0 && (saved <= at || saved - sp >= (uint64_t)1 << 32))
			continue;
		unwind_locate(s, ret - 1, &f);
		if (f.obj < 0)
			continue;
		tries++;
		regs[ARCH_REG_FP] = at;
		k = unwind_with(s, tid, regs, 1, 0, sp, stack, size, out, n, max);
		if (whole(out, n, k) && k > got) {
			free(best);
			return k;
		}
	}
	memcpy(out, best, got * sizeof *out);
	free(best);
	return got;
}
