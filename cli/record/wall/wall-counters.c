/*
 * wall-counters.c - wall.h's entry points for a source without switch
 * records (the timer engine's, wall-stat.c), which reads how long a
 * thread was blocked or runnable between two readings of its counters,
 * not when: its time goes where the looks it asks for found the thread.
 */
#include "record/core/clock.h"
#include "wall-internal.h"

int
wall_look_now(struct wall *w, pid_t pid, pid_t tid)
{
	struct wthread *t = wall_thread_of(w, pid, tid);
	int had = t->has_look, rc;
	uint32_t site = t->look_site;

	if (wall_pid_resting(w, pid, record_now_ns()))
		return -1;
	t->has_look = 0;
	t->tried = 0;
	t->state = T_UNKNOWN;
	wall_look_thread(w, t);
	rc = t->has_look ? 1 : t->state == T_ON ? 0 : -1;
	/* no switches here: nothing for wall_finish to end */
	t->state = T_ON;
	if (rc != 1) {
		/* running, or unreadable: its place stays the last one seen */
		t->has_look = had;
		t->look_site = site;
	}
	return rc;
}

void
wall_add_blocked(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns, int exact)
{
	struct wthread *t = wall_thread_of(w, pid, tid);
	struct acc *a;

	if (ns == 0)
		return;
	if (!t->has_look) {
		t->pool_ns += ns;
		t->pool_n++;
		wall_tl_span(w, t, WALL_TL_POOL, wall_tl_start(end, ns), ns);
		return;
	}
	a = wall_acc_of(t, t->look_site);
	a->off_ns += ns;
	a->intervals++;
	wall_tl_span(w, t, t->look_site, wall_tl_start(end, ns), ns);
	if (!exact) {
		a->sampled_ns += ns;
		a->observations++;
		a->short_looks++;
		hmap_add(&w->proc_looks, (uint64_t)(uint32_t)pid << 32 |
		    t->look_site, 1);
	}
}

void
wall_add_unseen(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	t->pool_ns += ns;
	t->pool_n += ns > 0;
	wall_tl_span(w, t, WALL_TL_POOL, wall_tl_start(end, ns), ns);
}

void
wall_thread_counted(struct wall *w, pid_t pid, pid_t tid, uint64_t run_ns)
{
	wall_thread_of(w, pid, tid)->run_ns = run_ns;
}

void
wall_add_runnable(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns)
{
	if (ns > 0)
		wall_place_runnable(w, wall_thread_of(w, pid, tid),
		    wall_tl_start(end, ns), ns);
}

void
wall_thread_done(struct wall *w, pid_t pid, pid_t tid)
{
	struct wthread *t = wall_thread_of(w, pid, tid);

	wall_flush(w, t);
	t->state = T_GONE;
}
