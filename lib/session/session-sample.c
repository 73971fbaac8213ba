/*
 * session-sample.c - the signal handler's side of the session: a sample
 * counted into the published plan (session_sample), weighed under a
 * budget.  Async-signal-safe: atomics, raw system calls, and counters
 * touched only through the fault-safe arch functions.  A handler is
 * among session_readers from before it loads the plan until it is done
 * with it (session-internal.h).
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch.h"
#include "plan/bins.h"
#include "sampler/sigmark.h"
#include "sampler/thread_clock.h"
#include "sampler/threads.h"
#include "session/session-internal.h"
#include "session/session.h"

static void
count_into(struct plan_range *r, uintptr_t pc, unsigned long weight)
{
	uint64_t index = bins_index(pc, r->offset, r->granule_shift, r->scale);
	char *counter = (char *)r->counters + index * r->counter_bytes;
	long lost;

	lost = r->counter_bytes == 2
	    ? profil_arch_add_u16((uint16_t *)counter, weight)
	    : profil_arch_add_u32((uint32_t *)counter, weight);
	if (lost < 0) {
		/* The buffer went away: this range stops, the program goes on. */
		if (atomic_exchange(&r->off, 1) == 0)
			atomic_fetch_add(&session_stats.ranges_off, 1);
		atomic_fetch_add(&session_stats.faulted, weight);
	} else if (lost > 0) {
		atomic_fetch_add(&session_stats.saturated, (unsigned long)lost);
	}
}

static void
count_overflow(struct plan *plan, unsigned long weight)
{
	long lost;

	if (plan->overflow == NULL || atomic_load(&plan->overflow_off))
		return;
	lost = plan->overflow_bytes == 2
	    ? profil_arch_add_u16(plan->overflow, weight)
	    : profil_arch_add_u32(plan->overflow, weight);
	if (lost < 0)
		atomic_store(&plan->overflow_off, 1);
	else if (lost > 0)
		atomic_fetch_add(&session_stats.saturated, (unsigned long)lost);
}

/*
 * If the interrupted code blocks SIGSEGV or SIGBUS (a program that blocks
 * every signal), so does this handler, and a fault in a counter update
 * would kill the process instead of reaching fault.c.  Unblock them until
 * the handler returns (sigreturn puts the program's mask back), unless
 * one is pending: it would be delivered here, before the program means
 * to take it.  Raw system calls: no wrapper or interceptor in between.
 * Returns 0 if buffers may be touched, -1 if not.
 */
static int
unblock_faults(const ucontext_t *uc)
{
	sigset_t faults, pending;

	if (sigismember(&uc->uc_sigmask, SIGSEGV) != 1 &&
	    sigismember(&uc->uc_sigmask, SIGBUS) != 1)
		return 0;
	if (syscall(SYS_rt_sigpending, &pending, _NSIG / 8) < 0 ||
	    sigismember(&pending, SIGSEGV) == 1 ||
	    sigismember(&pending, SIGBUS) == 1)
		return -1;
	sigemptyset(&faults);
	sigaddset(&faults, SIGSEGV);
	sigaddset(&faults, SIGBUS);
	return syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &faults, NULL,
	    _NSIG / 8) < 0 ? -1 : 0;
}

/*
 * A sample under a budget: counted as taken, and its weight in base
 * periods returned, the period its clock samples at now over the base
 * (the kernel cannot be asked what a perf clock's period was: each
 * thread's clock changes only here, in its own handler, or when armed).
 * Once the budget wants a longer period than that, this thread's clock
 * is retuned; the other threads' follow at their next samples, and
 * clocks armed from now on (new threads, forked children) start at it.
 * So every sample weighs its own period, whatever the other threads do.
 */
static unsigned long
budget_weigh(struct budget *b, const siginfo_t *info)
{
	uint64_t taken = atomic_fetch_add_explicit(&b->taken, 1,
	    memory_order_relaxed) + 1;
	uint64_t base = session_base_ns, period, want;

	if (b->samples == 0 || base == 0)
		return 1;
	period = thread_clock_period(info);
	if (period < base || period % base != 0)
		return 1;	/* not a clock of ours we can tell */
	want = base << budget_shift(b->samples, base, taken);
	if (want > period) {
		threads_set_period(want);
		thread_clock_retune(info, period, want);
	}
	return (unsigned long)budget_weight(period, base);
}

/*
 * A tick of a perf clock's kernel watch (thread_clock.h): not a sample
 * of its own, but where the kernel time the clock missed is paid, if
 * the tick came in the kernel.  Only a pcmap counts kernel time apart.
 */
static void
watch_tick(struct plan *plan, uintptr_t pc, const ucontext_t *uc)
{
	struct budget *budget = atomic_load(&session_live_budget);
	unsigned long kernel;

	if (plan->pcmap == NULL || !plan->pcmap->kernel_time ||
	    plan_find(plan, pc) != NULL ||
	    (kernel = session_kernel_watch(uc)) == 0)
		return;
	if (unblock_faults(uc) < 0)
		return;
	session_count_pc(plan->pcmap, pc, 0, kernel, uc);
	/* kernel periods of the base period each (budget.h) */
	if (budget != NULL)
		budget_add_saturating(&budget->weight_sq,
		    budget_weight_sq(0, kernel, 1));
}

void
session_sample(uintptr_t pc, unsigned long weight, const siginfo_t *info,
    const void *ucontext)
{
	const ucontext_t *uc = ucontext;
	int by_tick = info->si_code == SI_TIMER;
	unsigned long unit = 1, kernel = 0;
	struct budget *budget;
	struct plan *plan;
	struct plan_range *r;

	atomic_fetch_add(&session_readers, 1);
	plan = atomic_load(&session_live_plan);
	if (plan == NULL)
		goto out;
	if (sigmark_from_watch(info)) {
		watch_tick(plan, pc, uc);
		goto out;
	}
	budget = atomic_load(&session_live_budget);
	if (budget != NULL)
		unit = budget_weigh(budget, info);
	weight *= unit;
	atomic_fetch_add(&session_stats.signals, 1);
	atomic_fetch_add(&session_stats.samples, weight);
	if (unblock_faults(uc) < 0) {
		atomic_fetch_add(&session_stats.faulted, weight);
		goto weigh;
	}
	r = plan_find(plan, pc);
	if (r == NULL) {
		atomic_fetch_add(&session_stats.outside, weight);
		if (plan->pcmap != NULL) {
			kernel = plan->pcmap->kernel_time ?
			    session_kernel_weight(weight, by_tick, ucontext) : 0;
			session_count_pc(plan->pcmap, pc, by_tick ?
			    weight - kernel : weight, kernel, ucontext);
		} else
			count_overflow(plan, weight);
	} else if (atomic_load(&r->off)) {
		atomic_fetch_add(&session_stats.faulted, weight);
	} else {
		count_into(r, pc, weight);
	}
weigh:
	if (budget != NULL)
		budget_add_saturating(&budget->weight_sq, budget_weight_sq(
		    by_tick ? weight - kernel : weight, kernel, unit));
out:
	atomic_fetch_sub(&session_readers, 1);
}
