/*
 * wall-workload.c - programs whose time off the CPU is known, for the
 * end-to-end tests of `profil record --wall` (tests/e2e/test-wall.c).  Built
 * plain, twice: with frame pointers and without (gcc's default at -O2).
 *
 *   parts CPU T1 T2 T3    main, in turn: cpu_part() for CPU seconds of its
 *                         CPU, sleep_part() in clock_nanosleep for T1 s,
 *                         read_part() in read on a pipe a helper thread
 *                         writes T2 s later, lock_part() in
 *                         pthread_mutex_lock on a mutex the helper holds
 *                         T3 s longer; prints what it measured of each
 *                         ("cpu S", "sleep S", "read S", "lock S": CPU
 *                         time for the first, CLOCK_MONOTONIC for the
 *                         others), so a test compares the profile with
 *                         what happened, not with what was asked
 *   noeintr               poll, clock_nanosleep, select, read on a socket
 *                         with SO_RCVTIMEO and epoll_wait, 300 ms each,
 *                         none retried: exits 1 saying which, if one was
 *                         cut short (EINTR, or back early)
 *   parked N CPU          N threads parked in parker() (a futex wait)
 *                         while main does CPU s of CPU in cpu_part();
 *                         prints "parked S": the sum of the threads'
 *                         measured waits
 *   child T               a forked child sleeps T s in child_sleep();
 *                         prints "child PID sleep S parent PID"
 *   alternate             forever: nap() sleeps 20 ms, spin() burns 20 ms
 *                         of CPU; prints "ready" once started
 *   undumpable T CPU      makes itself undumpable (PR_SET_DUMPABLE 0),
 *                         then sleeps T s and does CPU s of CPU
 *   naps N US             N times: nap_work() (some 30 us of CPU), then
 *                         a sleep of US microseconds in clock_nanosleep
 *   copies N              N times: 64 KiB read from /dev/zero and
 *                         written to /dev/null in copy_once() (mostly
 *                         kernel time, never blocked)
 *
 * naps and copies print what the kernel counted of the thread, from its
 * own /proc/thread-self/schedstat at its end, its life by its own
 * clock from main on and its age by the kernel's start time of it: lines
 * "life S", "on S", "runq S" (the rest it was blocked), "age S".
 *
 * CPU is CPU time of the calling thread, read from its clock, not an
 * amount of work: PROFIL_TEST_WORK_SCALE does not change it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "thread-age.h"

static volatile unsigned long sink;

static double
clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
mono(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static struct timespec
span(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	return ts;
}

static void
sleep_s(double s)
{
	struct timespec ts = span(s);

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* Spin until the thread has had s more seconds of CPU; what it had. */
__attribute__((noinline)) static double
cpu_part(double s)
{
	double t0 = clock_s(CLOCK_THREAD_CPUTIME_ID), t;

	/* the clock read every ~2 ms: a CPU clock is a system call, and
	   kernel time goes unsampled where perf_event_paranoid is 2 */
	do {
		for (unsigned long i = 0; i < 1000000; i++)
			sink = sink * 6364136223846793005ul + i;
	} while ((t = clock_s(CLOCK_THREAD_CPUTIME_ID)) < t0 + s);
	return t - t0;
}

/* ---- parts ---------------------------------------------------------------- */

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static sem_t ready, go_read, go_lock;
static int pipefd[2];
static double t_read, t_lock;

static void *
helper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&held);
	sem_post(&ready);
	sem_wait(&go_read);
	sleep_s(t_read);
	if (write(pipefd[1], "x", 1) != 1)
		abort();
	sem_wait(&go_lock);
	sleep_s(t_lock);
	pthread_mutex_unlock(&held);
	return NULL;
}

__attribute__((noinline)) static double
sleep_part(double s)
{
	struct timespec ts = span(s);
	double t0 = mono();

	/* not retried: an interrupted sleep shows as a short one */
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	return mono() - t0;
}

__attribute__((noinline)) static double
read_part(void)
{
	char c;
	double t0;

	sem_post(&go_read);
	t0 = mono();
	if (read(pipefd[0], &c, 1) != 1)
		abort();
	return mono() - t0;
}

__attribute__((noinline)) static double
lock_part(void)
{
	double t0;

	sem_post(&go_lock);
	t0 = mono();
	pthread_mutex_lock(&held);
	t0 = mono() - t0;
	pthread_mutex_unlock(&held);
	return t0;
}

