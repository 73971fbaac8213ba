/*
 * threads.h - every thread of the process, and its sampling clock.
 *
 * Threads are known from /proc/self/task when sampling starts and from the
 * pthread_create hook (thread_hook.c) afterwards, so threads created later
 * are sampled from their first instruction and their clock is released
 * when they exit.  Armed clocks all follow one clock_spec.
 */
#ifndef PROFIL_THREADS_H
#define PROFIL_THREADS_H

#include "thread_clock.h"

/*
 * Arm a clock on every thread, and on threads created from now on.
 * Returns 0, or -1 with errno if the calling thread could not be armed
 * (nothing is left armed then).
 */
int threads_arm_all(const struct clock_spec *spec);

/* Disarm every clock; new threads are no longer armed. */
void threads_disarm_all(void);

/* How many threads have a clock armed now. */
unsigned threads_armed(void);

/* Called by the pthread_create hook in the new thread, before its code. */
void threads_begin(void);

/* fork: registry lock held across it; the child keeps only itself. */
void threads_fork_prepare(void);
void threads_fork_parent(void);
void threads_fork_child(void);

#endif
