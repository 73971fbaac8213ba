/*
 * wall-tables.c - the tables of record --wall's accounting, its floor
 * (wall-internal.h): a wall made and freed, its threads, the stacks they
 * were off the CPU at (sites) and each thread's time at each, and the
 * processes whose blocked threads could not be read.
 *
 * Invariant: a site is made once for a stack (found again by its hash),
 * and a tid names the newest thread of its pid only (a tid used again
 * moves the index on).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "wall-internal.h"

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

static struct unread *
unread_of(const struct wall *w, pid_t pid)
{
	for (size_t i = 0; i < w->nunread; i++)
		if (w->unread[i].pid == pid)
			return &w->unread[i];
	return NULL;
}

void
wall_pid_refused(struct wall *w, pid_t pid, int err, uint64_t now)
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

void
wall_pid_read(struct wall *w, pid_t pid)
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
