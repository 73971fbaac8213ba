/*
 * perf.c - the perf engine: per-CPU task-clock sampling events on
 * the program with inherit (threads and children follow), enabled at
 * exec, each with a ring buffer the recorder drains as it fills.  Side-band
 * records (MMAP2, COMM, FORK, EXIT, LOST) keep a map of every process's
 * executable mappings, so each sample is folded into its object's
 * histogram as it arrives; nothing per sample is kept.
 *
 * Invariant: records are applied in time order within a drain (mappings
 * before the samples that need them, across CPUs).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "cli.h"
#include "hmap.h"
#include "symbols/kernel.h"
#include "procmaps.h"
#include "record.h"
#include "unwind.h"

#define RING_PAGES	64		/* data pages per CPU: 256 KiB */
#define STACK_RING_PAGES 2048		/* with stack copies: 8 MiB, at most */
#define STACK_RING_TOTAL 8192		/* pages, all CPUs' rings together */
/*
 * User registers for the unwinder: AX..IP (perf's 0-8) and R8..R15
 * (16-23), in that order in a sample; from_sample[i] is where DWARF
 * register i (rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip) is among them.
 */
#define REGS_MASK	(0x1ffull | 0xffull << 16)
static const int from_sample[UNWIND_NREGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 9, 10,
	11, 12, 13, 14, 15, 16, 8 };
#define MAX_FRAMES	(2 * UNWIND_MAX_DEPTH + 2)	/* kernel + user + cut */
#define MISC_MMAP_BUILD_ID (1 << 14)	/* PERF_RECORD_MISC_MMAP_BUILD_ID */

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;			/* data area bytes, a power of 2 */
};

struct map {
	uint64_t start, end, pgoff;
	int obj;			/* builder object, -1: unknown code */
};

struct proc {
	pid_t pid;
	struct map *maps;
	size_t n, cap;
	struct unwind_space *uw;	/* with call stacks; its own memory */
	uint64_t exited;		/* the time of its exit record, or 0 */
};

struct pending {			/* one record of a drain */
	uint64_t time, seq;
	const uint8_t *rec;		/* in its ring, or NULL: in the batch */
	size_t at;			/* offset in the batch buffer */
	uint64_t end;			/* its ring's tail once it is applied */
	int ring;
};

struct engine {
	const struct record_opts *opts;
	struct record_result *result;
	struct builder *b;
	struct ring *rings;
	int nrings;
	int *extra_fds;			/* more events writing into the rings */
	size_t nextra;
	struct proc *procs;
	size_t nprocs;
	struct hmap proc_index;		/* pid -> index + 1 */
	uint8_t *batch;
	size_t batch_len, batch_cap;
	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t seq;
	uint64_t latest;		/* the latest record time drained */
	uint64_t throttled;		/* PERF_RECORD_THROTTLE seen */
	int behind;			/* a ring was over half full: catch up */
	/*
	 * Sampling events: nsets sets of one per CPU (set_fds[k * nrings +
	 * c]), set k sampling every period_ns << k.  A fixed rate has one,
	 * which owns its CPU's ring.  A budget (--samples) has a set per
	 * period it may come to, all inherited by every task from the
	 * start, and one enabled at a time: enabling and disabling reach
	 * every inherited copy, in every thread and child, which changing
	 * a period does not (PERF_EVENT_IOC_PERIOD changes the event the
	 * recorder holds, not its copies; and hrtimer events go on
	 * reporting the period they were opened with).  Its rings are
	 * owned by a dummy event that carries the side-band records, so
	 * that none is lost between two sets.
	 */
	int nsets, set;
	int *set_fds;
	size_t nset_fds;
	uint64_t taken, weight_sq;	/* samples, and their weights squared */
};

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
 * The events' attributes.  With stack_size, every sample also carries
 * the user registers and the top stack_size bytes of the user stack for
 * our unwinder, and, where the kernel is sampled, the kernel's own call
 * chain (its user part is ours to unwind, not the frame-pointer walk).
 */
