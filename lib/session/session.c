/*
 * session.c - the process's one profiling session, the caller's side:
 * starting and stopping it (the plan the signal handler reads, the
 * sampling clocks), its totals, its defaults, and fork.  The handler's
 * side is in session-sample.c and its kin (session-internal.h).
 *
 * Invariant: a plan is freed only after it has been unpublished and no
 * handler that may have read it is still running (retire(): see
 * session-internal.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan/fault.h"
#include "profil.h"
#include "sampler/handler.h"
#include "sampler/sigveil.h"
#include "sampler/threads.h"
#include "session/session-internal.h"
#include "session/session.h"

static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*_Atomic fork_child_hook)(void);	/* session_on_fork_child */

/* What the handler's side reads (session-internal.h). */
struct plan *_Atomic session_live_plan;
atomic_ulong session_readers;
struct session_stats session_stats;
struct budget *_Atomic session_live_budget;
uint64_t session_base_ns;

static struct {
	int active;
	int mechanism;
	int watch_kernel;		/* the clocks' kernel watch is armed */
	unsigned rate_hz, resolution_hz;
	struct timespec cpu_start, cpu_stop;
} running;

/* The budget of a session of our own (not the agent's shared one). */
static struct budget own_budget;

/* ---- the caller's side ------------------------------------------------- */

/* Wait until no handler can still be using a plan unpublished before. */
static void
wait_for_handlers(void)
{
	while (atomic_load(&session_readers) != 0)
		sched_yield();
}

static void
reset_stats(void)
{
	atomic_store(&session_stats.signals, 0);
	atomic_store(&session_stats.samples, 0);
	atomic_store(&session_stats.outside, 0);
	atomic_store(&session_stats.saturated, 0);
	atomic_store(&session_stats.faulted, 0);
	atomic_store(&session_stats.ranges_off, 0);
}

static int
parse_mechanism(const char *name)
{
	if (strcmp(name, "auto") == 0)
		return PROFIL_MECH_AUTO;
	if (strcmp(name, "timer") == 0)
		return PROFIL_MECH_TIMER;
	if (strcmp(name, "perf") == 0)
		return PROFIL_MECH_PERF;
	return -1;
}

/* A whole number from 1 up in the environment variable name, or 0. */
static uint64_t
env_count(const char *name)
{
	const char *env = secure_getenv(name);
	char *end;
	unsigned long long v;

	/* (strtoull would take "-5" for a huge number: below 1 it is) */
	if (env == NULL || *env == '\0' || strchr(env, '-') != NULL)
		return 0;
	v = strtoull(env, &end, 10);
	return *end == '\0' ? (uint64_t)v : 0;
}

/*
 * Environment defaults (secure_getenv) for what the caller left open
 * (rate 0, mechanism AUTO, no budget): PROFIL_SAMPLES, a budget (only
 * when the rate is open too; not a number or below 1: ignored);
 * PROFIL_HZ, a rate above PROFIL_MAX_HZ taken as PROFIL_MAX_HZ, one that
 * is not a number or below 1 ignored (then BUDGET_START_HZ with a
 * budget, else the tick rate); PROFIL_MECHANISM.
 */
static void
env_defaults(unsigned *rate_hz, int *mechanism, uint64_t *samples)
{
	const char *env;

	if (*rate_hz == 0 && *samples == 0)
		*samples = env_count("PROFIL_SAMPLES");
	if (*rate_hz == 0) {
		env = secure_getenv("PROFIL_HZ");
		/* (strtoul would take "-5" for a huge number: below 1 it is) */
		if (env != NULL && *env != '\0' && strchr(env, '-') == NULL) {
			char *end;
			unsigned long v = strtoul(env, &end, 10);

			/*
			 * Above the most, the most: the environment's
			 * ask is as much as it can get, not an error.
			 */
			if (*end == '\0' && v >= 1)
				*rate_hz = v > PROFIL_MAX_HZ ? PROFIL_MAX_HZ :
				    (unsigned)v;
		}
		/*
		 * One sample per scheduler tick: what CPU timers give for
		 * free; a budget starts fast (budget.h).
		 */
		if (*rate_hz == 0)
			*rate_hz = *samples ? BUDGET_START_HZ :
			    thread_clock_tick_hz();
	}
	if (*mechanism == PROFIL_MECH_AUTO) {
		env = secure_getenv("PROFIL_MECHANISM");
		if (env != NULL && parse_mechanism(env) >= 0)
			*mechanism = parse_mechanism(env);
	}
}

