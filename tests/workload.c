/*
 * workload.c - programs with a known CPU split for the end-to-end tests of
 * `profil record`.  Built plain: nothing of profil's is linked in.
 *
 *   split ROUNDS          six(), three(), one(): 6:3:1
 *   split2 ROUNDS         the same functions 3:6:1, as much CPU as split
 *   threads N ROUNDS      N threads, each running split ROUNDS; prints
 *                         "thread TID cpu SECONDS" for each
 *   libm SECONDS          SECONDS of CPU in our code, then as long in libm
 *   syscalls SECONDS      cheap system calls for SECONDS of CPU
 *   writes SECONDS        writer() (pwrite of 4 KiB to a memfd: mostly
 *                         kernel time) and burner() (user code) in turns
 *                         of 7 and 3 ms of CPU for SECONDS; prints each
 *                         one's measured CPU seconds: the true split
 *   forkexec ROUNDS       a child execs `workload split ROUNDS`; we run it too
 *   many ROUNDS           32 small functions; f<i> does i+1 units: (i+1)/528
 *   inlined ROUNDS        split's work in inlined(), always inlined into
 *                         outer() at the line marked CALL: pprof's frames
 *   paths ROUNDS          leaf() reached three ways, 5:3:2: from via_a(),
 *                         via_b(), and cmp_leaf(), the comparator qsort calls
 *   deep DEPTH ROUNDS     leaf() at the bottom of DEPTH recursive calls
 *   signal ROUNDS         leaf() in a SIGPROF handler, and in main between
 *   coroutine ROUNDS      leaf() from via_a() on main's stack and from
 *                         via_b() in a ucontext coroutine, 1:1, on a stack
 *                         of its own that ends at an unreadable page
 *   crash | exit N | _exit N | forever | echo
 *
 * Built without frame pointers (gcc's default at -O2): call stacks come
 * from the unwind tables.  The callers of leaf() do work after the call,
 * so that no call becomes a jump (a tail call leaves no frame).
 */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static volatile unsigned long sink;
static volatile double fsink;

/*
 * Each loop works on a variable of its own thread: a shared one would
 * bounce between cores and make the cost of an iteration, and so the
 * true split, depend on what the other threads are doing.
 */
#define LOOP(n) do { volatile unsigned long local = 1; \
	for (unsigned long i = 0; i < (n); i++) \
		local = local * 6364136223846793005ul + i; \
	sink += local; } while (0)

__attribute__((noinline)) static void six(void) { LOOP(600000); }
__attribute__((noinline)) static void three(void) { LOOP(300000); }
__attribute__((noinline)) static void one(void) { LOOP(100000); }

#define SMALL(i) __attribute__((noinline)) static void f##i(void) { LOOP(2000 * (i + 1)); }
SMALL(0) SMALL(1) SMALL(2) SMALL(3) SMALL(4) SMALL(5) SMALL(6) SMALL(7)
SMALL(8) SMALL(9) SMALL(10) SMALL(11) SMALL(12) SMALL(13) SMALL(14) SMALL(15)
SMALL(16) SMALL(17) SMALL(18) SMALL(19) SMALL(20) SMALL(21) SMALL(22) SMALL(23)
SMALL(24) SMALL(25) SMALL(26) SMALL(27) SMALL(28) SMALL(29) SMALL(30) SMALL(31)

static inline __attribute__((always_inline)) void
inlined(void)
{
	LOOP(1000000);
}

__attribute__((noinline)) static void
outer(long rounds)
{
	for (long r = 0; r < rounds; r++)
		inlined();	/* CALL */
}

static void (*const smalls[32])(void) = {
	f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15,
	f16, f17, f18, f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29,
	f30, f31,
};

static void
many(long rounds)
{
	for (long r = 0; r < rounds * 10; r++)
		for (int i = 0; i < 32; i++)
			smalls[i]();
}

static void
split(long rounds)
{
	for (long r = 0; r < rounds * 10; r++) {
		six();
		three();
		one();
	}
}