/*
 * Data pages of each CPU's ring.  With stack copies a sample takes some
 * 16 KiB and a burst of them must not fill the ring before the recorder
 * gets a CPU (the kernel would drop them, and with them the flat
 * profile's samples): 8 MiB a CPU holds half a second of them at 1 kHz, and
 * from half full the recorder stops unwinding to catch up
 * (rings_behind).  Not more: the kernel allocates and zeroes the pages
 * when they are mapped, and frees them at the end, in a short program's
 * way (16 MiB rings cost 5 ms of wall here, 8 MiB 2.5); not less: 2 MiB
 * lost a third of the samples of a program of busy threads on a loaded
 * machine (tests/test-adversary.c busy), the recorder's turn coming too
 * late, and at 1 kHz a quarter of them under AddressSanitizer, its
 * recorder slow to start.  The price: the first read of a ring page
 * costs the recorder 1.3-1.9 µs in this VM (the hypervisor fills in the
 * mapping; the guest counts no fault), 5-8 ms for two 8 MiB rings.
 * Rings that start small and grow (the events moved to a bigger one)
 * lost samples of busy threads all the same: each move waits for an
 * RCU grace period, and the recorder then waits for its turn (README).
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
		a->sample_regs_user = REGS_MASK;
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
record_perf_check(char *why, size_t why_size)
{
	struct perf_event_attr a;
	int fd;

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

/* ---- processes and their mappings ---------------------------------------- */

static struct proc *
proc_of(struct engine *e, pid_t pid)
{
	uint64_t i = hmap_get(&e->proc_index, (uint64_t)pid);

	if (i == 0) {
		e->procs = xrealloc(e->procs, (e->nprocs + 1) * sizeof *e->procs);
		e->procs[e->nprocs] = (struct proc){ pid, NULL, 0, 0,
		    e->opts->stack_size ? unwind_space_new(pid) : NULL, 0 };
		hmap_add(&e->proc_index, (uint64_t)pid, ++e->nprocs);
		i = e->nprocs;
	}
	return &e->procs[i - 1];
}

static void
insert_map(struct proc *p, struct map m)
{
	size_t i, k = 0;
	struct map *out;

	/* a new mapping replaces whatever it overlaps (munmap is not reported) */
	out = xmalloc((p->n + 3) * sizeof *out);
	for (i = 0; i < p->n; i++) {
		struct map old = p->maps[i];

		if (old.end <= m.start || old.start >= m.end) {
			out[k++] = old;
			continue;
		}
		if (old.start < m.start) {
			struct map left = old;
			left.end = m.start;
			out[k++] = left;
		}
		if (old.end > m.end) {
			struct map right = old;
			right.pgoff += m.end - old.start;
			right.start = m.end;
			out[k++] = right;
		}
	}
	/* keep it sorted: insert m in place */
	for (i = 0; i < k && out[i].start < m.start; i++)
		;
	memmove(&out[i + 1], &out[i], (k - i) * sizeof *out);
	out[i] = m;
	free(p->maps);
	p->maps = out;
	p->n = k + 1;
	p->cap = k + 3;
}

/* A new executable mapping of p, for the flat profile and the unwinder. */
static void
add_map(struct proc *p, struct map m, const char *name)
{
	insert_map(p, m);
	if (p->uw != NULL)
		unwind_space_map(p->uw, m.start, m.end, m.pgoff, name, m.obj);
}

