/*
 * perf-events.c - the perf engine's events: their attributes, an event
 * per CPU and task with the ring buffer its CPU's first one owns, and a
 * budget's sets of events, one per period.
 *
 * Invariant: a set's events keep the period they were opened with, and
 * only one set samples at a time (a sample's period is its weight).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

#include "cli.h"
#include "perf-events.h"
#include "perf-regs.h"
#include "perf.h"
#include "record/unwind/unwind.h"
#include "sampler/budget.h"

#define RING_PAGES	64		/* data pages per CPU: 256 KiB */
#define STACK_RING_PAGES 2048		/* with stack copies: 8 MiB, at most */
#define STACK_RING_TOTAL 8192		/* pages, all CPUs' rings together */

int
perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 3;

	if (f != NULL) {
		if (fscanf(f, "%d", &level) != 1)
			level = 3;
		fclose(f);
	}
	return level;
}

/*
 * Data pages of each CPU's ring: with stack copies 8 MiB at most, the
 * size measured in bench/README.md, "The perf engine's rings".
 *
 * Without CAP_IPC_LOCK, what may be locked is perf_event_mlock_kb a CPU
 * and RLIMIT_MEMLOCK besides (the kernel's perf_mmap); a ring is its
 * data pages and one more.  A power of 2.
 */
static unsigned
ring_pages(int ncpus, unsigned stack_size)
{
	unsigned want = RING_PAGES, most;
	struct rlimit rl;
	FILE *f;
	int kb;

	if (!stack_size)
		return RING_PAGES;
	if (ncpus < 1)
		ncpus = 1;
	most = STACK_RING_TOTAL / (unsigned)ncpus;
	if (most > STACK_RING_PAGES)
		most = STACK_RING_PAGES;
	if (geteuid() != 0 &&
	    (f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re")) != NULL) {
		if (fscanf(f, "%d", &kb) == 1 && kb >= 8) {
			uint64_t total = (uint64_t)(kb / 4) * (unsigned)ncpus;

			if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0)
				total += rl.rlim_cur == RLIM_INFINITY ?
				    (uint64_t)most * (unsigned)ncpus :
				    rl.rlim_cur / 4096;
			if (total / (unsigned)ncpus - 1 < most)
				most = (unsigned)(total / (unsigned)ncpus - 1);
		}
		fclose(f);
	}
	while (want * 2 <= most)
		want *= 2;
	return want;
}

/*
 * The events' attributes.  With stack_size, every sample also carries
 * the user registers and the top stack_size bytes of the user stack for
 * our unwinder, and, where the kernel is sampled, the kernel's own call
 * chain (its user part is ours to unwind, not the frame-pointer walk).
 */
static void
set_attr(struct perf_event_attr *a, uint64_t period_ns, int exclude_kernel,
    int build_id, int on_exec, unsigned stack_size, unsigned pages)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = period_ns;
	/* PERIOD: the interval a sample stands for, its weight */
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_PERIOD;
	if (stack_size) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = ARCH_PERF_REGS_MASK;
		a->sample_stack_user = stack_size;
		if (!exclude_kernel) {
			a->sample_type |= PERF_SAMPLE_CALLCHAIN;
			a->exclude_callchain_user = 1;
			/* perf_event_max_stack, 127 by default, is the most */
			a->sample_max_stack = UNWIND_MAX_DEPTH - 1;
		}
	}
	a->disabled = (unsigned)on_exec;	/* else: counting from now on */
	a->inherit = 1;
	a->enable_on_exec = (unsigned)on_exec;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	a->exclude_hv = 1;
	a->exclude_kernel = (unsigned)exclude_kernel;
	a->build_id = (unsigned)build_id;
	a->watermark = 1;
	a->wakeup_watermark = pages * 4096 / 16;
}

static int
perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
}

int
record_perf_check(char *const *argv, char *why, size_t why_size)
{
	struct perf_event_attr a;
	int fd;

	(void)argv;		/* any program: the events are the question */
	set_attr(&a, 1000000, 1, 0, 1, 0, RING_PAGES);
	a.enable_on_exec = 0;
	fd = perf_open(&a, 0, -1);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	snprintf(why, why_size, "perf events refused (%s; "
	    "/proc/sys/kernel/perf_event_paranoid is %d)", strerror(errno),
	    perf_paranoid());
	return -1;
}

/* Online CPUs, from /sys; all configured ones if that cannot be read. */
static int
online_cpus(int *cpus, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int n = 0, a, b;
	char sep;

	if (f != NULL) {
		while (n < max && fscanf(f, "%d", &a) == 1) {
			b = a;
			if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
				if (fscanf(f, "%d", &b) != 1)
					break;
				if (fscanf(f, "%c", &sep) != 1)
					sep = '\n';
			}
			for (; a <= b && n < max; a++)
				cpus[n++] = a;
			if (sep != ',')
				break;
		}
		fclose(f);
	}
	if (n == 0) {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		for (n = 0; n < c && n < max; n++)
			cpus[n] = n;
	}
	return n;
}

