/*
 * test-coexist.c - profiling never takes anything from the program: its
 * own ITIMER_PROF/SIGPROF handler keeps ticking while it is profiled,
 * blocking system calls never fail with EINTR because of a sample, and
 * its own sigaction in front of the C library's never sees ours.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include <profil.h>

HARNESS_SPIN_DECLARE(spin_a)

static volatile sig_atomic_t prof_ticks;

static void
on_sigprof(int sig)
{
	(void)sig;
	prof_ticks++;
}

/*
 * The program's ITIMER_PROF of 10 ms and profil() both run, in either
 * order.  Each must keep its rate: the itimer's ticks at least 60% of
 * one per 10 ms rounded up to ticks (12 ms with 4 ms ticks: the kernel
 * rearms it from the tick that fired it), profil's counts 40% of its
 * rate, per CPU-second, as they were (50 of 83 and 100 of 250 in a
 * second).  The spin takes the CPU time in which the counts' errors
 * (harness.h) come to half those margins.
 */
static void
own_itimer(int profil_first)
{
	struct itimerval itv = { { 0, 10000 }, { 0, 10000 } };
	struct profil_status st;
	uintptr_t lo, hi;
	size_t bufsiz;
	unsigned short *buf;
	unsigned long counted = 0;
	double period, rate, cpu, seconds;

	CHECK(harness_text_of(NULL, &lo, &hi) == 0, "text");
	bufsiz = ((hi - lo) / 2 + 1) * 2;
	buf = calloc(1, bufsiz);
	if (profil_first)
		CHECK(profil(buf, bufsiz, lo, 0x10000) == 0, "profil");
	signal(SIGPROF, on_sigprof);
	CHECK(setitimer(ITIMER_PROF, &itv, NULL) == 0, "setitimer");
	if (!profil_first)
		CHECK(profil(buf, bufsiz, lo, 0x10000) == 0, "profil");
	profil_get_status(&st);
	period = ceil(0.010 * st.tick_hz - 1e-9) / st.tick_hz;
	rate = harness_rate();
	seconds = harness_seconds_for(harness_samples_for_rate(1 / period, 1,
	    0.4), 1 / period);
	if (seconds < harness_seconds_for(harness_samples_for_rate(rate, 1,
	    0.6), rate))
		seconds = harness_seconds_for(harness_samples_for_rate(rate, 1,
		    0.6), rate);
	cpu = harness_process_cpu();
	harness_spin_cpu(spin_a_fn, seconds);
	cpu = harness_process_cpu() - cpu;
	profil(buf, 0, 0, 0);
	memset(&itv, 0, sizeof itv);
	setitimer(ITIMER_PROF, &itv, NULL);
	for (size_t i = 0; i < bufsiz / 2; i++)
		counted += buf[i];
	fprintf(stderr, "program's own SIGPROF ticks: %d, profil counts: %lu "
	    "in %.3f CPU-s (%.0f and %.0f expected)\n", (int)prof_ticks,
	    counted, cpu, cpu / period, cpu * rate);
	CHECK(prof_ticks >= 0.6 * cpu / period, "the program's ITIMER_PROF "
	    "lost its ticks: %d", (int)prof_ticks);
	CHECK(counted >= 0.4 * cpu * rate, "profiling stopped: %lu counts",
	    counted);
}

static void
own_itimer_after(void)
{
	own_itimer(1);
}

static void
own_itimer_before(void)
{
	own_itimer(0);
}

static void
test_program_keeps_its_itimer_prof(void **state)
{
	(void)state;
	FORKED(own_itimer_after, 30);
	FORKED(own_itimer_before, 30);
}

/*
 * A thread alternates bursts of CPU with blocking reads of a pipe fed
 * slowly by another process, and with nanosleep(); none may see EINTR.
 * Each burst is a sample's CPU time, and the rounds go on until there
 * have been 300 and as many samples (a sample a round, on average).
 */
#define ROUNDS 300

