/*
 * harness.h - what the tests share: running a test body in a forked child
 * with a timeout (a hang or crash fails one test, not the suite), CHECK()
 * for use inside such a child, and helpers to find code and burn CPU.
 */
#ifndef PROFIL_TEST_HARNESS_H
#define PROFIL_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/*
 * Run body in a forked child; fail the cmocka test if it does not exit 0
 * within timeout_s seconds.  Inside body, use CHECK (not assert_*).
 */
void harness_forked(void (*body)(void), unsigned timeout_s,
    const char *file, int line);
#define FORKED(body, timeout_s) harness_forked(body, timeout_s, __FILE__, __LINE__)

__attribute__((noreturn, format(printf, 4, 5))) void
harness_fail(const char *file, int line, const char *cond, const char *fmt, ...);
#define CHECK(cond, ...) do { if (!(cond)) \
	harness_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)

/*
 * profil() without glibc's non-null attribute on buf: profil(0, 0, 0, 0)
 * is a documented way to stop, and UBSan would flag the direct call.
 */
extern int (*const profil_any)(unsigned short *, size_t, size_t, unsigned int);

/* Skip (exit 77 in the child, reported as skipped) with a reason. */
__attribute__((noreturn)) void harness_skip(const char *why);

/*
 * Skip a test that runs in the test program itself (not FORKED), saying
 * why: make check's summary (tests/run-tests.sh) lists every skipped
 * test with the line printed before it.
 */
#define SKIP(why) do { print_message("[ REASON   ] %s\n", (why)); \
	skip(); } while (0)

/* CPU seconds used by the calling thread / the whole process. */
double harness_thread_cpu(void);
double harness_process_cpu(void);

/* Text (executable) segment of the program, or of the first loaded object
 * whose path contains name.  0 on success. */
int harness_text_of(const char *name, uintptr_t *lo, uintptr_t *hi);

/* Open file descriptors; POSIX timers (-1 if /proc/self/timers is absent). */
int harness_open_fds(void);
int harness_posix_timers(void);

/* 1 if perf task-clock sampling is allowed here. */
int harness_perf_allowed(void);
/*
 * 1 if it is allowed to an ordinary user too: allowed here (a container's
 * seccomp filter refuses everyone) and perf_event_paranoid at most 2.
 */
int harness_perf_allowed_to_users(void);

/* /proc/sys/kernel/perf_event_paranoid; 3 if it cannot be read. */
int harness_perf_paranoid(void);

/*
 * Margin for a sampled share: k standard errors of a proportion p
 * estimated from n samples, never below floor.
 */
double harness_margin(double p, double n, double k, double floor);

/*
 * Loop iterations of the spin body per CPU-second, measured once per test
 * program.  Spins count iterations instead of reading the thread's CPU
 * clock: on this kernel a thread that reads CLOCK_THREAD_CPUTIME_ID often
 * gets few CPU-timer signals (with large overruns), which would make the
 * tests measure that instead of the profiler.
 */
double harness_loops_per_second(void);

/*
 * PROFIL_TEST_WORK_SCALE=K (as for tests/programs/workload.c): every spin does
 * K times its calibrated iterations, so burns K times the seconds it was
 * asked for, as if the machine had become 1/K as fast since calibrating
 * (0.3: 3x as fast).  That is what a fixed amount of work meets on
 * another machine, so a test that sizes its run by the samples it gets
 * passes at any K (it runs longer when short: harness_spin_for), and one
 * that counted on the seconds it asked for fails there.  Loops of no
 * calibration whose length might matter (the threads of test-threads'
 * churn, test-extended's libm calls) do K times their work too.  K is 1
 * when unset; a bad value fails every test that spins.
 */
double harness_work_scale(void);

/* Spin iterations for `seconds` of CPU: calibrated, times the scale. */
unsigned long harness_spin_iterations(double seconds);

/*
 * Called by spins every HARNESS_CHUNK iterations: reads CLOCK_MONOTONIC
 * (which, unlike the thread's CPU clock, does not disturb CPU timers).
 * ThreadSanitizer delivers signals only when the thread enters a call it
 * intercepts; this is that call.
 */
void harness_poll(void);
#define HARNESS_CHUNK 40000ul

