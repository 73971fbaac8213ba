/*
 * parked.c - a program whose threads mostly wait: N threads parked on a
 * condition variable for the whole run while the main thread burns
 * SECONDS of CPU, then wakes them to end.  With N = 0 it is a plain
 * CPU-bound program.  bench/wall.py runs it under profil record with and
 * without --wall: what waiting threads cost a wall profile.
 *
 * usage: parked N SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static int done;

static void *
park(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	while (!done)
		pthread_cond_wait(&wake, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	double seconds = argc > 2 ? atof(argv[2]) : 1.0, start;
	pthread_t *t = calloc((size_t)n + 1, sizeof *t);
	pthread_attr_t attr;
	volatile unsigned long x = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, park, NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
	start = cpu_seconds();
	while (cpu_seconds() - start < seconds)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * 2654435761u;
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("parked %d cpu %.3f\n", n, cpu_seconds() - start);
	return 0;
}
