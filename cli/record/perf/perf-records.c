/*
 * perf-records.c - the perf engine's records read and applied: a sample
 * is folded into its object's histogram, or its stack into the
 * builder's, as it arrives; the side-band records keep every process's
 * mappings.  Nothing per sample is kept.
 *
 * Invariant: no field is read before the record's size is checked to
 * hold it; a short or malformed record is skipped, never trusted.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "perf-procs.h"
#include "perf-records.h"
#include "perf-regs.h"
#include "record/core/procmaps.h"
#include "record/jit/jit.h"
#include "record/unwind/unwind.h"
#include "record/wall/kernel-time.h"
#include "record/wall/wall.h"
#include "sampler/budget.h"

#define MAX_FRAMES	(2 * UNWIND_MAX_DEPTH + 2)	/* kernel + user + cut */
#define MISC_MMAP_BUILD_ID (1 << 14)	/* PERF_RECORD_MISC_MMAP_BUILD_ID */

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

uint64_t
perf_records_time(const uint8_t *rec, size_t size)
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

/* A sample's fields past IP, TID and TIME, as set_attr asks for them
   (perf-events.c). */
struct sample_extra {
	const uint64_t *chain;		/* kernel call chain, markers in it */
	uint64_t nchain;
	int has_regs;			/* user registers (not a kernel thread) */
	uint64_t regs[ARCH_NREGS];	/* DWARF order */
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
		uint64_t raw[ARCH_NREGS];

		if (size - at < sizeof raw)
			return -1;
		memcpy(raw, rec + at, sizeof raw);
		at += sizeof raw;
		for (int i = 0; i < ARCH_NREGS; i++)
			x->regs[i] = raw[arch_perf_reg_at(i)];
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

/* A sample's stack to the builder, or kept back for a JIT name. */
static void
give_stack(struct engine *e, struct proc *p, const struct bframe *frames,
    size_t n, uint64_t weight, pid_t pid, pid_t tid)
{
	if (!jit_code_defer(p->space->jit, frames, n, weight, pid, tid, 0))
		builder_sample_stack(e->b, frames, n, weight, pid, tid);
}

void
perf_records_kernel_time(void *arg, const struct bframe *frames, size_t n,
    uint64_t count, uint64_t unit, pid_t pid, pid_t tid)
{
	struct engine *e = arg;

	e->taken += count;
	e->weight_sq = budget_sum_saturating(e->weight_sq,
	    budget_weight_sq(0, count * unit, unit));
	if (e->opts->stack_size)
		give_stack(e, perf_procs_get(e, pid), frames, n, count * unit,
		    pid, tid);
	else
		builder_kernel(e->b, frames[0].value, count * unit, pid, tid);
}

/*
 * A sample with its stack: kernel frames from the kernel's call chain,
 * then the user stack unwound from the registers and stack copy.
 */
static void
sample_with_stack(struct engine *e, struct proc *p, const uint8_t *rec,
    size_t size, uint64_t ip, int kernel_mode, pid_t pid, pid_t tid,
    uint64_t weight, uint64_t period)
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
		unwind_locate(p->uw, x.regs[ARCH_REG_PC], &frames[n++]);
		frames[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_BEHIND };
	} else if (x.has_regs && p->uw != NULL) {
		/* at most UNWIND_MAX_DEPTH user frames, then a cut */
		n = unwind_stack(p->uw, tid, x.regs, x.regs[ARCH_REG_SP], x.stack,
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
	} else if (!kernel_mode || e->result->pid == pid || p->space->n > 0) {
		/* a process of ours without its registers: say so */
		if (n == 0)
			frames[n++] = p->uw ? (unwind_locate(p->uw, ip, &frames[0]),
			    frames[0]) : (struct bframe){ BFRAME_UNKNOWN, ip };
		frames[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN };
	}
	give_stack(e, p, frames, n, weight, pid, tid);
	if (e->wall != NULL)
		wall_cpu_sample(e->wall, pid, tid, perf_records_time(rec, size),
		    frames, n);
	if (e->ktime != NULL)
		kernel_time_sample(e->ktime, pid, tid, perf_records_time(rec,
		    size), period, frames, n);
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
	uint64_t w = budget_weight(period, e->opts->period_ns);

	e->taken++;
	e->weight_sq = budget_sum_saturating(e->weight_sq,
	    budget_weight_sq(w, 0, 1));
	return w;
}

