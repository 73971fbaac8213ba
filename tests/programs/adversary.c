/*
 * adversary.c - programs that do what a profiler would rather they did
 * not, for tests/adversarial/test-adversary.c.  Plain C, nothing of profil's
 * linked in.  Each mode checks its own work, prints a fixed line or a few on
 * stdout and exits with a fixed status; CPU goes to burn() (and a_burn,
 * b_burn in tests/programs/adversary-lib.c) so a profile has something to find.
 * Invariant: the output never depends on timing, only on whether the
 * program saw something it would not see when run alone.
 *
 *   sigprof     own SIGPROF handler and setitimer(ITIMER_PROF)
 *   blockall    every signal blocked, then: is any signal pending?
 *   sigreset    every signal's disposition set to SIG_DFL at start
 *   sigcatch    a handler on every signal: counts the ones it gets
 *   sigrt       uses every real-time signal itself: handlers read back,
 *               each sent to itself arrives once with its value, blocked
 *               ones stay pending for sigtimedwait, signal() returns the
 *               previous handler, ignored ones are ignored
 *   threads     10,000 short-lived threads
 *   forkexec    200 children that each exec `adversary child`
 *   busy        64 busy threads
 *   closefds    every file descriptor but stdout closed at start
 *   closerange  the same with close_range (CLOSE_RANGE_UNSHARE too) and
 *               closefrom, around threads that burn
 *   chdir       chdir("/"), then a child started from there
 *   _exit       _exit(5) with a line left in the stdio buffer
 *   execself N  exec itself N times
 *   abort       abort()
 *   rtdie       kill(getpid(), SIGRTMAX - 1) at the default disposition
 *   stack       recursion until the stack runs out (SIGSEGV)
 *   spawn       vfork, posix_spawn, clone with CLONE_VM, CLONE_VFORK,
 *               and a raw CLONE_THREAD thread (these three clone_burn()
 *               100 ms each; we burn() 200)
 *   dlopen N U  N cycles: dlopen liba, burn U ms in it, dlclose; the
 *               same with libb
 *   eintr       blocking calls (sleeps, futex, poll, read, ...) that
 *               must never fail with EINTR
 *   child       (run by the others) burn a little, exit 3
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNIT		1000000ul	/* iterations: about 1 ms here */

static double work_scale = 1;		/* PROFIL_TEST_WORK_SCALE */

extern char **environ;

static char self[PATH_MAX];		/* this program, for children */

/* n iterations at this run's scale (tests/programs/workload.c), at least one */
static unsigned long
scaled(double n)
{
	double k = n * work_scale + 0.5;

	return k < 1 ? 1 : (unsigned long)k;
}

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Burn ms of the calling thread's CPU, whatever the machine's speed:
 * rounds of a multiply-add on a local, about 1 ms each here, until the
 * thread's CPU clock says so.  Under 1 ms, one round of that share of
 * the work, the clock unread.
 */
__attribute__((noinline)) static unsigned long
burn(double ms)
{
	volatile unsigned long local = 1;
	unsigned long round = scaled(ms < 1 ? ms * UNIT : UNIT);
	double until = ms < 1 ? 0 : thread_cpu() + ms / 1000;

	do
		for (unsigned long i = 0; i < round; i++)
			local = local * 6364136223846793005ul + i;
	while (until > 0 && thread_cpu() < until);
	return local;
}

__attribute__((noreturn, format(printf, 1, 2))) static void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

/* Wait for pid; its exit code, or 128 + signal. */
static int
wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, __WALL) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static pid_t
fork_exec_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, "adversary", "child", (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		die("fork: %s", strerror(errno));
	return pid;
}

/* What the others start: a little work, and a status of its own. */
static void
mode_child(void)
{
	burn(1);
	exit(3);
}

/* ---- signals ------------------------------------------------------------ */

static volatile sig_atomic_t prof_ticks, prof_foreign, caught;

