/*
 * pingpong.c - a switch-heavy program for bench/pingpong.py: two threads
 * hand a byte back and forth over two pipes, so that each blocks in
 * read() and wakes the other, a context switch every few microseconds.
 * Plain: nothing of profil's linked in.
 *
 *   pingpong SECONDS     round trips for SECONDS of wall time; prints
 *                        "round_trips N cpu S wall S"
 *   pingpong SECONDS N   the same with N pairs of threads
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct pair {
	int ping[2], pong[2];
	double until;
	long trips;
};

static double
now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The other side: every byte that comes back out. */
static void *
ponger(void *arg)
{
	struct pair *p = arg;
	char c;

	while (read(p->ping[0], &c, 1) == 1)
		if (write(p->pong[1], &c, 1) != 1)
			break;
	return NULL;
}

/* Round trips until the wall time is up; the clock read every 64. */
static void *
pinger(void *arg)
{
	struct pair *p = arg;
	char c = 'x';

	do {
		for (int i = 0; i < 64; i++) {
			if (write(p->ping[1], &c, 1) != 1 ||
			    read(p->pong[0], &c, 1) != 1)
				abort();
			p->trips++;
		}
	} while (now(CLOCK_MONOTONIC) < p->until);
	close(p->ping[1]);	/* the ponger reads EOF and ends */
	return NULL;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1, t0;
	int npairs = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t t[2 * 64];
	struct pair *pairs;
	long trips = 0;

	if (seconds <= 0 || npairs < 1 || npairs > 64) {
		fprintf(stderr, "usage: pingpong SECONDS [PAIRS (1-64)]\n");
		return 2;
	}
	pairs = calloc((size_t)npairs, sizeof *pairs);
	if (pairs == NULL)
		abort();
	t0 = now(CLOCK_MONOTONIC);
	for (int i = 0; i < npairs; i++) {
		if (pipe(pairs[i].ping) < 0 || pipe(pairs[i].pong) < 0)
			abort();
		pairs[i].until = t0 + seconds;
		pthread_create(&t[2 * i], NULL, ponger, &pairs[i]);
		pthread_create(&t[2 * i + 1], NULL, pinger, &pairs[i]);
	}
	for (int i = 0; i < 2 * npairs; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < npairs; i++)
		trips += pairs[i].trips;
	printf("round_trips %ld cpu %.3f wall %.3f\n", trips,
	    now(CLOCK_PROCESS_CPUTIME_ID), now(CLOCK_MONOTONIC) - t0);
	return 0;
}
