/*
 * manystacks.c - a long-running program with a few hundred distinct call
 * stacks in each of its threads, for the timeline's size on long runs
 * (bench/timeline.py): THREADS threads run for SECONDS, each picking a
 * path through three levels of six functions every few hundred
 * microseconds (216 stacks a thread).
 *
 *     manystacks THREADS SECONDS
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds = 1;
static volatile uint64_t sink;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
leaf(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	sink = x;
}

#define LEVEL(name, next)						\
	__attribute__((noinline)) static void name##0(uint64_t x) { next(x); sink++; } \
	__attribute__((noinline)) static void name##1(uint64_t x) { next(x); sink++; } \
	__attribute__((noinline)) static void name##2(uint64_t x) { next(x); sink++; } \
	__attribute__((noinline)) static void name##3(uint64_t x) { next(x); sink++; } \
	__attribute__((noinline)) static void name##4(uint64_t x) { next(x); sink++; } \
	__attribute__((noinline)) static void name##5(uint64_t x) { next(x); sink++; } \
	static void (*const name[6])(uint64_t) = { name##0, name##1,	\
	    name##2, name##3, name##4, name##5 };

static void pick_c(uint64_t x);
static void pick_b(uint64_t x);
LEVEL(c, leaf)
LEVEL(b, pick_c)
LEVEL(a, pick_b)

static void pick_c(uint64_t x) { c[(x >> 20) % 6](x); }
static void pick_b(uint64_t x) { b[(x >> 30) % 6](x); }

static void *
run(void *arg)
{
	uint64_t x = (uintptr_t)arg * 7919 + 1;
	double end = now() + seconds;

	while (now() < end) {
		x = x * 2862933555777941757u + 3037000493u;
		a[(x >> 40) % 6](x);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[64];

	if (argc > 2)
		seconds = atof(argv[2]);
	if (n < 1 || n > 64 || seconds <= 0) {
		fprintf(stderr, "usage: manystacks THREADS SECONDS\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, (void *)(uintptr_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
