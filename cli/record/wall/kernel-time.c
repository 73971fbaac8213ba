/*
 * kernel-time.c - kernel time counted where it may not be sampled
 * (kernel-time.h): each thread's time on the CPU from its switches, the
 * fires of its clock that were not delivered, and where they go.
 *
 * Invariant: a thread's counted samples and its delivered ones together
 * are its time on the CPU in periods, to less than one period (what is
 * not yet a whole period is carried, never dropped or counted twice).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "kernel-time.h"
#include "record/unwind/unwind.h"

#define STACK_MAX	(2 * UNWIND_MAX_DEPTH + 2)

struct kt_thread {
	pid_t pid, tid;
	int on;			/* on the CPU since `since` */
	int sampled;		/* a sample of it delivered */
	int unknown;		/* attached: on or off since `since`, as its
				   first switch will tell */
	int gone;		/* ended: counted for good */
	uint64_t since;
	uint64_t cpu;		/* time on the CPU before `since` */
	uint64_t at_sample;	/* cpu at its last delivered sample */
	uint64_t last;		/* the latest switch applied */
	int64_t owed;		/* ns of fires not yet a whole period */
	uint64_t period;	/* of its last sample */
	struct bframe *stack;	/* of its last sample, n frames */
	size_t n;
};

struct kernel_time {
	uint64_t period;
	kernel_time_sink sink;
	void *arg;
	struct kt_thread *t;
	size_t nt, cap;
	struct hmap index;	/* tid -> index + 1 */
	uint64_t counted;
	struct bframe frames[STACK_MAX + 1];
};

struct kernel_time *
kernel_time_new(uint64_t period_ns, kernel_time_sink sink, void *arg)
{
	struct kernel_time *k = xcalloc(1, sizeof *k);

	k->period = period_ns ? period_ns : 1;
	k->sink = sink;
	k->arg = arg;
	hmap_init(&k->index);
	return k;
}

void
kernel_time_free(struct kernel_time *k)
{
	if (k == NULL)
		return;
	for (size_t i = 0; i < k->nt; i++)
		free(k->t[i].stack);
	free(k->t);
	hmap_free(&k->index);
	free(k);
}

/* Thread tid of pid, made if new (off the CPU, its clock at 0). */
static struct kt_thread *
thread_of(struct kernel_time *k, pid_t pid, pid_t tid)
{
	uint64_t at = hmap_get(&k->index, (uint64_t)(uint32_t)tid);
	struct kt_thread *t;

	if (at != 0 && k->t[at - 1].pid == pid && !k->t[at - 1].gone)
		return &k->t[at - 1];
	if (k->nt == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->t = xrealloc(k->t, k->cap * sizeof *k->t);
	}
	t = &k->t[k->nt];
	memset(t, 0, sizeof *t);
	t->pid = pid;
	t->tid = tid;
	t->period = k->period;
	/* a tid used again: the index moves on to the new thread */
	hmap_add(&k->index, (uint64_t)(uint32_t)tid, k->nt + 1 - at);
	k->nt++;
	return t;
}

/* t's clock at time: its time on the CPU so far. */
static uint64_t
clock_at(const struct kt_thread *t, uint64_t time)
{
	return t->cpu + (t->on && time > t->since ? time - t->since : 0);
}

/* n counted samples at t's stack (or none known), under the kernel. */
static void
place(struct kernel_time *k, const struct kt_thread *t,
    const struct bframe *frames, size_t n, uint64_t count)
{
	size_t m = 1;

	if (count == 0)
		return;
	k->frames[0] = (struct bframe){ BFRAME_KERNEL, PROFIL_KERNEL_UNSAMPLED };
	if (n > 0) {
		if (n > STACK_MAX)
			n = STACK_MAX;
		memcpy(&k->frames[1], frames, n * sizeof *frames);
		m += n;
	} else
		k->frames[m++] = (struct bframe){ BFRAME_CUT,
		    PROFIL_CUT_UNSEEN };
	k->counted += count;
	k->sink(k->arg, k->frames, m, count, t->period >= k->period ?
	    t->period / k->period : 1, t->pid, t->tid);
}

/* Whether a switch at time comes after the last one applied to t. */
static int
in_order(struct kt_thread *t, uint64_t time)
{
	if (time < t->last)
		return 0;
	t->last = time;
	return 1;
}

void
kernel_time_start(struct kernel_time *k, pid_t pid, pid_t tid, uint64_t time)
{
	struct kt_thread *t = thread_of(k, pid, tid);

	(void)in_order(t, time);
}

void
kernel_time_running(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time)
{
	struct kt_thread *t = thread_of(k, pid, tid);

	if (!t->on && in_order(t, time)) {
		t->on = 1;
		t->since = time;
	}
}

void
kernel_time_attach(struct kernel_time *k, pid_t pid, pid_t tid, uint64_t time)
{
	struct kt_thread *t = thread_of(k, pid, tid);

	t->unknown = 1;
	t->since = time;
	t->last = time;
}

void
kernel_time_switch_in(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time)
{
	struct kt_thread *t = thread_of(k, pid, tid);

	if (!in_order(t, time) || t->on)
		return;
	t->unknown = 0;		/* it was off the CPU until now */
	t->on = 1;
	t->since = time;
}

void
kernel_time_switch_out(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time)
{
	struct kt_thread *t = thread_of(k, pid, tid);

	if (!in_order(t, time))
		return;
	if (t->unknown) {	/* it ran from the attach until now */
		t->unknown = 0;
		t->on = 1;
	}
	if (!t->on)
		return;
	t->cpu = clock_at(t, time);
	t->on = 0;
}