static int
parts(double cpu, double t1, double t2, double t3)
{
	pthread_t h;
	double c, s, r, l;

	t_read = t2;
	t_lock = t3;
	if (pipe(pipefd) < 0 || sem_init(&ready, 0, 0) < 0 ||
	    sem_init(&go_read, 0, 0) < 0 || sem_init(&go_lock, 0, 0) < 0 ||
	    pthread_create(&h, NULL, helper, NULL) != 0)
		return 2;
	while (sem_wait(&ready) < 0)
		;
	c = cpu_part(cpu);
	s = sleep_part(t1);
	r = read_part();
	l = lock_part();
	pthread_join(h, NULL);
	printf("cpu %.9f\nsleep %.9f\nread %.9f\nlock %.9f\n", c, s, r, l);
	return 0;
}

/* ---- noeintr ---------------------------------------------------------------- */

#define WAIT_MS 300

/* Each returns what the call returned, errno kept. */
static int
do_poll(void)
{
	int fd[2];
	struct pollfd p;
	int rc;

	if (pipe(fd) < 0)
		return -2;
	p = (struct pollfd){ fd[0], POLLIN, 0 };
	rc = poll(&p, 1, WAIT_MS);
	return rc;	/* 0: the timeout */
}

static int
do_sleep(void)
{
	struct timespec ts = { 0, WAIT_MS * 1000000l };
	int rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);

	/* it returns the error number, not -1 */
	if (rc != 0)
		errno = rc;
	return rc != 0 ? -1 : 0;
}

static int
do_select(void)
{
	int fd[2];
	fd_set in;
	struct timeval tv = { 0, WAIT_MS * 1000 };

	if (pipe(fd) < 0)
		return -2;
	FD_ZERO(&in);
	FD_SET(fd[0], &in);
	return select(fd[0] + 1, &in, NULL, NULL, &tv);	/* 0: timeout */
}

static int
do_sockread(void)
{
	int sv[2];
	struct timeval tv = { 0, WAIT_MS * 1000 };
	char c;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 ||
	    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
		return -2;
	n = read(sv[0], &c, 1);
	/* the timeout: -1 with EAGAIN */
	return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
}

static int
do_epoll(void)
{
	int fd[2], ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN }, out;

	if (ep < 0 || pipe(fd) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, fd[0], &ev) < 0)
		return -2;
	return epoll_wait(ep, &out, 1, WAIT_MS);	/* 0: timeout */
}

static int
noeintr(void)
{
	static const struct {
		const char *name;
		int (*call)(void);
	} calls[] = { { "poll", do_poll }, { "clock_nanosleep", do_sleep },
	    { "select", do_select }, { "read SO_RCVTIMEO", do_sockread },
	    { "epoll_wait", do_epoll } };
	int bad = 0;

	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		double t0 = mono(), took;
		int rc, err;

		errno = 0;
		rc = calls[i].call();
		err = errno;
		took = mono() - t0;
		/* the kernel never ends a timeout early, only late */
		if (rc != 0 || took < WAIT_MS / 1e3) {
			fprintf(stderr, "%s: returned %d (%s) after %.1f ms, not "
			    "the %d ms timeout\n", calls[i].name, rc,
			    rc != 0 ? strerror(err) : "no error", 1e3 * took,
			    WAIT_MS);
			bad = 1;
		}
	}
	return bad;
}

/* ---- parked ------------------------------------------------------------------ */

static int parked_word;		/* 1: parked threads go on */
static pthread_mutex_t sum_lock = PTHREAD_MUTEX_INITIALIZER;
static double parked_sum;

__attribute__((noinline)) static double
parker(void)
{
	double t0 = mono();

	while (__atomic_load_n(&parked_word, __ATOMIC_ACQUIRE) == 0)
		syscall(SYS_futex, &parked_word, FUTEX_WAIT_PRIVATE, 0, NULL,
		    NULL, 0);
	return mono() - t0;
}

static void *
parked_thread(void *arg)
{
	double t = parker();

	(void)arg;
	pthread_mutex_lock(&sum_lock);
	parked_sum += t;
	pthread_mutex_unlock(&sum_lock);
	return NULL;
}

static int
parked(int n, double cpu)
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_attr_t attr;

	if (t == NULL || pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstacksize(&attr, 64 * 1024) != 0)
		return 2;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &attr, parked_thread, NULL) != 0) {
			perror("pthread_create");
			return 2;
		}
	cpu_part(cpu);
	__atomic_store_n(&parked_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &parked_word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL,
	    NULL, 0);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("parked %.9f\n", parked_sum);
	free(t);
	return 0;
}

