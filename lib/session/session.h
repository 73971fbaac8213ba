/*
 * session.h - the one profiling session of a process: which plan the
 * signal handler counts into, how samples are taken, and the totals.
 * Every front end (profil, the extended form, sprofil, profil_start)
 * builds a plan and hands it to session_start(); a new start replaces
 * the running session.
 *
 * Layer: above handler, sigveil, threads and thread_clock, which it
 * drives; below the agent and the front ends (api, profil, sprofil),
 * which call it.  Nothing here calls up: a client that must act in a
 * forked child registers a hook (session_on_fork_child).
 */
#ifndef PROFIL_SESSION_H
#define PROFIL_SESSION_H

#include <signal.h>
#include <stdint.h>

#include "sampler/budget.h"
#include "plan/plan.h"

struct profil_status;

/*
 * Start counting into plan (ownership passes to the session, also on
 * failure) sampling at rate_hz (0: default) with mechanism (enum
 * profil_mechanism; AUTO: default).  With a budget of samples (> 0),
 * rate_hz is where sampling starts and it slows down as budget.h says;
 * every sample then counts in periods of 1 / rate_hz.  shared, if not
 * NULL, holds the budget and its counters instead (its samples field
 * rules; 0 there: a fixed rate, counted): the agent's, which every
 * process of a recording adds to, so the budget is the whole run's.
 * The counters go on from what they hold.  Returns 0, or -1 with errno.
 */
int session_start(struct plan *plan, unsigned rate_hz, int mechanism,
    uint64_t samples, struct budget *shared);

/* Stop sampling and release the plan.  Always succeeds. */
void session_stop(void);

/* The running (or last) session's figures. */
void session_fill_status(struct profil_status *st);

/* The sampling period the next (or running) session uses, in ns. */
uint64_t session_period_ns(unsigned rate_hz, int mechanism);

/*
 * Count one sample at pc with the given weight (in the clock's periods),
 * raised by the signal info.  Called from the signal handler only;
 * async-signal-safe.
 */
void session_sample(uintptr_t pc, unsigned long weight, const siginfo_t *info,
    const void *ucontext);

/* The tag (top 16 bits) of keys a plan's pcmap gets from now on. */
void session_set_pc_tag(uint64_t tag);

/*
 * In a forked child, call hook after the session's own child work (locks
 * reset, the child's threads armed if sampling is on), so that hook sees
 * the child's session as it will run; hook may call session_stop.  One
 * hook per process; a later call replaces it, NULL removes it.  For a
 * client above the session (the agent) that must know of forks.
 */
void session_on_fork_child(void (*hook)(void));

#endif
