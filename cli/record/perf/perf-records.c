/*
 * perf-records.c - the perf engine's records read and applied: a sample
 * decoded and handed to the sample sink (record/sink/sample.h) as it
 * arrives; the side-band records keep every process's mappings.
 * Nothing per sample is kept.
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
#include "record/sink/sample.h"
#include "record/unwind/unwind.h"
#include "record/wall/kernel-time.h"
#include "record/wall/wall.h"
#include "sampler/budget.h"
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

/* Where the engine's samples go (record/sink/sample.h). */
static struct sample_sink
sink(const struct engine *e)
{
	return (struct sample_sink){ e->b, e->wall, e->ktime };
}

/* The process p as the sink places samples in it. */
static struct sample_place
place_of(const struct proc *p)
{
	return (struct sample_place){ p->space, p->uw, 0 };
}

/*
 * A thread's event of kind at time to the accounts that follow it; the
 * wall time only of the processes profiled (with --no-children, not of
 * the program's children).
 */
static void
tell(const struct engine *e, enum sample_kind kind, pid_t pid, pid_t tid,
    uint64_t time, int preempted)
{
	struct sample_sink k = sink(e);
	struct sample s = { .kind = kind, .pid = pid, .tid = tid,
	    .time = time, .preempted = preempted };

	if (!e->opts->follow_children && pid != e->result->pid)
		k.wall = NULL;
	sample_take(&k, NULL, &s);
}

void
perf_records_kernel_time(void *arg, const struct bframe *frames, size_t n,
    uint64_t count, uint64_t unit, pid_t pid, pid_t tid)
{
	struct engine *e = arg;
	struct sample_sink k = sink(e);
	struct sample_place at = place_of(perf_procs_get(e, pid));
	struct sample s = { .pid = pid, .tid = tid, .weight = count * unit,
	    .mode = SAMPLE_KERNEL, .stacks = e->opts->stack_size != 0,
	    .frames = frames, .nframes = n };

	e->taken += count;
	e->weight_sq = budget_sum_saturating(e->weight_sq,
	    budget_weight_sq(0, count * unit, unit));
	sample_take(&k, &at, &s);
}

/*
 * A sample's call stack as the record carries it: the kernel's call
 * chain, the user registers and the copy of the user stack (a record
 * cut short or malformed has none of them: its stack is said not taken).
 */
static void
decode_stack(const struct engine *e, const uint8_t *rec, size_t size,
    struct sample_extra *x, struct sample *s)
{
	if (sample_extra(e, rec, size, x) < 0) {
		x->has_regs = 0;
		x->nchain = 0;
	}
	s->stacks = 1;
	s->chain = x->chain;
	s->nchain = x->nchain;
	s->regs = x->has_regs ? x->regs : NULL;
	s->sp = x->regs[ARCH_REG_SP];
	s->copy = x->stack;
	s->copy_size = x->stack_size;
	s->copy_asked = e->opts->stack_size;
	s->behind = e->behind;
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
	unsigned mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct sample_sink k = sink(e);
	struct sample_extra x;
	struct sample_place at;
	struct sample s = { 0 };
	uint32_t pid, tid;
	struct proc *p;

	if (size < sizeof *h + 32)
		return;
	memcpy(&s.pc, rec + sizeof *h, 8);
	memcpy(&pid, rec + sizeof *h + 8, 4);
	memcpy(&tid, rec + sizeof *h + 12, 4);
	memcpy(&s.time, rec + sizeof *h + 16, 8);
	memcpy(&s.period, rec + sizeof *h + 24, 8);
	if (!e->opts->follow_children && (pid_t)pid != e->result->pid)
		return;
	s.pid = (pid_t)pid;
	s.tid = (pid_t)tid;
	s.weight = weigh(e, s.period);
	s.mode = mode == PERF_RECORD_MISC_KERNEL ? SAMPLE_KERNEL :
	    mode == PERF_RECORD_MISC_USER ? SAMPLE_USER : SAMPLE_OTHER;
	p = perf_procs_get(e, s.pid);
	s.ours = e->result->pid == s.pid || p->space->n > 0;
	if (e->opts->stack_size)
		decode_stack(e, rec, size, &x, &s);
	at = place_of(p);
	sample_take(&k, &at, &s);
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
		tell(e, SAMPLE_RUNNING, (pid_t)pid, (pid_t)tid,
		    perf_records_time(rec, size), 0);
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
	tell(e, SAMPLE_START, (pid_t)ids[0], (pid_t)ids[2],
	    perf_records_time(rec, size), 0);
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
	tell(e, SAMPLE_EXIT, (pid_t)ids[0], (pid_t)ids[2],
	    perf_records_time(rec, size), 0);
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
		tell(e, out ? SAMPLE_SWITCH_OUT : SAMPLE_SWITCH_IN,
		    (pid_t)id.pid, (pid_t)id.tid, id.time, out && (h->misc &
		    PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0);
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
