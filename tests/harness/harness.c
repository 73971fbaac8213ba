/*
 * harness.c - forked test bodies with timeouts, and the helpers the tests
 * share (see harness.h).
 */
#include <dirent.h>
#include <errno.h>
#include <link.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include <profil.h>

int (*const profil_any)(unsigned short *, size_t, size_t, unsigned int) = profil;

void
harness_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: check failed: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(1);
}

void
harness_skip(const char *why)
{
	fprintf(stderr, "skipped: %s\n", why);
	_exit(77);
}

void
harness_forked(void (*body)(void), unsigned timeout_s, const char *file,
    int line)
{
	struct timespec step = { 0, 5000000 };
	unsigned long waited_ms = 0;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		fail_msg("%s:%d: fork: %s", file, line, strerror(errno));
	if (pid == 0) {
		body();
		fflush(NULL);
		_exit(0);
	}
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			fail_msg("%s:%d: waitpid: %s", file, line, strerror(errno));
		if (waited_ms >= timeout_s * 1000ul) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail_msg("%s:%d: test body timed out after %u s", file,
			    line, timeout_s);
		}
		nanosleep(&step, NULL);
		waited_ms += 5;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
		skip();
	if (WIFSIGNALED(status))
		fail_msg("%s:%d: test body died of signal %d (%s)", file, line,
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("%s:%d: test body failed (exit %d)", file, line,
		    WEXITSTATUS(status));
}

static double
cpu_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
harness_thread_cpu(void)
{
	return cpu_of(CLOCK_THREAD_CPUTIME_ID);
}

double
harness_process_cpu(void)
{
	return cpu_of(CLOCK_PROCESS_CPUTIME_ID);
}

struct text_query {
	const char *name;
	uintptr_t lo, hi;
	int found;
};

static int
find_text(struct dl_phdr_info *info, size_t size, void *data)
{
	struct text_query *q = data;
	int i;

	(void)size;
	if (q->name != NULL && strstr(info->dlpi_name, q->name) == NULL)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			q->lo = info->dlpi_addr + ph->p_vaddr;
			q->hi = q->lo + ph->p_memsz;
			q->found = 1;
			return 1;
		}
	}
	return q->name == NULL;	/* the executable comes first */
}

int
harness_text_of(const char *name, uintptr_t *lo, uintptr_t *hi)
{
	struct text_query q = { name, 0, 0, 0 };

	dl_iterate_phdr(find_text, &q);
	if (!q.found)
		return -1;
	*lo = q.lo;
	*hi = q.hi;
	return 0;
}

static int
count_entries(const char *dir_path)
{
	DIR *dir = opendir(dir_path);
	struct dirent *e;
	int n = 0;

	if (dir == NULL)
		return -1;
	while ((e = readdir(dir)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1;	/* the directory's own fd */
}

int
harness_open_fds(void)
{
	return count_entries("/proc/self/fd");
}

int
harness_posix_timers(void)
{
	FILE *f = fopen("/proc/self/timers", "r");
	char line[256];
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "ID:", 3) == 0)
			n++;
	fclose(f);
	return n;
}

int
harness_perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 3;

	if (f != NULL) {
		if (fscanf(f, "%d", &level) != 1)
			level = 3;
		fclose(f);
	}
	return level;
}

