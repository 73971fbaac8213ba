/*
 * wall.c - time off the CPU, measured by the switches and placed by
 * looks at the blocked threads (wall.h).
 *
 * Invariant: every nanosecond between a thread's switch out and its
 * next switch in goes to exactly one stack of that thread; a look
 * places an interval only if it was taken wholly inside it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blocked.h"
#include "cli.h"
#include "hmap.h"
#include "unwind.h"
#include "wall.h"

#define SITE_MAX	(2 * UNWIND_MAX_DEPTH + 4)

enum { T_ON, T_OFF, T_UNKNOWN, T_GONE };

struct site {			/* a stack off the CPU, its leaf [off-cpu: ..] */
	size_t n;
	struct bframe *frames;
};

struct acc {			/* a thread's time at one site */
	uint32_t site;
	uint64_t off_ns, sampled_ns, observations;
	uint64_t short_looks;	/* looks that found it here in a short block */
};

struct wthread {
	pid_t pid, tid;
	int state;
	int preempted;		/* off: preempted (runnable), not blocked */
	uint64_t since;		/* off or unknown: since when */
	uint64_t last;		/* the time of its last switch applied */
	uint64_t tried;		/* the last look's start */
	int has_look;		/* a look placed, for the interval it is in */
	uint64_t look_t1, look_t2;
	uint32_t look_site;
	struct bframe *stack;	/* the stack of its last CPU sample */
	size_t nstack, stack_cap;
	uint64_t pool_ns;	/* blocked, never looked at */
	struct acc *accs;
	size_t naccs, accs_cap;
};

struct wall {
	struct builder *b;
	uint64_t poll_ns, last_look;
	unsigned stack_size;
	wall_unwinder unwinder;
	void *arg;
	struct wthread *threads;
	size_t nthreads, threads_cap;
	struct hmap index;		/* tid -> index + 1 */
	struct site *sites;
	size_t nsites, sites_cap;
	struct hmap site_index;		/* hash (+ probe) -> index + 1 */
	struct hmap unreadable_pids;	/* pid -> errno */
	pid_t unreadable;
	int unreadable_err;
	uint8_t *stack;
	struct profil_wall stats;
	uint64_t begin;			/* an attach's start: none counted before */
	/*
	 * Short blocks seen, by process and place (pid << 32 | site ->
	 * looks), and the unseen time of threads that had no short block
	 * seen themselves: at the end, placed as their process's were.
	 */
	struct hmap proc_looks;
	struct deferred { pid_t pid, tid; uint64_t ns; } *deferred;
	size_t ndeferred, deferred_cap;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct wall *
wall_new(struct builder *b, uint64_t poll_ns, unsigned stack_size,
    wall_unwinder unwinder, void *arg)
{
	struct wall *w = xcalloc(1, sizeof *w);

	w->b = b;
	w->poll_ns = poll_ns;
	w->stats.poll_ns = poll_ns;
	w->stack_size = stack_size;
	w->unwinder = unwinder;
	w->arg = arg;
	w->stack = xmalloc(stack_size ? stack_size : 1);
	hmap_init(&w->index);
	hmap_init(&w->site_index);
	hmap_init(&w->unreadable_pids);
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
	}
	for (size_t i = 0; i < w->nsites; i++)
		free(w->sites[i].frames);
	free(w->threads);
	free(w->sites);
	free(w->stack);
	hmap_free(&w->index);
	hmap_free(&w->site_index);
	hmap_free(&w->unreadable_pids);
	hmap_free(&w->proc_looks);
	free(w->deferred);
	free(w);
}

/* The site of frames, made if new. */
static uint32_t
site_of(struct wall *w, const struct bframe *frames, size_t n)
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

/* A stack of nothing but [off-cpu: code], its place not known. */
static uint32_t
site_unplaced(struct wall *w, uint64_t code)
{
	struct bframe f[2] = { { BFRAME_OFFCPU, code },
		{ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN } };

	return site_of(w, f, 2);
}

