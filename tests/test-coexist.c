/*
 * test-coexist.c - profiling never takes anything from the program: its
 * own ITIMER_PROF/SIGPROF handler keeps ticking while it is profiled, and
 * blocking system calls never fail with EINTR because of a sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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

static void
own_itimer(int profil_first)
{
	struct itimerval itv = { { 0, 10000 }, { 0, 10000 } };
	uintptr_t lo, hi;
	size_t bufsiz;
	unsigned short *buf;
	unsigned long counted = 0;

	CHECK(harness_text_of(NULL, &lo, &hi) == 0, "text");
	bufsiz = ((hi - lo) / 2 + 1) * 2;
	buf = calloc(1, bufsiz);
	if (profil_first)
		CHECK(profil(buf, bufsiz, lo, 0x10000) == 0, "profil");
	signal(SIGPROF, on_sigprof);
	CHECK(setitimer(ITIMER_PROF, &itv, NULL) == 0, "setitimer");
	if (!profil_first)
		CHECK(profil(buf, bufsiz, lo, 0x10000) == 0, "profil");
	spin_a_fn(1.0);
	profil(buf, 0, 0, 0);
	memset(&itv, 0, sizeof itv);
	setitimer(ITIMER_PROF, &itv, NULL);
	for (size_t i = 0; i < bufsiz / 2; i++)
		counted += buf[i];
	fprintf(stderr, "program's own SIGPROF ticks: %d, profil counts: %lu\n",
	    (int)prof_ticks, counted);
	/* 10 ms asked; ticks of 4 ms make it 12 ms: ~83 per CPU-second */
	CHECK(prof_ticks >= 50, "the program's ITIMER_PROF lost its ticks: %d",
	    (int)prof_ticks);
	CHECK(counted >= 100, "profiling stopped: %lu counts", counted);
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
 */
static void
blocking_calls(void)
{
	int fds[2];
	pid_t writer;
	int eintr_reads = 0, eintr_sleeps = 0, i;

	CHECK(pipe(fds) == 0, "pipe");
	writer = fork();
	CHECK(writer >= 0, "fork");
	if (writer == 0) {
		struct timespec gap = { 0, 2000000 };

		close(fds[0]);
		for (i = 0; i < 300; i++) {
			nanosleep(&gap, NULL);
			if (write(fds[1], "x", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(fds[1]);
	CHECK(profil_start(NULL) == 0, "start: %s", strerror(errno));
	for (i = 0; i < 300; i++) {
		struct timespec nap = { 0, 200000 };
		char c;

		spin_a_fn(0.003);
		if (read(fds[0], &c, 1) < 0 && errno == EINTR)
			eintr_reads++;
		if (nanosleep(&nap, NULL) < 0 && errno == EINTR)
			eintr_sleeps++;
	}
	profil_stop();
	waitpid(writer, NULL, 0);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program_keeps_its_itimer_prof),
		cmocka_unit_test(test_no_eintr_timer),
		cmocka_unit_test(test_no_eintr_perf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
