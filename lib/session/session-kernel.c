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
#include "session/session-internal.h"

/*
 * What the thread's clocks said at its last sample (initial-exec TLS: no
 * call into the loader in a handler), and the kernel samples owed but
 * not yet whole.
 */
static __thread struct {
	int known;		/* the fields below are this thread's */
	uint64_t user_us, sys_us;	/* CPU timer: as the kernel charged it */
	uint64_t cpu_ns;	/* perf clock: the thread's CPU clock */
	double owed;
	int watched;		/* its kernel watch has ticked: it pays */
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
	kernel_split.owed = 0;
	kernel_split.watched = 0;
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
 * How many of this sample's weight stand for time the thread spent in
 * the kernel since its last sample.  The signal arrives on the way back
 * to user mode, with the pc after the system call: without this, that
 * time is the user code's (docs/design.md, "Kernel time").  Raw system
 * calls: async-signal-safe, no libc wrapper in the way.
 *
 * CPU timer (by_tick): the weight is the ticks of user and kernel time
 * since the last sample, and the kernel charged each tick to one or the
 * other: kernel = weight * dsys / (duser + dsys).
 */
static unsigned long
kernel_by_tick(unsigned long weight)
{
	struct rusage ru;
	uint64_t user, sys, du, ds;

	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) < 0)
		return 0;
	user = (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec;
	sys = (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
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
	return kernel_owed(du + ds > 0 ? (double)weight * (double)ds /
	    (double)(du + ds) : 0, weight);
}

/*
 * perf clock (user mode only): its kernel samples are the fires it
 * dropped in kernel mode, the thread's CPU time since the last sample in
 * periods less the samples delivered, on top of the weight.  Owed until
 * the thread's kernel watch ticks in the kernel (session_kernel_watch),
 * which has the stack that made the call; a thread without a watch (no
 * timer to be had) has them at this sample's stack, the code the system
 * call returned to: right within a run of system calls, wrong by the
 * time to the next sample at each change of phase.
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
	struct timespec ts;
	uint64_t now;

	if (session_base_ns == 0 ||
	    syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	now = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	if (kernel_baseline(now < kernel_split.cpu_ns)) {
		kernel_split.cpu_ns = now;
		return 0;
	}
	now -= kernel_split.cpu_ns;
	kernel_split.cpu_ns += now;
	if (kernel_split.watched) {
		/* owed, fractions and debts alike, until the watch pays */
		kernel_split.owed += (double)now / (double)session_base_ns -
		    (double)weight;
		return 0;
	}
	return kernel_owed((double)now / (double)session_base_ns -
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
	int in_kernel = arch_context_after_syscall(ucontext);
	struct rusage ru;
	uint64_t user, sys;

	if (!kernel_split.known)
		return 0;	/* no perf sample yet: no baseline */
	/*
	 * A tick in a page fault signals on the way back to the faulting
	 * instruction, which is where its time goes, but rcx says nothing
	 * there: the kernel's own accounting tells, the tick charged to
	 * system time since the last one.
	 */
	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) == 0) {
		user = (uint64_t)ru.ru_utime.tv_sec * 1000000 +
		    (uint64_t)ru.ru_utime.tv_usec;
		sys = (uint64_t)ru.ru_stime.tv_sec * 1000000 +
		    (uint64_t)ru.ru_stime.tv_usec;
		if (kernel_split.watched && sys >= kernel_split.sys_us &&
		    user >= kernel_split.user_us && sys - kernel_split.sys_us >
		    user - kernel_split.user_us)
			in_kernel = 1;
		kernel_split.user_us = user;
		kernel_split.sys_us = sys;
	}
	kernel_split.watched = 1;
	if (!in_kernel)
		return 0;
	return kernel_owed(0, ~0ul);
}

unsigned long
session_kernel_weight(unsigned long weight, int by_tick)
{
	return by_tick ? kernel_by_tick(weight) : kernel_by_clock(weight);
}