/* six() once, three() four times, one() twice: 6:12:2 = 3:6:1 */
static void
split2(long rounds)
{
	for (long r = 0; r < rounds * 5; r++) {
		six();
		for (int i = 0; i < 4; i++)
			three();
		one();
		one();
	}
}

/* ---- call stacks ---------------------------------------------------------- */

__attribute__((noinline)) static void leaf(void) { LOOP(100003); }
__attribute__((noinline)) static void via_a(void) { leaf(); sink++; }
__attribute__((noinline)) static void via_b(void) { leaf(); sink += 2; }

static long cmp_calls;

__attribute__((noinline)) static int
cmp_leaf(const void *x, const void *y)
{
	cmp_calls++;
	leaf();
	return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

/* leaf() 5 times from via_a, 3 from via_b, 2 from inside qsort */
static void
paths(long rounds)
{
	for (long r = 0; r < rounds * 10; r++) {
		for (int i = 0; i < 5; i++)
			via_a();
		for (int i = 0; i < 3; i++)
			via_b();
		for (long want = cmp_calls + 2; cmp_calls < want;) {
			int pair[2] = { 2, 1 };

			qsort(pair, 2, sizeof *pair, cmp_leaf);
		}
	}
}

/* some work of its own at every level: recursion's self time */
__attribute__((noinline)) static void
deep(int depth)
{
	for (volatile int i = 0; i < 200; i++)
		;
	if (depth <= 0)
		leaf();
	else
		deep(depth - 1);
	sink++;
}

static volatile sig_atomic_t in_handler;

static void
on_sigprof(int sig)
{
	(void)sig;
	if (in_handler)
		return;
	in_handler = 1;
	leaf();		/* a good part of the time, under the signal frame */
	leaf();
	in_handler = 0;
}

/* SIGPROF every 2 ms of CPU; the handler runs leaf() twice each time */
static void
signals(long rounds)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };

	signal(SIGPROF, on_sigprof);
	setitimer(ITIMER_PROF, &it, NULL);
	for (long r = 0; r < rounds * 10; r++)
		via_a();
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_PROF, &it, NULL);
}

static ucontext_t main_side, co_side;

static void
co_main(void)
{
	for (;;) {
		via_b();
		swapcontext(&co_side, &main_side);
	}
}

/*
 * Turns of leaf() on main's stack and on a coroutine's, whose stack is
 * mapped with an unreadable page above it: a stack copy from it stops
 * there, which must not cut later copies from main's stack.
 */
static void
coroutine(long rounds)
{
	size_t size = 256 * 1024;
	char *stack = mmap(NULL, size + 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (stack == MAP_FAILED || mprotect(stack + size, 4096, PROT_NONE) < 0) {
		perror("workload: coroutine stack");
		exit(1);
	}
	getcontext(&co_side);
	co_side.uc_stack.ss_sp = stack;
	co_side.uc_stack.ss_size = size;
	co_side.uc_link = NULL;
	makecontext(&co_side, co_main, 0);
	for (long r = 0; r < rounds * 10; r++) {
		via_a();
		swapcontext(&main_side, &co_side);
	}
}

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
own_code(double seconds)
{
	double until = thread_cpu() + seconds;

	while (thread_cpu() < until)
		LOOP(200000);
}

__attribute__((noinline)) static void
libm_code(double seconds)
{
	double until = thread_cpu() + seconds;

	while (thread_cpu() < until)
		for (int i = 0; i < 50; i++)
			fsink += jn(400, 1.0 + i * 1e-3);
}

__attribute__((noinline)) static void
syscalls(double seconds)
{
	double until = thread_cpu() + seconds;

	while (thread_cpu() < until)
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getppid);
}

__attribute__((noinline)) static void
writer(int fd, double until)
{
	static char page[4096];

	while (thread_cpu() < until)
		for (int i = 0; i < 20; i++)
			if (pwrite(fd, page, sizeof page, 0) < 0)
				abort();
}

