/*
 * wall.c - time off the CPU, measured by the switches and placed by
 * looks at the blocked threads (wall.h, wall-internal.h): the threads
 * and the stacks they were off the CPU at, the switches applied in
 * order, the looks.  Where the time then goes is wall-place.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blocked.h"
#include "cli.h"
#include "wall-internal.h"

uint64_t
wall_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct wall *
wall_new(struct builder *b, uint64_t poll_ns, unsigned stack_size,
    uint64_t period_ns, wall_unwinder unwinder, void *arg)
{
	struct wall *w = xcalloc(1, sizeof *w);

	w->b = b;
	w->period_ns = period_ns ? period_ns : 1;
	w->poll_ns = poll_ns;
	w->stats.poll_ns = poll_ns;
	w->stack_size = stack_size;
	w->unwinder = unwinder;
	w->arg = arg;
	w->stack = xmalloc(stack_size ? stack_size : 1);
	hmap_init(&w->index);
	hmap_init(&w->site_index);
	hmap_init(&w->proc_looks);
	return w;
}

void
wall_free(struct wall *w)
{
	if (w == NULL)
		return;
	for (size_t i = 0; i < w->nthreads; i++) {
		free(w->threads[i].stack);
		free(w->threads[i].accs);
		if (w->threads[i].stat_fd >= 0)
			close(w->threads[i].stat_fd);
	}
	for (size_t i = 0; i < w->ncounted; i++)
		free(w->counted[i].sites);
	free(w->counted);
	for (size_t i = 0; i < w->nsites; i++)
		free(w->sites[i].frames);
	free(w->threads);
	free(w->sites);
	free(w->stack);
	hmap_free(&w->index);
	hmap_free(&w->site_index);
	free(w->unread);
	hmap_free(&w->proc_looks);
	free(w->deferred);
	free(w);
}

uint32_t
wall_site_of(struct wall *w, const struct bframe *frames, size_t n)
{
	uint64_t h = 1469598103934665603ull, at;
	struct site *s;

	for (size_t i = 0; i < n; i++) {
		h = (h ^ (uint64_t)(uint32_t)frames[i].obj) * 1099511628211ull;
		h = (h ^ frames[i].value) * 1099511628211ull;
	}
	for (;; h++) {
		if (h == UINT64_MAX)
			h = 0;
		if ((at = hmap_get(&w->site_index, h)) == 0)
			break;
		s = &w->sites[at - 1];
		if (s->n == n && memcmp(s->frames, frames, n * sizeof *frames) == 0)
			return (uint32_t)(at - 1);
	}
	if (w->nsites == w->sites_cap) {
		w->sites_cap = w->sites_cap ? 2 * w->sites_cap : 64;
		w->sites = xrealloc(w->sites, w->sites_cap * sizeof *w->sites);
	}
	s = &w->sites[w->nsites];
	s->n = n;
	s->frames = xmalloc(n * sizeof *frames);
	memcpy(s->frames, frames, n * sizeof *frames);
	hmap_add(&w->site_index, h, ++w->nsites);
	return (uint32_t)(w->nsites - 1);
}

uint32_t
wall_site_unplaced(struct wall *w, uint64_t code)
{
	struct bframe f[2] = { { BFRAME_OFFCPU, code },
		{ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN } };

	return wall_site_of(w, f, 2);
}

struct wthread *
wall_thread_of(struct wall *w, pid_t pid, pid_t tid)
{
	uint64_t at = hmap_get(&w->index, (uint64_t)(uint32_t)tid);
	struct wthread *t;

	if (at != 0 && w->threads[at - 1].pid == pid)
		return &w->threads[at - 1];
	if (w->nthreads == w->threads_cap) {
		w->threads_cap = w->threads_cap ? 2 * w->threads_cap : 64;
		w->threads = xrealloc(w->threads,
		    w->threads_cap * sizeof *w->threads);
	}
	t = &w->threads[w->nthreads];
	memset(t, 0, sizeof *t);
	t->pid = pid;
	t->tid = tid;
	t->state = T_ON;
	t->stat_fd = -1;
	/* a tid used again (by another process): the index moves on */
	if (at != 0)
		hmap_add(&w->index, (uint64_t)(uint32_t)tid,
		    w->nthreads + 1 - at);
	else
		hmap_add(&w->index, (uint64_t)(uint32_t)tid, w->nthreads + 1);
	w->nthreads++;
	return t;
}

struct acc *
wall_acc_of(struct wthread *t, uint32_t site)
{
	for (size_t i = 0; i < t->naccs; i++)
		if (t->accs[i].site == site)
			return &t->accs[i];
	if (t->naccs == t->accs_cap) {
		t->accs_cap = t->accs_cap ? 2 * t->accs_cap : 4;
		t->accs = xrealloc(t->accs, t->accs_cap * sizeof *t->accs);
	}
	t->accs[t->naccs] = (struct acc){ site, 0, 0, 0, 0, 0 };
	return &t->accs[t->naccs++];
}

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

static struct unread *
unread_of(const struct wall *w, pid_t pid)
{
	for (size_t i = 0; i < w->nunread; i++)
		if (w->unread[i].pid == pid)
			return &w->unread[i];
	return NULL;
}

/* A look at pid was refused at now: not tried again for a while. */
static void
refused(struct wall *w, pid_t pid, int err, uint64_t now)
{
	struct unread *u = unread_of(w, pid);

	if (u == NULL) {
		if (w->nunread == w->unread_cap) {
			w->unread_cap = w->unread_cap ? 2 * w->unread_cap : 8;
			w->unread = xrealloc(w->unread,
			    w->unread_cap * sizeof *w->unread);
		}
		u = &w->unread[w->nunread++];
		*u = (struct unread){ pid, err, 0, 0, 0 };
	}
	/* 20 ms, then twice as long each time, up to a second */
	u->backoff = u->backoff == 0 ? 20000000u : u->backoff * 2 > 1000000000u ?
	    1000000000u : u->backoff * 2;
	u->retry_at = now + u->backoff;
	u->err = err;
	u->read = 0;
}

/* A look at pid was not refused. */
static void
read_again(struct wall *w, pid_t pid)
{
	struct unread *u = unread_of(w, pid);

	if (u != NULL) {
		u->read = 1;
		u->backoff = 0;
		u->retry_at = 0;
	}
}

int
wall_pid_resting(const struct wall *w, pid_t pid, uint64_t now)
{
	const struct unread *u = unread_of(w, pid);

	return u != NULL && !u->read && now < u->retry_at;
}

int
wall_pid_unreadable(const struct wall *w, pid_t pid)
{
	const struct unread *u = unread_of(w, pid);

	return u != NULL && !u->read;
}

void
wall_look_thread(struct wall *w, struct wthread *t)
{
	struct blocked_site bs;
	struct bframe f[SITE_MAX];
	struct unwind_space *uw;
	uint64_t t1 = wall_now_ns();
	ssize_t got = 0;
	size_t n = 1;
	int rc;

	t->tried = t1;
	rc = blocked_site(t->pid, t->tid, &bs);
	if (rc < 0 && (errno == EACCES || errno == EPERM))
		refused(w, t->pid, errno, t1);
	else
		read_again(w, t->pid);
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
	t->look_t2 = wall_now_ns();
	t->has_look = 1;
}

void
wall_look(struct wall *w)
{
	w->last_look = wall_now_ns();
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

pid_t
wall_unreadable(const struct wall *w, int *err)
{
	for (size_t i = 0; i < w->nunread; i++)
		if (!w->unread[i].read) {
			*err = w->unread[i].err;
			return w->unread[i].pid;
		}
	*err = 0;
	return 0;
}
