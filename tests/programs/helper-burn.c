/*
 * helper-burn.c - an exec target for the tests: burns CPU for argv[1]
 * seconds of its own (the process's CPU clock counts the image before
 * the exec too: a slow one, as under sanitizers, left nothing to burn)
 * and exits 0, or 3 if it finds itself still being sampled (a POSIX
 * timer or an ITIMER_PROF armed in the new image).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.2;
	volatile unsigned long x = 1;
	struct itimerval itv;
	struct timespec ts;
	char line[256];
	FILE *f;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	seconds += ts.tv_sec + ts.tv_nsec / 1e9;
	do {
		for (unsigned long i = 0; i < 100000; i++)
			x = x * 6364136223846793005ul + i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec / 1e9 < seconds);

	if (getitimer(ITIMER_PROF, &itv) == 0 &&
	    (itv.it_value.tv_sec || itv.it_value.tv_usec))
		return 3;
	f = fopen("/proc/self/timers", "r");
	if (f != NULL) {
		while (fgets(line, sizeof line, f) != NULL)
			if (strncmp(line, "ID:", 3) == 0)
				return 3;
		fclose(f);
	}
	return 0;
}