static void
on_sample(struct engine *e, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	uint64_t ip;
	uint32_t pid, tid;
	unsigned mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const struct addr_map *m;
	struct proc *p;
	struct bframe jf;
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
		    mode == PERF_RECORD_MISC_KERNEL, (pid_t)pid, (pid_t)tid, w,
		    period);
		return;
	}
	if (e->ktime != NULL)
		kernel_time_sample(e->ktime, (pid_t)pid, (pid_t)tid,
		    perf_records_time(rec, size), period, NULL, 0);
	if (mode == PERF_RECORD_MISC_KERNEL) {
		builder_kernel(e->b, ip, w, (pid_t)pid, (pid_t)tid);
		return;
	}
	m = mode == PERF_RECORD_MISC_USER ? addr_space_find(p->space, ip) : NULL;
	if ((m == NULL || m->obj < 0) && mode == PERF_RECORD_MISC_USER &&
	    jit_code_locate(p->space->jit, ip, m != NULL, &jf))
		builder_sample(e->b, jf.obj, jf.value, w, (pid_t)pid, (pid_t)tid);
	else if (m == NULL || m->obj < 0) {
		jf = (struct bframe){ BFRAME_UNKNOWN, ip };
		if (mode != PERF_RECORD_MISC_USER || !jit_code_defer(p->space->jit,
		    &jf, 1, w, (pid_t)pid, (pid_t)tid, 1))
			builder_unknown(e->b, w, (pid_t)pid, (pid_t)tid);
	}
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
	int obj = -1;
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
			obj = builder_object(e->b, name, bid, bid_len);
	}
	p = perf_procs_get(e, (pid_t)pid);
	addr_space_map(p->space, addr, addr + len, pgoff, obj, name);
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
		/* a new image: a new address space */
		perf_procs_exec(perf_procs_get(e, (pid_t)pid));
		/* enabled at the exec: its clock runs from here */
		if (e->ktime != NULL)
			kernel_time_running(e->ktime, (pid_t)pid, (pid_t)tid,
			    perf_records_time(rec, size));
		if (e->wall != NULL)
			wall_thread_running(e->wall, (pid_t)pid, (pid_t)tid,
			    perf_records_time(rec, size));
	}
	builder_comm(e->b, (pid_t)pid, (pid_t)tid, comm);
}

static void
on_fork(struct engine *e, const uint8_t *rec, size_t size)
{
	const struct perf_event_header *h = (const void *)rec;
	uint32_t ids[4];	/* pid, ppid, tid, ptid */

	if (size < sizeof *h + 16)
		return;
	memcpy(ids, rec + sizeof *h, 16);
	if (e->wall != NULL && (e->opts->follow_children ||
	    (pid_t)ids[0] == e->result->pid))
		wall_thread_start(e->wall, (pid_t)ids[0], (pid_t)ids[2],
		    perf_records_time(rec, size));
	if (e->ktime != NULL)
		kernel_time_start(e->ktime, (pid_t)ids[0], (pid_t)ids[2],
		    perf_records_time(rec, size));
	if (ids[0] == ids[1])
		return;		/* a new thread: same address space */
	builder_fork(e->b, (pid_t)ids[0], (pid_t)ids[1]);
	perf_procs_fork(e, (pid_t)ids[0], (pid_t)ids[1]);
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
	if (e->wall != NULL && (e->opts->follow_children ||
	    (pid_t)ids[0] == e->result->pid))
		wall_thread_exit(e->wall, (pid_t)ids[0], (pid_t)ids[2],
		    perf_records_time(rec, size));
	if (e->ktime != NULL)
		kernel_time_exit(e->ktime, (pid_t)ids[0], (pid_t)ids[2],
		    perf_records_time(rec, size));
	if (ids[0] != ids[2] ||
	    (at = hmap_get(&e->proc_index, (uint64_t)ids[0])) == 0)
		return;		/* a thread, or a process we never saw */
	/* freed a second of samples later: see perf_procs_free_exited */
	e->procs[at - 1].exited = perf_records_time(rec, size) | 1;
}

void
perf_records_apply(struct engine *e, const uint8_t *rec, size_t size)
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
	case PERF_RECORD_SWITCH: {
		/*
		 * A thread off the CPU or back on it, and when: for --wall,
		 * and for the kernel's time where it is not sampled
		 */
		struct sample_id id = trailer(rec, size);
		int out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;

		if (size < sizeof *h + 16)
			break;
		if (!e->opts->follow_children && (pid_t)id.pid != e->result->pid)
			break;
		if (e->ktime != NULL && out)
			kernel_time_switch_out(e->ktime, (pid_t)id.pid,
			    (pid_t)id.tid, id.time);
		else if (e->ktime != NULL)
			kernel_time_switch_in(e->ktime, (pid_t)id.pid,
			    (pid_t)id.tid, id.time);
		if (e->wall != NULL && out)
			wall_switch_out(e->wall, (pid_t)id.pid, (pid_t)id.tid,
			    id.time, (h->misc &
			    PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0);
		else if (e->wall != NULL)
			wall_switch_in(e->wall, (pid_t)id.pid, (pid_t)id.tid,
			    id.time);
		break;
	}
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