static void
on_sigprof(int sig)
{
	if (sig == SIGPROF)
		prof_ticks++;
	else
		prof_foreign++;
}

static void
mode_sigprof(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigprof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) < 0 || setitimer(ITIMER_PROF, &it, NULL) < 0)
		die("sigprof: %s", strerror(errno));
	burn(400);
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_PROF, &it, NULL);
	if (prof_ticks == 0 || prof_foreign != 0)
		die("sigprof: %d ticks, %d foreign", (int)prof_ticks, (int)prof_foreign);
	printf("sigprof ok\n");
}

static void
mode_blockall(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t all, pending;
	int n = 0, sig;

	sigfillset(&all);
	if (sigprocmask(SIG_BLOCK, &all, NULL) < 0)
		die("sigprocmask: %s", strerror(errno));
	burn(400);
	sigpending(&pending);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&pending, sig) == 1) {
			printf("blockall: signal %d pending\n", sig);
			n++;
		}
	sig = sigtimedwait(&all, NULL, &zero);
	if (sig > 0)
		printf("blockall: sigtimedwait took signal %d\n", sig);
	printf("blockall %d pending\n", n);
}

static void
mode_sigreset(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, &sa, NULL) < 0 &&
		    errno != EINVAL)	/* the C library keeps two for itself */
			die("sigaction %d: %s", sig, strerror(errno));
	burn(400);
	printf("sigreset ok\n");
}

static void
on_any(int sig)
{
	(void)sig;
	caught++;
}

static void
mode_sigcatch(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_any;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, &sa, NULL) < 0 &&
		    errno != EINVAL)
			die("sigaction %d: %s", sig, strerror(errno));
	burn(400);
	printf("sigcatch %d signals\n", (int)caught);
}

static volatile sig_atomic_t rt_got[NSIG], rt_wrong_value;

static void
on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig > 0 && sig < NSIG)
		rt_got[sig]++;
	if (si->si_code != SI_QUEUE || si->si_value.sival_int != sig)
		rt_wrong_value++;
}

static void
send_rt(int sig)
{
	if (sigqueue(getpid(), sig, (union sigval){ .sival_int = sig }) < 0)
		die("sigqueue %d: %s", sig, strerror(errno));
}

static void
mode_sigrt(void)
{
	struct timespec zero = { 0, 0 };
	struct sigaction sa, back;
	sigset_t rt, old, now;
	siginfo_t si;
	int wrong = 0, n = SIGRTMAX - SIGRTMIN + 1;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&rt);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		if (sigaction(sig, &sa, NULL) < 0 || sigaction(sig, NULL, &back) < 0)
			die("sigaction %d: %s", sig, strerror(errno));
		if (!(back.sa_flags & SA_SIGINFO) || back.sa_sigaction != on_rt) {
			printf("sigrt: handler of %d not read back\n", sig);
			wrong++;
		}
		sigaddset(&rt, sig);
	}
	burn(100);
	/* unblocked: each arrives at once, once, with its value */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		send_rt(sig);
		if (rt_got[sig] != 1) {
			printf("sigrt: %d arrived %d times\n", sig, (int)rt_got[sig]);
			wrong++;
		}
	}
	/* blocked: shown blocked, held pending, taken by sigtimedwait */
	if (sigprocmask(SIG_BLOCK, &rt, &old) < 0 ||
	    sigprocmask(SIG_BLOCK, NULL, &now) < 0)
		die("sigprocmask: %s", strerror(errno));
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (sigismember(&now, sig) != 1 || sigismember(&old, sig) == 1) {
			printf("sigrt: %d not shown blocked as asked\n", sig);
			wrong++;
		}
	burn(200);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		send_rt(sig);
	sigpending(&now);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (sigismember(&now, sig) != 1 || rt_got[sig] != 1) {
			printf("sigrt: blocked %d not held pending\n", sig);
			wrong++;
		}
	/* taken by each of the ways to wait (none blocks: all are pending) */
	for (int i = 0; i < n; i++) {
		int sig;

		if (i == 0) {
			sig = sigwaitinfo(&rt, &si);
		} else if (i == 1) {
			if (sigwait(&rt, &sig) != 0)
				sig = -1;
			si.si_value.sival_int = sig;	/* sigwait tells no more */
		} else {
			sig = sigtimedwait(&rt, &si, &zero);
		}
		if (sig < SIGRTMIN || sig > SIGRTMAX || si.si_value.sival_int != sig) {
			printf("sigrt: wait %d: %d\n", i, sig);
			wrong++;
		}
	}
	if (sigtimedwait(&rt, &si, &zero) != -1 || errno != EAGAIN) {
		printf("sigrt: more pending than sent\n");
		wrong++;
	}
	if (sigprocmask(SIG_SETMASK, &old, NULL) < 0)
		die("sigprocmask: %s", strerror(errno));
	/* signal() answers with the handler before; ignored means ignored */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
		if (signal(sig, SIG_IGN) != (sighandler_t)(void (*)(void))on_rt) {
			printf("sigrt: signal(%d) did not return the handler\n", sig);
			wrong++;
		}
		send_rt(sig);
		if (rt_got[sig] != 1) {
			printf("sigrt: ignored %d arrived\n", sig);
			wrong++;
		}
	}
	burn(100);
	printf("sigrt %d signals, %d wrong, %d wrong values\n", n, wrong,
	    (int)rt_wrong_value);
}

