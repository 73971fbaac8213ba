/*
 * session.c - the process's one profiling session: the plan the signal
 * handler reads, the sampling clocks, and the totals.
 *
 * Invariant: a plan is freed only after it has been unpublished and no
 * handler that may have read it is still running.  Handlers announce
 * themselves in `readers` before they load the plan pointer, so a writer
 * that swaps the pointer and then sees readers == 0 knows no handler holds
 * the old plan (all accesses are sequentially consistent).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "arch.h"
#include "plan/bins.h"
#include "plan/fault.h"
#include "sampler/handler.h"
#include "profil.h"
#include "session/session.h"
#include "sampler/sigveil.h"
#include "sampler/stackring.h"
#include "sampler/threads.h"

static pthread_mutex_t session_lock = PTHREAD_MUTEX_INITIALIZER;
static struct plan *_Atomic live_plan;
static atomic_ulong readers;
static _Atomic uint64_t pc_tag = 1ull << 48;	/* see plan_pcmap */
static void (*_Atomic fork_child_hook)(void);	/* session_on_fork_child */

static struct {
	atomic_ullong signals, samples, outside, saturated, faulted;
	atomic_uint ranges_off;
} stats;

static struct {
	int active;
	int mechanism;
	unsigned rate_hz, resolution_hz;
	uint64_t period_ns;		/* the base period: a count's time */
	struct timespec cpu_start, cpu_stop;
} running;

/*
 * The budget and counters samples go to (budget.h): the agent's shared
 * ones, or own_budget.  Published before the clocks are armed, taken
 * away after they are disarmed; NULL: samples are counted as they come.
 */
static struct budget own_budget;
static struct budget *_Atomic live_budget;

/* ---- the signal handler's side ----------------------------------------- */

static void
count_into(struct plan_range *r, uintptr_t pc, unsigned long weight)
{
	uint64_t index = bins_index(pc, r->offset, r->granule_shift, r->scale);
	char *counter = (char *)r->counters + index * r->counter_bytes;
	long lost;

	lost = r->counter_bytes == 2
	    ? profil_arch_add_u16((uint16_t *)counter, weight)
	    : profil_arch_add_u32((uint32_t *)counter, weight);
	if (lost < 0) {
		/* The buffer went away: this range stops, the program goes on. */
		if (atomic_exchange(&r->off, 1) == 0)
			atomic_fetch_add(&stats.ranges_off, 1);
		atomic_fetch_add(&stats.faulted, weight);
	} else if (lost > 0) {
		atomic_fetch_add(&stats.saturated, (unsigned long)lost);
	}
}

static void
count_overflow(struct plan *plan, unsigned long weight)
{
	long lost;

	if (plan->overflow == NULL || atomic_load(&plan->overflow_off))
		return;
	lost = plan->overflow_bytes == 2
	    ? profil_arch_add_u16(plan->overflow, weight)
	    : profil_arch_add_u32(plan->overflow, weight);
	if (lost < 0)
		atomic_store(&plan->overflow_off, 1);
	else if (lost > 0)
		atomic_fetch_add(&stats.saturated, (unsigned long)lost);
}

/*
 * Multiplicative hash of a key, tag (process slot) bits included: folded
 * down first, or every process's copy of a pc would share one probe
 * sequence (the product's bits 20 and up do not depend on bits 44 and up
 * of the key) and a few hundred processes would run it out.
 */
static uint64_t
pcmap_slot(uint64_t key, uint64_t mask)
{
	key ^= key >> 32;
	return (key * 0x9e3779b97f4a7c15ull >> 20) & mask;
}

/*
 * Add weight to key's count in an open-addressing table in shared memory
 * (fault-safe accesses).  1 if counted, 0 if no room, -1 on a fault.
 */
static int
count_key(uint64_t *keys, uint64_t *counts, uint64_t mask, uint64_t key,
    unsigned long weight)
{
	uint64_t i = pcmap_slot(key, mask);

	for (int probe = 0; probe < PLAN_PCMAP_PROBES; probe++, i = (i + 1) & mask) {
		uint64_t found = 0;
		long rc = profil_arch_cas_u64(&keys[i], &found, key);

		if (rc < 0)
			return -1;
		if (rc == 1 || found == key)
			return profil_arch_add_u64(&counts[i], weight) < 0 ? -1 : 1;
	}
	return 0;
}

