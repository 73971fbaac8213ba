/*
 * thread-age.h - the calling thread's age by the kernel's count, for the
 * test programs that say their own times: now less the thread's start
 * time in /proc (clock ticks since boot, field 22 of its stat), so up to
 * a tick over.  A program's clock from main on leaves out the loader and
 * what runs before main, which a loaded machine stretches (an injected
 * library's constructor waiting for a CPU: 0.1 s at load 10); a
 * profiler's count of a thread's life is between the two.
 */
#ifndef PROFIL_TEST_THREAD_AGE_H
#define PROFIL_TEST_THREAD_AGE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The calling thread's age in seconds; exits 3 if /proc cannot say. */
static double
thread_age(void)
{
	char buf[1024], *p;
	unsigned long long start;
	struct timespec ts;
	FILE *f = fopen("/proc/thread-self/stat", "r");
	size_t n;

	if (f == NULL || (n = fread(buf, 1, sizeof buf - 1, f)) == 0)
		exit(3);
	fclose(f);
	buf[n] = '\0';
	/* the name may hold anything but ends at the last ')' */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u "
	    "%*u %*d %*d %*d %*d %*d %*d %llu", &start) != 1)
		exit(3);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 -
	    (double)start / (double)sysconf(_SC_CLK_TCK);
}

#endif
