/*
 * session-kernel.c - how much of a sample stands for time its thread
 * spent in the kernel since its last sample (session-internal.h), for
 * pcmaps that count that time apart.  Runs in the signal handler: raw
 * system calls and this thread's own TLS only.
 */
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "sampler/thread_clock.h"
#include "session/session-internal.h"

/*
 * What the thread's clocks said at its last sample or tick looked at
 * (initial-exec TLS: no call into the loader in a handler), and the
 * kernel samples owed but not yet whole.
 */
static __thread struct {
	int known;		/* the fields below are this thread's */
	int looked;		/* the three below are this thread's */
	long faults;		/* page faults at the last tick looked at,
				   or perf clock sample */
	double sys_share;	/* and the system's share of its CPU time */
	uint64_t look_ns;	/* and its CPU clock */
	uint64_t user_us, sys_us;	/* CPU timer: as the kernel charged it */
	uint64_t cpu_ns;	/* perf clock: the thread's CPU clock */
	uint64_t watch_ns;	/* and at its watch's last tick (or start) */
	double owed;
} kernel_split __attribute__((tls_model("initial-exec")));

/*
 * A thread's first sample only sets the baseline: its times run from
 * its start, which exec does not move (the previous image's time is in
 * them), and a forked child's restart from 0 under its parent's.
 */
static int
kernel_baseline(int stale)
{
	if (kernel_split.known && !stale)
		return 0;
	kernel_split.known = 1;
	kernel_split.looked = 0;
	kernel_split.owed = 0;
	return 1;
}

/* k kernel samples, fractions and debts carried to the next sample. */
static unsigned long
kernel_owed(double k, unsigned long most)
{
	k += kernel_split.owed;
	if (k > (double)most) {
		kernel_split.owed = k - (double)most;
		return most;
	}
	if (k < 0) {
		kernel_split.owed = k;
		return 0;
	}
	kernel_split.owed = k - (double)(unsigned long)k;
	return (unsigned long)k;
}

/*
 * Whether the tick that signalled came while the thread was in the
 * kernel.  One in a system call signals on the way back
 * (arch_context_after_syscall: the pc after the call).  One in a page
 * fault signals at the faulting instruction, which is where its time
 * goes, but the registers say nothing there.  The kernel's own
 * accounting tells: getrusage gives the thread's runtime split by the
 * ratio of its ticks charged to the system and to the user (the
 * kernel's cputime_adjust), so that ratio rose since the last look
 * exactly when a tick since was charged to the system; and a page fault
 * of the program's own came since (the ring the handler writes in is
 * made present at start: agent.c).  Not the system time's growth alone:
 * the times are the runtime scaled by that ratio, so a thread mostly in
 * system calls gains more system than user time over ticks in pure user
 * code too, whenever a tick's runtime is above its average (under load:
 * a fifth of writer()'s kernel time went under burner(); test-kernel).
 * And only a tick's CPU time since the last look: a CPU timer expires at
 * a tick that finds its thread running, and one the scheduler runs
 * between ticks (under load) may miss many, so that the rise may be of
 * an earlier tick's, in other code (faulter()'s time under burner()).
 * The first look only sets the baseline.
 */
static int
tick_in_kernel(const void *ucontext)
{
	uint64_t tick_ns = 1000000000u / thread_clock_tick_hz();
	int in_kernel = arch_context_after_syscall(ucontext);
	int first = !kernel_split.looked;
	struct timespec ts;
	struct rusage ru;
	uint64_t now;

	if (syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts) < 0 ||
	    syscall(SYS_getrusage, RUSAGE_THREAD, &ru) < 0)
		return in_kernel;
	now = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	{
		uint64_t user = (uint64_t)ru.ru_utime.tv_sec * 1000000 +
		    (uint64_t)ru.ru_utime.tv_usec;
		uint64_t sys = (uint64_t)ru.ru_stime.tv_sec * 1000000 +
		    (uint64_t)ru.ru_stime.tv_usec;
		long faults = ru.ru_minflt + ru.ru_majflt;
		double share = user + sys > 0 ?
		    (double)sys / (double)(user + sys) : 0;

		/* one tick since the last look, or the rise may be older */
		if (!first && faults > kernel_split.faults &&
		    share > kernel_split.sys_share &&
		    now - kernel_split.look_ns <= tick_ns + tick_ns / 2)
			in_kernel = 1;
		kernel_split.sys_share = share;
		kernel_split.faults = faults;
		kernel_split.look_ns = now;
		kernel_split.looked = 1;
	}
	return in_kernel;
}

/*
 * How many of this sample's weight stand for time the thread spent in
 * the kernel since its last sample.  The signal arrives on the way back
 * to user mode, with the pc after the system call: without this, that
 * time is the user code's (docs/design.md, "Kernel time").  Raw system
 * calls: async-signal-safe, no libc wrapper in the way.
 *
 * CPU timer (by_tick): the kernel charged each tick to the user or the
 * system, and the ticks' split since the last sample is the sample's:
 * kernel = weight * dsys / (duser + dsys).  That much is owed, and paid
 * at a sample whose tick came in the kernel (tick_in_kernel), at the
 * stack that entered it, up to its weight: not at whatever stack the
 * sample found, where the split's own noise (getrusage scales its times:
 * tick_in_kernel) put kernel time under code that never entered it.
 * Nor the whole weight of a sample that came back from a system call:
 * a tick that came while the exit path had interrupts off is taken at
 * the call's return, in user mode (a loop of getppid() was 95% kernel
 * so, 76% by the kernel's count).
 */
