/*
 * sample.c - the one sample sink (sample.h): a sample placed, unwound,
 * kept back for a JIT name or given to the builder, and the accounts
 * that follow CPU samples told; a thread's time off the CPU handed to
 * them.  Every engine's samples come here, so
 * each decision is made once: where a pc belongs, what a stack is made
 * of, when a sample waits.
 */
#include <linux/perf_event.h>

#include "record/core/clock.h"
#include "record/jit/jit.h"
#include "sample.h"

/* kernel + user + a cut, and a kernel frame on top for the kernel's share */
#define MAX_FRAMES	(2 * UNWIND_MAX_DEPTH + 3)

/* Where pc lies in the process (jit_place). */
static int
place(const struct sample_place *at, uint64_t pc, struct bframe *f)
{
	return jit_place(at->space, pc, at->ever, f);
}

/* When s was: its time, or now where the engine did not say (clock.h). */
static uint64_t
when(const struct sample *s)
{
	return s->time != 0 ? s->time : record_now_ns();
}

/* A stack to the builder, or kept back until a JIT runtime names it. */
static void
give(const struct sample_sink *k, const struct sample_place *at,
    const struct bframe *frames, size_t n, const struct sample *s,
    uint64_t weight)
{
	if (at == NULL || at->space == NULL ||
	    !jit_code_defer(at->space->jit, frames, n, weight, s->pid, s->tid,
	    0))
		builder_sample_stack(k->b, frames, n, weight, s->pid, s->tid,
		    when(s));
}

/* A sample without its stack: the flat profile's pc. */
static void
take_flat(const struct sample_sink *k, const struct sample_place *at,
    const struct sample *s)
{
	struct bframe f;

	if (k->ktime != NULL)
		kernel_time_sample(k->ktime, s->pid, s->tid, s->time, s->period,
		    NULL, 0);
	if (s->mode == SAMPLE_KERNEL)
		builder_kernel(k->b, s->pc, s->weight, s->pid, s->tid);
	else if (s->mode == SAMPLE_OTHER)
		builder_unknown(k->b, s->weight, s->pid, s->tid);
	else if (place(at, s->pc, &f))
		builder_sample(k->b, f.obj, f.value, s->weight, s->pid, s->tid);
	else if (at->space == NULL || !jit_code_defer(at->space->jit, &f, 1,
	    s->weight, s->pid, s->tid, 1))
		/* generated code named by files read at the end (jit.h) */
		builder_unknown(k->b, s->weight, s->pid, s->tid);
}

/*
 * The kernel's frames of a kernel-mode sample into out: its call chain,
 * leaf first, the context markers (PERF_CONTEXT_*) left out, or its pc
 * alone.  Returns how many.
 */