static const struct map *
find_map(const struct proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < p->maps[mid].start)
			hi = mid;
		else if (ip >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/* ---- records ------------------------------------------------------------- */

struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

/* The sample_id_all trailer: TID and TIME, the last 16 bytes. */
static struct sample_id
trailer(const uint8_t *rec, size_t size)
{
	struct sample_id id = { 0, 0, 0 };

	if (size >= sizeof(struct perf_event_header) + 16)
		memcpy(&id, rec + size - 16, 16);
	return id;
}

static uint64_t
record_time(const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;

	if (h->type == PERF_RECORD_SAMPLE) {
		uint64_t t = 0;

		if (size >= sizeof *h + 24)
			memcpy(&t, rec + sizeof *h + 16, 8);
		return t;
	}
	return trailer(rec, size).time;
}

/* A sample's fields past IP, TID and TIME, as set_attr asks for them. */
struct sample_extra {
	const uint64_t *chain;		/* kernel call chain, markers in it */
	uint64_t nchain;
	int has_regs;			/* user registers (not a kernel thread) */
	uint64_t regs[UNWIND_NREGS];	/* DWARF order */
	const uint8_t *stack;		/* the copy of the user stack */
	uint64_t stack_size;
};

/* Read the optional fields of a sample record; -1 if it is malformed. */
static int
sample_extra(const struct engine *e, const uint8_t *rec, size_t size,
    struct sample_extra *x)
{
	size_t at = sizeof(struct perf_event_header) + 32;
	uint64_t v;

	memset(x, 0, sizeof *x);
	if (!e->opts->stack_size)
		return 0;
	if (e->result->kernel_sampled) {
		if (size - at < 8)
			return -1;
		memcpy(&x->nchain, rec + at, 8);
		at += 8;
		if (x->nchain > (size - at) / 8)
			return -1;
		x->chain = (const uint64_t *)(rec + at);
		at += x->nchain * 8;
	}
	if (size - at < 8)
		return -1;
	memcpy(&v, rec + at, 8);	/* abi: 0 when there are no registers */
	at += 8;
	if (v != PERF_SAMPLE_REGS_ABI_NONE) {
		uint64_t raw[UNWIND_NREGS];

		if (size - at < sizeof raw)
			return -1;
		memcpy(raw, rec + at, sizeof raw);
		at += sizeof raw;
		for (int i = 0; i < UNWIND_NREGS; i++)
			x->regs[i] = raw[from_sample[i]];
		x->has_regs = 1;
	}
	if (size - at < 8)
		return -1;
	memcpy(&v, rec + at, 8);	/* the size asked; 0: none copied */
	at += 8;
	if (v > 0) {
		uint64_t dyn;

		if (v > size - at || size - at - v < 8)
			return -1;
		x->stack = rec + at;
		memcpy(&dyn, rec + at + v, 8);	/* what was copied */
		x->stack_size = dyn < v ? dyn : v;
	}
	return 0;
}

/*
 * A sample with its stack: kernel frames from the kernel's call chain,
 * then the user stack unwound from the registers and stack copy.
 */
static void
sample_with_stack(struct engine *e, struct proc *p, const uint8_t *rec,
    size_t size, uint64_t ip, int kernel_mode, pid_t pid, pid_t tid,
    uint64_t weight)
{
	struct bframe frames[MAX_FRAMES];
	struct sample_extra x;
	size_t n = 0;

	if (sample_extra(e, rec, size, &x) < 0) {
		x.has_regs = 0;
		x.nchain = 0;
	}
	if (kernel_mode) {
		/* the chain: markers (PERF_CONTEXT_*) and addresses, leaf first */
		for (uint64_t i = 0; i < x.nchain && n < UNWIND_MAX_DEPTH; i++) {
			uint64_t a = x.chain[i];

			if (a >= (uint64_t)PERF_CONTEXT_MAX)
				continue;
			/*
			 * callers' addresses are returns: the call is before.
			 * (n is read before the store, in a statement of its
			 * own: "frames[n++] = ... n == 0 ..." read it after
			 * the increment, and named every leaf at a function's
			 * first byte after the padding before it, __pfx_*.)
			 */
			frames[n] = (struct bframe){ BFRAME_KERNEL,
			    n == 0 ? a : a - 1 };
			n++;
		}
		if (n == 0)
			frames[n++] = (struct bframe){ BFRAME_KERNEL, ip };
	}
	if (x.has_regs && p->uw != NULL && e->behind) {
		/* unwinding less, so as to lose no sample: say where */
		unwind_locate(p->uw, x.regs[16], &frames[n++]);
		frames[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_BEHIND };
	} else if (x.has_regs && p->uw != NULL) {
		/* at most UNWIND_MAX_DEPTH user frames, then a cut */
		n = unwind_stack(p->uw, tid, x.regs, x.regs[7], x.stack,
		    x.stack_size, frames, n, n + UNWIND_MAX_DEPTH + 1);
		/*
		 * Past the copy, where the kernel copied less than asked: it
		 * stopped at a page it could not read at the sample (a page
		 * of a big local array the program never touched); a larger
		 * --stack-size would not help, and the views say which.
		 */
		if (n > 0 && frames[n - 1].obj == BFRAME_CUT &&
		    frames[n - 1].value == PROFIL_CUT_STACK &&
		    x.stack_size < e->opts->stack_size)
			frames[n - 1].value = PROFIL_CUT_UNREAD;
	} else if (!kernel_mode || e->result->pid == pid || p->n > 0) {
		/* a process of ours without its registers: say so */
		if (n == 0)
			frames[n++] = p->uw ? (unwind_locate(p->uw, ip, &frames[0]),
			    frames[0]) : (struct bframe){ BFRAME_UNKNOWN, ip };
		frames[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN };
	}
	builder_sample_stack(e->b, frames, n, weight, pid, tid);
}

/*
 * A sample's weight: the period it carries in the base period's units
 * (a power of two under a budget, else 1), and its part in the weights
 * record.  Each set's events never change their period, so the period
 * a sample reports is the one it was taken at.
 */
static uint64_t
weigh(struct engine *e, uint64_t period)
{
	uint64_t base = e->opts->period_ns;
	uint64_t w = base > 0 && period > base ? period / base : 1;

	e->taken++;
	e->weight_sq = w > UINT32_MAX || e->weight_sq > UINT64_MAX - w * w ?
	    UINT64_MAX : e->weight_sq + w * w;
	return w;
}

static void
on_sample(struct engine *e, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t ip;
	uint32_t pid, tid;
	unsigned mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const struct map *m;
	struct proc *p;
	uint64_t period, w;

	if (size < sizeof *h + 32)
		return;
	memcpy(&ip, rec + sizeof *h, 8);
	memcpy(&pid, rec + sizeof *h + 8, 4);
	memcpy(&tid, rec + sizeof *h + 12, 4);
	memcpy(&period, rec + sizeof *h + 24, 8);
	if (!e->opts->follow_children && (pid_t)pid != e->result->pid)
		return;
	w = weigh(e, period);
	p = proc_of(e, (pid_t)pid);
	if (e->opts->stack_size) {
		sample_with_stack(e, p, rec, size, ip,
		    mode == PERF_RECORD_MISC_KERNEL, (pid_t)pid, (pid_t)tid, w);
		return;
	}
	if (mode == PERF_RECORD_MISC_KERNEL) {
		builder_kernel(e->b, ip, w, (pid_t)pid, (pid_t)tid);
		return;
	}
	m = mode == PERF_RECORD_MISC_USER ? find_map(p, ip) : NULL;
	if (m == NULL || m->obj < 0)
		builder_unknown(e->b, w, (pid_t)pid, (pid_t)tid);
	else
		builder_sample(e->b, m->obj, ip - m->start + m->pgoff, w,
		    (pid_t)pid, (pid_t)tid);
}

static void
on_mmap2(struct engine *e, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	const size_t fixed = sizeof *h + 8 + 24 + 24 + 8;
	uint32_t pid, prot;
	uint64_t addr, len, pgoff;
	const char *name;
	size_t name_max;
	struct map m;
	struct proc *p;

	if (size < fixed + 1 + 16)
		return;
	memcpy(&pid, rec + sizeof *h, 4);
	memcpy(&addr, rec + sizeof *h + 8, 8);
	memcpy(&len, rec + sizeof *h + 16, 8);
	memcpy(&pgoff, rec + sizeof *h + 24, 8);
	memcpy(&prot, rec + sizeof *h + 56, 4);
	name = (const char *)rec + fixed;
	name_max = size - fixed - 16;
	if (memchr(name, '\0', name_max) == NULL || len == 0 ||
	    addr + len < addr || !(prot & 4 /* PROT_EXEC */))
		return;
	m.start = addr;
	m.end = addr + len;
	m.pgoff = pgoff;
	m.obj = -1;
	if (name[0] == '/' || strcmp(name, "[vdso]") == 0) {
		const uint8_t *bid = NULL;
		unsigned bid_len = 0;

		if (h->misc & MISC_MMAP_BUILD_ID) {
			bid_len = rec[sizeof *h + 32];
			bid = rec + sizeof *h + 36;
			if (bid_len > 20)
				bid_len = 0;
		}
		if (procmaps_is_object(name))
			m.obj = builder_object(e->b, name, bid, bid_len);
	}
	p = proc_of(e, (pid_t)pid);
	add_map(p, m, name);
}

static void
on_comm(struct engine *e, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	uint32_t pid, tid;
	char comm[17];

	if (size < sizeof *h + 8 + 16)
		return;
	memcpy(&pid, rec + sizeof *h, 4);
	memcpy(&tid, rec + sizeof *h + 4, 4);
	memcpy(comm, rec + sizeof *h + 8, 16);
	comm[16] = '\0';
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		struct proc *p = proc_of(e, (pid_t)pid);

		p->n = 0;	/* a new image: a new address space */
		if (p->uw != NULL)
			unwind_space_reset(p->uw);
	}
	builder_comm(e->b, (pid_t)pid, (pid_t)tid, comm);
}

