/*
 * workload.c - programs with a known CPU split for the end-to-end tests of
 * `profil record`.  Built plain: nothing of profil's is linked in.
 *
 *   split SECONDS         six(), three(), one(): 6:3:1
 *   split2 SECONDS        the same functions 3:6:1
 *   threads N SECONDS     N threads, each running split SECONDS; prints
 *                         "thread TID cpu SECONDS" for each
 *   libm SECONDS          SECONDS of CPU in our code, then as long in libm
 *   syscalls SECONDS      cheap system calls for SECONDS of CPU
 *   writes SECONDS        writer() (pwrite of 4 KiB to a memfd: mostly
 *                         kernel time) and burner() (user code) in turns
 *                         of 7 and 3 ms of CPU for SECONDS; prints each
 *                         one's measured CPU seconds: the true split
 *   faults SECONDS        the same with faulter() (pages touched: kernel
 *                         time in page faults) in writer()'s place
 *   forkexec SECONDS      a child execs `workload split SECONDS`; we run it too
 *   many SECONDS          32 small functions; f<i> does i+1 units: (i+1)/528
 *   inlined SECONDS       split's work in inlined(), always inlined into
 *                         outer() at the line marked CALL: pprof's frames
 *   paths SECONDS         leaf() reached three ways, 5:3:2: from via_a(),
 *                         via_b(), and cmp_leaf(), the comparator qsort calls
 *   deep DEPTH SECONDS    leaf() at the bottom of DEPTH recursive calls
 *   signal SECONDS        leaf() in a SIGPROF handler, and in main between
 *   coroutine SECONDS     leaf() from via_a() on main's stack and from
 *                         via_b() in a ucontext coroutine, 1:1, on a stack
 *                         of its own that ends at an unreadable page
 *   bigframe SECONDS      leaf() under big_frame(), which has 32 KiB of
 *                         locals, all written: more than a 16 KiB stack
 *                         copy holds
 *   holeframe SECONDS     the same in a thread of its own whose 32 KiB
 *                         are written at their ends only: pages in the
 *                         middle never touched, which the kernel does
 *                         not copy
 *   crash | exit N | _exit N | forever | echo
 *
 * SECONDS is CPU time of the thread doing the work, not an amount of
 * work: a test asks for the samples it needs, and gets them on a machine
 * of any speed.  The work is done in whole passes, each holding the
 * split exactly, until the thread's CPU clock reaches SECONDS (read once
 * a round of 10 passes, ~10 ms here: a thread reading its CPU clock
 * often gets fewer CPU-timer signals on this kernel).  At least one round
 * is done, so a tiny SECONDS still gives every function some time.
 *
 * PROFIL_TEST_WORK_SCALE=K (docs/design.md, "tests/") multiplies
 * every loop's work by K: 0.3 runs as if on a machine 3x as fast, 3 as
 * on one 3x as slow.  A test whose verdict depends on a fixed amount of
 * work shows it there.
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
static double work_scale = 1;	/* PROFIL_TEST_WORK_SCALE */

/*
 * n units of work at this run's scale, at least one: a macro, not a
 * function, so that no inlined function of ours lies in six() and the
 * others (pprof and folded exports count inlined frames as functions).
 */
#define SCALED(n) ({ unsigned long k_ = (unsigned long)((double)(n) * \
	work_scale + 0.5); k_ > 0 ? k_ : 1; })

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The statement after it, in rounds of 10 passes, until the calling
 * thread has had `seconds` more of CPU: one round at least.
 */
#define FOR_CPU(seconds) \
	for (double until_ = thread_cpu() + (seconds), more_ = 1; more_; \
	    more_ = thread_cpu() < until_) \
		for (int pass_ = 0; pass_ < 10; pass_++)

/*
 * Each loop works on a variable of its own thread: a shared one would
 * bounce between cores and make the cost of an iteration, and so the
 * true split, depend on what the other threads are doing.
 */
#define LOOP(n) do { volatile unsigned long local = 1; \
	unsigned long units_ = SCALED(n); \
	for (unsigned long i = 0; i < units_; i++) \
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
outer(double seconds)
{
	FOR_CPU(seconds)
		inlined();	/* CALL */
}

static void (*const smalls[32])(void) = {
	f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15,
	f16, f17, f18, f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29,
	f30, f31,
};

static void
many(double seconds)
{
	FOR_CPU(seconds)
		for (int i = 0; i < 32; i++)
			smalls[i]();
}

static void
split(double seconds)
{
	FOR_CPU(seconds) {
		six();
		three();
		one();
	}
}