/*
 * The fires since t's last delivered sample, at its clock's now, less
 * the one delivered (delivered: 1, or 0 at its end), in whole periods;
 * the rest carried.  A fire comes a little late at times (an interrupt
 * held off), and the next one then comes early by as much: what that
 * takes from one gap it gives to the next, so a debt is carried too,
 * up to a period.
 */
static uint64_t
dropped(struct kt_thread *t, uint64_t now, int delivered)
{
	/*
	 * In 128 bits: the times and the period are the records' (the
	 * perf ring's: a forged one held -2^63 + 4e9, and the sum
	 * overflowed; fuzz-perfrec's seed crash-kernel-time-overflow)
	 */
	__int128 period = t->period, ns = (__int128)(int64_t)(now -
	    t->at_sample) + t->owed - (delivered ? period : 0);
	__int128 whole;

	t->at_sample = now;
	if (ns <= 0) {
		t->owed = (int64_t)(ns < -period ? (period > INT64_MAX ?
		    INT64_MIN : -period) : ns < INT64_MIN ? INT64_MIN : ns);
		return 0;
	}
	whole = period > 0 ? ns / period : 0;
	ns -= whole * period;
	t->owed = (int64_t)(ns > INT64_MAX ? INT64_MAX : ns);
	return whole > UINT64_MAX ? UINT64_MAX : (uint64_t)whole;
}

/*
 * Of a, nearer to the fires than b: the frames the kernel time between
 * the two samples is placed under, as many of a's last (outermost)
 * frames as returned.  Where in the code the kernel was entered between
 * two samples is not seen, only that both stacks share their outer
 * frames: those, and one frame more where the two stacks part at a call
 * (the same function at two call sites, mostly: the loop that made the
 * system calls between its samples).  Where they part only at their
 * leaves, with the same callers (two samples of one function, or of
 * two called from one place), the code in between may have returned
 * to the caller and called anything: the time goes under the caller,
 * not under a leaf that may never have entered the kernel.
 */
static size_t
between(const struct bframe *a, size_t na, const struct bframe *b, size_t nb)
{
	size_t same = 0;

	while (same < na && same < nb && a[na - 1 - same].obj ==
	    b[nb - 1 - same].obj && a[na - 1 - same].value ==
	    b[nb - 1 - same].value)
		same++;
	if (same == na && same == nb)
		return na > 0 ? na - 1 : 0;	/* one leaf, seen twice */
	if (same == na || same == nb)
		return same < na ? same + 1 : na;
	if (na - 1 - same == 0 && nb - 1 - same == 0)
		return same;			/* parted at the leaves */
	return same + 1;
}

void
kernel_time_sample(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time, uint64_t period_ns, const struct bframe *frames, size_t n)
{
	struct kt_thread *t = thread_of(k, pid, tid);
	uint64_t d, before;
	size_t m;

	/*
	 * Running, though no switch in said so: attached while it ran
	 * (since the attach), or its switch in lost with a full ring
	 * (since now: no time is made up).
	 */
	if (t->unknown) {
		t->unknown = 0;
		t->on = 1;
	} else if (!t->on && in_order(t, time)) {
		t->on = 1;
		t->since = time;
	}
	if (period_ns > 0)
		t->period = period_ns;
	d = dropped(t, clock_at(t, time), 1);
	/*
	 * The dropped fires came a period apart between the two samples:
	 * the first half nearer the last sample, the rest nearer this one.
	 * A thread's first sample has no last one: its fires came before
	 * any stack of its was seen (its start, the loader), and are
	 * placed at none.
	 */
	if (t->sampled) {
		before = d / 2;
		m = between(t->stack, t->n, frames, n);
		place(k, t, t->stack + t->n - m, m, before);
		m = between(frames, n, t->stack, t->n);
		place(k, t, m > 0 ? frames + n - m : NULL, m, d - before);
	} else
		place(k, t, NULL, 0, d);
	t->sampled = 1;
	if (n > STACK_MAX)
		n = STACK_MAX;
	t->stack = xrealloc(t->stack, (n ? n : 1) * sizeof *t->stack);
	if (n > 0)	/* a flat profile's sample has no frames: NULL */
		memcpy(t->stack, frames, n * sizeof *frames);
	t->n = n;
}

/*
 * t's fires since its last sample; t is done.  No sample follows to say
 * how far out the code returned meanwhile (to its exit, often): they
 * are placed at no stack.
 */
static void
end_thread(struct kernel_time *k, struct kt_thread *t, uint64_t time)
{
	if (t->gone)
		return;
	place(k, t, NULL, 0, dropped(t, clock_at(t, time), 0));
	t->on = 0;
	t->gone = 1;
}

void
kernel_time_exit(struct kernel_time *k, pid_t pid, pid_t tid, uint64_t time)
{
	uint64_t at = hmap_get(&k->index, (uint64_t)(uint32_t)tid);

	if (at != 0 && k->t[at - 1].pid == pid)
		end_thread(k, &k->t[at - 1], time);
}

void
kernel_time_finish(struct kernel_time *k, uint64_t time)
{
	for (size_t i = 0; i < k->nt; i++)
		end_thread(k, &k->t[i], time);
}

uint64_t
kernel_time_counted(const struct kernel_time *k)
{
	return k->counted;
}