/* ---- threads and processes ---------------------------------------------- */

static void *
short_thread(void *arg)
{
	(void)arg;
	return (void *)burn(0.02);
}

static void
mode_threads(void)
{
	enum { TOTAL = 10000, LIVE = 16 };
	pthread_t ring[LIVE];
	int rc;

	for (int i = 0; i < TOTAL; i++) {
		if (i >= LIVE)
			pthread_join(ring[i % LIVE], NULL);
		rc = pthread_create(&ring[i % LIVE], NULL, short_thread, NULL);
		if (rc != 0)
			die("threads: pthread_create %d: %s", i, strerror(rc));
	}
	for (int i = TOTAL - LIVE; i < TOTAL; i++)
		pthread_join(ring[i % LIVE], NULL);
	burn(400);
	printf("threads %d ok\n", TOTAL);
}

static void
mode_forkexec(void)
{
	enum { CHILDREN = 200 };
	static pid_t pids[CHILDREN];
	int bad = 0;

	for (int i = 0; i < CHILDREN; i++)
		pids[i] = fork_exec_child();
	burn(600);
	for (int i = 0; i < CHILDREN; i++)
		bad += wait_for(pids[i]) != 3;
	printf("forkexec %d children, %d failed\n", CHILDREN, bad);
}

static void *
busy_thread(void *arg)
{
	(void)arg;
	return (void *)burn(8);
}

static void
mode_busy(void)
{
	enum { THREADS = 64 };
	pthread_t t[THREADS];

	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, busy_thread, NULL) != 0)
			die("busy: pthread_create");
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("busy %d ok\n", THREADS);
}

static void
mode_closefds(void)
{
	struct rlimit rl;
	int max = 65536;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)max)
		max = (int)rl.rlim_cur;
	for (int fd = 0; fd < max; fd++)
		if (fd != 1)
			close(fd);
	burn(400);
	printf("closefds ok\n");
}

static void *
burn_thread(void *arg)
{
	return (void *)burn((double)(long)arg);	/* arg: milliseconds */
}

static void
mode_closerange(void)
{
	pthread_t t;

	close(0);
	close_range(2, 2, 0);
	if (close_range(3, ~0u, CLOSE_RANGE_UNSHARE) < 0)
		die("close_range: %s", strerror(errno));
	if (pthread_create(&t, NULL, burn_thread, (void *)200l) != 0)
		die("pthread_create");
	burn(100);
	closefrom(3);
	burn(100);
	pthread_join(t, NULL);
	printf("closerange ok\n");
}

