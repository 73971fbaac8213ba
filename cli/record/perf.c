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
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "hmap.h"
#include "symbols/kernel.h"
#include "perf-engine.h"
#include "perf-events.h"
#include "perf-procs.h"
#include "procmaps.h"
#include "record.h"
#include "unwind.h"

/*
 * The user registers a sample carries (REGS_MASK, perf-events.c):
 * from_sample[i] is where DWARF register i (rax rdx rcx rbx rsi rdi rbp
 * rsp r8..r15 rip) is among them.
 */
static const int from_sample[UNWIND_NREGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 9, 10,
	11, 12, 13, 14, 15, 16, 8 };
#define MAX_FRAMES	(2 * UNWIND_MAX_DEPTH + 2)	/* kernel + user + cut */
#define MISC_MMAP_BUILD_ID (1 << 14)	/* PERF_RECORD_MISC_MMAP_BUILD_ID */

struct pending {			/* one record of a drain */
	uint64_t time, seq;
	const uint8_t *rec;		/* in its ring, or NULL: in the batch */
	size_t at;			/* offset in the batch buffer */
	uint64_t end;			/* its ring's tail once it is applied */
	int ring;
};

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
	p = perf_procs_get(e, (pid_t)pid);
	if (e->opts->stack_size) {
		sample_with_stack(e, p, rec, size, ip,
		    mode == PERF_RECORD_MISC_KERNEL, (pid_t)pid, (pid_t)tid, w);
		return;
	}
	if (mode == PERF_RECORD_MISC_KERNEL) {
		builder_kernel(e->b, ip, w, (pid_t)pid, (pid_t)tid);
		return;
	}
	m = mode == PERF_RECORD_MISC_USER ? perf_procs_find_map(p, ip) : NULL;
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
	p = perf_procs_get(e, (pid_t)pid);
	perf_procs_add_map(p, m, name);
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
		struct proc *p = perf_procs_get(e, (pid_t)pid);

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
	child = perf_procs_get(e, (pid_t)ids[0]);
	/* may move child: look again */
	parent = perf_procs_get(e, (pid_t)ids[1]);
	child = perf_procs_get(e, (pid_t)ids[0]);
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
	/* freed a second of samples later: see perf_procs_free_exited */
	e->procs[at - 1].exited = record_time(rec, size) | 1;
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
	perf_procs_free_exited(e);
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
	if (perf_events_open(&e, &l.pid, 1, 1) < 0) {
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
		poll(pfd, (nfds_t)e.nrings + 1,
		    l.exited ? 20 : perf_events_poll_ms(&e));
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
		perf_events_budget_step(&e);
	}
	r->wall_ns = now_ns() - start;
	drain(&e);		/* what the last moments left in the rings */
	perf_events_close(&e);
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
	perf_procs_add_map(sy->p, m, pm->name);
}

/* What perf would have told us had we been there from the start. */
static void
synthesize(struct engine *e, pid_t pid, const pid_t *tids, size_t ntids)
{
	char path[64], line[256];
	struct synth sy = { e, perf_procs_get(e, pid) };

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
	if (perf_events_open(&e, tids, ntids, 0) < 0) {
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
	perf_events_close(&e);
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