static void
on_fork(struct engine *e, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	uint32_t ids[4];	/* pid, ppid, tid, ptid */
	struct proc *parent, *child;

	if (size < sizeof *h + 16)
		return;
	memcpy(ids, rec + sizeof *h, 16);
	if (ids[0] == ids[1])
		return;		/* a new thread: same address space */
	builder_fork(e->b, (pid_t)ids[0], (pid_t)ids[1]);
	child = proc_of(e, (pid_t)ids[0]);
	parent = proc_of(e, (pid_t)ids[1]);	/* may move child: look again */
	child = proc_of(e, (pid_t)ids[0]);
	free(child->maps);
	child->maps = xmalloc((parent->n ? parent->n : 1) * sizeof *child->maps);
	memcpy(child->maps, parent->maps, parent->n * sizeof *child->maps);
	child->n = child->cap = parent->n;
	child->exited = 0;	/* a pid used again */
	if (parent->uw != NULL) {
		unwind_space_free(child->uw);
		child->uw = unwind_space_fork(parent->uw, (pid_t)ids[0]);
	}
}

/* A process ended: its unwinder's files and memory can go. */
static void
on_exit_record(struct engine *e, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	uint32_t ids[4];	/* pid, ppid, tid, ptid */
	uint64_t at;

	if (size < sizeof *h + 16)
		return;
	memcpy(ids, rec + sizeof *h, 16);
	if (ids[0] != ids[2] ||
	    (at = hmap_get(&e->proc_index, (uint64_t)ids[0])) == 0)
		return;		/* a thread, or a process we never saw */
	/* freed a second of samples later (free_exited): see there */
	e->procs[at - 1].exited = record_time(rec, size) | 1;
}

