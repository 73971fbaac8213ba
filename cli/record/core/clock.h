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

#endif
