/*
 * test-api.c - the modern API: config validation, which mechanism runs
 * and at what real rate, timer overrun weighting, the rate cap, and the
 * totals adding up exactly.
 */
#include <errno.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampler/budget.h"
#include "harness.h"
#include <profil.h>

HARNESS_SPIN_DECLARE(spin_a)

/* What harness_spin_for counts: the session's signals. */
static double
count_signals(void *unused)
{
	struct profil_status st;

	(void)unused;
	profil_get_status(&st);
	return (double)st.signals;
}

/* The rate the running session's signals come at (its resolution). */
static double
signal_rate(void)
{
	struct profil_status st;

	profil_get_status(&st);
	return st.resolution_hz;
}

static void
test_bad_configs(void **state)
{
	static uint32_t counters[1024];
	struct profil_range r = { 0x10000, 0x11000, counters, 4, 4 };
	struct profil_range two[2] = { r, r };
	struct profil_config cfg = { 0, 0, &r, 1, 0, 0 };
	struct profil_range bad;

	(void)state;
#define REFUSED(err) do { errno = 0; assert_int_equal(profil_start(&cfg), -1); \
	assert_int_equal(errno, err); } while (0)
	cfg.flags = 2; REFUSED(EINVAL); cfg.flags = 0;
	/* a budget of no samples */
	cfg.flags = PROFIL_BUDGET; REFUSED(EINVAL); cfg.flags = 0;
	cfg.rate_hz = PROFIL_MAX_HZ + 1; REFUSED(EINVAL); cfg.rate_hz = 0;
	cfg.mechanism = 7; REFUSED(EINVAL); cfg.mechanism = 0;
	bad = r; bad.bucket_bytes = 3; cfg.ranges = &bad; REFUSED(EINVAL);
	bad = r; bad.bucket_bytes = 0; REFUSED(EINVAL);
	bad = r; bad.counter_bytes = 8; REFUSED(EINVAL);
	bad = r; bad.highpc = bad.lowpc; REFUSED(EINVAL);
	cfg.ranges = two; cfg.nranges = 2; REFUSED(EINVAL);	/* overlap */
	cfg.ranges = NULL; REFUSED(EINVAL);
	bad = r; bad.counters = NULL; cfg.ranges = &bad; cfg.nranges = 1;
	REFUSED(EFAULT);
	/* counters too small for the range: the tail is not ours */
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	munmap(p + page, (size_t)page);
	bad = r; bad.counters = p + page - 64; REFUSED(EFAULT);
	munmap(p, (size_t)page);
	assert_null(profil_mechanism_name(42));
	assert_string_equal(profil_mechanism_name(PROFIL_MECH_PERF), "perf");
	assert_int_equal(profil_get_status(NULL), -1);
}

/*
 * Counters that end where their mapping does, a hole after it, are
 * accepted; one bucket more reaches into the hole and is EFAULT.
 */
static void
test_counters_up_to_a_hole(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* page / 4 buckets of 16 bytes, 4-byte counters: exactly one page */
	struct profil_range r = { 0x10000, 0x10000 + 16 * (page / 4), p, 16, 4 };
	struct profil_config cfg = { 0, 0, &r, 1, 0, 0 };
	unsigned char v[1];

	(void)state;
	assert_true(p != MAP_FAILED);
	assert_int_equal(munmap(p + page, page), 0);
	assert_int_equal(profil_start(&cfg), 0);
	assert_int_equal(profil_stop(), 0);
	r.highpc++;
	errno = 0;
	assert_int_equal(profil_start(&cfg), -1);
	assert_int_equal(errno, EFAULT);
	/* (had another mapping taken the hole, this would show nothing) */
	assert_int_equal(mincore(p + page, page, v), -1);
	munmap(p, page);
}

/*
 * EFAULT ends the profiling that was running, as profil()'s does (BSD:
 * "profiling is terminated"), whichever memory was bad: counters that
 * are not writable, or a ranges array that cannot be read.  Any other
 * refusal leaves it running.
 */