static struct wthread *
thread_of(struct wall *w, pid_t pid, pid_t tid)
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
	/* a tid used again (by another process): the index moves on */
	if (at != 0)
		hmap_add(&w->index, (uint64_t)(uint32_t)tid,
		    w->nthreads + 1 - at);
	else
		hmap_add(&w->index, (uint64_t)(uint32_t)tid, w->nthreads + 1);
	w->nthreads++;
	return t;
}

static struct acc *
acc_of(struct wthread *t, uint32_t site)
{
	for (size_t i = 0; i < t->naccs; i++)
		if (t->accs[i].site == site)
			return &t->accs[i];
	if (t->naccs == t->accs_cap) {
		t->accs_cap = t->accs_cap ? 2 * t->accs_cap : 4;
		t->accs = xrealloc(t->accs, t->accs_cap * sizeof *t->accs);
	}
	t->accs[t->naccs] = (struct acc){ site, 0, 0, 0, 0 };
	return &t->accs[t->naccs++];
}

/* len of t's time runnable: where its last CPU sample was (sampled). */
static void
add_runnable(struct wall *w, struct wthread *t, uint64_t len)
{
	struct bframe f[SITE_MAX];
	size_t n = t->nstack < SITE_MAX - 1 ? t->nstack : SITE_MAX - 1;
	uint32_t site;
	struct acc *a;

	f[0] = (struct bframe){ BFRAME_OFFCPU, PROFIL_OFFCPU_RUNNABLE };
	if (n > 0) {
		memcpy(&f[1], t->stack, n * sizeof *f);
		site = site_of(w, f, n + 1);
	} else
		site = site_unplaced(w, PROFIL_OFFCPU_RUNNABLE);
	a = acc_of(t, site);
	a->off_ns += len;
	if (n > 0) {		/* placed where the last sample was */
		a->sampled_ns += len;
		a->observations++;
	}
}

/* The interval off the CPU since t->since ends at end: place it. */
static void
end_interval(struct wall *w, struct wthread *t, uint64_t end)
{
	uint64_t len = end > t->since ? end - t->since : 0;
	struct acc *a;

	if (t->preempted) {
		add_runnable(w, t, len);
		return;
	}
	if (t->has_look && t->look_t1 >= t->since && t->look_t2 <= end) {
		a = acc_of(t, t->look_site);
		a->off_ns += len;
		if (len < 2 * w->poll_ns) {
			a->short_looks++;
			hmap_add(&w->proc_looks, (uint64_t)(uint32_t)t->pid << 32 |
			    t->look_site, 1);
		}
		t->has_look = 0;
		return;
	}
	if (t->has_look && t->look_t1 < t->since)
		t->has_look = 0;	/* between two intervals: nowhere */
	t->pool_ns += len;
}

/*
 * The thread's blocks never looked at go where the looks found its
 * short blocks, in proportion; then all its time to the builder.
 */
static void
flush(struct wall *w, struct wthread *t)
{
	uint64_t looks = 0, left = t->pool_ns;
	size_t last = 0;

	for (size_t i = 0; i < t->naccs; i++)
		if (t->accs[i].short_looks > 0) {
			looks += t->accs[i].short_looks;
			last = i;
		}
	if (left > 0 && looks > 0) {
		for (size_t i = 0; i < t->naccs; i++) {
			struct acc *a = &t->accs[i];
			uint64_t share;

			if (a->short_looks == 0)
				continue;
			share = i == last ? left : (uint64_t)((unsigned __int128)
			    t->pool_ns * a->short_looks / looks);
			share = share < left ? share : left;
			left -= share;
			a->off_ns += share;
			a->sampled_ns += share;
			a->observations += a->short_looks;
		}
	} else if (left > 0 &&
	    hmap_get(&w->unreadable_pids, (uint64_t)(uint32_t)t->pid)) {
		struct acc *a = acc_of(t,
		    site_unplaced(w, PROFIL_OFFCPU_BLOCKED));

		a->off_ns += left;
		a->sampled_ns += left;
		w->stats.unread_ns += left;
	} else if (left > 0) {
		/* none of its own seen: as its process's were (wall_finish) */
		if (w->ndeferred == w->deferred_cap) {
			w->deferred_cap = w->deferred_cap ? 2 * w->deferred_cap : 64;
			w->deferred = xrealloc(w->deferred,
			    w->deferred_cap * sizeof *w->deferred);
		}
		w->deferred[w->ndeferred++] = (struct deferred){ t->pid, t->tid,
		    left };
	}
	t->pool_ns = 0;
	for (size_t i = 0; i < t->naccs; i++) {
		const struct acc *a = &t->accs[i];
		const struct site *s = &w->sites[a->site];

		builder_offcpu(w->b, s->frames, s->n, a->off_ns, a->sampled_ns,
		    a->observations, t->pid, t->tid);
	}
	t->naccs = 0;
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
	struct wthread *t = thread_of(w, pid, tid);

	if (!in_order(t, time))
		return;		/* it has run already: its fork came late */
	if (t->state == T_OFF || t->state == T_UNKNOWN)
		end_interval(w, t, time);
	flush(w, t);
	t->state = T_OFF;
	t->preempted = 1;
	t->since = time;
	t->nstack = 0;
}