__attribute__((noinline)) static void
burner(double until)
{
	while (thread_cpu() < until)
		LOOP(20000);
}

/* The CPU of each, measured around each turn: the split to find. */
static void
writes(double seconds)
{
	int fd = (int)syscall(SYS_memfd_create, "writes", 0);
	double in_writer = 0, in_burner = 0, end = thread_cpu() + seconds;

	if (fd < 0)
		abort();
	while (thread_cpu() < end) {
		double t0 = thread_cpu(), t1, t2;

		writer(fd, t0 + 0.007);
		t1 = thread_cpu();
		burner(t1 + 0.003);
		t2 = thread_cpu();
		in_writer += t1 - t0;
		in_burner += t2 - t1;
	}
	printf("writer %.6f burner %.6f\n", in_writer, in_burner);
}

static long thread_rounds;

/*
 * Equal work is not equal CPU time on a shared machine (a busy sibling,
 * the hypervisor): each thread says what it had, for the tests to hold
 * its samples to.
 */
struct thread_cpu {
	pthread_t thread;
	long tid;
	double seconds;
};

static void *
thread_main(void *arg)
{
	struct thread_cpu *me = arg;
	struct timespec ts;

	me->tid = (long)syscall(SYS_gettid);
	split(thread_rounds);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	me->seconds = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return NULL;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;

	if (strcmp(mode, "split") == 0) {
		split(n);
	} else if (strcmp(mode, "many") == 0) {
		many(n);
	} else if (strcmp(mode, "threads") == 0) {
		static struct thread_cpu t[64];

		thread_rounds = argc > 3 ? strtol(argv[3], NULL, 10) : 10;
		for (long i = 0; i < n && i < 64; i++)
			pthread_create(&t[i].thread, NULL, thread_main, &t[i]);
		for (long i = 0; i < n && i < 64; i++) {
			pthread_join(t[i].thread, NULL);
			printf("thread %ld cpu %.6f\n", t[i].tid, t[i].seconds);
		}
	} else if (strcmp(mode, "libm") == 0) {
		own_code(atof(argv[2]));
		libm_code(atof(argv[2]));
	} else if (strcmp(mode, "syscalls") == 0) {
		syscalls(atof(argv[2]));
	} else if (strcmp(mode, "writes") == 0) {
		writes(atof(argv[2]));
	} else if (strcmp(mode, "forkexec") == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/proc/self/exe", "workload", "split", argv[2], (char *)NULL);
			_exit(99);
		}
		split(n);
		waitpid(pid, NULL, 0);
	} else if (strcmp(mode, "crash") == 0) {
		split(2);
		raise(SIGSEGV);
	} else if (strcmp(mode, "exit") == 0) {
		split(1);
		exit((int)n);
	} else if (strcmp(mode, "_exit") == 0) {
		split(1);
		_exit((int)n);
	} else if (strcmp(mode, "forever") == 0) {
		for (;;)
			split(1);
	} else if (strcmp(mode, "echo") == 0) {
		char buf[4096];
		size_t got;
		const char *v = getenv("PROFIL_TEST_VAR");

		while ((got = fread(buf, 1, sizeof buf, stdin)) > 0)
			fwrite(buf, 1, got, stdout);
		printf("[%s]\n", v ? v : "(unset)");
	} else if (strcmp(mode, "inlined") == 0) {
		outer(n);
	} else if (strcmp(mode, "split2") == 0) {
		split2(n);
	} else if (strcmp(mode, "paths") == 0) {
		paths(n);
	} else if (strcmp(mode, "deep") == 0) {
		long rounds = argc > 3 ? strtol(argv[3], NULL, 10) : 10;

		for (long r = 0; r < rounds * 10; r++)
			deep((int)n);
	} else if (strcmp(mode, "signal") == 0) {
		signals(n);
	} else if (strcmp(mode, "coroutine") == 0) {
		coroutine(n);
	} else {
		fprintf(stderr, "workload: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
