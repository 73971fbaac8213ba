/*
 * test-fork.c - fork and exec: after fork parent and child are both
 * profiled, each into its own copy of the buffer; after exec the new image
 * runs normally and unprofiled.  glibc's profil() is run through the same
 * scenarios to show the two bugs we do not have.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include <profil.h>

HARNESS_SPIN_DECLARE(spin_a)
HARNESS_SPIN_DECLARE(spin_b)

typedef int profil_fn(unsigned short *, size_t, size_t, unsigned int);

static uintptr_t text_lo, text_hi;
static char helper[PATH_MAX];

static profil_fn *
glibc_profil(void)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	profil_fn *fn = libc ? (profil_fn *)dlsym(libc, "profil") : NULL;

	CHECK(fn != NULL && fn != profil, "glibc's profil not found");
	return fn;
}

static unsigned long
bins_sum(const unsigned short *buf, uintptr_t lo, uintptr_t hi)
{
	unsigned long sum = 0;

	for (uintptr_t pc = lo & ~(uintptr_t)1; pc < hi; pc += 2)
		sum += buf[(pc - text_lo) / 2];
	return sum;
}

/* A function's counts in a buffer, for harness_spin_for. */
struct counts {
	const unsigned short *buf;
	uintptr_t lo, hi;
};

static double
count_bins(void *arg)
{
	const struct counts *c = arg;

	return (double)bins_sum(c->buf, c->lo, c->hi);
}

/*
 * The rate of fn's profiling as planned: ours tells; glibc's profil()
 * samples at its profiling frequency, CLK_TCK (100 Hz: 23 counts in
 * 0.23 s here).
 */
static double
rate_of(profil_fn *fn)
{
	struct profil_status st;

	profil_get_status(&st);
	return fn == profil ? st.rate_hz : sysconf(_SC_CLK_TCK);
}

/*
 * A check that each process is profiled wants this many counts of it:
 * one left unprofiled shows none, and a count is off by a few at most
 * (harness_count_error).
 */
#define PROFILED 50

/*
 * Start profiling with fn, fork; the child spins in spin_b, the parent in
 * spin_a, until each has PROFILED counts (the child of glibc, which is
 * not profiled, for the time 10 would take).  Returns the child's spin_b
 * counts (its exit status carries them, capped), and the parent's
 * spin_a / spin_b counts.
 */
static void
fork_scenario(profil_fn *fn, unsigned long *child_b, unsigned long *parent_a,
    unsigned long *parent_b)
{
	size_t bufsiz = ((text_hi - text_lo) / 2 + 1) * 2;
	unsigned short *buf = calloc(1, bufsiz);
	struct counts a = { buf, (uintptr_t)__start_spin_a,
	    (uintptr_t)__stop_spin_a };
	struct counts b = { buf, (uintptr_t)__start_spin_b,
	    (uintptr_t)__stop_spin_b };
	int status;
	pid_t pid;

	CHECK(fn(buf, bufsiz, text_lo, 0x10000) == 0, "profil");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		unsigned long in_b;

		if (fn == profil)
			harness_spin_for(spin_b_fn, PROFILED, count_bins, &b,
			    0, "the child's counts");
		else	/* glibc's: would it count 10, were it profiled? */
			harness_spin_cpu(spin_b_fn, harness_seconds_for(10,
			    rate_of(fn)));
		fn(buf, 0, 0, 0);
		in_b = bins_sum(buf, b.lo, b.hi);
		_exit(in_b > 250 ? 250 : (int)in_b);
	}
	harness_spin_for(spin_a_fn, PROFILED, count_bins, &a, rate_of(fn),
	    "the parent's counts");
	fn(buf, 0, 0, 0);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
	    "child did not exit normally");
	*child_b = (unsigned long)WEXITSTATUS(status);
	*parent_a = bins_sum(buf, (uintptr_t)__start_spin_a, (uintptr_t)__stop_spin_a);
	*parent_b = bins_sum(buf, (uintptr_t)__start_spin_b, (uintptr_t)__stop_spin_b);
	free(buf);
}