static void
mode_chdir(void)
{
	if (chdir("/") < 0)
		die("chdir: %s", strerror(errno));
	burn(400);
	printf("chdir ok, child %d\n", wait_for(fork_exec_child()));
}

static void
mode_exit(void)
{
	static const char line[] = "_exit ok\n";

	burn(400);
	printf("this line stays in the stdio buffer\n");
	if (write(1, line, sizeof line - 1) != (ssize_t)sizeof line - 1)
		_exit(1);
	_exit(5);
}

static void
mode_execself(int generation)
{
	char arg[16];

	burn(40);
	printf("execself %d\n", generation);
	fflush(stdout);
	if (generation == 0)
		exit(0);
	snprintf(arg, sizeof arg, "%d", generation - 1);
	execl(self, "adversary", "execself", arg, (char *)NULL);
	die("exec: %s", strerror(errno));
}

static void
mode_abort(void)
{
	burn(400);
	printf("abort\n");
	fflush(stdout);
	abort();
}

/*
 * Every real-time signal at its default disposition, one sent to itself
 * ends the process: the one a profiler would pick first (the highest
 * below SIGRTMAX) must do that too.
 */
static void
mode_rtdie(void)
{
	burn(400);
	printf("rtdie\n");
	fflush(stdout);
	kill(getpid(), SIGRTMAX - 1);
	printf("rtdie: still alive\n");
}

/* Never reached; volatile so the compiler cannot tell. */
static volatile unsigned long bottom = ULONG_MAX;

/* Each frame keeps 1 KiB alive across the call: no tail call, no loop. */
__attribute__((noinline)) static unsigned long
recurse(unsigned long depth)
{
	volatile char frame[1024];

	if (depth == bottom)
		return 0;
	frame[depth % sizeof frame] = (char)depth;
	return recurse(depth + 1) + frame[(depth * 7) % sizeof frame];
}

static void
mode_stack(void)
{
	burn(400);
	printf("stack\n");
	fflush(stdout);
	recurse(0);
}

/* ---- vfork, posix_spawn, clone ------------------------------------------ */