/* ---- child, alternate ---------------------------------------------------- */

__attribute__((noinline)) static double
child_sleep(double s)
{
	struct timespec ts = span(s);
	double t0 = mono();

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	sink += 2;	/* not sleep_part's body: gcc would fold the two */
	return mono() - t0;
}

static int
child(double s)
{
	int fd[2], status;
	double slept;
	pid_t pid;

	if (pipe(fd) < 0)
		return 2;
	fflush(stdout);
	if ((pid = fork()) == 0) {
		slept = child_sleep(s);
		_exit(write(fd[1], &slept, sizeof slept) == sizeof slept ? 0 : 2);
	}
	if (pid < 0 || read(fd[0], &slept, sizeof slept) != sizeof slept ||
	    waitpid(pid, &status, 0) != pid || status != 0)
		return 2;
	printf("child %d sleep %.9f parent %d\n", (int)pid, slept, (int)getpid());
	return 0;
}

__attribute__((noinline)) static void
nap(void)
{
	struct timespec ts = { 0, 20000000 };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

__attribute__((noinline)) static void
spin(void)
{
	cpu_part(0.02);
	sink++;		/* no tail call: spin stays on the stack */
}

__attribute__((noreturn)) static void
alternate(void)
{
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		nap();
		spin();
	}
}

/* Not ours to read: what an ordinary user's recorder cannot look at. */
static int
undumpable(double t, double cpu)
{
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return 2;
	printf("sleep %.9f\n", sleep_part(t));
	printf("cpu %.9f\n", cpu_part(cpu));
	return 0;
}

/*
 * What the kernel counted of this thread, its life since start (main's)
 * and its age (the kernel's start).
 */
static void
counted(double start)
{
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long on = 0, rq = 0;

	if (f == NULL || fscanf(f, "%llu %llu", &on, &rq) != 2)
		exit(3);
	fclose(f);
	printf("life %.6f\non %.6f\nrunq %.6f\nage %.6f\n", mono() - start,
	    (double)on / 1e9, (double)rq / 1e9, thread_age());
}

__attribute__((noinline)) static void
nap_work(void)
{
	for (unsigned long i = 0; i < 20000; i++)
		sink += i * i;
}

static int
naps(long n, long us, double start)
{
	struct timespec ts = { 0, us * 1000 };

	for (long i = 0; i < n; i++) {
		nap_work();
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	}
	counted(start);
	return 0;
}

__attribute__((noinline)) static void
copy_once(int from, int to)
{
	static char buf[65536];

	if (read(from, buf, sizeof buf) != (ssize_t)sizeof buf ||
	    write(to, buf, sizeof buf) != (ssize_t)sizeof buf)
		exit(4);
}

static int
copies(long n, double start)
{
	int from = open("/dev/zero", O_RDONLY), to = open("/dev/null", O_WRONLY);

	if (from < 0 || to < 0)
		return 4;
	for (long i = 0; i < n; i++)
		copy_once(from, to);
	counted(start);
	return 0;
}

int
main(int argc, char **argv)
{
	double start = mono();

	if (argc == 6 && strcmp(argv[1], "parts") == 0)
		return parts(atof(argv[2]), atof(argv[3]), atof(argv[4]),
		    atof(argv[5]));
	if (argc == 2 && strcmp(argv[1], "noeintr") == 0)
		return noeintr();
	if (argc == 4 && strcmp(argv[1], "parked") == 0)
		return parked(atoi(argv[2]), atof(argv[3]));
	if (argc == 3 && strcmp(argv[1], "child") == 0)
		return child(atof(argv[2]));
	if (argc == 2 && strcmp(argv[1], "alternate") == 0)
		alternate();
	if (argc == 4 && strcmp(argv[1], "undumpable") == 0)
		return undumpable(atof(argv[2]), atof(argv[3]));
	if (argc == 4 && strcmp(argv[1], "naps") == 0)
		return naps(atol(argv[2]), atol(argv[3]), start);
	if (argc == 3 && strcmp(argv[1], "copies") == 0)
		return copies(atol(argv[2]), start);
	fprintf(stderr, "usage: wall-workload parts CPU T1 T2 T3 | noeintr | "
	    "parked N CPU | child T | alternate | undumpable T CPU | "
	    "naps N US | copies N\n");
	return 2;
}