static void
efault_stops(void)
{
	static uint32_t counters[1024];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	struct profil_range r = { 0x10000, 0x10400, counters, 4, 4 };
	struct profil_range bad = r;
	struct profil_config cfg = { 0, 0, &r, 1, 0, 0 };
	struct profil_status st;

	CHECK(ro != MAP_FAILED && none != MAP_FAILED, "mmap");
	CHECK(profil_start(&cfg) == 0, "start: %s", strerror(errno));
	bad.bucket_bytes = 3;
	cfg.ranges = &bad;
	errno = 0;
	CHECK(profil_start(&cfg) == -1 && errno == EINVAL, "errno %d", errno);
	profil_get_status(&st);
	CHECK(st.active, "EINVAL stopped the running profiling");

	bad = r;
	bad.counters = ro;
	errno = 0;
	CHECK(profil_start(&cfg) == -1 && errno == EFAULT, "errno %d", errno);
	profil_get_status(&st);
	CHECK(!st.active, "read-only counters left the profiling on");

	cfg.ranges = &r;
	CHECK(profil_start(&cfg) == 0, "restart: %s", strerror(errno));
	cfg.ranges = none;
	errno = 0;
	CHECK(profil_start(&cfg) == -1 && errno == EFAULT, "errno %d", errno);
	profil_get_status(&st);
	CHECK(!st.active, "an unreadable ranges array left the profiling on");
}

static void
test_efault_stops_profiling(void **state)
{
	(void)state;
	FORKED(efault_stops, 30);
}

/*
 * The default: CPU timers at the tick rate.  The magnitude is exact (one
 * count per 1/rate s of CPU); distinct signals are at most one per tick,
 * fewer when two expiries fall in one tick (si_overrun then carries it).
 */
static void
default_rate(void)
{
	struct profil_status st;
	double need;

	CHECK(profil_start(NULL) == 0, "start");
	/*
	 * The signals' bounds: 10% above (no more than the samples), and
	 * half below, where they are a Poisson count (harness.h): 4 standard
	 * errors within that, a signal at most a sample.
	 */
	need = harness_samples_for_rate(harness_rate(), 1, 0.1);
	if (need < harness_samples_for_poisson(4, 0.5))
		need = harness_samples_for_poisson(4, 0.5);
	harness_spin_for(spin_a_fn, need, NULL, NULL, 0, "samples");
	profil_get_status(&st);
	profil_stop();
	double per_s = (double)st.samples / st.cpu_seconds;
	double signals = (double)st.signals / st.cpu_seconds;
	fprintf(stderr, "%s at %u Hz (tick %u): %.0f samples, %.0f signals "
	    "per CPU-second (%llu samples, %.0f needed)\n",
	    profil_mechanism_name(st.mechanism), st.rate_hz, st.tick_hz, per_s,
	    signals, (unsigned long long)st.samples, need);
	CHECK(st.mechanism == PROFIL_MECH_TIMER, "default is not the timer");
	CHECK(st.rate_hz == st.tick_hz && st.resolution_hz == st.tick_hz,
	    "rate %u resolution %u tick %u", st.rate_hz, st.resolution_hz, st.tick_hz);
	CHECK(fabs(per_s - st.rate_hz) < 0.15 * st.rate_hz, "magnitude: %.0f "
	    "samples per CPU-s", per_s);
	CHECK(signals <= 1.1 * st.tick_hz && signals >= 0.5 * st.tick_hz,
	    "%.0f signals per CPU-s", signals);
}

static void
test_default_is_timer_at_tick_rate(void **state)
{
	(void)state;
	FORKED(default_rate, 30);
}

/* Above the tick rate, AUTO takes perf events and reaches the rate. */
static void
high_rate(void)
{
	struct profil_config cfg = { 2000, PROFIL_MECH_AUTO, NULL, 0, 0, 0 };
	struct profil_status st;

	if (!harness_perf_allowed())
		harness_skip("perf events not permitted here");
	CHECK(profil_start(&cfg) == 0, "start");
	harness_spin_for(spin_a_fn, harness_samples_for_rate(harness_rate(), 1,
	    0.15), count_signals, NULL, 0, "signals");
	profil_get_status(&st);
	profil_stop();
	double measured = (double)st.signals / st.cpu_seconds;
	fprintf(stderr, "%s: %.0f signals per CPU-second for 2000 asked\n",
	    profil_mechanism_name(st.mechanism), measured);
	CHECK(st.mechanism == PROFIL_MECH_PERF, "auto at 2 kHz is not perf");
	CHECK(st.resolution_hz == 2000, "resolution %u", st.resolution_hz);
	CHECK(fabs(measured - 2000) < 0.15 * 2000, "measured %.0f Hz", measured);
}