/*
 * The unwinders of processes that exited over a second (of sample time)
 * ago (the rest go at the end).  Not at the exit record itself: a
 * loaded machine's rings hand over samples out of order by hundreds of
 * milliseconds (a sanitized recorder saw 268 samples of 300 ms before a
 * process's exit drained after it), and those still want unwinding.
 */
static void
free_exited(struct engine *e)
{
	for (size_t i = 0; i < e->nprocs; i++) {
		struct proc *p = &e->procs[i];

		if (p->uw != NULL && p->exited &&
		    p->exited + 1000000000u < e->latest) {
			unwind_space_free(p->uw);
			p->uw = NULL;
		}
	}
}

static void
apply(struct engine *e, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(e, rec, size);
		break;
	case PERF_RECORD_MMAP2:
		on_mmap2(e, rec, size);
		break;
	case PERF_RECORD_COMM:
		on_comm(e, rec, size);
		break;
	case PERF_RECORD_FORK:
		on_fork(e, rec, size);
		break;
	case PERF_RECORD_EXIT:
		on_exit_record(e, rec, size);
		break;
	case PERF_RECORD_LOST: {
		uint64_t lost;

		if (size >= sizeof *h + 16) {
			memcpy(&lost, rec + sizeof *h + 8, 8);
			builder_lost(e->b, lost);
		}
		break;
	}
	case PERF_RECORD_THROTTLE:
		e->throttled++;	/* periods went unsampled: say so at the end */
		break;
	default:
		break;		/* UNTHROTTLE, ...: nothing to count */
	}
}

static int
by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Whether a ring is over half full: the recorder is losing the race (its
 * CPUs shared with many busy threads).  A full ring would drop samples,
 * flat profile and all; the stacks of what is drained then are not
 * unwound instead, so that it catches up ("recorder behind").
 */
static int
rings_behind(const struct engine *e)
{
	for (int r = 0; r < e->nrings; r++) {
		const struct ring *ring = &e->rings[r];
		uint64_t head = __atomic_load_n(&ring->meta->data_head,
		    __ATOMIC_ACQUIRE);

		if (head - ring->meta->data_tail > ring->size / 2)
			return 1;
	}
	return 0;
}

/* n bytes of ring from offset off, across its end if they wrap. */
static void
ring_copy(const struct ring *ring, size_t off, void *dst, size_t n)
{
	size_t first = ring->size - off < n ? ring->size - off : n;

	memcpy(dst, ring->data + off, first);
	memcpy((uint8_t *)dst + first, ring->data, n - first);
}

/*
 * Apply every complete record of every ring in time order.  Records are
 * read where the kernel wrote them: a sample with its stack is some 16
 * KiB, and copying it out was the recorder's largest cost (30% of its
 * CPU with stacks).  Only a record that wraps around its ring's end is
 * copied, to be contiguous.  A ring's tail moves past each record once it
 * is applied, so the kernel has the space back as soon as it can.  Times
 * are taken as never decreasing within a ring, so that the sort keeps
 * each ring's own order and its tail only ever moves past applied
 * records.
 */
