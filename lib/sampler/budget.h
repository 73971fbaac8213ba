/*
 * budget.h - the sample budget's policy: about N samples over a run,
 * fast at first so that a short run gets enough, slower as it goes on so
 * that a long one costs little.  One policy for both engines of `profil
 * record` and for the library (PROFIL_BUDGET), so it lives here, header
 * only (the command links the library without its internal names).
 *
 *   stage k = samples taken / (N / 8), at most max_shift
 *   period  = base period << k
 *
 * The run starts at the base period (the starting rate, 10 kHz unless
 * told otherwise) and the period doubles each time N/8 more samples have
 * been taken, until it would pass BUDGET_SLOWEST_NS.  So every doubling
 * of a run's length adds N/8 samples: a 30 ms run gets the starting
 * rate throughout, one of about a minute takes about N, and the slowest
 * rate (10 to 20 Hz) costs nothing measurable.  A sample taken at period
 * base << k counts 2^k, so counts stay whole numbers and every figure in
 * intervals of the base period stays right (time is still count x
 * interval); the squares of the weights say how far the errors widen.
 *
 * Layer: constants and arithmetic only; async-signal-safe.
 */
#ifndef PROFIL_BUDGET_H
#define PROFIL_BUDGET_H

#include <stdatomic.h>
#include <stdint.h>

#define BUDGET_START_HZ		10000		/* the starting rate by default */
#define BUDGET_STAGES		8		/* N / 8 samples per period */
#define BUDGET_SLOWEST_NS	100000000ull	/* periods stop doubling below */
#define BUDGET_MAX_SHIFT	20		/* 2^20 weights at most */

/*
 * The counters of a budgeted (or any) run, shared by every thread and
 * process that samples into it: the library keeps them in memory shared
 * with `profil record` (agent.h), or in the session.
 */
struct budget {
	uint64_t samples;		/* N; 0: a fixed rate (counted all the same) */
	_Atomic uint64_t taken;		/* samples taken (signals, interrupts) */
	_Atomic uint64_t weight_sq;	/* sum of their weights squared, in base
					   periods */
};

/* Samples taken at each period before the next doubles it. */
static inline uint64_t
budget_stage_samples(uint64_t samples)
{
	return samples / BUDGET_STAGES > 0 ? samples / BUDGET_STAGES : 1;
}

/* How many times base_ns may double and stay within BUDGET_SLOWEST_NS. */
static inline unsigned
budget_max_shift(uint64_t base_ns)
{
	unsigned k = 0;

	while (k < BUDGET_MAX_SHIFT && base_ns > 0 &&
	    base_ns << (k + 1) <= BUDGET_SLOWEST_NS)
		k++;
	return k;
}

/* The stage (period = base_ns << stage) after taken samples of N. */
static inline unsigned
budget_shift(uint64_t samples, uint64_t base_ns, uint64_t taken)
{
	uint64_t k = samples ? taken / budget_stage_samples(samples) : 0;
	unsigned most = budget_max_shift(base_ns);

	return k < most ? (unsigned)k : most;
}

/*
 * A sample's weight, in base periods: the period it was taken at over
 * the base (under a budget a power of two, so whole), and 1 for a period
 * no longer than the base, or no base.
 */
static inline uint64_t
budget_weight(uint64_t period_ns, uint64_t base_ns)
{
	return base_ns > 0 && period_ns > base_ns ? period_ns / base_ns : 1;
}

/*
 * A sample's part in the sum of squared weights (weight_sq), in base
 * periods squared: its user time is one observation of weight user; time
 * counted as the kernel's is kernel / unit observations of the clock's
 * period, unit, each: kernel * unit.  UINT64_MAX when it does not fit.
 */
static inline uint64_t
budget_weight_sq(uint64_t user, uint64_t kernel, uint64_t unit)
{
	unsigned __int128 sq = (unsigned __int128)user * user +
	    (unsigned __int128)kernel * unit;

	return sq > UINT64_MAX ? UINT64_MAX : (uint64_t)sq;
}

/* a + b, or UINT64_MAX when that does not fit (Σw² of a very long run) */
static inline uint64_t
budget_sum_saturating(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* *to += v atomically, saturating as budget_sum_saturating. */
static inline void
budget_add_saturating(_Atomic uint64_t *to, uint64_t v)
{
	uint64_t old = atomic_load_explicit(to, memory_order_relaxed);

	while (!atomic_compare_exchange_weak_explicit(to, &old,
	    budget_sum_saturating(old, v), memory_order_relaxed,
	    memory_order_relaxed))
		;
}

#endif
