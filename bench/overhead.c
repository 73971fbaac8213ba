/*
 * overhead.c - what sampling costs a CPU-bound loop: the same fixed work
 * unprofiled, under libprofil at several rates and mechanisms, and under
 * glibc's profil().  Each run is a fresh child; configurations alternate
 * round by round, and each is reported as the median over rounds of its
 * CPU time divided by the unprofiled run of the same round.
 *
 * usage: overhead [ROUNDS [WORK]]   (default 7 rounds, 1.0 s of work)
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

typedef int profil_fn(unsigned short *, size_t, size_t, unsigned int);

struct config {
	const char *name;
	int kind;		/* 0 none, 1 ours, 2 glibc */
	unsigned rate_hz;
	int mechanism;
};

static const struct config configs[] = {
	{ "unprofiled", 0, 0, 0 },
	{ "libprofil timer 100 Hz", 1, 100, PROFIL_MECH_TIMER },
	{ "libprofil default (timer, tick rate)", 1, 0, PROFIL_MECH_AUTO },
	{ "libprofil timer 1 kHz (tick-limited)", 1, 1000, PROFIL_MECH_TIMER },
	{ "libprofil auto 1 kHz (perf)", 1, 1000, PROFIL_MECH_AUTO },
	{ "libprofil perf 10 kHz (highest)", 1, PROFIL_MAX_HZ, PROFIL_MECH_PERF },
	{ "glibc profil() (ITIMER_PROF)", 2, 0, 0 },
};
#define NCONFIGS (sizeof configs / sizeof configs[0])

struct result {
	double cpu;		/* seconds of CPU for the work */
	double signals_per_s;
	int mechanism;
	unsigned rate;
};

static volatile unsigned long sink;

__attribute__((noinline)) static void
work(unsigned long iterations)
{
	for (unsigned long i = 0; i < iterations; i++)
		sink = sink * 6364136223846793005ul + i;
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
text_range(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t *r = data;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD &&
		    (info->dlpi_phdr[i].p_flags & PF_X)) {
			r[0] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			r[1] = r[0] + info->dlpi_phdr[i].p_memsz;
			break;
		}
	return 1;
}

/* In a child: set up the configuration, do the work, report. */
static struct result
run_child(const struct config *c, unsigned long iterations)
{
	struct result res = { 0 };
	uintptr_t text[2] = { 0, 0 };
	unsigned short *buf;
	size_t bufsiz;
	double start;

	dl_iterate_phdr(text_range, text);
	bufsiz = ((text[1] - text[0]) / 2 + 1) * 2;
	buf = calloc(1, bufsiz);
	start = cpu_now();
	if (c->kind == 1) {
		uint32_t *counters = calloc((text[1] - text[0]) / 4 + 1, 4);
		struct profil_range r = { text[0], text[1], counters, 4, 4 };
		struct profil_config cfg = { c->rate_hz, c->mechanism, &r, 1, 0, 0 };

		if (profil_start(&cfg) != 0) {
			perror("profil_start");
			exit(1);
		}
	} else if (c->kind == 2) {
		void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		profil_fn *glibc = (profil_fn *)dlsym(libc, "profil");

		glibc(buf, bufsiz, text[0], 0x10000);
	}
	work(iterations);
	if (c->kind == 1) {
		struct profil_status st;

		profil_get_status(&st);
		profil_stop();
		res.signals_per_s = st.cpu_seconds > 0 ?
		    (double)st.signals / st.cpu_seconds : 0;
		res.mechanism = st.mechanism;
		res.rate = st.resolution_hz;
	} else if (c->kind == 2) {
		void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
		profil_fn *glibc = (profil_fn *)dlsym(libc, "profil");
		unsigned long n = 0;

		glibc(buf, 0, 0, 0);
		for (size_t i = 0; i < bufsiz / 2; i++)
			n += buf[i];
		res.signals_per_s = (double)n / (cpu_now() - start);
	}
	res.cpu = cpu_now() - start;
	return res;
}

static struct result
run(const struct config *c, unsigned long iterations)
{
	struct result res;
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0 || (pid = fork()) < 0) {
		perror("overhead");
		exit(1);
	}
	if (pid == 0) {
		close(fds[0]);
		res = run_child(c, iterations);
		if (write(fds[1], &res, sizeof res) != sizeof res)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &res, sizeof res) != sizeof res) {
		fprintf(stderr, "overhead: child for '%s' failed\n", c->name);
		exit(1);
	}
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return res;
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	double seconds = argc > 2 ? atof(argv[2]) : 1.0;
	double ratio[NCONFIGS][64], rate[NCONFIGS][64];
	int mech[NCONFIGS] = { 0 };
	unsigned long iterations;
	double t0;

	if (rounds < 1 || rounds > 64 || seconds <= 0) {
		fprintf(stderr, "usage: overhead [ROUNDS (1-64) [SECONDS]]\n");
		return 2;
	}
	/* calibrate: iterations for about `seconds` of CPU */
	t0 = cpu_now();
	work(50000000);
	iterations = (unsigned long)(50000000 * seconds / (cpu_now() - t0));

	for (int r = 0; r < rounds; r++) {
		double base = run(&configs[0], iterations).cpu;

		ratio[0][r] = 1.0;
		/* rotate the order each round so drift hits all alike */
		for (size_t k = 0; k < NCONFIGS - 1; k++) {
			size_t i = 1 + (k + (size_t)r) % (NCONFIGS - 1);
			struct result res = run(&configs[i], iterations);

			ratio[i][r] = res.cpu / base;
			rate[i][r] = res.signals_per_s;
			mech[i] = res.mechanism;
		}
		fprintf(stderr, "round %d/%d done\n", r + 1, rounds);
	}
	printf("| configuration | mechanism | samples per CPU-s | extra CPU (median of %d) |\n",
	    rounds);
	printf("|---|---|---|---|\n");
	for (size_t i = 0; i < NCONFIGS; i++) {
		double m = median(ratio[i], rounds);

		if (i == 0) {
			printf("| %s | - | - | baseline |\n", configs[i].name);
			continue;
		}
		printf("| %s | %s | %.0f | %+.2f%% |\n", configs[i].name,
		    configs[i].kind == 2 ? "setitimer" :
		    profil_mechanism_name(mech[i]), median(rate[i], rounds),
		    (m - 1) * 100);
	}
	return 0;
}
