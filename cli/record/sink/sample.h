/*
 * sample.h - the recorder's one sample sink.  Each engine only decodes
 * its transport (the perf ring's records, the timer engine's pc tables
 * and capture ring; the kernel's time counted from switches) into a
 * struct sample, and hands it to sample_take, which decides the rest:
 * where its pc belongs (a mapping, code a JIT runtime named, unknown
 * code, the kernel), its stack unwound, what must wait for a JIT name
 * kept back, the wall time and the kernel time told of a CPU sample,
 * and the result given to the builder.  The record path reads
 *
 *     drain -> decode (perf-records.c, timer-stacks.c, timer-region.c)
 *           -> sample_take (here) -> builder (record/core/builder.h)
 *
 * What a sample weighs is the engine's to say (base periods); nothing
 * per sample is kept here.
 */
#ifndef PROFIL_RECORD_SINK_SAMPLE_H
#define PROFIL_RECORD_SINK_SAMPLE_H

#include <stdint.h>
#include <sys/types.h>

#include "arch.h"
#include "record/core/addrspace.h"
#include "record/core/builder.h"
#include "record/unwind/unwind.h"
#include "record/wall/kernel-time.h"
#include "record/wall/wall.h"

/*
 * What a sample tells: a CPU sample (a pc and its stack), or an event of
 * its thread's time off the CPU, for the accounts that follow it (the
 * wall time, the kernel's time counted from switches): the ends of an
 * interval (time), or an interval's length as the kernel counted it
 * (ns: the timer engine's schedstat readings).
 */
enum sample_kind {
	SAMPLE_CPU,		/* on the CPU: the pc, the stack */
	SAMPLE_START,		/* a thread (or process) made, at time */
	SAMPLE_RUNNING,		/* running at time, first seen so (its exec) */
	SAMPLE_ATTACH,		/* found at an attach, at time */
	SAMPLE_SWITCH_OUT,	/* off the CPU at time (preempted, or not) */
	SAMPLE_SWITCH_IN,	/* back on it at time */
	SAMPLE_EXIT,		/* ended at time */
	SAMPLE_BLOCKED,		/* blocked ns where it was seen (exact) */
	SAMPLE_UNSEEN,		/* blocked ns, where not seen */
	SAMPLE_RUNNABLE,	/* waited ns for a CPU */
	SAMPLE_COUNTED,		/* ran ns on the CPU in all, and is done */
};

/* Where the pc was when the sample was taken. */
enum sample_mode {
	SAMPLE_USER,		/* user code: placed in the process's space */
	SAMPLE_KERNEL,		/* the kernel: pc is the kernel's, or 0 */
	SAMPLE_OTHER,		/* a guest, the hypervisor: unknown code */
};

struct sample {
	enum sample_kind kind;
	pid_t pid, tid;
	uint64_t time;		/* the perf records' clock, ns; 0: not known */
	uint64_t ns;		/* an interval's length (BLOCKED ... COUNTED) */
	int preempted;		/* SWITCH_OUT: runnable, not blocked */
	int exact;		/* BLOCKED: seen there before and after */
	uint64_t period;	/* the CPU time between two samples (perf), ns */
	uint64_t weight;	/* base periods the sample stands for ... */
	uint64_t kernel;	/* ... of which in the kernel, called from
				   the user stack (the timer engine's split) */
	enum sample_mode mode;
	uint64_t pc;
	/*
	 * With call stacks (stacks set): the kernel's call chain (perf's
	 * PERF_SAMPLE_CALLCHAIN, its context markers in it), the user
	 * registers (NULL: none taken) and the copy of the stack from sp,
	 * copy_asked the bytes asked of the kernel (0: the copy is whole).
	 */
	int stacks;
	const uint64_t *chain;
	uint64_t nchain;
	const uint64_t *regs;	/* ARCH_NREGS, DWARF order */
	uint64_t sp;
	const void *copy;
	uint64_t copy_size, copy_asked;
	int behind;		/* the recorder is behind: the pc only, cut */
	int ours;		/* a process we profile: a stack not taken
				   is said (a kernel thread's is not) */
	/*
	 * Frames placed already (the kernel's time counted from switches,
	 * under the stack the samples around it share): taken as they are.
	 */
	const struct bframe *frames;
	size_t nframes;
};

/* The process a sample is of: its mappings, its unwinder (or NULL). */
struct sample_place {
	struct addr_space *space;	/* NULL: not read yet */
	struct unwind_space *uw;
	int ever;		/* a pc may be in code unmapped since (the
				   timer engine reads the maps late) */
};

/* Where samples go: the profile, and the accounts that follow them. */
struct sample_sink {
	struct builder *b;
	struct wall *wall;		/* --wall, or NULL */
	struct kernel_time *ktime;	/* the kernel's time from switches */
};

/*
 * Take sample s of the process at: placed, unwound, counted; kept back
 * while it waits for a JIT name (jit.h, jit_code_defer).  An event of a
 * thread's time off the CPU goes to the accounts k has (at unused).
 */
void sample_take(const struct sample_sink *k, const struct sample_place *at,
    const struct sample *s);

#endif
