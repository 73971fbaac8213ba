/*
 * clock.h - the recording's clock: CLOCK_MONOTONIC in nanoseconds, the
 * clock the perf engine's records carry (perf-events.c opens its events
 * on it), so that what the recorder times itself (looks at blocked
 * threads, the files of generated code, the timer engine's readings)
 * and what the kernel timed compare.
 */
#ifndef PROFIL_RECORD_CLOCK_H
#define PROFIL_RECORD_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Now, in ns. */
static inline uint64_t
record_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The same instant on CLOCK_REALTIME (*wall) and on the recording's clock
 * (returned), as the header's start_ns and the timeline's slice 0: the
 * closest of a few readings realtime, monotonic, realtime, since a
 * recorder preempted between two readings on a loaded machine would put
 * every time of the profile off by as long as it waited.
 */
static inline uint64_t
record_now_pair(struct timespec *wall)
{
	uint64_t best = UINT64_MAX, mono = 0;

	for (int i = 0; i < 5; i++) {
		struct timespec a, b;
		uint64_t m, gap;

		clock_gettime(CLOCK_REALTIME, &a);
		m = record_now_ns();
		clock_gettime(CLOCK_REALTIME, &b);
		gap = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u +
		    (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
		if (b.tv_sec < a.tv_sec || (b.tv_sec == a.tv_sec &&
		    b.tv_nsec < a.tv_nsec))
			continue;	/* the wall clock was set back between */
		if (gap < best) {
			best = gap;
			mono = m;
			/* the wall reading halfway between the two */
			wall->tv_sec = a.tv_sec;
			wall->tv_nsec = a.tv_nsec + (long)(gap / 2);
			while (wall->tv_nsec >= 1000000000) {
				wall->tv_nsec -= 1000000000;
				wall->tv_sec++;
			}
		}
	}
	if (best == UINT64_MAX) {
		clock_gettime(CLOCK_REALTIME, wall);
		mono = record_now_ns();
	}
	return mono;
}

#endif