static void
drain(struct engine *e)
{
	size_t i;
	int r;

	e->batch_len = 0;
	e->npend = 0;
	e->behind = rings_behind(e);
	for (r = 0; r < e->nrings; r++) {
		struct ring *ring = &e->rings[r];
		uint64_t head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = ring->meta->data_tail;
		uint64_t last = 0;

		while (tail + sizeof(struct perf_event_header) <= head) {
			struct perf_event_header h;
			size_t off = (size_t)(tail & (ring->size - 1));
			struct pending *p;

			ring_copy(ring, off, &h, sizeof h);
			if (h.size < sizeof h || tail + h.size > head)
				break;
			if (e->npend == e->pend_cap) {
				e->pend_cap = e->pend_cap ? e->pend_cap * 2 : 1024;
				e->pend = xrealloc(e->pend, e->pend_cap * sizeof *e->pend);
			}
			p = &e->pend[e->npend++];
			*p = (struct pending){ 0, e->seq++, NULL, 0, tail + h.size, r };
			if (off + h.size <= ring->size) {
				p->rec = ring->data + off;
			} else {
				if (e->batch_cap - e->batch_len < h.size) {
					e->batch_cap = (e->batch_cap + h.size) * 2;
					e->batch = xrealloc(e->batch, e->batch_cap);
				}
				p->at = e->batch_len;
				ring_copy(ring, off, e->batch + p->at, h.size);
				e->batch_len += h.size;
			}
			p->time = record_time(p->rec ? p->rec : e->batch + p->at,
			    h.size);
			if (p->time < last)
				p->time = last;
			last = p->time;
			tail += h.size;
		}
	}
	if (e->npend > 1)
		qsort(e->pend, e->npend, sizeof *e->pend, by_time);
	if (e->npend > 0 && e->pend[e->npend - 1].time > e->latest)
		e->latest = e->pend[e->npend - 1].time;
	for (i = 0; i < e->npend; i++) {
		const struct pending *p = &e->pend[i];
		const uint8_t *rec = p->rec ? p->rec : e->batch + p->at;

		/* a long batch: are the rings filling up meanwhile? */
		if (i % 64 == 63 && !e->behind)
			e->behind = rings_behind(e);
		apply(e, rec, ((const struct perf_event_header *)rec)->size);
		__atomic_store_n(&e->rings[p->ring].meta->data_tail, p->end,
		    __ATOMIC_RELEASE);
	}
	free_exited(e);
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

static void
close_rings(struct engine *e)
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
 * One event per CPU on each of tids, kernel samples if allowed.  The
 * first event of a CPU owns its ring buffer; the others write into it
 * (PERF_EVENT_IOC_SET_OUTPUT).  on_exec: enabled when the task execs.
 * With a budget (one tid), the owner is a dummy event for the side-band
 * records and the sampling sets follow it, set 0 enabled at exec.
 */
static int
open_rings(struct engine *e, const pid_t *tids, size_t ntids, int on_exec)
{
	static int cpus[4096];
	int ncpus = online_cpus(cpus, 4096), c, k;
	int exclude_kernel = 0, build_id = 1;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), t;
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
	set_attr(&a, e->opts->period_ns, exclude_kernel, build_id, on_exec,
	    e->opts->stack_size, pages);
	set = a;
	if (e->nsets > 1) {
		/* the ring's owner: no samples, every side-band record */
		a.config = PERF_COUNT_SW_DUMMY;
		a.sample_period = 0;
		set.mmap = set.mmap2 = set.comm = set.comm_exec = set.task = 0;
		set.build_id = 0;
	}
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
			cli_error("perf_event_open on CPU %d: %s", cpus[c],
			    strerror(errno));
			close_rings(e);
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
			cli_error("mmap of the perf ring buffer: %s", strerror(errno));
			close_rings(e);
			return -1;
		}
		ring->data = (uint8_t *)ring->meta + page;
		if (e->nsets == 1)
			e->set_fds[c] = fd;
		for (k = 0; e->nsets > 1 && k < e->nsets; k++) {
			int *sfd = &e->set_fds[k * ncpus + c];

			set.sample_period = e->opts->period_ns << k;
			set.disabled = k > 0 || (unsigned)on_exec;
			set.enable_on_exec = k == 0 && on_exec;
			*sfd = perf_open(&set, tids[0], cpus[c]);
			if (*sfd < 0 ||
			    ioctl(*sfd, PERF_EVENT_IOC_SET_OUTPUT, fd) < 0) {
				cli_error("perf_event_open on CPU %d (sampling "
				    "every %llu ns): %s", cpus[c],
				    (unsigned long long)set.sample_period,
				    strerror(errno));
				close_rings(e);
				return -1;
			}
		}
		for (t = 1; t < ntids; t++) {
			int more = perf_open(&a, tids[t], cpus[c]);

			if (more < 0)
				continue;	/* the thread has exited meanwhile */
			if (ioctl(more, PERF_EVENT_IOC_SET_OUTPUT, fd) < 0) {
				close(more);
				continue;
			}
			e->extra_fds[e->nextra++] = more;
		}
	}
	e->result->kernel_sampled = !exclude_kernel;
	return 0;
}

