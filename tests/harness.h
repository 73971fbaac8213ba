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
 * `seconds` of the calling thread's CPU.
 */
#define HARNESS_SPIN_DECLARE(name)					\
	extern char __start_##name[], __stop_##name[];			\
	__attribute__((noinline, section(#name))) void			\
	name##_fn(double seconds);					\
	__attribute__((noinline, section(#name))) void			\
	name##_fn(double seconds)					\
	{								\
		volatile unsigned long x = 1;				\
		unsigned long n = (unsigned long)(seconds *		\
		    harness_loops_per_second());			\
		for (unsigned long i = 0; i < n; i++) {			\
			x = x * 6364136223846793005ul + i;		\
			if (i % HARNESS_CHUNK == 0)			\
				harness_poll();				\
		}							\
	}

#endif
