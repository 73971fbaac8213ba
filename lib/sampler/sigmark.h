/*
 * sigmark.h - how a signal of the sampling number is known for one of
 * our samples: a CPU-time timer of ours (si_code SI_TIMER) carries
 * SIGMARK_TIMER_COOKIE in si_value, a perf clock's comes as POLL_IN.
 * Anything else of that number (kill, sigqueue, a timer of the
 * program's) is the program's.  The clocks mark, the handler and the
 * veil read the mark: here, so that none of them asks another.
 *
 * Layer: constants and tests on a siginfo_t only, async-signal-safe;
 * below everything in the sampler.
 */
#ifndef PROFIL_SIGMARK_H
#define PROFIL_SIGMARK_H

#include <signal.h>

/* What our timers put in si_value ("prof"). */
#define SIGMARK_TIMER_COOKIE	0x70726f66
/* What a perf clock's kernel watch puts there ("prow"): thread_clock.h. */
#define SIGMARK_WATCH_COOKIE	0x70726f77

/* Whether info is of one of our CPU-time timers that sample. */
static inline int
sigmark_from_timer(const siginfo_t *info)
{
	return info->si_code == SI_TIMER &&
	    info->si_value.sival_int == SIGMARK_TIMER_COOKIE;
}

/* Whether info is of a perf clock's kernel watch (not a sample). */
static inline int
sigmark_from_watch(const siginfo_t *info)
{
	return info->si_code == SI_TIMER &&
	    info->si_value.sival_int == SIGMARK_WATCH_COOKIE;
}

/*
 * Whether info is ours: a sample (our timer's or perf event's signal),
 * or a kernel watch's.
 */
static inline int
sigmark_is_sample(const siginfo_t *info)
{
	return sigmark_from_timer(info) || sigmark_from_watch(info) ||
	    info->si_code == POLL_IN;
}

#endif
