/*
 * test-sprofil.c - glibc's sprofil() on our core: the overflow counter,
 * overlapping regions (the higher pr_off wins), PROF_UINT indexing, the
 * period in *tvp, restarting after turning off, and glibc 2.36's bugs
 * (first sample after a region switch lost to the overflow counter; a pc
 * below every region crashes) shown on glibc and absent in ours.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/profil.h>
#include <sys/wait.h>

#include "harness.h"
#include <profil.h>

HARNESS_SPIN_DECLARE(spin_a)
HARNESS_SPIN_DECLARE(spin_b)

typedef int sprofil_fn(struct prof *, int, struct timeval *, unsigned int);

static sprofil_fn *
glibc_sprofil(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	sprofil_fn *fn = libc ? (sprofil_fn *)dlsym(libc, "sprofil") : NULL;

	CHECK(fn != NULL && fn != sprofil, "glibc's sprofil not found");
	return fn;
}

static unsigned long
sum16(const unsigned short *b, size_t n)
{
	unsigned long s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

static struct prof
region(uintptr_t lo, uintptr_t hi, unsigned short *buf)
{
	struct prof p = { buf, ((hi - lo) / 2 + 1) * 2, lo, 0x10000 };

	return p;
}

/*
 * glibc's rate, as planned: its ITIMER_PROF signals, one a tick at most
 * (278 a CPU-second here, 250 Hz ticks, under load); harness_spin_for
 * makes up for what it does not give.
 */
static double
glibc_hz(void)
{
	struct profil_status st;

	profil_get_status(&st);
	return st.tick_hz;
}

/* A buffer's counts, for harness_spin_for. */
struct counts {
	const unsigned short *buf;
	size_t n;
};

static double
count16(void *arg)
{
	const struct counts *c = arg;

	return (double)sum16(c->buf, c->n);
}

/* The regions' counts of switching(), overflow's too if asked. */
struct switch_counts {
	struct counts a, b;
	const unsigned short *over;
};

static double
count_switching(void *arg)
{
	const struct switch_counts *c = arg;

	return (double)sum16(c->a.buf, c->a.n) + (double)sum16(c->b.buf,
	    c->b.n) + (c->over != NULL ? *c->over : 0);
}

/* spin_a and spin_b by turns of 20 ms, for `seconds` in all. */
static void
alternate(double seconds)
{
	for (int i = 0; i < seconds / 0.04; i++) {
		spin_a_fn(0.02);
		spin_b_fn(0.02);
	}
}

/*
 * Regions for spin_a and spin_b plus an overflow counter; the pc switches
 * between them every 20 ms until need counts (the overflow's only if
 * with_over) at rate (0: ours).  Returns the counts.
 */
static void
switching(sprofil_fn *fn, double rate, double need, int with_over,
    unsigned long *a, unsigned long *b, unsigned long *overflow)
{
	uintptr_t A = (uintptr_t)__start_spin_a, AE = (uintptr_t)__stop_spin_a;
	uintptr_t B = (uintptr_t)__start_spin_b, BE = (uintptr_t)__stop_spin_b;
	size_t an = (AE - A) / 2 + 1, bn = (BE - B) / 2 + 1;
	unsigned short *abuf = calloc(an, 2), *bbuf = calloc(bn, 2);
	unsigned short over = 0;
	struct prof p[3] = { region(A, AE, abuf), region(B, BE, bbuf),
	    { &over, sizeof over, 0, 2 } };
	struct switch_counts c = { { abuf, an }, { bbuf, bn },
	    with_over ? &over : NULL };

	CHECK(fn(p, 3, NULL, PROF_USHORT) == 0, "sprofil: %s", strerror(errno));
	harness_spin_for(alternate, need, count_switching, &c, rate,
	    "counts");
	fn(NULL, 0, NULL, 0);
	*a = sum16(abuf, an);
	*b = sum16(bbuf, bn);
	*overflow = over;
}