static void
test_auto_above_tick_rate_reaches_it(void **state)
{
	(void)state;
	FORKED(high_rate, 30);
}

/* Timers asked for more than the tick: overruns keep the magnitude. */
static void
timer_overruns(void)
{
	struct profil_config cfg = { 1000, PROFIL_MECH_TIMER, NULL, 0, 0, 0 };
	struct profil_status st;
	double need;

	CHECK(profil_start(&cfg) == 0, "start");
	/*
	 * The magnitude's 15%, and the signals' 20% above the tick rate: a
	 * Poisson count (harness.h), its 4 standard errors within that.
	 */
	need = harness_samples_for_rate(harness_rate(), 1, 0.15);
	if (need < harness_samples_for_poisson(4, 0.2) * harness_rate() /
	    signal_rate())
		need = harness_samples_for_poisson(4, 0.2) * harness_rate() /
		    signal_rate();
	harness_spin_for(spin_a_fn, need, NULL, NULL, 0, "samples");
	profil_get_status(&st);
	profil_stop();
	double per_s = (double)st.samples / st.cpu_seconds;
	double signals = (double)st.signals / st.cpu_seconds;
	double ticks = st.cpu_seconds * st.tick_hz;
	fprintf(stderr, "timer at 1 kHz: %.0f samples, %.0f signals per CPU-s "
	    "(%llu signals, %.0f ticks' worth of CPU)\n", per_s, signals,
	    (unsigned long long)st.signals, ticks);
	CHECK(st.mechanism == PROFIL_MECH_TIMER, "not the timer");
	CHECK(fabs(per_s - 1000) < 150, "weighted samples %.0f per CPU-s", per_s);
	if (st.tick_hz < 1000)
		CHECK(st.resolution_hz == st.tick_hz && st.signals <
		    ticks + 4 * sqrt(ticks), "resolution %u, %.0f signals/s",
		    st.resolution_hz, signals);
}

static void
test_timer_overruns_keep_the_magnitude(void **state)
{
	(void)state;
	FORKED(timer_overruns, 30);
}

/* perf_event_open refused as an unprivileged user at paranoid 3 would be. */
static void
refuse_perf_events(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof filter / sizeof filter[0], filter };

	CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "no_new_privs");
	CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0, "seccomp");
	CHECK(!harness_perf_allowed(), "perf still allowed");
}

static void
perf_refused(void)
{
	struct profil_config cfg = { 2000, PROFIL_MECH_AUTO, NULL, 0, 0, 0 };
	struct profil_status st;

	refuse_perf_events();
	CHECK(profil_start(&cfg) == 0, "auto start: %s", strerror(errno));
	harness_spin_for(spin_a_fn, harness_samples_for_rate(harness_rate(), 1,
	    0.15), NULL, NULL, 0, "samples");
	profil_get_status(&st);
	profil_stop();
	fprintf(stderr, "perf refused: auto at 2 kHz ran %s, resolution %u Hz, "
	    "%.0f samples per CPU-s\n", profil_mechanism_name(st.mechanism),
	    st.resolution_hz, (double)st.samples / st.cpu_seconds);
	CHECK(st.mechanism == PROFIL_MECH_TIMER, "did not fall back to the timer");
	CHECK(st.resolution_hz == (st.tick_hz < 2000 ? st.tick_hz : 2000),
	    "claims resolution %u", st.resolution_hz);
	CHECK(fabs((double)st.samples / st.cpu_seconds - 2000) < 300,
	    "magnitude not kept");
	cfg.mechanism = PROFIL_MECH_PERF;
	errno = 0;
	CHECK(profil_start(&cfg) == -1 && errno == ENOTSUP,
	    "explicit perf: errno %d", errno);
	profil_get_status(&st);
	CHECK(!st.active, "a refused start left something running");
}

static void
test_refused_perf_falls_back_to_timer(void **state)
{
	(void)state;
	FORKED(perf_refused, 30);
}

