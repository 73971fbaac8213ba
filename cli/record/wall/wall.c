/*
 * wall.c - time off the CPU, measured by the switches and placed by
 * looks at the blocked threads (wall.h, wall-internal.h): the switches
 * applied in order, the looks.  The threads and the stacks they were off
 * the CPU at are wall-tables.c's; where the time then goes wall-place.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blocked.h"
#include "cli.h"
#include "record/core/clock.h"
#include "wall-internal.h"

/*
 * Whether a switch (or fork) at time comes after the last one applied
 * for t: records are sorted within a drain, not across drains, and one
 * from a CPU drained late must not undo a later one (a switch out at 100
 * applied after the switch in at 105 would count [100, ...) off the
 * CPU while the thread ran).
 */
static int
in_order(struct wthread *t, uint64_t time)
{
	if (time < t->last)
		return 0;
	t->last = time;
	return 1;
}

void
wall_thread_start(struct wall *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	if (!in_order(t, time))
		return;		/* it has run already: its fork came late */
	if (t->state == T_OFF || t->state == T_UNKNOWN)
		wall_end_interval(w, t, time);
	wall_flush(w, t);
	t->state = T_OFF;
	t->preempted = 1;
	t->since = time;
	t->nstack = 0;
	/* a thread of its own, counted afresh (a tid used again) */
	memset(&t->sw, 0, sizeof t->sw);
	t->reads = 0;
	if (t->stat_fd >= 0)
		close(t->stat_fd);
	t->stat_fd = -1;
}

void
wall_thread_attach(struct wall *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	t->state = T_UNKNOWN;
	t->preempted = 0;
	t->since = time;
	t->last = time;
	if (w->begin == 0 || time < w->begin)
		w->begin = time;
}

void
wall_thread_running(struct wall *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	if (t->state == T_ON && t->on_since == 0)
		t->on_since = time;
}

void
wall_switch_out(struct wall *w, pid_t pid, pid_t tid, uint64_t time,
    int preempted)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	w->stats.switches++;
	if (!in_order(t, time))
		return;
	if (t->state == T_OFF)
		wall_end_interval(w, t, time);	/* a switch in lost: no gap */
	else if (t->state == T_ON && t->on_since != 0)
		t->sw.on += time > t->on_since ? time - t->on_since : 0;
	else if (t->state == T_UNKNOWN)	/* it ran from the attach */
		t->sw.on += time > t->since ? time - t->since : 0;
	/* unknown until now: it was running, not blocked */
	t->state = T_OFF;
	t->preempted = preempted;
	/* (attached: nothing before the recording began) */
	t->since = time < w->begin ? w->begin : time;
}

void
wall_switch_in(struct wall *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	if (!in_order(t, time))
		return;
	if (t->state == T_OFF || t->state == T_UNKNOWN)
		wall_end_interval(w, t, time);
	if (t->state != T_ON)
		t->on_since = time;
	t->state = T_ON;
}

void
wall_thread_exit(struct wall *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	if (t->state == T_OFF || t->state == T_UNKNOWN)
		wall_end_interval(w, t, time);
	else if (t->state == T_ON && t->on_since != 0 && time > t->on_since)
		t->sw.on += time - t->on_since;
	t->state = T_GONE;
	wall_flush(w, t);
}

void
wall_cpu_sample(struct wall *w, pid_t pid, pid_t tid, uint64_t time,
    const struct bframe *frames, size_t n)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	/* running, though no switch in said so (lost with a full ring) */
	if (time != 0 && (t->state == T_OFF || t->state == T_UNKNOWN) &&
	    t->since < time && in_order(t, time)) {
		wall_end_interval(w, t, time);
		t->state = T_ON;
		t->on_since = time;
	}

	if (n > SITE_MAX - 1)
		n = SITE_MAX - 1;
	if (n > t->stack_cap) {
		t->stack_cap = n < 32 ? 32 : n;
		t->stack = xrealloc(t->stack, t->stack_cap * sizeof *t->stack);
	}
	memcpy(t->stack, frames, n * sizeof *frames);
	t->nstack = n;
}

int
wall_look_due(const struct wall *w, uint64_t now)
{
	return now - w->last_look >= w->poll_ns;
}

void
wall_look_thread(struct wall *w, struct wthread *t)
{
	struct blocked_site bs;
	struct bframe f[SITE_MAX];
	struct unwind_space *uw;
	uint64_t t1 = record_now_ns();
	ssize_t got = 0;
	size_t n = 1;
	int rc;

	t->tried = t1;
	rc = blocked_site(t->pid, t->tid, &bs);
	if (rc < 0 && (errno == EACCES || errno == EPERM))
		wall_pid_refused(w, t->pid, errno, t1);
	else
		wall_pid_read(w, t->pid);
	if (rc == 0) {
		if (t->state == T_UNKNOWN)
			t->state = T_ON;	/* attached while it ran */
		return;
	}
	if (rc < 0)
		return;
	w->stats.reads++;
	f[0] = (struct bframe){ BFRAME_OFFCPU, bs.code };
	uw = w->unwinder(w->arg, t->pid);
	if (w->stack_size > 0)
		got = blocked_read_stack(t->pid, bs.sp, w->stack, w->stack_size);
	if (uw != NULL && got > 0)
		n = unwind_blocked(uw, t->tid, bs.sp, bs.pc, w->stack,
		    (size_t)got, f, 1, SITE_MAX);
	else {
		if (uw != NULL)
			unwind_locate(uw, bs.pc, &f[n++]);
		f[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN };
	}
	t->look_site = wall_site_of(w, f, n);
	t->look_t1 = t1;
	t->look_t2 = record_now_ns();
	t->has_look = 1;
}

void
wall_look(struct wall *w)
{
	w->last_look = record_now_ns();
	wall_read_truth(w, w->last_look);
	for (size_t i = 0; i < w->nthreads; i++) {
		struct wthread *t = &w->threads[i];

		if (!(t->state == T_OFF && !t->preempted) && t->state != T_UNKNOWN)
			continue;
		/* looked at in this interval already (or found it running) */
		if (t->tried >= t->since)
			continue;
		if (wall_pid_resting(w, t->pid, w->last_look))
			continue;
		wall_look_thread(w, t);
	}
}