/*
 * AUTO: CPU timers when they can deliver the rate (they are nearly free),
 * perf events above the tick rate when permitted, else timers whose
 * overruns keep the magnitudes right at tick resolution.
 */
static int
choose_mechanism(int requested)
{
	if (requested == PROFIL_MECH_TIMER)
		return PROFIL_MECH_TIMER;
	if (thread_clock_perf_probe() == 0)
		return PROFIL_MECH_PERF;
	if (requested == PROFIL_MECH_PERF) {
		errno = ENOTSUP;
		return -1;
	}
	return PROFIL_MECH_TIMER;
}

static void
retire(struct plan *old)
{
	wait_for_handlers();
	plan_free(old);
}

int
session_start(struct plan *plan, unsigned rate_hz, int mechanism,
    uint64_t samples, struct budget *shared)
{
	struct clock_spec spec;
	struct plan *old;
	struct budget *budget;
	int chosen, signo, saved, same_clocks, watch;
	uint64_t base_ns;

	if (shared != NULL)
		samples = shared->samples;
	env_defaults(&rate_hz, &mechanism, &samples);
	if (rate_hz > PROFIL_MAX_HZ || mechanism < PROFIL_MECH_AUTO ||
	    mechanism > PROFIL_MECH_PERF) {
		plan_free(plan);
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&session_lock);
	if (mechanism == PROFIL_MECH_AUTO && rate_hz <= thread_clock_tick_hz())
		chosen = PROFIL_MECH_TIMER;
	else
		chosen = choose_mechanism(mechanism);
	/* samples come here; other signals of that number, to the program */
	signo = chosen < 0 ? -1 :
	    handler_install(session_sample, sigveil_deliver);
	if (signo < 0)
		goto fail;
	/*
	 * The kernel's profil counted whatever the program's signal mask:
	 * a thread that blocks every signal still uses CPU time.
	 */
	sigveil_start(signo);
	budget = shared != NULL ? shared : samples ? &own_budget : NULL;
	base_ns = 1000000000u / rate_hz;
	/* perf clocks counting the kernel's time apart: watched (see there) */
	watch = chosen == PROFIL_MECH_PERF && plan != NULL && plan->pcmap != NULL &&
	    plan->pcmap->kernel_time;
	/* Same clocks, unbudgeted before and after: only the plan changes. */
	same_clocks = running.active && running.mechanism == chosen &&
	    running.watch_kernel == watch && session_base_ns == base_ns &&
	    atomic_load(&session_live_budget) == NULL && budget == NULL;
	if (!same_clocks) {
		if (running.active)
			threads_disarm_all();
		running.active = 0;
		/* no handler may weigh with the old base or budget now */
		atomic_store(&session_live_budget, NULL);
		wait_for_handlers();
		if (budget == &own_budget) {
			own_budget.samples = samples;
			atomic_store(&own_budget.taken, 0);
			atomic_store(&own_budget.weight_sq, 0);
		}
		session_base_ns = base_ns;
		atomic_store(&session_live_budget, budget);
	}
	/*
	 * A budget's clocks start where it is now: a new process image of
	 * a recording (exec) goes on from the run's samples so far.
	 */
	spec.mechanism = chosen;
	spec.period_ns = budget != NULL ? base_ns << budget_shift(budget->samples,
	    base_ns, atomic_load(&budget->taken)) : base_ns;
	spec.signo = signo;
	spec.watch_kernel = watch;
	if (same_clocks) {
		old = atomic_exchange(&session_live_plan, plan);
		reset_stats();
		retire(old);
	} else {
		old = atomic_exchange(&session_live_plan, plan);
		reset_stats();
		if (threads_arm_all(&spec) < 0) {
			saved = errno;
			retire(atomic_exchange(&session_live_plan, NULL));
			atomic_store(&session_live_budget, NULL);
			plan_free(old);
			errno = saved;
			pthread_mutex_unlock(&session_lock);
			return -1;
		}
		retire(old);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &running.cpu_start);
	running.active = 1;
	running.mechanism = chosen;
	running.watch_kernel = watch;
	running.rate_hz = rate_hz;
	running.resolution_hz = chosen == PROFIL_MECH_PERF ||
	    rate_hz < thread_clock_tick_hz() ? rate_hz : thread_clock_tick_hz();
	pthread_mutex_unlock(&session_lock);
	return 0;
fail:
	saved = errno;
	pthread_mutex_unlock(&session_lock);
	plan_free(plan);
	errno = saved;
	return -1;
}