int
harness_perf_allowed(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = 1000000;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int
harness_perf_allowed_to_users(void)
{
	return harness_perf_allowed() && harness_perf_paranoid() <= 2;
}

double
harness_margin(double p, double n, double k, double floor)
{
	double m = n > 0 ? k * sqrt(p * (1 - p) / n) : 1.0;

	return m < floor ? floor : m;
}

static double loops_per_second;
static double work_scale = 1;		/* PROFIL_TEST_WORK_SCALE */
static const char *bad_scale;

void
harness_poll(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
}

/*
 * The spin body of harness.h, timed: the best of three 40 ms runs.  The
 * work scale is read here too (the spins' iterations are its product).
 */
__attribute__((constructor)) static void
calibrate(void)
{
	const char *scale = getenv("PROFIL_TEST_WORK_SCALE");

	if (scale != NULL && (work_scale = atof(scale)) <= 0) {
		bad_scale = scale;
		work_scale = 1;
	}
	for (int round = 0; round < 3; round++) {
		volatile unsigned long x = 1;
		const unsigned long n = 4000000;
		double start = harness_thread_cpu(), took;

		for (unsigned long i = 0; i < n; i++) {
			x = x * 6364136223846793005ul + i;
			if (i % HARNESS_CHUNK == 0)
				harness_poll();
		}
		took = harness_thread_cpu() - start;
		if (took > 0 && n / took > loops_per_second)
			loops_per_second = n / took;
	}
}

double
harness_loops_per_second(void)
{
	return loops_per_second;
}

double
harness_work_scale(void)
{
	if (bad_scale != NULL)
		harness_fail(__FILE__, __LINE__, "work scale",
		    "bad PROFIL_TEST_WORK_SCALE '%s'", bad_scale);
	return work_scale;
}

unsigned long
harness_spin_iterations(double seconds)
{
	double n = seconds * loops_per_second * harness_work_scale();

	return n > 0 ? (unsigned long)n : 0;
}

double
harness_rate(void)
{
	struct profil_status st;

	profil_get_status(&st);
	if (!st.active || st.rate_hz == 0)
		harness_fail(__FILE__, __LINE__, "st.active",
		    "no session to size a run by");
	return st.rate_hz;
}

double
harness_seconds_for(double samples, double rate)
{
	return 1.15 * samples / rate;
}

double
harness_count_error(double rate, int threads)
{
	struct profil_status st;
	double tick, end;

	profil_get_status(&st);
	/* perf events count periods, timers deliver overruns at ticks */
	tick = st.mechanism != PROFIL_MECH_TIMER ? 0 :
	    st.tick_hz > 0 ? 1.0 / st.tick_hz : 0.01;
	end = 1 / rate > tick ? 1 / rate : tick;
	return rate * threads * (end + 0.005);
}

double
harness_samples_for_rate(double rate, int threads, double within)
{
	return 2 * harness_count_error(rate, threads) / within;
}

double
harness_samples_for_poisson(double k, double within)
{
	return (k / within) * (k / within);
}

double
harness_samples_for_share(double p, double k, double within)
{
	return p * (1 - p) * (k / within) * (k / within);
}

static double
session_samples(void *unused)
{
	struct profil_status st;

	(void)unused;
	profil_get_status(&st);
	return (double)st.samples;
}

double
harness_spin_for(void (*spin)(double), double need,
    double (*count)(void *), void *arg, double rate, const char *what)
{
	double first, got, asked = 0, ask = 0;

	if (count == NULL)
		count = session_samples;
	if (rate <= 0)
		rate = harness_rate();
	/*
	 * whole samples: 89 of 89.4 needed once asked for 1.2 x 0.4 of a
	 * sample's time, got none, and failed
	 */
	first = got = count(arg);
	need = first + ceil(need - first);
	for (int spins = 0; got < need; spins++) {
		if (spins == 3)
			harness_fail(__FILE__, __LINE__, "got >= need",
			    "%s: %.0f after 3 spins of %.3f CPU-s in all "
			    "(planned at %.0f a second), %.0f needed", what,
			    got - first, asked, rate, need - first);
		if (spins == 0)
			ask = harness_seconds_for(need - got, rate);
		else {
			/* what the spins so far gave a second asked */
			double yield = (got - first) / asked;

			ask = yield > 0 ? 1.2 * fmax(2, need - got) / yield :
			    3 * asked;
			if (ask > 3 * asked)
				ask = 3 * asked;
			fprintf(stderr, "%s: %.0f of %.0f in %.3f s asked, "
			    "%.3f s more\n", what, got - first, need - first,
			    asked, ask);
		}
		spin(ask);
		asked += ask;
		got = count(arg);
	}
	return got;
}

double
harness_spin_cpu(void (*spin)(double), double seconds)
{
	double start = harness_thread_cpu(), done = 0, asked = 0, ask = seconds;

	for (int spins = 0; spins < 8; spins++) {
		spin(ask);
		asked += ask;
		done = harness_thread_cpu() - start;
		if (done >= seconds)
			break;
		/* the rest, at what a second asked gave so far */
		ask = 1.05 * (seconds - done) * (done > 0 ? asked / done : 1);
	}
	return done;
}

double
harness_longer(double seconds, double got, double need, int *runs,
    const char *what)
{
	if (++*runs >= 3)
		harness_fail(__FILE__, __LINE__, "got >= need",
		    "%s: %.0f in the third run, %.0f needed", what, got, need);
	/* what was missing, and a tenth more; 4x at most a time */
	fprintf(stderr, "%s: %.0f of %.0f, again %.2fx as long\n", what, got,
	    need, got > need / 4 ? 1.1 * need / got : 4);
	return seconds * (got > need / 4 ? 1.1 * need / got : 4);
}

/*
 * PROFIL_TEST=PATTERN runs only the tests whose names match it (cmocka's
 * filter: * and ? wildcards), in every test program: to try one while
 * working on it.
 */
__attribute__((constructor)) static void
harness_filter(void)
{
	const char *only = getenv("PROFIL_TEST");

	if (only != NULL && *only != '\0')
		cmocka_set_test_filter(only);
}