/*
 * Spin functions, each in its own section so tests know their exact
 * address range (__start_SECTION .. __stop_SECTION).  Each burns about
 * `seconds` of the calling thread's CPU (times the work scale).
 */
#define HARNESS_SPIN_DECLARE(name)					\
	extern char __start_##name[], __stop_##name[];			\
	__attribute__((noinline, section(#name))) void			\
	name##_fn(double seconds);					\
	__attribute__((noinline, section(#name))) void			\
	name##_fn(double seconds)					\
	{								\
		volatile unsigned long x = 1;				\
		unsigned long n = harness_spin_iterations(seconds);	\
		for (unsigned long i = 0; i < n; i++) {			\
			x = x * 6364136223846793005ul + i;		\
			if (i % HARNESS_CHUNK == 0)			\
				harness_poll();				\
		}							\
	}

/*
 * Runs sized by the samples a check needs, not by an amount of work.
 *
 * The rate of the running session (profil(), sprofil(), the extended
 * form and profil_start() alike): samples per CPU-second of a thread, a
 * count being 1/rate s of CPU.  Fails if nothing runs.
 */
double harness_rate(void);

/* The CPU seconds in which `samples` come at `rate`, 15% more for the ends. */
double harness_seconds_for(double samples, double rate);

/*
 * How far a count of samples taken on CPU clocks (timers, perf task
 * clock) may be from its CPU time x rate, over `threads` threads' runs,
 * with the mechanism of the session running or last run.  Not the
 * square root of a Poisson count: every sample is a period of CPU, so
 * the count is off only by what the end of each thread's run cuts (a
 * period; a timer above the tick rate gets its overruns at ticks, so a
 * tick's worth) and by the time a thread's clock takes to arm (measured
 * here, idle: 3.6 ms a thread at most, at 1 to 10 kHz and 4 threads;
 * counted as 5 ms).  (Perf's clock counts user time only, so it also
 * misses the kernel's time delivering its signals: 1% at 10 kHz here,
 * far inside the tolerances of the checks at such rates.)  Signals of
 * timers above the tick rate are not such a count: see
 * harness_samples_for_poisson.
 */
double harness_count_error(double rate, int threads);

/*
 * The samples a rate check on one run needs: its count's error (above)
 * at most half the check's tolerance `within` (0.15 for 15%), the other
 * half for what this machine adds that was not measured idle.
 */
double harness_samples_for_rate(double rate, int threads, double within);

/*
 * The count n a Poisson count needs for k standard errors (k sqrt(n)) to
 * come to `within` of it.  For counts of events that fall at random,
 * such as the signals of a CPU timer above the tick rate: one at each
 * tick that finds the thread running, and under load, other processes'
 * wakeups cut its runs short anywhere between ticks (measured: 284
 * signals for 252 ticks' worth of CPU, 60 for 50).
 */
double harness_samples_for_poisson(double k, double within);

/* The samples a share p needs for k standard errors to come to within. */
double harness_samples_for_share(double p, double k, double within);

/*
 * Spin (a HARNESS_SPIN function) in the running session until
 * count(arg) reaches need (count NULL: the session's samples).  rate is
 * how fast count grows per CPU-second of the spin as the test expects
 * (0: the session's rate; every sample counts).  The first spin takes
 * what need asks at that rate; a spin short of need is followed by one
 * sized by what the spins so far gave per second asked (3 spins at
 * most, then the test fails saying what was needed): a check never goes
 * without the samples it asked for, and a machine of any speed gets
 * them.  Returns the count.
 */
double harness_spin_for(void (*spin)(double), double need,
    double (*count)(void *), void *arg, double rate, const char *what);

/*
 * Spin until the thread has had `seconds` more of CPU, whatever the
 * calibration and the scale, for a test whose check needs CPU time
 * rather than samples (that nothing is counted in a run that would
 * otherwise count so many); reads the thread's CPU clock only between
 * spins.  Returns the CPU seconds spun.
 */
double harness_spin_cpu(void (*spin)(double), double seconds);

/*
 * For a test that must run again from the start when short (a ratio
 * between two runs): the seconds for the next run, given that one of
 * `seconds` gave `got` where `need` was wanted; fails at the third run
 * short, saying what.
 */
double harness_longer(double seconds, double got, double need, int *runs,
    const char *what);

#endif
