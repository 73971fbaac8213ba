/*
 * test-profil.c - the classic profil() call on real runs: where counts
 * land, turning off, replacing, EFAULT, buffers that go away, saturation.
 * Every body runs in a forked child with a timeout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include <profil.h>

HARNESS_SPIN_DECLARE(spin_a)
HARNESS_SPIN_DECLARE(spin_b)

static uintptr_t text_lo, text_hi;

static unsigned short *
text_buffer(size_t *bufsiz)
{
	unsigned short *buf;

	CHECK(harness_text_of(NULL, &text_lo, &text_hi) == 0, "no text");
	*bufsiz = ((text_hi - text_lo) / 2 + 1) * sizeof *buf;
	buf = calloc(1, *bufsiz);
	CHECK(buf != NULL, "calloc");
	return buf;
}

/* Counts in the scale-0x10000 bins of [lo, hi) of a buffer at text_lo. */
static unsigned long
bins_sum(const unsigned short *buf, uintptr_t lo, uintptr_t hi)
{
	unsigned long sum = 0;

	for (uintptr_t pc = lo & ~(uintptr_t)1; pc < hi; pc += 2)
		sum += buf[(pc - text_lo) / 2];
	return sum;
}

static unsigned long
total(const unsigned short *buf, size_t bufsiz)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < bufsiz / 2; i++)
		sum += buf[i];
	return sum;
}

static void
stop(void)
{
	static unsigned short dummy;

	CHECK(profil_any(&dummy, 0, 0, 0) == 0, "stop");
}

/* What harness_spin_for counts: a buffer's counts, all or in [lo, hi). */
struct counts {
	const unsigned short *buf;
	size_t bufsiz;
	uintptr_t lo, hi;
};

static double
count_all(void *arg)
{
	const struct counts *c = arg;

	return (double)total(c->buf, c->bufsiz);
}

static double
count_bins(void *arg)
{
	const struct counts *c = arg;

	return (double)bins_sum(c->buf, c->lo, c->hi);
}

static double
count_faulted(void *unused)
{
	struct profil_status st;

	(void)unused;
	profil_get_status(&st);
	return (double)st.faulted;
}

/*
 * A check that nothing is counted (after turning off, in a buffer
 * replaced) spins as long as a running session would take for this
 * many samples: a count off by at most harness_count_error (3 at
 * 250 Hz) cannot hide them.
 */
#define NONE_OF 20

/* Spin for the CPU time that many samples take at rate. */
static void
spin_none_of(void (*spin)(double), double rate)
{
	harness_spin_cpu(spin, harness_seconds_for(NONE_OF, rate));
}

static void
spin_share(void)
{
	size_t bufsiz;
	unsigned short *buf = text_buffer(&bufsiz);
	struct counts c = { buf, bufsiz, 0, 0 };
	unsigned long all, in;
	double need;

	CHECK(profil(buf, bufsiz, text_lo, 0x10000) == 0, "profil: %s",
	    strerror(errno));
	/* counts outside spin_a are the session's ends': 5% is room for 2x */
	need = harness_samples_for_rate(harness_rate(), 1, 0.05);
	harness_spin_for(spin_a_fn, need, count_all, &c, 0, "counts");
	stop();
	all = total(buf, bufsiz);
	in = bins_sum(buf, (uintptr_t)__start_spin_a, (uintptr_t)__stop_spin_a);
	fprintf(stderr, "%lu of %lu counts in spin_a (%.0f needed)\n", in, all,
	    need);
	CHECK(in >= 0.95 * all, "only %lu of %lu in the spinning function", in, all);
}

static void
spin_share_timer(void)
{
	setenv("PROFIL_MECHANISM", "timer", 1);
	spin_share();
}

static void
spin_share_perf(void)
{
	if (!harness_perf_allowed())
		harness_skip("perf events not permitted here");
	setenv("PROFIL_MECHANISM", "perf", 1);
	setenv("PROFIL_HZ", "1000", 1);
	spin_share();
}

