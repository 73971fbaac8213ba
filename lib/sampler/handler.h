/*
 * handler.h - the sampling signal: which one, and its handler.
 *
 * Samples arrive as a real-time signal that the program does not use
 * (never SIGPROF, which stays the program's), raised on the thread that
 * consumed the CPU time, by a POSIX CPU-time timer (si_code SI_TIMER,
 * weighted by 1 + si_overrun) or a perf event (si_code POLL_IN); which
 * signals are samples, sigmark.h says.
 *
 * Layer: above fault and plan, below sigveil and the session.  It calls
 * nothing above it: what to do with a sample, and with a signal of that
 * number that is not one, are functions its caller hands to
 * handler_install (the session passes session_sample and sigveil_deliver);
 * and it installs its handler with the C library's sigaction, not
 * through the veil's wrapper in front of it.
 */
#ifndef PROFIL_HANDLER_H
#define PROFIL_HANDLER_H

#include <signal.h>
#include <stdint.h>

/*
 * Called by the handler for a sample of weight at pc, and for a signal of
 * the sampling number that is not a sample (returns nonzero if it took
 * it; else the signal is dropped).  Both run in the signal handler and
 * must be async-signal-safe.
 */
/*
 * info is the signal's: si_code SI_TIMER for a CPU-time timer (a tick's
 * sample, weight 1 + si_overrun), POLL_IN for a perf clock (weight 1).
 */
typedef void handler_sample_fn(uintptr_t pc, unsigned long weight,
    const siginfo_t *info, const void *ucontext);
typedef int handler_other_fn(int sig, siginfo_t *info, void *ucontext);

/*
 * Choose the signal (once per process image: PROFIL_SIGNAL, else the
 * highest real-time signal whose disposition is the default) and install
 * the handler, which from now on hands samples to on_sample and other
 * signals of that number to on_other.  Returns the signal number, or -1
 * with errno.
 */
int handler_install(handler_sample_fn *on_sample, handler_other_fn *on_other);

/* In a forked child: reset the lock another thread may have held. */
void handler_fork_child(void);

#endif