/*
 * What the thread's clocks said at its last sample (initial-exec TLS: no
 * call into the loader in a handler), and the kernel samples owed but
 * not yet whole.
 */
static __thread struct {
	int known;		/* the fields below are this thread's */
	uint64_t user_us, sys_us;	/* CPU timer: as the kernel charged it */
	uint64_t cpu_ns;	/* perf clock: the thread's CPU clock */
	double owed;
} kernel_split __attribute__((tls_model("initial-exec")));

/*
 * A thread's first sample only sets the baseline: its times run from
 * its start, which exec does not move (the previous image's time is in
 * them), and a forked child's restart from 0 under its parent's.
 */
static int
kernel_baseline(int stale)
{
	if (kernel_split.known && !stale)
		return 0;
	kernel_split.known = 1;
	kernel_split.owed = 0;
	return 1;
}

/* k kernel samples, fractions and debts carried to the next sample. */
static unsigned long
kernel_owed(double k, unsigned long most)
{
	k += kernel_split.owed;
	if (k > (double)most) {
		kernel_split.owed = k - (double)most;
		return most;
	}
	if (k < 0) {
		kernel_split.owed = k;
		return 0;
	}
	kernel_split.owed = k - (double)(unsigned long)k;
	return (unsigned long)k;
}

/*
 * How many of this sample's weight stand for time the thread spent in
 * the kernel since its last sample.  The signal arrives on the way back
 * to user mode, with the pc after the system call: without this, that
 * time is the user code's (docs/design.md, "Kernel time").  Raw system
 * calls: async-signal-safe, no libc wrapper in the way.
 *
 * CPU timer (by_tick): the weight is the ticks of user and kernel time
 * since the last sample, and the kernel charged each tick to one or the
 * other: kernel = weight * dsys / (duser + dsys).
 */