static void
test_own_function_gets_its_counts_timer(void **state)
{
	(void)state;
	FORKED(spin_share_timer, 30);
}

static void
test_own_function_gets_its_counts_perf(void **state)
{
	(void)state;
	FORKED(spin_share_perf, 30);
}

/* Each way of turning off: nothing is counted afterwards. */
static void
turning_off(void)
{
	size_t bufsiz;
	unsigned short *buf = text_buffer(&bufsiz);
	struct profil_status st;
	int way;

	for (way = 0; way < 4; way++) {
		struct counts c = { buf, bufsiz, 0, 0 };
		unsigned long before;
		double rate;

		CHECK(profil(buf, bufsiz, text_lo, 0x10000) == 0, "start");
		rate = harness_rate();
		/* counting while on, so that none after off means off */
		harness_spin_for(spin_a_fn, total(buf, bufsiz) + 1, count_all,
		    &c, 0, "counts while on");
		switch (way) {
		case 0: CHECK(profil(buf, bufsiz, text_lo, 0) == 0, "scale 0"); break;
		case 1: CHECK(profil(buf, bufsiz, text_lo, 1) == 0, "scale 1"); break;
		case 2: CHECK(profil(buf, 0, text_lo, 0x10000) == 0, "bufsiz 0"); break;
		case 3: CHECK(profil_any(NULL, 0, 0, 0) == 0, "profil(0,0,0,0)"); break;
		}
		profil_get_status(&st);
		CHECK(!st.active, "way %d: still active", way);
		before = total(buf, bufsiz);
		spin_none_of(spin_a_fn, rate);
		CHECK(total(buf, bufsiz) == before, "way %d: counted after off", way);
	}
}

static void
test_turning_off(void **state)
{
	(void)state;
	FORKED(turning_off, 30);
}

static void
replacing(void)
{
	size_t bufsiz;
	unsigned short *a = text_buffer(&bufsiz);
	unsigned short *b = calloc(1, bufsiz);
	struct counts in_a = { a, bufsiz, 0, 0 };
	struct counts in_b = { b, bufsiz, (uintptr_t)__start_spin_b,
	    (uintptr_t)__stop_spin_b };
	unsigned long a_before;
	double rate;

	CHECK(profil(a, bufsiz, text_lo, 0x10000) == 0, "first");
	rate = harness_rate();
	harness_spin_for(spin_a_fn, 1, count_all, &in_a, 0,
	    "counts in the first buffer");
	CHECK(profil(b, bufsiz, text_lo, 0x10000) == 0, "second");
	a_before = total(a, bufsiz);
	spin_none_of(spin_b_fn, rate);
	harness_spin_for(spin_b_fn, 1, count_bins, &in_b, 0,
	    "spin_b's counts in the second buffer");
	stop();
	CHECK(total(a, bufsiz) == a_before, "first buffer still counted");
	CHECK(bins_sum(b, (uintptr_t)__start_spin_a, (uintptr_t)__stop_spin_a) == 0,
	    "second buffer counted spin_a, which ran before it");
}

static void
test_new_call_replaces_previous(void **state)
{
	(void)state;
	FORKED(replacing, 30);
}