static void
unmap_rings(struct engine *e)
{
	for (size_t i = 0; i < e->nextra; i++)
		close(e->extra_fds[i]);
	e->nextra = 0;
	/* a budget's sampling sets (with one set, its fds are the rings') */
	for (size_t i = 0; i < e->nset_fds; i++) {
		if (e->nsets > 1 && e->set_fds[i] >= 0)
			close(e->set_fds[i]);
		e->set_fds[i] = -1;
	}
	for (int r = 0; r < e->nrings; r++) {
		if (e->rings[r].meta != NULL)
			munmap(e->rings[r].meta, e->rings[r].size + 4096);
		if (e->rings[r].fd >= 0)
			close(e->rings[r].fd);
		e->rings[r].meta = NULL;
		e->rings[r].fd = -1;
	}
	e->nrings = 0;
}

void
perf_events_close(struct engine *e)
{
	unmap_rings(e);
	free(e->extra_fds);
	e->extra_fds = NULL;
	free(e->set_fds);
	e->set_fds = NULL;
	e->nset_fds = 0;
	free(e->rings);
	e->rings = NULL;
}

/*
 * The attributes of the events: a, the ring's owner on each CPU (under a
 * budget, a dummy event with every side-band record and no samples),
 * and set, the sampling sets' under a budget.
 */
static void
events_attrs(const struct engine *e, struct perf_event_attr *a,
    struct perf_event_attr *set, int exclude_kernel, int build_id,
    int on_exec, unsigned pages)
{
	set_attr(a, e->opts->period_ns, exclude_kernel, build_id, on_exec,
	    e->opts->stack_size, pages);
	if (e->opts->wall || exclude_kernel) {
		/*
		 * --wall, and the kernel's time where it is not sampled
		 * (kernel-time.h): the times of switches, compared with the
		 * looks' and the end's (CLOCK_MONOTONIC), one switch record
		 * per switch from the event that owns its CPU's ring (or
		 * follows it, attached).
		 */
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
		a->context_switch = 1;
	}
	*set = *a;
	set->context_switch = 0;
	if (e->nsets > 1) {
		/* the ring's owner: no samples, every side-band record */
		a->config = PERF_COUNT_SW_DUMMY;
		a->sample_period = 0;
		set->mmap = set->mmap2 = set->comm = set->comm_exec = 0;
		set->task = 0;
		set->build_id = 0;
	}
}

/*
 * Under a budget: CPU c's (the c-th of ncpus, cpu) sampling sets on tid,
 * writing into the ring of fd, set 0 enabled at exec (on_exec) or now.
 * 0, or -1 with a cause, the events closed.
 */
static int
open_sets(struct engine *e, struct perf_event_attr *set, pid_t tid, int cpu,
    int c, int ncpus, int fd, int on_exec, char *cause, size_t cause_size)
{
	for (int k = 0; k < e->nsets; k++) {
		int *sfd = &e->set_fds[k * ncpus + c];

		set->sample_period = e->opts->period_ns << k;
		set->disabled = k > 0 || (unsigned)on_exec;
		set->enable_on_exec = k == 0 && on_exec;
		*sfd = perf_open(set, tid, cpu);
		if (*sfd < 0 || ioctl(*sfd, PERF_EVENT_IOC_SET_OUTPUT, fd) < 0) {
			snprintf(cause, cause_size, "perf_event_open on CPU %d "
			    "(sampling every %llu ns): %s", cpu,
			    (unsigned long long)set->sample_period,
			    strerror(errno));
			perf_events_close(e);
			return -1;
		}
	}
	return 0;
}

/* The other threads' events on cpu, writing into the ring of fd. */
static void
open_threads(struct engine *e, struct perf_event_attr *a,
    const pid_t *tids, size_t ntids, int cpu, int fd)
{
	for (size_t t = 1; t < ntids; t++) {
		int more = perf_open(a, tids[t], cpu);

		if (more < 0)
			continue;	/* the thread has exited meanwhile */
		if (ioctl(more, PERF_EVENT_IOC_SET_OUTPUT, fd) < 0) {
			close(more);
			continue;
		}
		e->extra_fds[e->nextra++] = more;
	}
}

/*
 * One event per CPU on each of tids, kernel samples if allowed.  The
 * first event of a CPU owns its ring buffer; the others write into it
 * (PERF_EVENT_IOC_SET_OUTPUT).  on_exec: enabled when the task execs.
 * With a budget (one tid), the owner is a dummy event for the side-band
 * records and the sampling sets follow it, set 0 enabled at exec.
 */
