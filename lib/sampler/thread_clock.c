/*
 * thread_clock.c - arming a sampling clock on one thread: a POSIX timer
 * on the thread's CPU clock, or a perf_event task clock whose overflow
 * raises the sampling signal on that thread (F_SETOWN_EX, F_SETSIG).
 * Invariant: every fd opened here is close-on-exec, so exec ends sampling.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profil.h"
#include "sampler/ownfds.h"
#include "sampler/sigmark.h"
#include "sampler/thread_clock.h"

/*
 * The period each of our perf clocks samples at, by fd, for the signal
 * handler (the kernel has no call that reads it back): set when a clock
 * is armed or retuned, cleared when it goes.  0: not ours, or unknown.
 */
static _Atomic uint32_t perf_period_ns[OWNFDS_MAX];	/* 1 s at most */

static void
note_perf_period(int fd, uint64_t period_ns)
{
	if (fd >= 0 && fd < OWNFDS_MAX)
		atomic_store_explicit(&perf_period_ns[fd],
		    period_ns <= UINT32_MAX ? (uint32_t)period_ns : 0,
		    memory_order_relaxed);
}

/* The CPU-time clock of thread tid: the kernel's MAKE_THREAD_CPUCLOCK. */
static clockid_t
thread_cpu_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6u);
}

/*
 * When a new timer first fires, in ns of the thread's CPU time.  The
 * kernel checks CPU timers at scheduler ticks only, so the CPU time a
 * thread uses after its last tick is never seen: half a tick on average.
 * A first expiry drawn from (0, L] puts the sampling grid at a random
 * phase, so that threads shorter than a period get their share too, and
 * with L = period - tick it also gives that half tick back:
 *
 *   samples = 1 + (cpu at the last tick - first expiry) / period, so
 *   E[samples] = (cpu - tick/2) / period + 1/2 - L / (2 period)
 *              = cpu / period                  for L = period - tick
 *
 * At or above the tick rate L is 0: the first tick fires.
 */
/*
 * Whether this thread's own clock has a kernel watch (armed by the
 * thread itself, as a new thread's and the program's first are): read
 * in the signal handler (initial-exec TLS, no call into the loader).
 */
static __thread int self_watched __attribute__((tls_model("initial-exec")));

static uint64_t
first_expiry_ns(const struct clock_spec *spec, pid_t tid)
{
	uint64_t tick_ns = 1000000000u / thread_clock_tick_hz();
	uint64_t spread = spec->period_ns > tick_ns ? spec->period_ns - tick_ns : 0;
	struct timespec now;
	uint64_t x;

	if (spread == 0)
		return 1;
	/* any draw will do: the time and the tid, mixed (splitmix64) */
	clock_gettime(CLOCK_MONOTONIC, &now);
	x = (uint64_t)now.tv_nsec + ((uint64_t)tid << 32);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return 1 + (x ^ (x >> 31)) % spread;
}

/* A CPU-time timer on thread tid, its signal marked with cookie. */
static int
cpu_timer(const struct clock_spec *spec, pid_t tid, int cookie,
    uint64_t first, uint64_t period_ns, timer_t *out)
{
	struct sigevent ev;
	struct itimerspec its;
	timer_t timer;

	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = spec->signo;
	ev.sigev_value.sival_int = cookie;
	ev._sigev_un._tid = tid;
	if (timer_create(thread_cpu_clock(tid), &ev, &timer) < 0)
		return -1;
	its.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
	its.it_value.tv_sec = (time_t)(first / 1000000000u);
	its.it_value.tv_nsec = (long)(first % 1000000000u);
	if (timer_settime(timer, 0, &its, NULL) < 0) {
		int saved = errno;
		timer_delete(timer);
		errno = saved;
		return -1;
	}
	*out = timer;
	return 0;
}

static int
arm_timer(const struct clock_spec *spec, pid_t tid, struct thread_clock *clock)
{
	if (cpu_timer(spec, tid, SIGMARK_TIMER_COOKIE, first_expiry_ns(spec, tid),
	    spec->period_ns, &clock->timer) < 0)
		return -1;
	clock->mechanism = PROFIL_MECH_TIMER;
	clock->fd = -1;
	clock->tid = tid;
	return 0;
}

static int
perf_open(pid_t tid, uint64_t period_ns)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = period_ns;
	attr.disabled = 1;
	/*
	 * User time only, and not only because perf_event_paranoid 2
	 * allows no more: a period that ended in kernel mode would raise
	 * the signal inside the system call, which then fails with EINTR
	 * (poll, select, sigtimedwait are never restarted), or inside
	 * execve, where it kills the new image (its handler is gone).
	 * The CPU-time timers signal only on the way back to user mode.
	 */
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.wakeup_events = 1;
	return (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
}