/*
 * Which kernel, where the kernel is sampled: read once the program is on
 * its way (kallsyms, notes and boot id took 1.5 ms of its start here),
 * before any of its samples is named.
 */
static void
identify_kernel(struct engine *e)
{
	struct profil_kernel id;

	if (!e->result->kernel_sampled)
		return;
	memset(&id, 0, sizeof id);
	kernel_identify(&id);
	builder_kernel_identity(e->b, &id);
	free(id.release);
}

/*
 * Under a budget, after each drain: once the samples taken say the
 * period should have doubled (budget.h), disable the set sampling now
 * and enable the one at the new period, in every task that inherited
 * them.  The time each task had run since its last sample is lost at
 * the switch (the new set starts a whole period); no sample is counted
 * twice.
 */
static void
budget_step(struct engine *e)
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
static int
poll_ms(const struct engine *e)
{
	uint64_t ms;

	if (e->nsets <= 1 || e->set == e->nsets - 1)
		return 200;
	ms = (e->opts->period_ns << e->set) / 1000000 *
	    budget_stage_samples(e->opts->samples) / 8;
	return ms < 5 ? 5 : ms > 200 ? 200 : (int)ms;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
free_engine(struct engine *e)
{
	for (size_t k = 0; k < e->nprocs; k++) {
		free(e->procs[k].maps);
		unwind_space_free(e->procs[k].uw);
	}
	free(e->procs);
	free(e->batch);
	free(e->pend);
	hmap_free(&e->proc_index);
}

/* An orphan the program left behind has ended: we reaped it. */
static void
on_reap(void *arg, pid_t pid, int status)
{
	builder_exit_status(arg, pid, status);
}

int
record_perf(const struct record_opts *o, struct record_result *r)
{
	struct engine e;
	struct launch l;
	struct pollfd *pfd;
	uint64_t start;
	int i;

	memset(&e, 0, sizeof e);
	e.opts = o;
	e.result = r;
	e.b = r->builder;
	hmap_init(&e.proc_index);
	if (launch_prepare(&l, o->argv) < 0) {
		cli_error("cannot start %s: %s", o->argv[0], strerror(errno));
		return -1;
	}
	l.on_reap = on_reap;
	l.reap_arg = e.b;
	r->pid = l.pid;
	if (open_rings(&e, &l.pid, 1, 1) < 0) {
		kill(l.pid, SIGKILL);
		waitpid(l.pid, NULL, 0);
		launch_close(&l);
		return -1;
	}
	start = now_ns();
	r->exec_errno = launch_go(&l);
	identify_kernel(&e);
	pfd = xcalloc((size_t)e.nrings + 1, sizeof *pfd);
	for (i = 0; i < e.nrings; i++)
		pfd[i] = (struct pollfd){ e.rings[i].fd, POLLIN, 0 };
	pfd[e.nrings] = (struct pollfd){ l.signal_fd, POLLIN, 0 };
	/* until the program ends; with --wait-all, until all it left ends */
	while (!l.exited || (o->wait_all && !l.stop && launch_descendants(&l))) {
		poll(pfd, (nfds_t)e.nrings + 1, l.exited ? 20 : poll_ms(&e));
		/*
		 * A ring hangs up when the program's task ends; the events
		 * its children inherited still write into it: poll no more
		 * (it would return at once, forever), drain on the timeout.
		 */
		for (i = 0; i < e.nrings; i++)
			if (pfd[i].revents & POLLHUP)
				pfd[i].fd = -1;
		launch_poll(&l);
		drain(&e);
		budget_step(&e);
	}
	r->wall_ns = now_ns() - start;
	drain(&e);		/* what the last moments left in the rings */
	close_rings(&e);
	free(pfd);
	launch_finish(&l, o, r);
	launch_close(&l);
	r->throttled = e.throttled;
	r->taken = e.taken;
	r->weight_sq = e.weight_sq;
	r->slowest_ns = o->period_ns << e.set;
	free_engine(&e);
	return 0;
}

/* ---- attaching to a running process (-p) -------------------------------- */

static pid_t *
list_threads(pid_t pid, size_t *n)
{
	char path[64];
	DIR *dir;
	struct dirent *d;
	pid_t *tids = NULL;
	size_t cap = 0;

	*n = 0;
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (dir == NULL)
		return NULL;
	/* the process's main thread first: it owns the ring buffers */
	tids = xmalloc(16 * sizeof *tids);
	cap = 16;
	tids[(*n)++] = pid;
	while ((d = readdir(dir)) != NULL) {
		long tid = strtol(d->d_name, NULL, 10);

		if (tid <= 0 || tid == pid)
			continue;
		if (*n == cap)
			tids = xrealloc(tids, (cap *= 2) * sizeof *tids);
		tids[(*n)++] = (pid_t)tid;
	}
	closedir(dir);
	return tids;
}

static void
read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f != NULL) {
		if (fgets(buf, (int)size, f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

struct synth {
	struct engine *e;
	struct proc *p;
};

static void
synth_map(const struct procmap *pm, void *arg)
{
	struct synth *sy = arg;
	struct map m = { pm->start, pm->end, pm->offset, -1 };

	if (procmaps_is_object(pm->name))
		m.obj = builder_object(sy->e->b, pm->name, NULL, 0);
	add_map(sy->p, m, pm->name);
}

/* What perf would have told us had we been there from the start. */
static void
synthesize(struct engine *e, pid_t pid, const pid_t *tids, size_t ntids)
{
	char path[64], line[256];
	struct synth sy = { e, proc_of(e, pid) };

	for (size_t i = 0; i < ntids; i++) {
		snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid,
		    (int)tids[i]);
		read_line(path, line, sizeof line);
		builder_comm(e->b, pid, tids[i], line);
	}
	procmaps_each(pid, synth_map, &sy);
}

/* CPU time of a process so far, from /proc/PID/stat; 0 if gone. */
static uint64_t
process_cpu_ns(pid_t pid)
{
	char path[64], buf[1024], *close_paren;
	unsigned long long utime, stime;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	close_paren = strrchr(buf, ')');
	if (close_paren == NULL || sscanf(close_paren + 2,
	    "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
	    &utime, &stime) != 2)
		return 0;
	return (utime + stime) * (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
}

int
record_perf_attach(const struct record_opts *o, pid_t pid,
    struct record_result *r)
{
	struct engine e;
	struct pollfd *pfd;
	sigset_t watched, old;
	pid_t *tids;
	size_t ntids;
	uint64_t start, cpu0, cpu = 0;
	int sfd, pidfd, i, done = 0;

	memset(&e, 0, sizeof e);
	e.opts = o;
	e.result = r;
	e.b = r->builder;
	hmap_init(&e.proc_index);
	r->pid = pid;
	tids = list_threads(pid, &ntids);
	if (tids == NULL) {
		cli_error("no process %d", (int)pid);
		return -1;
	}
	sigemptyset(&watched);
	sigaddset(&watched, SIGINT);
	sigaddset(&watched, SIGTERM);
	sigaddset(&watched, SIGHUP);
	sigaddset(&watched, SIGQUIT);
	sigprocmask(SIG_BLOCK, &watched, &old);
	sfd = signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (open_rings(&e, tids, ntids, 0) < 0) {
		free(tids);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	identify_kernel(&e);
	synthesize(&e, pid, tids, ntids);
	free(tids);
	start = now_ns();
	cpu0 = process_cpu_ns(pid);
	pfd = xcalloc((size_t)e.nrings + 2, sizeof *pfd);
	for (i = 0; i < e.nrings; i++)
		pfd[i] = (struct pollfd){ e.rings[i].fd, POLLIN, 0 };
	pfd[e.nrings] = (struct pollfd){ sfd, POLLIN, 0 };
	pfd[e.nrings + 1] = (struct pollfd){ pidfd, POLLIN, 0 };
	while (!done) {
		struct signalfd_siginfo si;
		uint64_t now_cpu;

		poll(pfd, (nfds_t)e.nrings + 2, 200);
		while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
			done = 1;	/* Ctrl-C or a request to stop: detach */
		if (pidfd >= 0 && (pfd[e.nrings + 1].revents & POLLIN))
			done = 1;	/* the process has exited */
		if (pidfd < 0 && kill(pid, 0) < 0 && errno == ESRCH)
			done = 1;
		now_cpu = process_cpu_ns(pid);
		if (now_cpu > cpu0)
			cpu = now_cpu - cpu0;
		drain(&e);
	}
	r->wall_ns = now_ns() - start;
	r->cpu_ns = cpu;
	drain(&e);
	close_rings(&e);
	r->taken = e.taken;
	r->weight_sq = e.weight_sq;
	r->slowest_ns = o->period_ns;
	free(pfd);
	if (pidfd >= 0)
		close(pidfd);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free_engine(&e);
	return 0;
}