static unsigned long
kernel_by_tick(unsigned long weight, const void *ucontext)
{
	struct rusage ru;
	uint64_t user, sys, du, ds;
	int in_kernel;

	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) < 0)
		return 0;
	user = (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec;
	sys = (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
	in_kernel = tick_in_kernel(ucontext);
	if (kernel_baseline(user < kernel_split.user_us ||
	    sys < kernel_split.sys_us)) {
		kernel_split.user_us = user;
		kernel_split.sys_us = sys;
		return 0;
	}
	du = user - kernel_split.user_us;
	ds = sys - kernel_split.sys_us;
	kernel_split.user_us = user;
	kernel_split.sys_us = sys;
	if (du + ds > 0)
		kernel_split.owed += (double)weight * (double)ds /
		    (double)(du + ds);
	return in_kernel ? kernel_owed(0, weight) : 0;
}

/*
 * The thread's page faults now, as at a look (tick_in_kernel): a perf
 * clock's sample is a look at them too, a period of CPU time before the
 * watch's tick at most, so that a tick's fault test asks of the last
 * period, not of the tick's (a tick in user code just after a run of
 * faults took them for its own: 1.4-3.7% of the samples kernel time in
 * burner()'s own code on loaded runs).
 */
static void
sample_faults(void)
{
	struct rusage ru;

	if (kernel_split.looked &&
	    syscall(SYS_getrusage, RUSAGE_THREAD, &ru) == 0)
		kernel_split.faults = ru.ru_minflt + ru.ru_majflt;
}

/*
 * How long the kernel watch may stay silent before a thread is taken to
 * have none: ticks of its CPU time.  A CPU timer expires only at a tick
 * that finds its thread running, and a thread that the scheduler runs
 * between ticks (slices shorter than a tick, under load) may see none
 * for a while: gaps of 20 ticks and more were seen here.
 */
#define WATCH_SILENT_TICKS 50

/*
 * perf clock (user mode only): its kernel samples are the fires it
 * dropped in kernel mode, the thread's CPU time since the last sample in
 * periods less the samples delivered, on top of the weight.  Owed until
 * the thread's kernel watch ticks in the kernel (session_kernel_watch),
 * which has the stack that made the call, from the thread's start: a
 * watch's first tick may come many samples in, and on a loaded machine
 * the watch may stay silent for hundreds of ms (a thread that the
 * scheduler runs between ticks sees none).  A thread that armed its own
 * watch holds them for it whatever the silence (paid at the samples'
 * stacks after 50 ticks, a quarter of burner()'s samples were writer()'s
 * kernel time with 7 programs burning 2 CPUs).  A thread whose watch
 * another armed, and has been silent for WATCH_SILENT_TICKS, or that has
 * none (no timer to be had), has them at this sample's stack, the code
 * the system call returned to: right within a run of system calls,
 * wrong by the time to the next sample at each change of phase.
 * The thread's CPU clock, not getrusage: a running thread's rusage moves
 * at its ticks only, so each sample's share came in lumps a tick apart.
 * Not the system time alone: what a sample
 * itself costs in the kernel (the interrupt, the signal's delivery)
 * follows its fire at once, so the next fire is in user mode and that
 * time is in the user samples already (counted twice, it added 14% at
 * 5 kHz).
 */
static unsigned long
kernel_by_clock(unsigned long weight)
{
	uint64_t silent_ns = WATCH_SILENT_TICKS * (1000000000u /
	    thread_clock_tick_hz());
	struct timespec ts;
	uint64_t now, ran;

	if (session_base_ns == 0 ||
	    syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	now = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	if (kernel_baseline(now < kernel_split.cpu_ns)) {
		kernel_split.cpu_ns = now;
		kernel_split.watch_ns = now;
		return 0;
	}
	ran = now - kernel_split.cpu_ns;
	kernel_split.cpu_ns = now;
	sample_faults();
	if (thread_clock_self_watched() ||
	    now - kernel_split.watch_ns < silent_ns) {
		/* owed, fractions and debts alike, until the watch pays */
		kernel_split.owed += (double)ran / (double)session_base_ns -
		    (double)weight;
		return 0;
	}
	return kernel_owed((double)ran / (double)session_base_ns -
	    (double)weight, ~0ul);
}

/*
 * The kernel watch's tick is a timer on the thread's CPU time, checked
 * at the scheduler's tick: one that came while the thread was in a
 * system call signals on its way back (arch_context_after_syscall),
 * with the user stack that made the call, one in a page fault at the
 * faulting instruction, and a tick's worth of kernel time lies behind
 * it.  What the perf clock missed since the last such
 * tick is paid there: the amount is the clock's (exact), the place the
 * watch's (sampled at the tick rate, among the calls that entered the
 * kernel).  Ticks in user code pay nothing: the perf clock has that
 * time.  What is owed when the thread ends is not counted.
 */
unsigned long
session_kernel_watch(const void *ucontext)
{
	int in_kernel;

	if (!kernel_split.known)
		return 0;	/* no perf sample yet: no baseline */
	in_kernel = tick_in_kernel(ucontext);
	kernel_split.watch_ns = kernel_split.cpu_ns;	/* it is heard */
	if (!in_kernel)
		return 0;
	return kernel_owed(0, ~0ul);
}

unsigned long
session_kernel_weight(unsigned long weight, int by_tick,
    const void *ucontext)
{
	return by_tick ? kernel_by_tick(weight, ucontext) :
	    kernel_by_clock(weight);
}