static long
futex(_Atomic int *word, int op, int val, const struct timespec *timeout)
{
	return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/*
 * What clone() children run: their own loop (not burn(), so a profile
 * tells their samples apart), touching no thread-local state (they share
 * the parent's thread pointer) and calling nothing; so a fixed amount of
 * work, about 100 ms here, at this run's scale.
 */
__attribute__((noinline)) static int
clone_burn(void *arg)
{
	volatile unsigned long local = 1;
	unsigned long n = (unsigned long)(100 * UNIT * work_scale);

	for (unsigned long i = 0; i < n; i++)
		local = local * 6364136223846793005ul + i;
	return (int)(long)arg;
}

static void
mode_spawn(void)
{
	enum { STACK = 1 << 20 };
	char *stack = mmap(NULL, 2 * STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	char *argv[] = { "adversary", "child", NULL };
	_Atomic int ctid = -1;	/* the kernel clears it when the thread ends */
	pid_t pid;

	if (stack == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	pid = vfork();
	if (pid == 0) {
		execv(self, argv);
		_exit(127);
	}
	printf("vfork %d\n", wait_for(pid));
	if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0)
		die("posix_spawn failed");
	printf("posix_spawn %d\n", wait_for(pid));
	/* a process sharing our memory */
	pid = clone(clone_burn, stack + STACK, CLONE_VM | SIGCHLD, (void *)4l);
	printf("clone vm %d\n", pid < 0 ? -1 : wait_for(pid));
	/* the same, and we wait until it exits */
	pid = clone(clone_burn, stack + STACK, CLONE_VM | CLONE_VFORK | SIGCHLD,
	    (void *)5l);
	printf("clone vfork %d\n", pid < 0 ? -1 : wait_for(pid));
	/* a thread the thread library knows nothing about */
	pid = clone(clone_burn, stack + 2 * STACK, CLONE_VM | CLONE_FS |
	    CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
	    CLONE_CHILD_CLEARTID, (void *)0l, NULL, NULL, &ctid);
	if (pid > 0) {
		int t;

		while ((t = atomic_load(&ctid)) != 0)
			futex(&ctid, FUTEX_WAIT, t, NULL);
	}
	printf("clone thread %s\n", pid > 0 ? "ok" : "failed");
	burn(200);
}

/* ---- dlopen / dlclose ---------------------------------------------------- */

static void
mode_dlopen(int cycles, unsigned long units)
{
	static const char *const names[2][2] = {
		{ "adversary-liba.so", "a_burn" }, { "adversary-libb.so", "b_burn" },
	};
	char dir[PATH_MAX], path[PATH_MAX + 32];
	void *base[2] = { NULL, NULL };
	int reused = 0;

	snprintf(dir, sizeof dir, "%s", self);
	*strrchr(dir, '/') = '\0';
	for (int c = 0; c < cycles; c++)
		for (int k = 0; k < 2; k++) {
			void (*fn)(unsigned long);
			void *h;
			Dl_info info;

			snprintf(path, sizeof path, "%s/%s", dir, names[k][0]);
			h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
			if (h == NULL)
				die("dlopen: %s", dlerror());
			fn = (void (*)(unsigned long))dlsym(h, names[k][1]);
			if (fn == NULL || dladdr((void *)fn, &info) == 0)
				die("dlsym %s: %s", names[k][1], dlerror());
			base[k] = info.dli_fbase;
			reused |= k == 1 && base[1] == base[0];
			double until = thread_cpu() + (double)units / 1000;

			do
				fn(scaled(UNIT));
			while (thread_cpu() < until);
			if (dlclose(h) != 0)
				die("dlclose: %s", dlerror());
		}
	/* stderr: where the loader put them is not for stdout */
	if (reused)
		fprintf(stderr, "adversary: libb was mapped where liba had been\n");
	printf("dlopen %d cycles ok\n", cycles);
}

/* ---- blocking calls under sampling: no EINTR ----------------------------- */

struct helper {
	int req[2], resp[2];
	_Atomic int word;
};

/* Answers each request byte after a pause, then wakes the futex. */
static void *
helper_thread(void *arg)
{
	struct helper *h = arg;
	struct timespec pause = { 0, 200000 };
	char byte;

	while (read(h->req[0], &byte, 1) == 1) {
		while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
			;
		pause.tv_nsec = 200000;
		if (write(h->resp[1], &byte, 1) != 1)
			break;
		while (nanosleep(&pause, &pause) < 0 && errno == EINTR)
			;
		pause.tv_nsec = 200000;
		atomic_fetch_add(&h->word, 1);
		futex(&h->word, FUTEX_WAKE_PRIVATE, 1, NULL);
	}
	return NULL;
}

/* One line per interrupted call: the output then differs from a quiet run. */
static int
interrupted(const char *call, int failed, int expected_errno)
{
	if (!failed)
		return 0;
	if (errno == expected_errno)
		return 0;
	printf("%s: %s\n", call, errno == EINTR ? "EINTR" : strerror(errno));
	return 1;
}

static void
mode_eintr(void)
{
	enum { ROUNDS = 300 };
	struct timespec short_wait = { 0, 50000 };
	struct timeval tv;
	struct epoll_event ev = { EPOLLIN, { 0 } };
	struct helper h;
	pthread_t t;
	sigset_t usr1;
	int ep, bad = 0;
	char byte = 'x';

	if (pipe(h.req) < 0 || pipe(h.resp) < 0)
		die("pipe: %s", strerror(errno));
	atomic_init(&h.word, 0);
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, h.resp[0], &ev) < 0)
		die("epoll: %s", strerror(errno));
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (pthread_create(&t, NULL, helper_thread, &h) != 0)
		die("pthread_create");
	for (int round = 0; round < ROUNDS; round++) {
		struct pollfd pfd = { h.resp[0], POLLIN, 0 };
		int seen;

		burn(1);
		bad += interrupted("nanosleep", nanosleep(&short_wait, NULL) < 0, 0);
		errno = clock_nanosleep(CLOCK_MONOTONIC, 0, &short_wait, NULL);
		bad += interrupted("clock_nanosleep", errno != 0, 0);
		bad += interrupted("futex timed wait", futex(&h.word, FUTEX_WAIT_PRIVATE,
		    atomic_load(&h.word), &short_wait) < 0, ETIMEDOUT);
		bad += interrupted("poll", poll(&pfd, 1, 1) < 0, 0);
		tv = (struct timeval){ 0, 50 };
		bad += interrupted("select", select(0, NULL, NULL, NULL, &tv) < 0, 0);
		bad += interrupted("epoll_wait", epoll_wait(ep, &ev, 1, 1) < 0, 0);
		bad += interrupted("sigtimedwait", sigtimedwait(&usr1, NULL,
		    &short_wait) < 0, EAGAIN);
		/* blocking read, answered 200 us later; then a futex wake */
		seen = atomic_load(&h.word);
		if (write(h.req[1], &byte, 1) != 1)
			die("write: %s", strerror(errno));
		bad += interrupted("read", read(h.resp[0], &byte, 1) != 1, 0);
		while (atomic_load(&h.word) == seen)
			bad += interrupted("futex wait", futex(&h.word,
			    FUTEX_WAIT_PRIVATE, seen, NULL) < 0, EAGAIN);
		if (bad > 10)
			break;
	}
	close(h.req[1]);
	pthread_join(t, NULL);
	printf("eintr %d rounds, %d interrupted\n", ROUNDS, bad);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 0;
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	const char *scale = getenv("PROFIL_TEST_WORK_SCALE");

	if (scale != NULL && (work_scale = atof(scale)) <= 0)
		die("adversary: bad PROFIL_TEST_WORK_SCALE '%s'", scale);
	if (len < 0)
		die("readlink: %s", strerror(errno));
	self[len] = '\0';
	if (strcmp(mode, "sigprof") == 0)
		mode_sigprof();
	else if (strcmp(mode, "blockall") == 0)
		mode_blockall();
	else if (strcmp(mode, "sigreset") == 0)
		mode_sigreset();
	else if (strcmp(mode, "sigcatch") == 0)
		mode_sigcatch();
	else if (strcmp(mode, "sigrt") == 0)
		mode_sigrt();
	else if (strcmp(mode, "threads") == 0)
		mode_threads();
	else if (strcmp(mode, "forkexec") == 0)
		mode_forkexec();
	else if (strcmp(mode, "busy") == 0)
		mode_busy();
	else if (strcmp(mode, "closefds") == 0)
		mode_closefds();
	else if (strcmp(mode, "closerange") == 0)
		mode_closerange();
	else if (strcmp(mode, "chdir") == 0)
		mode_chdir();
	else if (strcmp(mode, "_exit") == 0)
		mode_exit();
	else if (strcmp(mode, "execself") == 0)
		mode_execself(n);
	else if (strcmp(mode, "abort") == 0)
		mode_abort();
	else if (strcmp(mode, "rtdie") == 0)
		mode_rtdie();
	else if (strcmp(mode, "stack") == 0)
		mode_stack();
	else if (strcmp(mode, "spawn") == 0)
		mode_spawn();
	else if (strcmp(mode, "dlopen") == 0)
		mode_dlopen(n, argc > 3 ? strtoul(argv[3], NULL, 10) : 150);
	else if (strcmp(mode, "eintr") == 0)
		mode_eintr();
	else if (strcmp(mode, "child") == 0)
		mode_child();
	else
		die("adversary: unknown mode '%s'", mode);
	return 0;
}