static void
switching_ours(void)
{
	unsigned long a, b, over;
	/* a's share within 10 points at 4 standard errors */
	double need = harness_samples_for_share(0.5, 4, 0.1);

	switching(sprofil, 0, need, 0, &a, &b, &over);
	fprintf(stderr, "ours: a %lu, b %lu, overflow %lu (%.0f needed)\n", a,
	    b, over, need);
	/*
	 * Only the loop between calls and the session's ends are outside
	 * both regions: 400 samples put the ends' count error (9 at 250 Hz,
	 * harness.h) within half the 5%.
	 */
	CHECK(over <= 0.05 * (a + b + over), "overflow got %lu of %lu", over,
	    a + b + over);
	double share = (double)a / (double)(a + b);
	CHECK(share > 0.5 - harness_margin(0.5, (double)(a + b), 4, 0.05) &&
	    share < 0.5 + harness_margin(0.5, (double)(a + b), 4, 0.05),
	    "a's share %.3f", share);
}

static void
test_region_switch_counts_in_the_region(void **state)
{
	(void)state;
	FORKED(switching_ours, 30);
}

static void
switching_glibc(void)
{
	unsigned long a, b, over;

	/* as many as ours had: the same 5% judged */
	switching(glibc_sprofil(), glibc_hz(), harness_samples_for_share(0.5, 4,
	    0.1), 1, &a, &b, &over);
	fprintf(stderr, "glibc: a %lu, b %lu, overflow %lu\n", a, b, over);
	if (over <= 0.05 * (a + b + over))
		harness_skip("this glibc counts region switches correctly");
}

static void
test_glibc_loses_samples_at_region_switch(void **state)
{
	(void)state;
	FORKED(switching_glibc, 30);
}

static double
count_outside(void *unused)
{
	struct profil_status st;

	(void)unused;
	profil_get_status(&st);
	return (double)st.outside;
}

/*
 * One region, above the code that runs: every sample is below it.  With
 * no overflow entry glibc's binary search underflows and reads far out.
 */
static void
below_lowest(sprofil_fn *fn, int with_overflow)
{
	uintptr_t lo, hi;
	size_t n;
	unsigned short *buf, over = 0;

	CHECK(harness_text_of("libm.so", &lo, &hi) == 0 ||
	    harness_text_of("libc.so", &lo, &hi) == 0, "a library's text");
	n = (hi - lo) / 2 + 1;
	buf = calloc(n, 2);
	struct prof p[2] = { region(lo, hi, buf), { &over, sizeof over, 0, 2 } };
	CHECK((uintptr_t)__start_spin_a < lo, "program text above the library");
	struct profil_status st;

	CHECK(fn(p, with_overflow ? 2 : 1, NULL, PROF_USHORT) == 0, "sprofil");
	if (fn != sprofil)	/* for samples to meet glibc's search */
		harness_spin_cpu(spin_a_fn, harness_seconds_for(20,
		    glibc_hz()));
	else if (with_overflow) {
		struct counts c = { &over, 1 };

		harness_spin_for(spin_a_fn, 50, count16, &c, 0,
		    "pcs below the region counted as overflow");
	} else
		harness_spin_for(spin_a_fn, 50, count_outside, NULL, 0,
		    "pcs below the region seen");
	profil_get_status(&st);
	fn(NULL, 0, NULL, 0);
	fprintf(stderr, "overflow %u, region %lu, outside %llu\n", over,
	    sum16(buf, n), (unsigned long long)st.outside);
}

static void
below_ours(void)
{
	below_lowest(sprofil, 1);
	below_lowest(sprofil, 0);
}

static void
test_pc_below_every_region_is_overflow(void **state)
{
	(void)state;
	FORKED(below_ours, 30);
}

static void
below_glibc(void)
{
	below_lowest(glibc_sprofil(), 0);
}

static void
test_glibc_crashes_below_every_region(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);	/* cmocka's handler would hide it */
		signal(SIGBUS, SIG_DFL);
		below_glibc();
		_exit(0);
	}
	assert_true(pid > 0);
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		SKIP("this glibc's sprofil() no longer crashes there");
	assert_true(WIFSIGNALED(status));
}

