/*
 * session-internal.h - what the session's files share; session.h is the
 * module's contract with the rest.  session.c, the caller's side, starts
 * and stops sessions and publishes the state below; the signal
 * handler's side reads it: session-sample.c (a sample into the plan),
 * session-pcmap.c (a sample in no range, into a pcmap) and
 * session-kernel.c (a sample's share of kernel time).
 *
 * Invariant: a plan is freed only after it has been unpublished and no
 * handler that may have read it is still running.  Handlers announce
 * themselves in session_readers before they load session_live_plan, so a
 * writer that swaps the pointer and then sees session_readers == 0 knows
 * no handler holds the old plan (all accesses are sequentially
 * consistent).  session_live_budget and session_base_ns change only
 * while no clock is armed and no handler runs.
 */
#ifndef PROFIL_SESSION_INTERNAL_H
#define PROFIL_SESSION_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "plan/plan.h"
#include "sampler/budget.h"

/* The running (or last) session's totals (struct profil_status's). */
struct session_stats {
	atomic_ullong signals, samples, outside, saturated, faulted;
	atomic_uint ranges_off;
};

extern struct session_stats session_stats;
extern struct plan *_Atomic session_live_plan;	/* NULL: none */
extern atomic_ulong session_readers;		/* handlers holding it */
/*
 * The budget and counters samples go to (budget.h): the agent's shared
 * ones, or the session's own.  Published before the clocks are armed,
 * taken away after they are disarmed; NULL: samples are counted as they
 * come.
 */
extern struct budget *_Atomic session_live_budget;
extern uint64_t session_base_ns;	/* the base period: a count's time */

/*
 * Count a sample in no range at pc into the pcmap m (session-pcmap.c):
 * user in the user code at pc, kernel in the kernel called from there;
 * with its stack captured in m's ring if it has one and the capture
 * succeeds, else in its pc table; and in its thread table.
 * Async-signal-safe.
 */
void session_count_pc(struct plan_pcmap *m, uintptr_t pc, unsigned long user,
    unsigned long kernel, const void *ucontext);

/*
 * How much of a sample of weight, or on top of it, stands for time the
 * thread spent in the kernel since its last sample (session-kernel.c):
 * by_tick for a CPU timer's sample (all of weight or none: the mode of
 * the tick it fired at), else a perf clock's (on top of it; 0 while the
 * thread's kernel watch places that time instead).  Async-signal-safe.
 */
unsigned long session_kernel_weight(unsigned long weight, int by_tick,
    const void *ucontext);
/*
 * At a tick of the thread's kernel watch (thread_clock.h): the kernel
 * time its perf clock missed since the last payment, if the tick came in
 * the kernel (the signal waits for the system call to return, ucontext
 * at the call that entered it), else 0.  Async-signal-safe.
 */
unsigned long session_kernel_watch(const void *ucontext);

#endif