static unsigned long
kernel_by_tick(unsigned long weight)
{
	struct rusage ru;
	uint64_t user, sys, du, ds;

	if (syscall(SYS_getrusage, RUSAGE_THREAD, &ru) < 0)
		return 0;
	user = (uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec;
	sys = (uint64_t)ru.ru_stime.tv_sec * 1000000 + (uint64_t)ru.ru_stime.tv_usec;
	if (kernel_baseline(user < kernel_split.user_us ||
	    sys < kernel_split.sys_us)) {
		kernel_split.user_us = user;
		kernel_split.sys_us = sys;
		return 0;
	}
	du = user - kernel_split.user_us;
	ds = sys - kernel_split.sys_us;
	kernel_split.user_us = user;
	kernel_split.sys_us = sys;
	return kernel_owed(du + ds > 0 ? (double)weight * (double)ds /
	    (double)(du + ds) : 0, weight);
}

/*
 * perf clock (user mode only): its kernel samples are the fires it
 * dropped in kernel mode, the thread's CPU time since the last sample in
 * periods less the samples delivered, on top of the weight: credited
 * to the next sample's stack, the code the system call returned to.
 * The thread's CPU clock, not getrusage: a running thread's rusage moves
 * at its ticks only, so each sample's share came in lumps a tick apart.
 * Not the system time alone: what a sample
 * itself costs in the kernel (the interrupt, the signal's delivery)
 * follows its fire at once, so the next fire is in user mode and that
 * time is in the user samples already (counted twice, it added 14% at
 * 5 kHz).
 */
static unsigned long
kernel_by_clock(unsigned long weight)
{
	struct timespec ts;
	uint64_t now;

	if (running.period_ns == 0 ||
	    syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	now = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	if (kernel_baseline(now < kernel_split.cpu_ns)) {
		kernel_split.cpu_ns = now;
		return 0;
	}
	now -= kernel_split.cpu_ns;
	kernel_split.cpu_ns += now;
	return kernel_owed((double)now / (double)running.period_ns -
	    (double)weight, ~0ul);
}

static unsigned long
kernel_weight(unsigned long weight, int by_tick)
{
	return by_tick ? kernel_by_tick(weight) : kernel_by_clock(weight);
}

/* *kernel_out: how much of the weight (or on top of it) is the kernel's */
static void
count_pc(struct plan_pcmap *m, uintptr_t pc, unsigned long weight,
    int by_tick, const void *ucontext, unsigned long *kernel_out)
{
	uint64_t tag = atomic_load(&pc_tag), key = tag | (uint64_t)pc;
	unsigned long kernel = m->kernel_time ? kernel_weight(weight, by_tick) : 0;
	unsigned long user = by_tick ? weight - kernel : weight;
	int rc;

	*kernel_out = kernel;

	if (atomic_load(&m->off))
		goto fault;
	if ((uint64_t)pc >> 48 != 0 || (uint64_t)pc == PLAN_PCMAP_KERNEL_PC)
		goto no_room;		/* not a user-space pc we can tag */
	rc = user ? count_key(m->keys, m->counts, m->mask, key, user) : 1;
	if (rc == 1 && kernel > 0)
		rc = count_key(m->keys, m->counts, m->mask,
		    tag | PLAN_PCMAP_KERNEL_PC, kernel);
	if (rc < 0)
		goto fault;
	if (rc == 0)
		goto no_room;
	weight = user + kernel;
	if (m->tkeys != NULL || m->stacks != NULL) {
		/* a raw system call: no libc wrapper, no cached value to trust */
		uint32_t tid = (uint32_t)syscall(SYS_gettid);
		uint64_t tkey = tag >> 16 | tid;

		if (m->tkeys != NULL) {
			rc = count_key(m->tkeys, m->tcounts, m->tmask, tkey, weight);
			if (rc < 0)
				goto fault;
			if (rc == 0 && profil_arch_add_u64(m->tlost, weight) < 0)
				goto fault;
		}
		/* a full ring drops the stack, not the sample */
		if (m->stacks != NULL)
			stackring_capture(m->stacks, ucontext, (uint32_t)(tag >> 48),
			    tid, weight, kernel);
	}
	return;
no_room:
	atomic_fetch_add(&stats.saturated, weight);
	if (profil_arch_add_u64(m->lost, weight) < 0)
		atomic_store(&m->off, 1);
	return;
fault:
	/* the shared memory went away: stop touching it */
	atomic_store(&m->off, 1);
	atomic_fetch_add(&stats.faulted, weight);
}

void
session_set_pc_tag(uint64_t tag)
{
	atomic_store(&pc_tag, tag);
}

/*
 * If the interrupted code blocks SIGSEGV or SIGBUS (a program that blocks
 * every signal), so does this handler, and a fault in a counter update
 * would kill the process instead of reaching fault.c.  Unblock them until
 * the handler returns (sigreturn puts the program's mask back), unless
 * one is pending: it would be delivered here, before the program means
 * to take it.  Raw system calls: no wrapper or interceptor in between.
 * Returns 0 if buffers may be touched, -1 if not.
 */
static int
unblock_faults(const ucontext_t *uc)
{
	sigset_t faults, pending;

	if (sigismember(&uc->uc_sigmask, SIGSEGV) != 1 &&
	    sigismember(&uc->uc_sigmask, SIGBUS) != 1)
		return 0;
	if (syscall(SYS_rt_sigpending, &pending, _NSIG / 8) < 0 ||
	    sigismember(&pending, SIGSEGV) == 1 ||
	    sigismember(&pending, SIGBUS) == 1)
		return -1;
	sigemptyset(&faults);
	sigaddset(&faults, SIGSEGV);
	sigaddset(&faults, SIGBUS);
	return syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &faults, NULL,
	    _NSIG / 8) < 0 ? -1 : 0;
}

/*
 * A sample under a budget: counted as taken, and its weight in base
 * periods returned, the period its clock samples at now over the base
 * (the kernel cannot be asked what a perf clock's period was: each
 * thread's clock changes only here, in its own handler, or when armed).
 * Once the budget wants a longer period than that, this thread's clock
 * is retuned; the other threads' follow at their next samples, and
 * clocks armed from now on (new threads, forked children) start at it.
 * So every sample weighs its own period, whatever the other threads do.
 */
static unsigned long
budget_weigh(struct budget *b, const siginfo_t *info)
{
	uint64_t taken = atomic_fetch_add_explicit(&b->taken, 1,
	    memory_order_relaxed) + 1;
	uint64_t base = running.period_ns, period, want;

	if (b->samples == 0 || base == 0)
		return 1;
	period = thread_clock_period(info);
	if (period < base || period % base != 0)
		return 1;	/* not a clock of ours we can tell */
	want = base << budget_shift(b->samples, base, taken);
	if (want > period) {
		threads_set_period(want);
		thread_clock_retune(info, period, want);
	}
	return (unsigned long)budget_weight(period, base);
}

void
session_sample(uintptr_t pc, unsigned long weight, const siginfo_t *info,
    const void *ucontext)
{
	const ucontext_t *uc = ucontext;
	int by_tick = info->si_code == SI_TIMER;
	unsigned long unit = 1, kernel = 0;
	struct budget *budget;
	struct plan *plan;
	struct plan_range *r;

	atomic_fetch_add(&readers, 1);
	plan = atomic_load(&live_plan);
	if (plan == NULL)
		goto out;
	budget = atomic_load(&live_budget);
	if (budget != NULL)
		unit = budget_weigh(budget, info);
	weight *= unit;
	atomic_fetch_add(&stats.signals, 1);
	atomic_fetch_add(&stats.samples, weight);
	if (unblock_faults(uc) < 0) {
		atomic_fetch_add(&stats.faulted, weight);
		goto weigh;
	}
	r = plan_find(plan, pc);
	if (r == NULL) {
		atomic_fetch_add(&stats.outside, weight);
		if (plan->pcmap != NULL)
			count_pc(plan->pcmap, pc, weight, by_tick, ucontext,
			    &kernel);
		else
			count_overflow(plan, weight);
	} else if (atomic_load(&r->off)) {
		atomic_fetch_add(&stats.faulted, weight);
	} else {
		count_into(r, pc, weight);
	}
weigh:
	if (budget != NULL)
		budget_add_saturating(&budget->weight_sq, budget_weight_sq(
		    by_tick ? weight - kernel : weight, kernel, unit));
out:
	atomic_fetch_sub(&readers, 1);
}

/* ---- the caller's side ------------------------------------------------- */

/* Wait until no handler can still be using a plan unpublished before. */
static void
wait_for_handlers(void)
{
	while (atomic_load(&readers) != 0)
		sched_yield();
}

static void
reset_stats(void)
{
	atomic_store(&stats.signals, 0);
	atomic_store(&stats.samples, 0);
	atomic_store(&stats.outside, 0);
	atomic_store(&stats.saturated, 0);
	atomic_store(&stats.faulted, 0);
	atomic_store(&stats.ranges_off, 0);
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
	int chosen, signo, saved, same_clocks;
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
	/* Same clocks, unbudgeted before and after: only the plan changes. */
	same_clocks = running.active && running.mechanism == chosen &&
	    running.period_ns == base_ns && atomic_load(&live_budget) == NULL &&
	    budget == NULL;
	if (!same_clocks) {
		if (running.active)
			threads_disarm_all();
		running.active = 0;
		/* no handler may weigh with the old base or budget now */
		atomic_store(&live_budget, NULL);
		wait_for_handlers();
		if (budget == &own_budget) {
			own_budget.samples = samples;
			atomic_store(&own_budget.taken, 0);
			atomic_store(&own_budget.weight_sq, 0);
		}
		running.period_ns = base_ns;
		atomic_store(&live_budget, budget);
	}
	/*
	 * A budget's clocks start where it is now: a new process image of
	 * a recording (exec) goes on from the run's samples so far.
	 */
	spec.mechanism = chosen;
	spec.period_ns = budget != NULL ? base_ns << budget_shift(budget->samples,
	    base_ns, atomic_load(&budget->taken)) : base_ns;
	spec.signo = signo;
	if (same_clocks) {
		old = atomic_exchange(&live_plan, plan);
		reset_stats();
		retire(old);
	} else {
		old = atomic_exchange(&live_plan, plan);
		reset_stats();
		if (threads_arm_all(&spec) < 0) {
			saved = errno;
			retire(atomic_exchange(&live_plan, NULL));
			atomic_store(&live_budget, NULL);
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
	retire(atomic_exchange(&live_plan, NULL));
	/* no handler holds the plan, so none is in the budget's counters */
	atomic_store(&live_budget, NULL);
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
	budget = atomic_load(&live_budget);
	if (running.active && budget != NULL && budget->samples > 0) {
		/* the rate the budget has come down to by now */
		uint64_t period = running.period_ns << budget_shift(budget->samples,
		    running.period_ns, atomic_load(&budget->taken));
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
	st->signals = atomic_load(&stats.signals);
	st->samples = atomic_load(&stats.samples);
	st->outside = atomic_load(&stats.outside);
	st->saturated = atomic_load(&stats.saturated);
	st->faulted = atomic_load(&stats.faulted);
	st->ranges_off = atomic_load(&stats.ranges_off);
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
	atomic_store(&readers, 0);	/* handlers of other threads are gone */
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