/*
 * A budget (PROFIL_BUDGET): sampling starts at 10 kHz and slows down as
 * samples are taken, in every thread (each retunes its own clock), and
 * every sample counts its period in 100 us units: the counts still add
 * up to the CPU time, with far fewer signals than 10 kHz would take.
 */
static void *
spin_thread(void *seconds)
{
	spin_a_fn(*(double *)seconds);
	return NULL;
}

/*
 * The budget's run, sized by the CPU time its checks need (all its
 * threads'; the budget is the process's).  Its rate must come down 6
 * doublings (156 Hz): below the tick (250 Hz here), and with perf, to
 * 50 k signals in the 5 ms (2^k - 1) of CPU the first k doublings take
 * at 10 kHz, 950 a CPU-second at k = 6, half the 2,000 checked; a
 * timer takes its 300 signals at one a tick.  A timer's signals are a
 * Poisson count (harness.h): 4 standard errors of the ticks in its CPU
 * time within the 20% checked.  Every sample weighs its own period, so
 * the counts are off by what the ends of the threads' runs cut, a
 * period at the rate reached (the count error at it, in 1/10000 s
 * units): at most half the 15% checked.
 */
#define BUDGET_DOUBLINGS 6

/* The CPU seconds a budget's run needs, having come down to stage_hz. */
static double
budget_cpu_need(int mechanism, int threads, double stage_hz)
{
	struct profil_status st;
	double need, counts;

	profil_get_status(&st);
	if (mechanism == PROFIL_MECH_TIMER) {
		need = (double)BUDGET_DOUBLINGS * budget_stage_samples(400) /
		    st.tick_hz;
		if (need < harness_samples_for_poisson(4, 0.2) / st.tick_hz)
			need = harness_samples_for_poisson(4, 0.2) / st.tick_hz;
	} else
		need = 0.005 * ((1 << BUDGET_DOUBLINGS) - 1);
	counts = harness_samples_for_rate(stage_hz, threads, 0.15) / stage_hz;
	return need > counts ? need : counts;
}

static void
budget_run(int mechanism, int nthreads)
{
	struct profil_config cfg = { 0, mechanism, NULL, 0, PROFIL_BUDGET, 400 };
	struct profil_status st;
	pthread_t t[4];
	double seconds, stage_hz, need;
	int runs = 0;

	/* (a session of that mechanism, for harness_count_error) */
	CHECK(profil_start(&cfg) == 0, "start: %s", strerror(errno));
	profil_stop();
	stage_hz = (double)BUDGET_START_HZ / (1 << BUDGET_DOUBLINGS);
	need = budget_cpu_need(mechanism, nthreads + 1, stage_hz);
	for (seconds = harness_seconds_for(need, 1) / (nthreads + 1);;
	    seconds = harness_longer(seconds, 1000 * st.cpu_seconds,
	    1000 * need, &runs, "CPU ms of the budget's run")) {
		CHECK(profil_start(&cfg) == 0, "start: %s", strerror(errno));
		for (int i = 0; i < nthreads; i++)
			CHECK(pthread_create(&t[i], NULL, spin_thread,
			    &seconds) == 0, "pthread_create");
		spin_a_fn(seconds);
		for (int i = 0; i < nthreads; i++)
			pthread_join(t[i], NULL);
		profil_get_status(&st);
		profil_stop();
		/* the counts' error at the rate reached, if slower */
		if (st.resolution_hz < stage_hz)
			stage_hz = st.resolution_hz;
		need = budget_cpu_need(mechanism, nthreads + 1, stage_hz);
		if (st.cpu_seconds >= need)
			break;
	}
	double per_s = (double)st.samples / st.cpu_seconds;
	double signals = (double)st.signals / st.cpu_seconds;
	fprintf(stderr, "budget of 400, %s, %d threads: %.0f counts and %.0f "
	    "signals per CPU-s, %llu signals, %u Hz at the end, %.2f CPU-s "
	    "(%.2f needed)\n", profil_mechanism_name(st.mechanism),
	    nthreads + 1, per_s, signals, (unsigned long long)st.signals,
	    st.resolution_hz, st.cpu_seconds, need);
	CHECK(st.rate_hz == 10000, "the start rate, %u, is a count's unit",
	    st.rate_hz);
	CHECK(fabs(per_s - 10000) < 0.15 * 10000, "magnitude: %.0f counts per "
	    "CPU-s for 10000", per_s);
	/* a fixed 10 kHz (or the tick rate) would be 10000 (250) per CPU-s */
	CHECK(st.resolution_hz < (st.mechanism == PROFIL_MECH_PERF ? 1000 :
	    st.tick_hz), "the rate did not come down: %u Hz", st.resolution_hz);
	if (st.mechanism == PROFIL_MECH_PERF)
		CHECK(signals < 2000, "%.0f signals per CPU-s", signals);
	else {
		double ticks = st.cpu_seconds * st.tick_hz;

		/* at most one a tick, give or take 4 standard errors */
		CHECK(st.signals <= ticks + 4 * sqrt(ticks), "%.0f signals per "
		    "CPU-s", signals);
	}
}