void
wall_thread_attach(struct wall *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct wthread *t = thread_of(w, pid, tid);

	t->state = T_UNKNOWN;
	t->preempted = 0;
	t->since = time;
	t->last = time;
	if (w->begin == 0 || time < w->begin)
		w->begin = time;
}

void
wall_switch_out(struct wall *w, pid_t pid, pid_t tid, uint64_t time,
    int preempted)
{
	struct wthread *t = thread_of(w, pid, tid);

	w->stats.switches++;
	if (!in_order(t, time))
		return;
	if (t->state == T_OFF)
		end_interval(w, t, time);	/* a switch in lost: no gap */
	/* unknown until now: it was running, not blocked */
	t->state = T_OFF;
	t->preempted = preempted;
	/* (attached: nothing before the recording began) */
	t->since = time < w->begin ? w->begin : time;
}

void
wall_switch_in(struct wall *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct wthread *t = thread_of(w, pid, tid);

	if (!in_order(t, time))
		return;
	if (t->state == T_OFF || t->state == T_UNKNOWN)
		end_interval(w, t, time);
	t->state = T_ON;
}

void
wall_thread_exit(struct wall *w, pid_t pid, pid_t tid, uint64_t time)
{
	struct wthread *t = thread_of(w, pid, tid);

	if (t->state == T_OFF || t->state == T_UNKNOWN)
		end_interval(w, t, time);
	flush(w, t);
	t->state = T_GONE;
}