static size_t
kernel_frames(const struct sample *s, struct bframe *out)
{
	size_t n = 0;

	for (uint64_t i = 0; i < s->nchain && n < UNWIND_MAX_DEPTH; i++) {
		uint64_t a = s->chain[i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		/*
		 * callers' addresses are returns: the call is before.  (n is
		 * read before the store, in a statement of its own: "out[n++]
		 * = ... n == 0 ..." read it after the increment, and named
		 * every leaf at a function's first byte after the padding
		 * before it, __pfx_*.)
		 */
		out[n] = (struct bframe){ BFRAME_KERNEL, n == 0 ? a : a - 1 };
		n++;
	}
	if (n == 0)
		out[n++] = (struct bframe){ BFRAME_KERNEL, s->pc };
	return n;
}

/*
 * The user frames of s appended to out[n..]: unwound from its registers
 * and stack copy, at most UNWIND_MAX_DEPTH and a cut; or where the pc is
 * and why the stack stops there.  Returns the new count.
 */
static size_t
user_frames(const struct sample_place *at, const struct sample *s,
    struct bframe *out, size_t n)
{
	if (s->regs != NULL && at->uw != NULL && s->behind) {
		/* unwinding less, so as to lose no sample: say where */
		place(at, s->regs[ARCH_REG_PC], &out[n++]);
		out[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_BEHIND };
	} else if (s->regs != NULL && at->uw != NULL) {
		n = unwind_stack(at->uw, s->tid, s->regs, s->sp, s->copy,
		    s->copy_size, out, n, n + UNWIND_MAX_DEPTH + 1);
		/*
		 * Past the copy, where the kernel copied less than asked: it
		 * stopped at a page it could not read at the sample (a page
		 * of a big local array the program never touched); a larger
		 * --stack-size would not help, and the views say which.
		 */
		if (n > 0 && out[n - 1].obj == BFRAME_CUT &&
		    out[n - 1].value == PROFIL_CUT_STACK &&
		    s->copy_size < s->copy_asked)
			out[n - 1].value = PROFIL_CUT_UNREAD;
	} else if (s->mode != SAMPLE_KERNEL || s->ours) {
		/* a process of ours without its registers: say so */
		if (n == 0)
			place(at, s->pc, &out[n++]);
		out[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN };
	}
	return n;
}

/*
 * A sample with its stack: the kernel's frames, then the user's; its
 * kernel share (the timer engine's) under a kernel frame on top of the
 * user stack.  out[0] is kept free for that frame.
 */
static void
take_stack(const struct sample_sink *k, const struct sample_place *at,
    const struct sample *s)
{
	struct bframe frames[MAX_FRAMES], *stack = frames + 1;
	uint64_t kernel = s->kernel < s->weight ? s->kernel : s->weight;
	size_t n = 0;

	if (s->mode == SAMPLE_KERNEL)
		n = kernel_frames(s, stack);
	n = user_frames(at, s, stack, n);
	if (s->weight > kernel)
		give(k, at, stack, n, s, s->weight - kernel);
	if (kernel > 0) {
		/* in the kernel, called from where the thread is */
		frames[0] = (struct bframe){ BFRAME_KERNEL, 0 };
		give(k, at, frames, n + 1, s, kernel);
		stack = frames;
		n++;
	}
	if (k->wall != NULL)	/* where a preemption would hit */
		wall_cpu_sample(k->wall, s->pid, s->tid, s->time, stack, n);
	if (k->ktime != NULL)
		kernel_time_sample(k->ktime, s->pid, s->tid, s->time, s->period,
		    stack, n);
}

/*
 * An event of a thread's time off the CPU, to the wall time and the
 * kernel's time (each follows the thread's switches, and parts where a
 * switch is missing: docs/design.md), in the order each event has
 * always told them.
 */
static void
take_event(const struct sample_sink *k, const struct sample *s)
{
	struct wall *w = k->wall;
	struct kernel_time *kt = k->ktime;

	switch (s->kind) {
	case SAMPLE_START:
		if (w != NULL)
			wall_thread_start(w, s->pid, s->tid, s->time);
		if (kt != NULL)
			kernel_time_start(kt, s->pid, s->tid, s->time);
		break;
	case SAMPLE_RUNNING:
		if (kt != NULL)
			kernel_time_running(kt, s->pid, s->tid, s->time);
		if (w != NULL)
			wall_thread_running(w, s->pid, s->tid, s->time);
		break;
	case SAMPLE_ATTACH:
		if (w != NULL)
			wall_thread_attach(w, s->pid, s->tid, s->time);
		if (kt != NULL)
			kernel_time_attach(kt, s->pid, s->tid, s->time);
		break;
	case SAMPLE_SWITCH_OUT:
		if (kt != NULL)
			kernel_time_switch_out(kt, s->pid, s->tid, s->time);
		if (w != NULL)
			wall_switch_out(w, s->pid, s->tid, s->time,
			    s->preempted);
		break;
	case SAMPLE_SWITCH_IN:
		if (kt != NULL)
			kernel_time_switch_in(kt, s->pid, s->tid, s->time);
		if (w != NULL)
			wall_switch_in(w, s->pid, s->tid, s->time);
		break;
	case SAMPLE_EXIT:
		if (w != NULL)
			wall_thread_exit(w, s->pid, s->tid, s->time);
		if (kt != NULL)
			kernel_time_exit(kt, s->pid, s->tid, s->time);
		break;
	case SAMPLE_BLOCKED:
		if (w != NULL)
			wall_add_blocked(w, s->pid, s->tid, when(s), s->ns,
			    s->exact);
		break;
	case SAMPLE_UNSEEN:
		if (w != NULL)
			wall_add_unseen(w, s->pid, s->tid, when(s), s->ns);
		break;
	case SAMPLE_RUNNABLE:
		if (w != NULL)
			wall_add_runnable(w, s->pid, s->tid, when(s), s->ns);
		break;
	case SAMPLE_COUNTED:
		if (w != NULL) {
			wall_thread_counted(w, s->pid, s->tid, s->ns);
			wall_thread_done(w, s->pid, s->tid);
		}
		break;
	case SAMPLE_CPU:
		break;
	}
}

void
sample_take(const struct sample_sink *k, const struct sample_place *at,
    const struct sample *s)
{
	if (s->kind != SAMPLE_CPU)
		take_event(k, s);
	else if (s->frames != NULL && s->stacks)
		give(k, at, s->frames, s->nframes, s, s->weight);
	else if (s->frames != NULL)
		builder_kernel(k->b, s->frames[0].value, s->weight, s->pid,
		    s->tid);
	else if (s->stacks)
		take_stack(k, at, s);
	else
		take_flat(k, at, s);
}