/* six() once, three() four times, one() twice: 6:12:2 = 3:6:1 */
static void
split2(double seconds)
{
	FOR_CPU(seconds) {
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
paths(double seconds)
{
	FOR_CPU(seconds) {
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

/* 32 KiB of locals between leaf() and its caller, written or not */
__attribute__((noinline)) static void
big_frame(int whole)
{
	volatile char buf[32768];

	if (whole)
		for (size_t i = 0; i < sizeof buf; i += 64)
			buf[i] = 1;
	buf[0] = 1;
	buf[sizeof buf - 1] = 2;
	leaf();
	sink += (unsigned long)(buf[0] + buf[sizeof buf - 1]);
}

static void *
hole_thread(void *arg)
{
	FOR_CPU(*(double *)arg)
		big_frame(0);
	return NULL;
}

/* some work of its own at every level: recursion's self time */
__attribute__((noinline)) static void
deep(int depth)
{
	for (volatile unsigned long i = 0; i < SCALED(200); i++)
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
signals(double seconds)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };

	signal(SIGPROF, on_sigprof);
	setitimer(ITIMER_PROF, &it, NULL);
	FOR_CPU(seconds)
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
coroutine(double seconds)
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
	FOR_CPU(seconds) {
		via_a();
		swapcontext(&main_side, &co_side);
	}
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
		for (unsigned long i = 0; i < SCALED(50); i++)
			fsink += jn(400, 1.0 + i * 1e-3);
}

__attribute__((noinline)) static void
syscalls(double seconds)
{
	double until = thread_cpu() + seconds;

	while (thread_cpu() < until)
		for (unsigned long i = 0; i < SCALED(1000); i++)
			syscall(SYS_getppid);
}

__attribute__((noinline)) static void
writer(int fd, double until)
{
	static char page[4096];

	while (thread_cpu() < until)
		for (unsigned long i = 0; i < SCALED(20); i++)
			if (pwrite(fd, page, sizeof page, 0) < 0)
				abort();
}

__attribute__((noinline)) static void
burner(double until)
{
	while (thread_cpu() < until)
		LOOP(20000);
}

/*
 * Fresh anonymous pages touched and unmapped: page faults, kernel time
 * entered without a system call, whose signal comes back to the
 * faulting store.
 */
__attribute__((noinline)) static void
faulter(int fd, double until)
{
	const size_t len = 1 << 20;

	(void)fd;
	while (thread_cpu() < until) {
		volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			abort();
		for (size_t i = 0; i < len; i += 4096)
			p[i] = 1;
		munmap((void *)p, len);
	}
}

/*
 * The CPU of each, measured around each turn: the split to find.  The
 * kernel's part is writer()'s (system calls), or faulter()'s (faults).
 */
static void
writes(double seconds, int faults)
{
	int fd = (int)syscall(SYS_memfd_create, "writes", 0);
	double in_writer = 0, in_burner = 0, end = thread_cpu() + seconds;

	if (fd < 0)
		abort();
	while (thread_cpu() < end) {
		double t0 = thread_cpu(), t1, t2;

		(faults ? faulter : writer)(fd, t0 + 0.007);
		t1 = thread_cpu();
		burner(t1 + 0.003);
		t2 = thread_cpu();
		in_writer += t1 - t0;
		in_burner += t2 - t1;
	}
	printf("%s %.6f burner %.6f\n", faults ? "faulter" : "writer",
	    in_writer, in_burner);
}

static double thread_seconds;

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
	split(thread_seconds);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	me->seconds = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return NULL;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *scale = getenv("PROFIL_TEST_WORK_SCALE");
	double seconds = argc > 2 ? atof(argv[2]) : 0;
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;

	if (scale != NULL && (work_scale = atof(scale)) <= 0) {
		fprintf(stderr, "workload: bad PROFIL_TEST_WORK_SCALE '%s'\n", scale);
		return 2;
	}
	if (strcmp(mode, "split") == 0) {
		split(seconds);
	} else if (strcmp(mode, "many") == 0) {
		many(seconds);
	} else if (strcmp(mode, "threads") == 0) {
		static struct thread_cpu t[64];

		thread_seconds = argc > 3 ? atof(argv[3]) : 0.1;
		for (long i = 0; i < n && i < 64; i++)
			pthread_create(&t[i].thread, NULL, thread_main, &t[i]);
		for (long i = 0; i < n && i < 64; i++) {
			pthread_join(t[i].thread, NULL);
			printf("thread %ld cpu %.6f\n", t[i].tid, t[i].seconds);
		}
	} else if (strcmp(mode, "libm") == 0) {
		own_code(seconds);
		libm_code(seconds);
	} else if (strcmp(mode, "syscalls") == 0) {
		syscalls(seconds);
	} else if (strcmp(mode, "writes") == 0) {
		writes(seconds, 0);
	} else if (strcmp(mode, "faults") == 0) {
		writes(seconds, 1);
	} else if (strcmp(mode, "forkexec") == 0) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/proc/self/exe", "workload", "split", argv[2], (char *)NULL);
			_exit(99);
		}
		split(seconds);
		waitpid(pid, NULL, 0);
	} else if (strcmp(mode, "crash") == 0) {
		split(0.02);
		raise(SIGSEGV);
	} else if (strcmp(mode, "exit") == 0) {
		split(0.01);
		exit((int)n);
	} else if (strcmp(mode, "_exit") == 0) {
		split(0.01);
		_exit((int)n);
	} else if (strcmp(mode, "forever") == 0) {
		for (;;)
			split(0.01);
	} else if (strcmp(mode, "echo") == 0) {
		char buf[4096];
		size_t got;
		const char *v = getenv("PROFIL_TEST_VAR");

		while ((got = fread(buf, 1, sizeof buf, stdin)) > 0)
			fwrite(buf, 1, got, stdout);
		printf("[%s]\n", v ? v : "(unset)");
	} else if (strcmp(mode, "inlined") == 0) {
		outer(seconds);
	} else if (strcmp(mode, "split2") == 0) {
		split2(seconds);
	} else if (strcmp(mode, "paths") == 0) {
		paths(seconds);
	} else if (strcmp(mode, "deep") == 0) {
		FOR_CPU(argc > 3 ? atof(argv[3]) : 0.01)
			deep((int)n);
	} else if (strcmp(mode, "signal") == 0) {
		signals(seconds);
	} else if (strcmp(mode, "coroutine") == 0) {
		coroutine(seconds);
	} else if (strcmp(mode, "bigframe") == 0) {
		FOR_CPU(seconds)
			big_frame(1);
	} else if (strcmp(mode, "holeframe") == 0) {
		pthread_t t;

		/* a new thread's stack is fresh memory: no page touched yet */
		if (pthread_create(&t, NULL, hole_thread, &seconds) != 0)
			abort();
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "workload: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
