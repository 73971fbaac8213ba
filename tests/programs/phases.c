/*
 * phases.c - a program whose time has known phases, for the timeline's
 * tests (issue 27): thread "worker" runs a() for A seconds, blocks in
 * read() (a timerfd) for R, then runs b() for B; thread "late" sleeps
 * for S, then runs c() for C.  Each phase is timed by the program's own
 * clock, and said on stderr as
 *
 *     phase NAME START_NS END_NS
 *
 * in CLOCK_REALTIME ns (a profile's start_ns is on that clock); and at
 * each thread's end its life and CPU time, as the kernel counted them:
 *
 *     thread NAME START_NS END_NS CPU_NS
 *     born NAME NS
 *
 * the second the thread's start by the kernel's count (thread-age.h: a
 * tick early at most), before the START_NS of its first code here by
 * the loader's time, a library's constructors' and what load adds.
 *
 *     phases [SCALE]    every length times SCALE (default 1):
 *                       A 1 s, R 0.5 s, B 1 s, S 1.25 s, C 1 s
 *
 * Phases run by the wall clock (a phase of a() ends at its time, loaded
 * or not), so a test knows where each falls.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "thread-age.h"

static double scale = 1;
static volatile uint64_t sink;

static uint64_t
now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
ns_of(double seconds)
{
	return (uint64_t)(seconds * scale * 1e9);
}

static void
say(const char *name, uint64_t start, uint64_t end)
{
	fprintf(stderr, "phase %s %" PRIu64 " %" PRIu64 "\n", name, start, end);
}

/* Work until the monotonic clock passes until. */
#define SPIN(name)							\
	__attribute__((noinline)) void					\
	name(uint64_t until)						\
	{								\
		uint64_t x = sink;					\
									\
		while (now(CLOCK_MONOTONIC) < until)			\
			for (int i = 0; i < 2000; i++)			\
				x = x * 6364136223846793005u + 1;	\
		sink = x;						\
	}
void a(uint64_t until);
void b(uint64_t until);
void c(uint64_t until);
SPIN(a)
SPIN(b)
SPIN(c)

/* Blocked in read() for ns: a timerfd's expiry. */
static void
wait_in_read(uint64_t ns)
{
	struct itimerspec it = { .it_value = { (time_t)(ns / 1000000000u),
	    (long)(ns % 1000000000u) } };
	uint64_t n;
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);

	if (fd < 0 || timerfd_settime(fd, 0, &it, NULL) < 0 ||
	    read(fd, &n, sizeof n) != sizeof n) {
		perror("phases: timerfd");
		exit(1);
	}
	close(fd);
}

static void
phase(const char *name, void (*run)(uint64_t), uint64_t ns)
{
	uint64_t t0 = now(CLOCK_REALTIME);

	run(now(CLOCK_MONOTONIC) + ns);
	say(name, t0, now(CLOCK_REALTIME));
}

/* The calling thread's end: "thread NAME START END CPU", "born NAME NS". */
static void
thread_done(const char *name, uint64_t start)
{
	uint64_t end = now(CLOCK_REALTIME);

	fprintf(stderr, "thread %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", name,
	    start, end, now(CLOCK_THREAD_CPUTIME_ID));
	fprintf(stderr, "born %s %" PRIu64 "\n", name,
	    end - (uint64_t)(thread_age() * 1e9));
}

static void *
late(void *arg)
{
	struct timespec ts;
	uint64_t ns = ns_of(1.25), t0 = now(CLOCK_REALTIME);

	(void)arg;
	pthread_setname_np(pthread_self(), "late");
	ts.tv_sec = (time_t)(ns / 1000000000u);
	ts.tv_nsec = (long)(ns % 1000000000u);
	nanosleep(&ts, NULL);
	say("sleep", t0, now(CLOCK_REALTIME));
	phase("c", c, ns_of(1));
	thread_done("late", t0);
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	uint64_t t0, born = now(CLOCK_REALTIME);

	if (argc > 1 && (scale = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: phases [SCALE]\n");
		return 2;
	}
	pthread_setname_np(pthread_self(), "worker");
	if (pthread_create(&t, NULL, late, NULL) != 0)
		return 1;
	phase("a", a, ns_of(1));
	t0 = now(CLOCK_REALTIME);
	wait_in_read(ns_of(0.5));
	say("read", t0, now(CLOCK_REALTIME));
	phase("b", b, ns_of(1));
	pthread_join(t, NULL);
	thread_done("worker", born);
	return 0;
}