/* Overlap: where two regions overlap, the one with the higher pr_off wins. */
static void
overlap(void)
{
	uintptr_t A = (uintptr_t)__start_spin_a, AE = (uintptr_t)__stop_spin_a;
	uintptr_t B = (uintptr_t)__start_spin_b, BE = (uintptr_t)__stop_spin_b;
	uintptr_t lo = A < B ? A : B, hi = AE > BE ? AE : BE;
	uintptr_t inner = A < B ? B : A, inner_end = A < B ? BE : AE;
	size_t wn = (hi - lo) / 2 + 1, in_n = (inner_end - inner) / 2 + 1;
	unsigned short *wide = calloc(wn, 2), *narrow = calloc(in_n, 2);
	/* given lowest first: the order of the array must not matter */
	struct prof p[2] = { region(lo, hi, wide), region(inner, inner_end, narrow) };
	unsigned long wide_in_inner = 0;
	struct counts w = { wide, wn }, nw = { narrow, in_n };

	CHECK(sprofil(p, 2, NULL, PROF_USHORT) == 0, "sprofil");
	/* the inner function counted by the narrow one, the outer by wide */
	harness_spin_for(A < B ? spin_b_fn : spin_a_fn, 40, count16, &nw, 0,
	    "the higher region's counts");
	harness_spin_for(A < B ? spin_a_fn : spin_b_fn, 40, count16, &w, 0,
	    "the lower region's counts");
	sprofil(NULL, 0, NULL, 0);
	for (uintptr_t pc = inner; pc < inner_end; pc += 2)
		wide_in_inner += wide[(pc - lo) / 2];
	fprintf(stderr, "wide %lu (inside the narrow one: %lu), narrow %lu\n",
	    sum16(wide, wn), wide_in_inner, sum16(narrow, in_n));
	CHECK(sum16(narrow, in_n) >= 40, "the higher region got too little");
	CHECK(wide_in_inner == 0, "the lower region counted the overlap");
	CHECK(sum16(wide, wn) >= 40, "the lower region lost its own part");
}

static void
test_overlap_goes_to_the_higher_region(void **state)
{
	(void)state;
	FORKED(overlap, 30);
}

struct counts32 {
	const unsigned *buf;
	size_t n;
};

static double
count32(void *arg)
{
	const struct counts32 *c = arg;
	double sum = 0;

	for (size_t i = 0; i < c->n; i++)
		sum += c->buf[i];
	return sum;
}

/* PROF_UINT: 32-bit counters, index ((pc - off) / 4) * scale / 65536. */
static void
uint_counters(void)
{
	uintptr_t A = (uintptr_t)__start_spin_a, AE = (uintptr_t)__stop_spin_a;
	size_t n = (AE - A) / 4 + 1;
	unsigned *buf = calloc(n + 16, 4);
	struct prof p = { buf, n * 4, A, 0x10000 };
	struct counts32 c = { buf, n };
	struct timeval tv = { 99, 99 };
	struct profil_status st;
	unsigned long in = 0, past = 0;

	CHECK(sprofil(&p, 1, &tv, PROF_UINT) == 0, "sprofil");
	harness_spin_for(spin_a_fn, 60, count32, &c, 0, "spin_a's counts");
	profil_get_status(&st);
	sprofil(NULL, 0, NULL, 0);
	for (size_t i = 0; i < n; i++)
		in += buf[i];
	for (size_t i = n; i < n + 16; i++)
		past += buf[i];
	CHECK(past == 0, "counted past the region's buffer");
	CHECK(tv.tv_sec == 0 && tv.tv_usec == (long)(1000000 / st.rate_hz),
	    "period %ld.%06ld s for %u Hz", (long)tv.tv_sec, (long)tv.tv_usec,
	    st.rate_hz);
}

static void
test_prof_uint_and_period(void **state)
{
	(void)state;
	FORKED(uint_counters, 30);
}