static void
efault(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned short *ro = mmap(NULL, (size_t)page, PROT_READ,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* inaccessible: PROT_NONE (an unmapped page could be reused by then) */
	unsigned short *gone = mmap(NULL, (size_t)page, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t bufsiz;
	unsigned short *good = text_buffer(&bufsiz);
	struct profil_status st;

	CHECK(ro != MAP_FAILED && gone != MAP_FAILED, "mmap");

	errno = 0;
	CHECK(profil_any(NULL, 64, 0, 0x10000) == -1 && errno == EFAULT,
	    "NULL: errno %d", errno);
	errno = 0;
	CHECK(profil(ro, (size_t)page, text_lo, 0x10000) == -1 && errno == EFAULT,
	    "read-only: errno %d", errno);
	errno = 0;
	CHECK(profil(gone, (size_t)page, text_lo, 0x10000) == -1 && errno == EFAULT,
	    "no access: errno %d", errno);
	/* a buffer whose tail is not writable is refused whole */
	CHECK(profil(ro - 8, 64, text_lo, 0x10000) == -1 && errno == EFAULT,
	    "tail read-only: errno %d", errno);
	spin_a_fn(0.2);
	profil_get_status(&st);
	CHECK(!st.active, "profiling runs after EFAULT");

	/* EFAULT terminates profiling that was running (BSD) */
	CHECK(profil(good, bufsiz, text_lo, 0x10000) == 0, "good");
	CHECK(profil(ro, (size_t)page, text_lo, 0x10000) == -1, "bad");
	profil_get_status(&st);
	CHECK(!st.active, "EFAULT left the previous profiling on");
}

static void
test_unwritable_buffer_is_efault(void **state)
{
	(void)state;
	FORKED(efault, 30);
}

/* The buffer goes read-only, then unmapped, while counting: range off. */
static void
buffer_goes_away(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t bufsiz;
	unsigned short *probe = text_buffer(&bufsiz);
	size_t len = (bufsiz + (size_t)page - 1) & ~((size_t)page - 1);
	unsigned short *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct profil_status st;
	struct counts c;
	unsigned long frozen;
	double rate;
#ifdef __SANITIZE_THREAD__
	/*
	 * ThreadSanitizer defers asynchronous signals and runs the handler
	 * later from its own runtime; a fault inside it is not recoverable
	 * there (observed: the process dies).  Not a threading property.
	 */
	harness_skip("buffer faults inside a TSan-deferred handler");
#endif

	free(probe);
	CHECK(buf != MAP_FAILED, "mmap");
	c.buf = buf;
	c.bufsiz = bufsiz;
	CHECK(profil(buf, bufsiz, text_lo, 0x10000) == 0, "start");
	rate = harness_rate();
	harness_spin_for(spin_a_fn, 1, count_all, &c, 0, "counts");
	CHECK(mprotect(buf, len, PROT_READ) == 0, "mprotect");
	/* the program goes on: until a sample meets the read-only buffer */
	harness_spin_for(spin_a_fn, 1, count_faulted, NULL, 0, "faults");
	profil_get_status(&st);
	CHECK(st.ranges_off == 1, "faulted %llu, ranges off %u",
	    (unsigned long long)st.faulted, st.ranges_off);
	CHECK(mprotect(buf, len, PROT_READ | PROT_WRITE) == 0, "mprotect back");
	frozen = total(buf, bufsiz);
	spin_none_of(spin_a_fn, rate);
	CHECK(total(buf, bufsiz) == frozen, "range counted again after its fault");
	stop();

	CHECK(profil(buf, bufsiz, text_lo, 0x10000) == 0, "restart");
	harness_spin_for(spin_a_fn, total(buf, bufsiz) + 1, count_all, &c, 0,
	    "counts after the restart");
	CHECK(munmap(buf, len) == 0, "munmap");
	harness_spin_for(spin_a_fn, 1, count_faulted, NULL, 0,
	    "faults after munmap");
	profil_get_status(&st);
	CHECK(st.ranges_off == 1, "munmap not noticed");
	stop();
}

static void
test_buffer_that_goes_away_turns_off(void **state)
{
	(void)state;
	FORKED(buffer_goes_away, 30);
}

/* This process's resident memory in KiB (VmRSS), or -1. */
static long
rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kib = -1;

	while (f != NULL && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "VmRSS:", 6) == 0)
			kib = atol(line + 6);
	if (f != NULL)
		fclose(f);
	return kib;
}

/*
 * A large sparse buffer stays sparse: profil() asks the mappings whether
 * it is writable instead of touching its pages (glibc touches nothing
 * either).  Writing to every page made 256 MiB resident and took 1.2 s.
 */