static int
arm_perf(const struct clock_spec *spec, pid_t tid, struct thread_clock *clock)
{
	struct f_owner_ex owner = { F_OWNER_TID, tid };
	int fd = perf_open(tid, spec->period_ns);
	int saved;

	if (fd < 0)
		return -1;
	if (fcntl(fd, F_SETSIG, spec->signo) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
	    fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ID, &clock->perf_id) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		goto fail;
	clock->mechanism = PROFIL_MECH_PERF;
	clock->fd = fd;
	clock->tid = tid;
	note_perf_period(fd, spec->period_ns);
	ownfds_mark(fd);	/* a program closing every fd keeps this one */
	/*
	 * Its kernel watch, at every tick the thread runs at; without one
	 * (a limit on timers), its kernel time goes where its next sample
	 * is (session-kernel.c).  A period far below a tick's: a thread
	 * that ran part of a tick (preempted, under load) would not reach a
	 * tick's period of CPU time at every tick, and the watch's tick
	 * that paid would not always be the one that came in the kernel
	 * (page faults under load: 1-2% of the samples went under code that
	 * never entered it; test-kernel).  A CPU timer expires at ticks
	 * only, one signal at most each.
	 */
	if (spec->watch_kernel && cpu_timer(spec, tid, SIGMARK_WATCH_COOKIE, 1,
	    1000, &clock->watch) == 0) {
		clock->watching = 1;
		if (tid == (pid_t)syscall(SYS_gettid))
			self_watched = 1;
	}
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
thread_clock_self_watched(void)
{
	return self_watched;
}

int
thread_clock_arm(const struct clock_spec *spec, pid_t tid,
    struct thread_clock *clock)
{
	memset(clock, 0, sizeof *clock);
	clock->fd = -1;
	if (spec->mechanism == PROFIL_MECH_PERF) {
		if (arm_perf(spec, tid, clock) == 0)
			return 0;
		if (errno == ESRCH)
			return -1;
		/* fd limit or memory: this thread gets the cheaper clock */
	}
	return arm_timer(spec, tid, clock);
}

/*
 * True if fd is still the perf event we opened for this thread: a program
 * that closed it may have reused the number, and that one is not ours.
 */
static int
still_ours(const struct thread_clock *clock)
{
	uint64_t id;

	return ioctl(clock->fd, PERF_EVENT_IOC_ID, &id) == 0 &&
	    id == clock->perf_id;
}

void
thread_clock_disarm(struct thread_clock *clock)
{
	if (clock->watching)
		timer_delete(clock->watch);
	if (clock->tid == (pid_t)syscall(SYS_gettid))
		self_watched = 0;
	clock->watching = 0;
	if (clock->mechanism == PROFIL_MECH_TIMER)
		timer_delete(clock->timer);
	else if (clock->mechanism == PROFIL_MECH_PERF && still_ours(clock)) {
		note_perf_period(clock->fd, 0);
		ownfds_close(clock->fd);
	}
	clock->mechanism = 0;
	clock->fd = -1;
}

void
thread_clock_forget(struct thread_clock *clock)
{
	clock->watching = 0;	/* timers are not inherited */
	self_watched = 0;
	if (clock->mechanism == PROFIL_MECH_PERF && still_ours(clock)) {
		note_perf_period(clock->fd, 0);
		ownfds_close(clock->fd);
	}
	clock->mechanism = 0;
	clock->fd = -1;
}

static uint64_t
ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/*
 * Raw system calls from here on: the handler may interrupt the C
 * library anywhere, and a timer_t of ours (SIGEV_THREAD_ID) is the
 * kernel's timer id, which the signal carries.
 */
uint64_t
thread_clock_period(const siginfo_t *info)
{
	struct itimerspec its;

	if (sigmark_from_timer(info)) {
		if (syscall(SYS_timer_gettime, info->si_timerid, &its) < 0)
			return 0;
		return ns_of(&its.it_interval);
	}
	if (info->si_code == POLL_IN && info->si_fd >= 0 &&
	    info->si_fd < OWNFDS_MAX)
		return atomic_load_explicit(&perf_period_ns[info->si_fd],
		    memory_order_relaxed);
	return 0;
}

/*
 * A timer's grid goes on from its last expiry: of the remaining time
 * until the next one, current - remaining has passed since the last,
 * and counts towards the new period.
 *
 *   last expiry        now             next (old)
 *   |<-- current - remaining -->|<-- remaining -->|
 *   |<----------------- period_ns (new) ------------------->|
 */
int
thread_clock_retune(const siginfo_t *info, uint64_t current_ns,
    uint64_t period_ns)
{
	struct itimerspec its;
	uint64_t since, first;

	if (sigmark_from_timer(info)) {
		if (syscall(SYS_timer_gettime, info->si_timerid, &its) < 0)
			return -1;
		since = ns_of(&its.it_value) < current_ns ?
		    current_ns - ns_of(&its.it_value) : 0;
		first = period_ns > since ? period_ns - since : 1;
		its.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
		its.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
		its.it_value.tv_sec = (time_t)(first / 1000000000u);
		its.it_value.tv_nsec = (long)(first % 1000000000u);
		return syscall(SYS_timer_settime, info->si_timerid, 0, &its,
		    NULL) < 0 ? -1 : 0;
	}
	if (info->si_code != POLL_IN || info->si_fd < 0 ||
	    info->si_fd >= OWNFDS_MAX ||
	    atomic_load_explicit(&perf_period_ns[info->si_fd],
	    memory_order_relaxed) == 0)
		return -1;
	if (syscall(SYS_ioctl, info->si_fd, PERF_EVENT_IOC_PERIOD, &period_ns) < 0)
		return -1;
	note_perf_period(info->si_fd, period_ns);
	return 0;
}

int
thread_clock_perf_probe(void)
{
	int fd = perf_open((pid_t)syscall(SYS_gettid), 1000000);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

unsigned
thread_clock_tick_hz(void)
{
	static _Atomic unsigned tick_hz;
	struct timespec res;

	if (tick_hz == 0) {
		/* The coarse clocks advance once per tick: their resolution is 1/HZ. */
		if (clock_getres(CLOCK_MONOTONIC_COARSE, &res) == 0 &&
		    res.tv_sec == 0 && res.tv_nsec > 0)
			tick_hz = (unsigned)((1000000000L + res.tv_nsec / 2) / res.tv_nsec);
		else
			tick_hz = 100;
	}
	return tick_hz;
}