static void
budget_perf(void)
{
	if (!harness_perf_allowed())
		harness_skip("perf events not permitted here");
	budget_run(PROFIL_MECH_PERF, 0);
	budget_run(PROFIL_MECH_PERF, 2);
}

static void
budget_timer(void)
{
	/* CPU timers fire on ticks: a budget only slows them down */
	budget_run(PROFIL_MECH_TIMER, 0);
	budget_run(PROFIL_MECH_TIMER, 2);
}

/* PROFIL_SAMPLES: a budget for programs that only call profil() */
static void
budget_from_environment(void)
{
	struct profil_status st;

	CHECK(setenv("PROFIL_SAMPLES", "400", 1) == 0, "setenv");
	CHECK(profil_start(NULL) == 0, "start");
	/* a doubling: N / 8 signals */
	harness_spin_for(spin_a_fn, budget_stage_samples(400) + 1,
	    count_signals, NULL, signal_rate(), "signals");
	profil_get_status(&st);
	profil_stop();
	CHECK(st.rate_hz == 10000, "rate %u", st.rate_hz);
	CHECK(st.resolution_hz < 10000, "resolution %u", st.resolution_hz);
	CHECK(setenv("PROFIL_SAMPLES", "-3", 1) == 0, "setenv");
	CHECK(profil_start(NULL) == 0, "start");
	profil_get_status(&st);
	profil_stop();
	CHECK(st.rate_hz == st.tick_hz, "a bad PROFIL_SAMPLES made %u Hz",
	    st.rate_hz);
}

static void
test_budget_slows_down(void **state)
{
	(void)state;
	FORKED(budget_perf, 60);
	FORKED(budget_timer, 60);
	FORKED(budget_from_environment, 30);
}

/* At the cap the program still makes progress (no signal livelock). */
static void
at_the_cap(void)
{
	struct profil_config cfg = { PROFIL_MAX_HZ, PROFIL_MECH_AUTO, NULL, 0, 0, 0 };
	struct profil_status st;

	CHECK(profil_start(&cfg) == 0, "start");
	harness_spin_for(spin_a_fn, 101, count_signals, NULL, signal_rate(),
	    "signals");
	profil_get_status(&st);
	profil_stop();
	fprintf(stderr, "%s at %u Hz: %llu signals in %.2f CPU-s\n",
	    profil_mechanism_name(st.mechanism), st.rate_hz,
	    (unsigned long long)st.signals, st.cpu_seconds);
	CHECK(st.signals > 100, "nothing sampled");
}

static void
test_highest_rate_makes_progress(void **state)
{
	(void)state;
	FORKED(at_the_cap, 60);
}

/*
 * PROFIL_HZ above the most is the most (it was dropped for the tick
 * rate), and the status says so; not a number, or below 1, is ignored.
 * Every front end that leaves the rate open reads it.  An explicit rate
 * above the most is still refused.
 */