void
wall_cpu_sample(struct wall *w, pid_t pid, pid_t tid, uint64_t time,
    const struct bframe *frames, size_t n)
{
	struct wthread *t = thread_of(w, pid, tid);

	/* running, though no switch in said so (lost with a full ring) */
	if (time != 0 && (t->state == T_OFF || t->state == T_UNKNOWN) &&
	    t->since < time && in_order(t, time)) {
		end_interval(w, t, time);
		t->state = T_ON;
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

/* Look at thread t, blocked (or unknown) and not looked at since. */
static void
look(struct wall *w, struct wthread *t)
{
	struct blocked_site bs;
	struct bframe f[SITE_MAX];
	struct unwind_space *uw;
	uint64_t t1 = now_ns();
	ssize_t got = 0;
	size_t n = 1;
	int rc;

	t->tried = t1;
	rc = blocked_site(t->pid, t->tid, &bs);
	if (rc == 0) {
		if (t->state == T_UNKNOWN)
			t->state = T_ON;	/* attached while it ran */
		return;
	}
	if (rc < 0) {
		if (errno == EACCES || errno == EPERM) {
			hmap_add(&w->unreadable_pids, (uint64_t)(uint32_t)t->pid,
			    (uint64_t)errno);
			if (w->unreadable == 0) {
				w->unreadable = t->pid;
				w->unreadable_err = errno;
			}
		}
		return;
	}
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
	t->look_site = site_of(w, f, n);
	t->look_t1 = t1;
	t->look_t2 = now_ns();
	t->has_look = 1;
}

int
wall_look_now(struct wall *w, pid_t pid, pid_t tid)
{
	struct wthread *t = thread_of(w, pid, tid);
	int had = t->has_look, rc;
	uint32_t site = t->look_site;

	if (hmap_get(&w->unreadable_pids, (uint64_t)(uint32_t)pid))
		return -1;
	t->has_look = 0;
	t->tried = 0;
	t->state = T_UNKNOWN;
	look(w, t);
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
wall_add_blocked(struct wall *w, pid_t pid, pid_t tid, uint64_t ns, int exact)
{
	struct wthread *t = thread_of(w, pid, tid);
	struct acc *a;

	if (ns == 0)
		return;
	if (!t->has_look) {
		t->pool_ns += ns;
		return;
	}
	a = acc_of(t, t->look_site);
	a->off_ns += ns;
	if (!exact) {
		a->sampled_ns += ns;
		a->observations++;
		a->short_looks++;
		hmap_add(&w->proc_looks, (uint64_t)(uint32_t)pid << 32 |
		    t->look_site, 1);
	}
}

void
wall_add_unseen(struct wall *w, pid_t pid, pid_t tid, uint64_t ns)
{
	thread_of(w, pid, tid)->pool_ns += ns;
}

void
wall_add_runnable(struct wall *w, pid_t pid, pid_t tid, uint64_t ns)
{
	if (ns > 0)
		add_runnable(w, thread_of(w, pid, tid), ns);
}

void
wall_thread_done(struct wall *w, pid_t pid, pid_t tid)
{
	struct wthread *t = thread_of(w, pid, tid);

	flush(w, t);
	t->state = T_GONE;
}

void
wall_look(struct wall *w)
{
	w->last_look = now_ns();
	for (size_t i = 0; i < w->nthreads; i++) {
		struct wthread *t = &w->threads[i];

		if (!(t->state == T_OFF && !t->preempted) && t->state != T_UNKNOWN)
			continue;
		/* looked at in this interval already (or found it running) */
		if (t->tried >= t->since)
			continue;
		if (hmap_get(&w->unreadable_pids, (uint64_t)(uint32_t)t->pid))
			continue;
		look(w, t);
	}
}

/*
 * Unseen time of a thread that had no short block seen: where its
 * process's short blocks were seen, in proportion, else nowhere known.
 */
static void
place_deferred(struct wall *w, const struct deferred *d, const uint64_t *keys,
    size_t nkeys)
{
	uint64_t looks = 0, left = d->ns;
	size_t lo = nkeys, hi = 0;
	struct bframe unplaced[2] = { { BFRAME_OFFCPU, PROFIL_OFFCPU_BLOCKED },
		{ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN } };

	for (size_t k = 0; k < nkeys; k++)
		if ((pid_t)(keys[k] >> 32) == d->pid) {
			looks += hmap_get(&w->proc_looks, keys[k]);
			lo = k < lo ? k : lo;
			hi = k + 1;
		}
	if (looks == 0) {
		builder_offcpu(w->b, unplaced, 2, d->ns, d->ns, 0, d->pid, d->tid);
		return;
	}
	for (size_t k = lo; k < hi && left > 0; k++) {
		uint64_t n = hmap_get(&w->proc_looks, keys[k]);
		const struct site *s = &w->sites[(uint32_t)keys[k]];
		uint64_t share = k + 1 == hi ? left : (uint64_t)((unsigned __int128)
		    d->ns * n / looks);

		share = share < left ? share : left;
		left -= share;
		if (share > 0)
			builder_offcpu(w->b, s->frames, s->n, share, share, n,
			    d->pid, d->tid);
	}
}

void
wall_finish(struct wall *w, uint64_t end)
{
	uint64_t *keys;
	size_t nkeys;

	for (size_t i = 0; i < w->nthreads; i++) {
		struct wthread *t = &w->threads[i];

		if (t->state == T_OFF || t->state == T_UNKNOWN)
			end_interval(w, t, end);
		if (t->state != T_GONE)
			flush(w, t);
		t->state = T_GONE;
	}
	keys = hmap_sorted_keys(&w->proc_looks, &nkeys);
	for (size_t i = 0; i < w->ndeferred; i++)
		place_deferred(w, &w->deferred[i], keys, nkeys);
	free(keys);
	builder_wall(w->b, &w->stats);
}

pid_t
wall_unreadable(const struct wall *w, int *err)
{
	*err = w->unreadable_err;
	return w->unreadable;
}