int
perf_events_open(struct engine *e, const pid_t *tids, size_t ntids,
    int on_exec, char *cause, size_t cause_size)
{
	static int cpus[4096];
	int ncpus = online_cpus(cpus, 4096), c;
	int exclude_kernel = 0, build_id = 1;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned pages = ring_pages(ncpus, e->opts->stack_size);
	struct perf_event_attr a, set;

	e->nsets = e->opts->samples && ntids == 1 ?
	    (int)budget_max_shift(e->opts->period_ns) + 1 : 1;
	e->set = 0;
	e->rings = xcalloc((size_t)ncpus, sizeof *e->rings);
	e->extra_fds = xcalloc(ntids * (size_t)ncpus, sizeof *e->extra_fds);
	e->nset_fds = (size_t)e->nsets * (size_t)ncpus;
	e->set_fds = xcalloc(e->nset_fds, sizeof *e->set_fds);
	for (size_t i = 0; i < e->nset_fds; i++)
		e->set_fds[i] = -1;
retry:
	events_attrs(e, &a, &set, exclude_kernel, build_id, on_exec, pages);
	for (c = 0; c < ncpus; c++) {
		struct ring *ring = &e->rings[c];
		int fd = perf_open(&a, tids[0], cpus[c]);

		if (fd < 0 && c == 0 && errno == EINVAL && build_id) {
			build_id = 0;	/* kernels before 5.12 */
			goto retry;
		}
		if (fd < 0 && c == 0 && (errno == EACCES || errno == EPERM) &&
		    !exclude_kernel) {
			exclude_kernel = 1;
			goto retry;
		}
		if (fd < 0) {
			snprintf(cause, cause_size, "perf_event_open on CPU "
			    "%d: %s", cpus[c], strerror(errno));
			perf_events_close(e);
			return -1;
		}
		ring->fd = fd;
		ring->size = pages * page;
		ring->meta = mmap(NULL, ring->size + page, PROT_READ | PROT_WRITE,
		    MAP_SHARED, fd, 0);
		e->nrings = c + 1;
		if (ring->meta == MAP_FAILED) {
			ring->meta = NULL;
			/* more than may be locked after all: smaller rings */
			if (errno == EPERM && pages > RING_PAGES) {
				unmap_rings(e);
				pages /= 2;
				goto retry;
			}
			snprintf(cause, cause_size, "mmap of the perf ring "
			    "buffer: %s", strerror(errno));
			perf_events_close(e);
			return -1;
		}
		ring->data = (uint8_t *)ring->meta + page;
		if (e->nsets == 1)
			e->set_fds[c] = fd;
		else if (open_sets(e, &set, tids[0], cpus[c], c, ncpus, fd,
		    on_exec, cause, cause_size) < 0)
			return -1;
		open_threads(e, &a, tids, ntids, cpus[c], fd);
	}
	e->result->kernel_sampled = !exclude_kernel;
	return 0;
}

/*
 * Under a budget, after each drain: once the samples taken say the
 * period should have doubled (budget.h), disable the set sampling now
 * and enable the one at the new period, in every task that inherited
 * them.  The time each task had run since its last sample is lost at
 * the switch (the new set starts a whole period); no sample is counted
 * twice.
 */
void
perf_events_budget_step(struct engine *e)
{
	unsigned want;

	if (e->nsets <= 1)
		return;
	want = budget_shift(e->opts->samples, e->opts->period_ns, e->taken);
	if (want >= (unsigned)e->nsets)
		want = (unsigned)e->nsets - 1;
	if ((int)want <= e->set)
		return;
	for (int c = 0; c < e->nrings; c++)
		ioctl(e->set_fds[e->set * e->nrings + c], PERF_EVENT_IOC_DISABLE, 0);
	for (int c = 0; c < e->nrings; c++)
		ioctl(e->set_fds[(int)want * e->nrings + c], PERF_EVENT_IOC_ENABLE, 0);
	e->set = (int)want;
}

/*
 * How long to wait for samples: under a budget that is still slowing
 * down, about an eighth of a stage at the rate now (the switch should
 * come near its N/8), else 200 ms.
 */
int
perf_events_poll_ms(const struct engine *e)
{
	uint64_t ms;

	if (e->nsets <= 1 || e->set == e->nsets - 1)
		return 200;
	ms = (e->opts->period_ns << e->set) / 1000000 *
	    budget_stage_samples(e->opts->samples) / 8;
	return ms < 5 ? 5 : ms > 200 ? 200 : (int)ms;
}