static void
fork_ours(void)
{
	unsigned long child_b, parent_a, parent_b;

	fork_scenario(profil, &child_b, &parent_a, &parent_b);
	fprintf(stderr, "ours: child %lu, parent %lu (+%lu)\n", child_b,
	    parent_a, parent_b);
	CHECK(child_b >= PROFILED, "child not profiled: %lu counts", child_b);
	CHECK(parent_b == 0, "child's counts reached the parent's buffer");
}

static void
test_fork_profiles_parent_and_child(void **state)
{
	(void)state;
	FORKED(fork_ours, 30);
}

static void
fork_glibc(void)
{
	unsigned long child_b, parent_a, parent_b;

	fork_scenario(glibc_profil(), &child_b, &parent_a, &parent_b);
	fprintf(stderr, "glibc: child %lu, parent %lu\n", child_b, parent_a);
	if (child_b != 0)
		harness_skip("this glibc profiles forked children too");
}

static void
test_glibc_leaves_forked_child_unprofiled(void **state)
{
	(void)state;
	FORKED(fork_glibc, 30);
}

/*
 * A profiled process execs a CPU-bound program, many times; the new image
 * must exit 0 (not die of a sampling signal, nor find a timer armed).
 * It burns the CPU time that 20 samples would take at the rate it was
 * profiled at: a clock left running would fire.
 */
static int
exec_scenario(profil_fn *fn, int rounds)
{
	size_t bufsiz = ((text_hi - text_lo) / 2 + 1) * 2;
	int r, status = 0;

	for (r = 0; r < rounds; r++) {
		pid_t pid = fork();

		CHECK(pid >= 0, "fork");
		if (pid == 0) {
			unsigned short *buf = calloc(1, bufsiz);
			char seconds[32];
			char *argv[] = { helper, seconds, NULL };

			if (fn(buf, bufsiz, text_lo, 0x10000) != 0)
				_exit(90);
			snprintf(seconds, sizeof seconds, "%.3f",
			    harness_seconds_for(20, rate_of(fn)));
			/* profiled in this image first: ours until a sample */
			if (fn == profil)
				harness_spin_for(spin_a_fn, 1, NULL, NULL, 0,
				    "samples before exec");
			else
				spin_a_fn(0.02);
			execv(helper, argv);
			_exit(91);
		}
		CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			return status;
	}
	return status;
}

static void
exec_ours(void)
{
	int status = exec_scenario(profil, 10);

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "exec'd image: %s %d", WIFSIGNALED(status) ? "signal" : "exit",
	    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

static void
exec_ours_perf(void)
{
	if (!harness_perf_allowed())
		harness_skip("perf events not permitted here");
	setenv("PROFIL_HZ", "5000", 1);
	exec_ours();
}

static void
test_exec_runs_unprofiled(void **state)
{
	(void)state;
	FORKED(exec_ours, 60);
}

static void
test_exec_runs_unprofiled_perf(void **state)
{
	(void)state;
	FORKED(exec_ours_perf, 60);
}

static void
exec_glibc(void)
{
	int status = exec_scenario(glibc_profil(), 1);

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		harness_skip("this glibc turns profiling off at exec");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGPROF,
	    "glibc's exec'd image ended otherwise: status %#x", status);
}

static void
test_glibc_exec_dies_of_sigprof(void **state)
{
	(void)state;
	FORKED(exec_glibc, 30);
}

static int
setup(void **state)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

	(void)state;
	if (n < 0)
		return -1;
	self[n] = '\0';
	snprintf(helper, sizeof helper, "%.*s/helper-burn",
	    (int)(strrchr(self, '/') - self), self);
	return harness_text_of(NULL, &text_lo, &text_hi);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_profiles_parent_and_child),
		cmocka_unit_test(test_glibc_leaves_forked_child_unprofiled),
		cmocka_unit_test(test_exec_runs_unprofiled),
		cmocka_unit_test(test_exec_runs_unprofiled_perf),
		cmocka_unit_test(test_glibc_exec_dies_of_sigprof),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
