/*
 * unwind-internal.h - what the unwinder's files share; unwind.h is their
 * contract with the recorder.  Private to cli/record/unwind/unwind*.c.
 *
 *   unwind-modules.c  a space, its Dwfl, the mapped files reported to it
 *   unwind-cfi.c      what the CFI says at a pc, and the checks on a
 *                     caller libdwfl found by frame pointer where none does
 *   unwind.c          libdwfl's walk over one sample, the stack memo's use
 *                     of it, and the entry points
 *
 * Each calls only the files above it in this list.
 */
#ifndef PROFIL_RECORD_UNWIND_INTERNAL_H
#define PROFIL_RECORD_UNWIND_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cfirules.h"
#include "hmap.h"
#include "record/core/builder.h"
#include "stackmemo.h"
#include "unwind.h"

struct addr_space;

/* What libdwfl's callbacks read: the sample being unwound. */
struct current {
	pid_t tid;
	const uint64_t *regs;
	int no_rbp;		/* regs[ARCH_REG_FP] unknown: a blocked thread's */
	int only_sp_pc;		/* only rsp and the pc known */
	uint64_t stack_addr;
	const unsigned char *stack;
	size_t size;
	int read_above;		/* a read past the copy's end failed */
	int read_other;		/* a read elsewhere outside it failed */
	struct bframe *out;
	size_t first, n, max;	/* frames out[first..n) are this stack's */
	int prev_has_cfi;	/* the last frame taken has CFI: its caller is */
	int prev_outermost;	/*   known; or there is none */
	int prev_by_fp;		/* it has none, but its caller may be found
				   by frame pointer (generated code) */
	uint64_t prev_sp;	/* its stack pointer */
	int cut;		/* PROFIL_CUT_*, or 0 */
	uint32_t step;		/* the frame whose caller is being found */
	size_t nreads;		/* what the unwinding read, for the memo */
	int unfollowed;		/*   more of it than MEMO_READS, or frames */
	struct unwind_space *space;
};

struct unwind_space {
	pid_t pid;
	const struct addr_space *space;	/* the process image's, read here */
	Dwfl *dwfl;
	unsigned reported;	/* space->generation when last reported */
	struct current cur;
	/*
	 * The CFI rules found at each pc since the modules were last
	 * reported (rules_at: pc -> 1 + index in rules).  libdwfl looks
	 * the CFI up again for each frame it unwinds; we look it up once
	 * for the same few return addresses in sample after sample.
	 */
	struct hmap rules_at;
	struct cfi_rules *rules;
	size_t nrules, rules_cap;
	/*
	 * Stacks by what their unwinding depended on (stackmemo.h): most
	 * samples are taken where others were, under the same callers.
	 * Emptied with the rules.
	 */
	struct stack_memo memo;
	/*
	 * Generated code with unwind tables (jit.h, jit_code_unwind): each
	 * piece a module of its own, its ELF image here while libdwfl has
	 * it.  jit_after: not told again before then (CLOCK_MONOTONIC ns),
	 * so that telling costs a twentieth of the time at most.
	 */
	struct jit_image **images;
	size_t nimages, images_cap;
	unsigned jit_reported;	/* the code's unwind generation then */
	uint64_t jit_after;
};

/* ---- unwind-modules.c ---- */

/*
 * Forget what was learnt of s's modules (the CFI rules at each pc, the
 * stack memo): when they are reported again, or the rules grow too many.
 */
void unwind_forget(struct unwind_space *s);
/*
 * Make s's Dwfl and attach it at first use, with thread as libdwfl's
 * thread callbacks (unwind.c's: they answer from s->cur, the sample),
 * and report the mappings to it again if they changed.  0, or -1 if
 * there is no Dwfl (nothing can be unwound).
 */
int unwind_sync_modules(struct unwind_space *s,
    const Dwfl_Thread_Callbacks *thread);

/* ---- unwind-cfi.c ---- */

/*
 * The index in s->rules of the rules at pc, looked up in the CFI the
 * first time pc is asked for.  The index holds until unwind_forget(s); the
 * pointer &s->rules[i] only until the next call (s->rules may move).
 */
size_t unwind_rules_index(struct unwind_space *s, uint64_t pc);
/* Whether ret, with no CFI at ret - 1, was planted by hand, not a call. */
int unwind_planted_return(struct unwind_space *s, uint64_t ret);
/*
 * Whether the caller of code without CFI at pc (located as *f) may be
 * looked for by frame pointer.
 */
int unwind_by_frame_pointer(struct unwind_space *s, uint64_t pc,
    const struct bframe *f);
/*
 * Whether the caller at pc that libdwfl found by frame pointer for c's
 * last frame is kept; if so, it is counted and c's stack not memorized.
 */
int unwind_frame_pointer_caller(struct current *c, Dwfl_Frame *frame,
    uint64_t pc);

#endif
