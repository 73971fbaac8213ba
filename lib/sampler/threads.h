/*
 * threads.h - the threads being sampled, and their clocks.
 *
 * When sampling starts, every thread of /proc/self/task gets a clock; while
 * it runs, threads created through pthread_create (thread_hook.c) get one
 * as soon as they exist.  Clocks of threads that have exited are reaped
 * as new ones come, so their number stays within twice the live threads.
 * Armed clocks all follow one clock_spec, whose period may lengthen
 * (threads_set_period).
 */
#ifndef PROFIL_THREADS_H
#define PROFIL_THREADS_H

#include <stdint.h>
#include <sys/types.h>

#include "sampler/thread_clock.h"

/*
 * Arm a clock on every thread, and on threads created from now on.
 * Returns 0, or -1 with errno if the calling thread could not be armed
 * (nothing is left armed then).
 */
int threads_arm_all(const struct clock_spec *spec);

/*
 * Clocks armed from now on (new threads, a forked child's) sample at
 * period_ns, if it is longer than what they sample at now: a budget
 * (budget.h) slows sampling down as it goes.  Async-signal-safe.
 */
void threads_set_period(uint64_t period_ns);

/* Disarm every clock; new threads are no longer armed. */
void threads_disarm_all(void);

/* 1 while sampling is on (new threads must be added). */
int threads_sampling(void);

/* Arm a clock on new thread tid of this process, if sampling is on. */
void threads_add(pid_t tid);

/* How many live threads have a clock armed now. */
unsigned threads_armed(void);

/* fork: registry lock held across it; the child keeps only itself. */
void threads_fork_prepare(void);
void threads_fork_parent(void);
void threads_fork_child(void);

#endif
