/*
 * handler.h - the sampling signal: which one, and its handler.
 *
 * Samples arrive as a real-time signal that the program does not use
 * (never SIGPROF, which stays the program's), raised on the thread that
 * consumed the CPU time, by a POSIX CPU-time timer (si_code SI_TIMER,
 * weighted by 1 + si_overrun) or a perf event (si_code POLL_IN).
 */
#ifndef PROFIL_HANDLER_H
#define PROFIL_HANDLER_H

#include <signal.h>

/* The value timers put in si_value, so stray signals are told apart. */
#define HANDLER_TIMER_COOKIE 0x70726f66

/*
 * Choose the signal (once per process image: PROFIL_SIGNAL, else the
 * highest real-time signal whose disposition is the default) and install
 * the handler.  Returns the signal number, or -1 with errno.
 */
int handler_install(void);

/* The signal handler_install chose, or -1 before it did. */
int handler_signo(void);

/* Whether info is of a sample (our timer's or perf event's signal). */
int handler_is_sample(const siginfo_t *info);

/* Whether sa installs our sampling handler. */
int handler_is_sampler(const struct sigaction *sa);

/* In a forked child: reset the lock another thread may have held. */
void handler_fork_child(void);

#endif