static void
blocking_calls(void)
{
	struct profil_status st;
	int fds[2];
	pid_t writer;
	int eintr_reads = 0, eintr_sleeps = 0, i;
	double burst;

	CHECK(pipe(fds) == 0, "pipe");
	writer = fork();
	CHECK(writer >= 0, "fork");
	if (writer == 0) {
		struct timespec gap = { 0, 2000000 };

		/* until the reader is done */
		signal(SIGPIPE, SIG_IGN);
		close(fds[0]);
		do
			nanosleep(&gap, NULL);
		while (write(fds[1], "x", 1) == 1);
		_exit(0);
	}
	close(fds[1]);
	CHECK(profil_start(NULL) == 0, "start: %s", strerror(errno));
	burst = harness_seconds_for(1, harness_rate());
	for (i = 0;; i++) {
		struct timespec nap = { 0, 200000 };
		char c;

		/* the samples, once a while: CPU clocks read often
		   disturb CPU timers (harness.h) */
		if (i >= ROUNDS && i % 50 == 0) {
			profil_get_status(&st);
			if (st.samples >= ROUNDS)
				break;
			CHECK(i < 4 * ROUNDS, "%llu samples in %d rounds",
			    (unsigned long long)st.samples, i);
		}
		spin_a_fn(burst);
		if (read(fds[0], &c, 1) < 0 && errno == EINTR)
			eintr_reads++;
		if (nanosleep(&nap, NULL) < 0 && errno == EINTR)
			eintr_sleeps++;
	}
	profil_stop();
	close(fds[0]);
	waitpid(writer, NULL, 0);
	fprintf(stderr, "%d rounds, %llu samples, %llu signals\n", i,
	    (unsigned long long)st.samples, (unsigned long long)st.signals);
	CHECK(eintr_reads == 0, "%d reads failed with EINTR", eintr_reads);
	CHECK(eintr_sleeps == 0, "%d sleeps failed with EINTR", eintr_sleeps);
}

static void
blocking_timer(void)
{
	setenv("PROFIL_MECHANISM", "timer", 1);
	setenv("PROFIL_HZ", "1000", 1);
	blocking_calls();
}

static void
blocking_perf(void)
{
	if (!harness_perf_allowed())
		harness_skip("perf events not permitted here");
	setenv("PROFIL_MECHANISM", "perf", 1);
	setenv("PROFIL_HZ", "5000", 1);
	blocking_calls();
}

static void
test_no_eintr_timer(void **state)
{
	(void)state;
	FORKED(blocking_timer, 60);
}

static void
test_no_eintr_perf(void **state)
{
	(void)state;
	FORKED(blocking_perf, 60);
}

/*
 * The program's own sigaction, in front of the C library's as a runtime
 * that chains handlers puts one: passes every call on, and counts those
 * for a real-time signal while rt_counting is set.
 */
typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
static sigaction_fn *_Atomic next_sigaction;
static atomic_int rt_counting, rt_calls;

int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigaction_fn *next = atomic_load(&next_sigaction);

	if (next == NULL) {
		next = (sigaction_fn *)dlsym(RTLD_NEXT, "sigaction");
		atomic_store(&next_sigaction, next);
	}
	if (atomic_load(&rt_counting) && sig >= SIGRTMIN && sig <= SIGRTMAX)
		atomic_fetch_add(&rt_calls, 1);
	return next(sig, act, old);
}

/*
 * The sampling signal's handler is installed with the C library's
 * sigaction, not through whatever stands in front of it for the program
 * (our own veil, or the program's wrapper here).
 */
static void
own_sigaction(void)
{
	struct profil_config cfg = { 0 };

#ifdef __SANITIZE_THREAD__
	/* its interceptor must see our handler, and the program's is first */
	harness_skip("under ThreadSanitizer the handler goes through the "
	    "program's sigaction");
#endif
	atomic_store(&rt_counting, 1);
	CHECK(profil_start(&cfg) == 0, "profil_start: %s", strerror(errno));
	atomic_store(&rt_counting, 0);
	profil_stop();
	CHECK(atomic_load(&rt_calls) == 0, "the sampling signal's handler went "
	    "through the program's sigaction (%d calls)", atomic_load(&rt_calls));
}

static void
test_program_sigaction_sees_nothing_of_ours(void **state)
{
	(void)state;
	FORKED(own_sigaction, 30);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program_keeps_its_itimer_prof),
		cmocka_unit_test(test_no_eintr_timer),
		cmocka_unit_test(test_no_eintr_perf),
		cmocka_unit_test(test_program_sigaction_sees_nothing_of_ours),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