static void
sparse_buffer(void)
{
	size_t len = (size_t)256 << 20;
	unsigned short *buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct counts c = { buf, len, (uintptr_t)__start_spin_a,
	    (uintptr_t)__stop_spin_a };
	long before, after;

	CHECK(buf != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(harness_text_of(NULL, &text_lo, &text_hi) == 0, "text");
	CHECK(len / 2 > text_hi - text_lo, "text larger than the buffer");
	before = rss_kib();
	CHECK(profil(buf, len, text_lo, 0x10000) == 0, "profil: %s",
	    strerror(errno));
	after = rss_kib();
	fprintf(stderr, "VmRSS %ld -> %ld KiB across profil()\n", before, after);
	CHECK(before > 0 && after - before < 4096,
	    "profil() made %ld KiB resident", after - before);
	harness_spin_for(spin_a_fn, 1, count_bins, &c, 0, "spin_a's counts");
	stop();
	munmap(buf, len);
}

static void
test_sparse_buffer_stays_sparse(void **state)
{
	(void)state;
	FORKED(sparse_buffer, 30);
}

/* 1 if a page of [p, p + len) is unmapped now; errno is left alone. */
static int
unmapped(void *p, size_t len)
{
	int saved = errno, gone;
	unsigned char v[1];

	gone = mincore(p, len, v) < 0 && errno == ENOMEM;
	errno = saved;
	return gone;
}

/*
 * EFAULT is exact: a read-only page or a hole among the counters is
 * refused; a buffer that ends where its mapping does is not, nor one
 * whose tail lies past a hole that no pc reaches.
 */
static void
holes(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned short *buf = (unsigned short *)p;
	int rc;

	CHECK(p != MAP_FAILED, "mmap");
	CHECK(harness_text_of(NULL, &text_lo, &text_hi) == 0, "text");

	CHECK(mprotect(p + page, page, PROT_READ) == 0, "mprotect");
	errno = 0;
	CHECK(profil(buf, 3 * page, text_lo, 0x10000) == -1 && errno == EFAULT,
	    "read-only page in the middle: errno %d", errno);

	CHECK(munmap(p + page, page) == 0, "munmap");
	errno = 0;
	rc = profil(buf, 3 * page, text_lo, 0x10000);
	/* (another mapping may have taken the hole: then nothing is shown) */
	CHECK(unmapped(p + page, page), "the hole was mapped again");
	CHECK(rc == -1 && errno == EFAULT, "hole in the middle: errno %d",
	    errno);

	/* the buffer ends where the mapping does, a hole after it */
	rc = profil(buf, page, text_lo, 0x10000);
	CHECK(rc == 0, "buffer up to the hole: %s", strerror(errno));
	errno = 0;
	rc = profil(buf, page + 2, text_lo, 0x10000);
	CHECK(rc == -1 && errno == EFAULT, "one counter in the hole: errno %d",
	    errno);

	/*
	 * bufsiz reaches past the hole, but the offset is one page below
	 * the top of memory: page pcs, page/2 counters, all before it.
	 */
	rc = profil(buf, 3 * page, UINTPTR_MAX - page + 1, 0x10000);
	CHECK(rc == 0, "counters before the hole: %s", strerror(errno));
	CHECK(unmapped(p + page, page), "the hole was mapped again");
	stop();
}

static void
test_efault_is_exact_at_holes(void **state)
{
	(void)state;
	FORKED(holes, 30);
}

/*
 * The counts of spin_a's busiest counter from 65530, and its increments
 * lost once it is full (with any other's): 6 make one lost increment.
 */
static double
busiest(void *arg)
{
	const unsigned short *buf = arg;
	struct profil_status st;
	unsigned most = 0;

	for (uintptr_t pc = (uintptr_t)__start_spin_a & ~(uintptr_t)1;
	    pc < (uintptr_t)__stop_spin_a; pc += 2)
		if (buf[(pc - text_lo) / 2] - 65530u > most)
			most = buf[(pc - text_lo) / 2] - 65530u;
	profil_get_status(&st);
	return most + (double)st.saturated;
}

/* 16-bit counters stop at 65535; every lost increment is counted. */
static void
saturation(void)
{
	size_t bufsiz;
	unsigned short *buf = text_buffer(&bufsiz);
	struct profil_status st;
	unsigned long added = 0;
	size_t n = bufsiz / 2, full = 0;

	for (size_t i = 0; i < n; i++)
		buf[i] = 65530;
	CHECK(profil(buf, bufsiz, text_lo, 0x10000) == 0, "start");
	/* the busiest 2-byte counter of the loop has over half its counts
	   here: a quarter is planned for */
	harness_spin_for(spin_a_fn, 6, busiest, buf, harness_rate() / 4,
	    "counts of the busiest counter");
	stop();
	profil_get_status(&st);
	for (size_t i = 0; i < n; i++) {
		CHECK(buf[i] >= 65530, "counter %zu wrapped to %u", i, buf[i]);
		added += buf[i] - 65530u;
		full += buf[i] == 65535;
	}
	CHECK(full > 0, "no counter reached 65535");
	CHECK(st.saturated > 0, "no lost increment counted");
	CHECK(added + st.saturated == st.samples - st.outside - st.faulted,
	    "added %lu + lost %llu != samples in range %llu", added,
	    (unsigned long long)st.saturated,
	    (unsigned long long)(st.samples - st.outside - st.faulted));
}

static void
test_counters_saturate(void **state)
{
	(void)state;
	FORKED(saturation, 30);
}

/* pc < offset is never counted; nor is an index at or past bufsiz / 2. */
static void
bounds(void)
{
	uintptr_t lo = (uintptr_t)__start_spin_a, hi = (uintptr_t)__stop_spin_a;
	size_t n = 4096;
	unsigned short *buf = calloc(n + 64, sizeof *buf);
	struct profil_status st;
	size_t i;

	/* offset just past spin_a: all its pcs are below the offset */
	CHECK(profil(buf, n * 2, hi, 0x10000) == 0, "start above");
	/* samples not outside are the session's ends': 5% is room for 2x */
	harness_spin_for(spin_a_fn, harness_samples_for_rate(harness_rate(), 1,
	    0.05), NULL, NULL, 0, "samples");
	stop();
	profil_get_status(&st);
	CHECK(st.outside >= 0.95 * st.samples,
	    "pcs below the offset were counted: %llu of %llu outside",
	    (unsigned long long)st.outside, (unsigned long long)st.samples);

	/* buffer ending just before spin_a, odd size: 1 byte is ignored */
	memset(buf, 0, (n + 64) * sizeof *buf);
	size_t counters = (lo - text_lo) / 2;
	unsigned short *big = calloc(counters + 64, sizeof *big);
	CHECK(big != NULL, "calloc");
	CHECK(profil(big, counters * 2 + 1, text_lo, 0x10000) == 0, "start below");
	/* spin_a's pcs, all past the buffer, for the bound to keep out */
	spin_none_of(spin_a_fn, harness_rate());
	stop();
	for (i = counters; i < counters + 64; i++)
		CHECK(big[i] == 0, "counter %zu past bufsiz/2 was bumped", i);
	free(big);
	free(buf);
}

static void
test_bounds_of_the_buffer(void **state)
{
	(void)state;
	CHECK(harness_text_of(NULL, &text_lo, &text_hi) == 0, "text");
	FORKED(bounds, 30);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_function_gets_its_counts_timer),
		cmocka_unit_test(test_own_function_gets_its_counts_perf),
		cmocka_unit_test(test_turning_off),
		cmocka_unit_test(test_new_call_replaces_previous),
		cmocka_unit_test(test_unwritable_buffer_is_efault),
		cmocka_unit_test(test_buffer_that_goes_away_turns_off),
		cmocka_unit_test(test_sparse_buffer_stays_sparse),
		cmocka_unit_test(test_efault_is_exact_at_holes),
		cmocka_unit_test(test_counters_saturate),
		cmocka_unit_test(test_bounds_of_the_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