void
session_stop(void)
{
	pthread_mutex_lock(&session_lock);
	if (running.active) {
		threads_disarm_all();
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &running.cpu_stop);
		running.active = 0;
	}
	retire(atomic_exchange(&session_live_plan, NULL));
	/* no handler holds the plan, so none is in the budget's counters */
	atomic_store(&session_live_budget, NULL);
	pthread_mutex_unlock(&session_lock);
}

static double
seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void
session_fill_status(struct profil_status *st)
{
	struct budget *budget;
	struct timespec now;

	memset(st, 0, sizeof *st);
	pthread_mutex_lock(&session_lock);
	st->active = running.active;
	st->mechanism = running.mechanism;
	st->rate_hz = running.rate_hz;
	st->resolution_hz = running.resolution_hz;
	budget = atomic_load(&session_live_budget);
	if (running.active && budget != NULL && budget->samples > 0) {
		/* the rate the budget has come down to by now */
		uint64_t period = session_base_ns <<
		    budget_shift(budget->samples, session_base_ns,
		    atomic_load(&budget->taken));
		unsigned hz = (unsigned)(1000000000u / period);

		if (hz < st->resolution_hz)
			st->resolution_hz = hz > 0 ? hz : 1;
	}
	if (running.active)
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	else
		now = running.cpu_stop;
	if (running.rate_hz != 0)
		st->cpu_seconds = seconds_between(&running.cpu_start, &now);
	pthread_mutex_unlock(&session_lock);
	st->tick_hz = thread_clock_tick_hz();
	st->threads = threads_armed();
	st->signals = atomic_load(&session_stats.signals);
	st->samples = atomic_load(&session_stats.samples);
	st->outside = atomic_load(&session_stats.outside);
	st->saturated = atomic_load(&session_stats.saturated);
	st->faulted = atomic_load(&session_stats.faulted);
	st->ranges_off = atomic_load(&session_stats.ranges_off);
}

uint64_t
session_period_ns(unsigned rate_hz, int mechanism)
{
	uint64_t samples = 0;

	env_defaults(&rate_hz, &mechanism, &samples);
	if (rate_hz == 0 || rate_hz > PROFIL_MAX_HZ)
		rate_hz = thread_clock_tick_hz();
	return 1000000000u / rate_hz;
}

/* ---- fork --------------------------------------------------------------- */

static void
fork_prepare(void)
{
	pthread_mutex_lock(&session_lock);
	threads_fork_prepare();
}

static void
fork_parent(void)
{
	threads_fork_parent();
	pthread_mutex_unlock(&session_lock);
}

/* The child goes on profiling, into its own copy of the buffers. */
static void
fork_child(void)
{
	void (*hook)(void);

	pthread_mutex_init(&session_lock, NULL);
	/* handlers of other threads are gone */
	atomic_store(&session_readers, 0);
	handler_fork_child();
	sigveil_fork_child();
	fault_fork_child();
	memset(&running.cpu_start, 0, sizeof running.cpu_start);
	threads_fork_child();
	/* last: the client sees the child's session as it will run */
	hook = atomic_load(&fork_child_hook);
	if (hook != NULL)
		hook();
}

void
session_on_fork_child(void (*hook)(void))
{
	atomic_store(&fork_child_hook, hook);
}

__attribute__((constructor)) static void
session_init(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}
