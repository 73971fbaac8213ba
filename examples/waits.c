/*
 * waits.c - a program that is slow for waiting, not computing, for
 * `profil record --wall`: it spends about 0.2 s of CPU in compute(), but
 * 0.4 s in load_config() reading a pipe that a slow "server" thread
 * answers late, and 0.2 s in retry_backoff() asleep.  Its CPU profile is
 * all compute(); its wall profile says where the second went.
 *
 * usage: waits
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];
static volatile unsigned long sink;

static void
nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* The "server": answers 0.4 s after it is asked. */
static void *
server(void *arg)
{
	(void)arg;
	nap(400);
	if (write(pipefd[1], "ok", 2) != 2)
		perror("write");
	return NULL;
}

__attribute__((noinline)) static void
load_config(void)
{
	char buf[2];

	if (read(pipefd[0], buf, sizeof buf) != 2)
		perror("read");
}

__attribute__((noinline)) static void
retry_backoff(void)
{
	nap(200);
}

/* About 0.2 s of CPU, whatever the machine: its own CPU clock says. */
__attribute__((noinline)) static void
compute(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			sink = sink * 6364136223846793005ul + (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + b.tv_nsec - a.tv_nsec <
	    200000000L);
}

int
main(void)
{
	pthread_t t;

	if (pipe(pipefd) < 0 || pthread_create(&t, NULL, server, NULL) != 0)
		return 1;
	load_config();
	compute();
	retry_backoff();
	pthread_join(t, NULL);
	printf("done\n");
	return 0;
}
