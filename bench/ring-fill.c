/*
 * ring-fill.c - what a perf ring's pages cost the reader the first time,
 * and whether reading fewer of them costs less.  profil's recorder reads
 * one record header every 16 KiB of an 8 MiB ring (a sample with its
 * stack copy); in a VM whose hypervisor fills in the mapping of a page
 * at its first read, that is a cost per run that no change to the
 * recorder's reading removes if the hypervisor fills pages in runs.
 *
 * For each stride k (1, 2, 4, 8, 16 pages) a fresh ring of PAGES data
 * pages is mapped (without and with MAP_POPULATE), one byte read from
 * every k-th page, then one from every page: the first pass's time, per
 * page read, and the second's (what the first left unfilled).
 *
 * usage: ring-fill [PAGES]   (default 2048: 8 MiB, the recorder's ring)
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int
event(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000;
	a.disabled = 1;		/* never enabled: only its ring is wanted */
	a.exclude_kernel = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

int
main(int argc, char **argv)
{
	size_t pages = argc > 1 ? strtoul(argv[1], NULL, 10) : 2048;
	long psz = sysconf(_SC_PAGESIZE);

	if (pages == 0 || (pages & (pages - 1)) != 0) {
		fprintf(stderr, "ring-fill: PAGES must be a power of 2\n");
		return 2;
	}
	printf("| MAP_POPULATE | stride | first pass ms | µs per page read "
	    "| second pass ms |\n|---|---|---|---|---|\n");
	for (int populate = 0; populate <= 1; populate++)
		for (size_t k = 1; k <= 16; k *= 2) {
			size_t len = (pages + 1) * (size_t)psz;
			volatile unsigned sum = 0;
			unsigned char *p;
			double t0, t1, t2;
			int fd = event();

			if (fd < 0) {
				perror("ring-fill: perf_event_open");
				return 1;
			}
			p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED |
			    (populate ? MAP_POPULATE : 0), fd, 0);
			if (p == MAP_FAILED) {
				perror("ring-fill: mmap");
				return 1;
			}
			t0 = now();
			for (size_t i = 1; i <= pages; i += k)
				sum += p[i * (size_t)psz];
			t1 = now();
			for (size_t i = 1; i <= pages; i++)
				sum += p[i * (size_t)psz + 64];
			t2 = now();
			printf("| %s | %zu | %.2f | %.2f | %.2f |\n",
			    populate ? "yes" : "no", k, (t1 - t0) * 1e3,
			    (t1 - t0) * 1e6 / (double)((pages + k - 1) / k),
			    (t2 - t1) * 1e3);
			munmap(p, len);
			close(fd);
		}
	return 0;
}
