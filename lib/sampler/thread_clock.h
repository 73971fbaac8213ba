/*
 * thread_clock.h - a sampling clock on one thread's CPU time, raising the
 * sampling signal on that thread.  Two kinds: a POSIX timer on the
 * thread's CPU clock (fires on scheduler ticks only, nearly free), and a
 * perf_event task clock (high-resolution, costs an interrupt per sample).
 */
#ifndef PROFIL_THREAD_CLOCK_H
#define PROFIL_THREAD_CLOCK_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct clock_spec {
	int mechanism;		/* PROFIL_MECH_TIMER or PROFIL_MECH_PERF */
	uint64_t period_ns;	/* CPU time between samples */
	int signo;		/* the sampling signal */
	/*
	 * A perf clock samples user mode only, and its fires in the kernel
	 * are lost.  With watch_kernel, the thread also gets a CPU-time
	 * timer at the tick rate (its kernel watch, SIGMARK_WATCH_COOKIE):
	 * a tick that comes in the kernel signals on the way back from
	 * the system call, with the user stack that made it, which is
	 * where the kernel time the perf clock missed goes.
	 */
	int watch_kernel;
};

struct thread_clock {
	int mechanism;		/* 0 when not armed */
	timer_t timer;
	int fd;
	uint64_t perf_id;	/* the event's unique id: is fd still ours? */
	pid_t tid;
	int watching;		/* a perf clock's kernel watch: watch */
	timer_t watch;
};

/*
 * Arm a clock of spec's kind on thread tid of this process.  A perf clock
 * that cannot be had (fd limit, say) falls back to a timer.  Returns 0,
 * or -1 with errno (ESRCH/EINVAL: the thread is gone).
 */
int thread_clock_arm(const struct clock_spec *spec, pid_t tid,
    struct thread_clock *clock);

/* Stop and release an armed clock. */
void thread_clock_disarm(struct thread_clock *clock);

/*
 * In a forked child: release what the child inherited of a parent
 * thread's clock (perf fds are inherited, timers are not).
 */
void thread_clock_forget(struct thread_clock *clock);

/*
 * The period, in ns, at which the clock whose signal info is samples now,
 * or 0 if that cannot be told (not our timer's or perf event's signal, a
 * perf fd numbered past the ones we keep track of).  For the signal
 * handler: async-signal-safe, one system call for a timer.
 */
uint64_t thread_clock_period(const siginfo_t *info);

/*
 * From the handler of the signal info, on the thread whose clock raised
 * it: sample at period_ns from now on instead of current_ns, the CPU
 * time since its last fire counted towards the next (a timer's grid goes
 * on; a perf clock starts its period at its fire, which was just now).
 * Only the clock's own thread may do this (nothing else changes it but
 * arming and disarming).  0, or -1 if the clock is not ours or refused.
 * Async-signal-safe.
 */
int thread_clock_retune(const siginfo_t *info, uint64_t current_ns,
    uint64_t period_ns);

/* 0 if perf task-clock sampling can be opened here, else -1 and errno. */
int thread_clock_perf_probe(void);

/* The kernel's scheduler tick rate (HZ), the resolution of CPU timers. */
unsigned thread_clock_tick_hz(void);
/*
 * 1 if the calling thread armed its own clock with a kernel watch (and
 * has not disarmed it since): its watch will tick, however long a
 * loaded machine keeps it silent.  Async-signal-safe.
 */
int thread_clock_self_watched(void);

#endif