/* glibc 2.36 aborts with a double free when started again after off. */
static void
restart(void)
{
	uintptr_t A = (uintptr_t)__start_spin_a, AE = (uintptr_t)__stop_spin_a;
	size_t n = (AE - A) / 2 + 1;
	unsigned short *buf = calloc(n, 2);
	struct prof p = region(A, AE, buf);
	struct counts c = { buf, n };

	for (int round = 0; round < 3; round++) {
		unsigned long before = sum16(buf, n);

		CHECK(sprofil(&p, 1, NULL, 0) == 0, "round %d", round);
		harness_spin_for(spin_a_fn, before + 11, count16, &c, 0,
		    "counts of the round");
		CHECK(sprofil(NULL, 0, NULL, 0) == 0, "off");
	}
}

static void
test_restart_after_off(void **state)
{
	(void)state;
	FORKED(restart, 30);
}

static void
test_bad_arguments(void **state)
{
	unsigned short buf[64];
	struct prof p = { buf, sizeof buf, (size_t)__start_spin_a, 0x10000 };
	struct prof ignored = { buf, sizeof buf, (size_t)__start_spin_a, 1 };
	struct profil_status st;

	(void)state;
	errno = 0;
	assert_int_equal(sprofil(&p, 1, NULL, 8), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(sprofil(&p, -1, NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	p.pr_base = NULL;
	errno = 0;
	assert_int_equal(sprofil(&p, 1, NULL, 0), -1);
	assert_int_equal(errno, EFAULT);
	/* pr_scale < 2 is ignored; with nothing left, nothing runs */
	assert_int_equal(sprofil(&ignored, 1, NULL, PROF_FAST), 0);
	profil_get_status(&st);
	assert_false(st.active);
}

/*
 * EFAULT ends the profiling that was running, as profil()'s does (BSD:
 * "profiling is terminated"), whichever memory was bad: a counter, the
 * array, or *tvp.
 */
static void
efault_stops(void)
{
	static unsigned short buf[64];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *ro = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
	    -1, 0);
	struct prof p = { buf, sizeof buf, (size_t)__start_spin_a, 0x10000 };
	struct prof nobuf = p;
	struct profil_status st;

	CHECK(ro != MAP_FAILED && none != MAP_FAILED, "mmap");
	nobuf.pr_base = NULL;
	CHECK(sprofil(&p, 1, NULL, 0) == 0, "start: %s", strerror(errno));
	errno = 0;
	CHECK(sprofil(&nobuf, 1, NULL, 0) == -1 && errno == EFAULT,
	    "errno %d", errno);
	profil_get_status(&st);
	CHECK(!st.active, "a NULL buffer left the profiling on");

	CHECK(sprofil(&p, 1, NULL, 0) == 0, "restart: %s", strerror(errno));
	errno = 0;
	CHECK(sprofil(none, 1, NULL, 0) == -1 && errno == EFAULT,
	    "errno %d", errno);
	profil_get_status(&st);
	CHECK(!st.active, "an unreadable array left the profiling on");

	CHECK(sprofil(&p, 1, NULL, 0) == 0, "restart: %s", strerror(errno));
	errno = 0;
	CHECK(sprofil(&p, 1, ro, 0) == -1 && errno == EFAULT, "errno %d", errno);
	profil_get_status(&st);
	CHECK(!st.active, "a read-only tvp left the profiling on");
}

static void
test_efault_stops_profiling(void **state)
{
	(void)state;
	FORKED(efault_stops, 30);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_region_switch_counts_in_the_region),
		cmocka_unit_test(test_glibc_loses_samples_at_region_switch),
		cmocka_unit_test(test_pc_below_every_region_is_overflow),
		cmocka_unit_test(test_glibc_crashes_below_every_region),
		cmocka_unit_test(test_overlap_goes_to_the_higher_region),
		cmocka_unit_test(test_prof_uint_and_period),
		cmocka_unit_test(test_restart_after_off),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_efault_stops_profiling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