static void
env_rate(void)
{
	static const struct {
		const char *value;
		unsigned want;		/* 0: the tick rate */
	} cases[] = {
		{ "20000", PROFIL_MAX_HZ }, { "4294967297", PROFIL_MAX_HZ },
		{ "10000", PROFIL_MAX_HZ }, { "400", 400 }, { "abc", 0 },
		{ "400x", 0 }, { "0", 0 }, { "-5", 0 }, { "", 0 },
	};
	struct profil_config cfg = { 20000, PROFIL_MECH_AUTO, NULL, 0, 0, 0 };
	static unsigned short buf[64];
	struct prof region = { buf, sizeof buf, 0x10000, 0x10000 };
	struct profil_status st;
	struct timeval tv;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		setenv("PROFIL_HZ", cases[i].value, 1);
		CHECK(profil_start(NULL) == 0, "start: %s", strerror(errno));
		profil_get_status(&st);
		profil_stop();
		CHECK(st.rate_hz == (cases[i].want ? cases[i].want : st.tick_hz),
		    "PROFIL_HZ=%s: rate %u", cases[i].value, st.rate_hz);
	}
	setenv("PROFIL_HZ", "20000", 1);
	CHECK(profil(buf, sizeof buf, 0x10000, 0x10000) == 0, "profil");
	profil_get_status(&st);
	CHECK(st.active && st.rate_hz == PROFIL_MAX_HZ, "profil(): rate %u",
	    st.rate_hz);
	CHECK(sprofil(&region, 1, &tv, PROF_USHORT) == 0, "sprofil");
	profil_get_status(&st);
	CHECK(st.rate_hz == PROFIL_MAX_HZ && tv.tv_sec == 0 &&
	    tv.tv_usec == 1000000 / PROFIL_MAX_HZ, "sprofil(): rate %u, "
	    "period %ld us", st.rate_hz, (long)tv.tv_usec);
	profil_stop();
	errno = 0;
	CHECK(profil_start(&cfg) == -1 && errno == EINVAL,
	    "rate_hz 20000: errno %d", errno);
}

static void
test_profil_hz_above_the_most_is_the_most(void **state)
{
	(void)state;
	FORKED(env_rate, 30);
}

/* Every sample is accounted for: counters + outside + lost == samples. */
static void
accounting(void)
{
	uintptr_t lo, hi;
	CHECK(harness_text_of(NULL, &lo, &hi) == 0, "text");
	size_t n = (hi - lo + 15) / 16;
	uint32_t *counters = calloc(n, 4);
	struct profil_range r = { lo, hi, counters, 16, 4 };
	struct profil_config cfg = { 0, 0, &r, 1, 0, 0 };
	struct profil_status st;
	uint64_t in = 0;
	uintptr_t a = (uintptr_t)__start_spin_a, ae = (uintptr_t)__stop_spin_a;
	uint64_t in_spin = 0;

	CHECK(profil_start(&cfg) == 0, "start");
	/* counts outside spin_a are the session's ends': 5% is room for 2x */
	harness_spin_for(spin_a_fn, harness_samples_for_rate(harness_rate(), 1,
	    0.05), NULL, NULL, 0, "samples");
	CHECK(profil_stop() == 0, "stop");
	profil_get_status(&st);
	for (size_t i = 0; i < n; i++)
		in += counters[i];
	for (uintptr_t pc = a & ~(uintptr_t)15; pc < ae; pc += 16)
		in_spin += counters[(pc - lo) / 16];
	fprintf(stderr, "samples %llu = in %llu + outside %llu + lost %llu\n",
	    (unsigned long long)st.samples, (unsigned long long)in,
	    (unsigned long long)st.outside,
	    (unsigned long long)(st.saturated + st.faulted));
	CHECK(!st.active, "still active");
	CHECK(st.samples == in + st.outside + st.saturated + st.faulted,
	    "totals do not add up");
	CHECK(in_spin >= 0.95 * (double)in, "16-byte buckets misplaced counts");
}

static void
test_totals_add_up(void **state)
{
	(void)state;
	FORKED(accounting, 30);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_counters_up_to_a_hole),
		cmocka_unit_test(test_efault_stops_profiling),
		cmocka_unit_test(test_default_is_timer_at_tick_rate),
		cmocka_unit_test(test_auto_above_tick_rate_reaches_it),
		cmocka_unit_test(test_timer_overruns_keep_the_magnitude),
		cmocka_unit_test(test_refused_perf_falls_back_to_timer),
		cmocka_unit_test(test_budget_slows_down),
		cmocka_unit_test(test_highest_rate_makes_progress),
		cmocka_unit_test(test_profil_hz_above_the_most_is_the_most),
		cmocka_unit_test(test_totals_add_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
