/*
 * wall-place.c - where a thread's time off the CPU goes (wall.h's three
 * ways, wall-internal.h): an interval placed at its look, its runnable
 * time at its last CPU sample, its blocks never looked at where its
 * short blocks were seen, else where its process's were; then to the
 * builder.  Invariant: every nanosecond is placed once, at one stack.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "record/core/clock.h"
#include "record/core/timeline.h"
#include "wall-internal.h"

uint64_t
wall_tl_key(const struct wall *w, const struct wthread *t, uint32_t site)
{
	return BUILDER_TL_CALLER | (uint64_t)(t - w->threads) << 32 | site;
}

void
wall_tl_span(struct wall *w, const struct wthread *t, uint32_t site,
    uint64_t start, uint64_t len)
{
	struct timeline *tl = builder_timeline_of(w->b);

	if (tl == NULL || len == 0)
		return;
	timeline_add_span(tl, wall_tl_key(w, t, site), start, len);
	timeline_add_span(tl, wall_tl_key(w, t, WALL_TL_ALL), start, len);
}

void
wall_place_runnable(struct wall *w, struct wthread *t, uint64_t start,
    uint64_t len)
{
	struct bframe f[SITE_MAX];
	size_t n = t->nstack < SITE_MAX - 1 ? t->nstack : SITE_MAX - 1;
	uint32_t site;
	struct acc *a;

	f[0] = (struct bframe){ BFRAME_OFFCPU, PROFIL_OFFCPU_RUNNABLE };
	if (n > 0) {
		memcpy(&f[1], t->stack, n * sizeof *f);
		site = wall_site_of(w, f, n + 1);
	} else
		site = wall_site_unplaced(w, PROFIL_OFFCPU_RUNNABLE);
	a = wall_acc_of(t, site);
	a->off_ns += len;
	a->intervals++;
	wall_tl_span(w, t, site, start, len);
	if (n > 0) {		/* placed where the last sample was */
		a->sampled_ns += len;
		a->observations++;
	}
}

void
wall_end_interval(struct wall *w, struct wthread *t, uint64_t end)
{
	uint64_t len = end > t->since ? end - t->since : 0;
	struct acc *a;

	if (t->state == T_OFF && t->preempted) {
		t->sw.pre += len;
		t->sw.npre++;
	} else if (t->state == T_OFF) {
		t->sw.blk += len;
		t->sw.nblk++;
	}
	if (t->preempted) {
		wall_place_runnable(w, t, t->since, len);
		return;
	}
	if (t->has_look && t->look_t1 >= t->since && t->look_t2 <= end) {
		a = wall_acc_of(t, t->look_site);
		a->off_ns += len;
		a->intervals++;
		wall_tl_span(w, t, t->look_site, t->since, len);
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
	t->pool_n++;
	wall_tl_span(w, t, WALL_TL_POOL, t->since, len);
}

/* Where time with no shape of its own goes in the timeline: t's last. */
static uint64_t
fallback_time(const struct wthread *t)
{
	return t->last != 0 ? t->last : record_now_ns();
}

/* share of t's pooled time to the account at site, in the timeline. */
static void
tl_from_pool(struct wall *w, const struct wthread *t, uint32_t site,
    uint64_t share)
{
	struct timeline *tl = builder_timeline_of(w->b);

	if (tl != NULL)
		timeline_move(tl, wall_tl_key(w, t, WALL_TL_POOL),
		    wall_tl_key(w, t, site), share, fallback_time(t));
}

/*
 * The timeline's key whose shape the account at site has: its own, or
 * where it has none (time moved to it as the kernel's count settled),
 * all of the thread's time off the CPU.
 */
static uint64_t
tl_shape(struct wall *w, const struct wthread *t, uint32_t site)
{
	struct timeline *tl = builder_timeline_of(w->b);

	if (tl == NULL)
		return BUILDER_TL_NONE;
	if (timeline_total(tl, wall_tl_key(w, t, site)) > 0)
		return wall_tl_key(w, t, site);
	if (timeline_total(tl, wall_tl_key(w, t, WALL_TL_ALL)) > 0)
		return wall_tl_key(w, t, WALL_TL_ALL);
	return BUILDER_TL_NONE;
}

static void flush(struct wall *w, struct wthread *t, int final);

void
wall_flush(struct wall *w, struct wthread *t)
{
	flush(w, t, 1);
}

void
wall_flush_period(struct wall *w, struct wthread *t)
{
	flush(w, t, 0);
}

static void
flush(struct wall *w, struct wthread *t, int final)
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
			tl_from_pool(w, t, a->site, share);
			a->observations += a->short_looks;
			/* its intervals too, likewise */
			a->intervals += (uint64_t)((unsigned __int128)t->pool_n *
			    a->short_looks / looks);
		}
	} else if (left > 0 &&
	    wall_pid_unreadable(w, t->pid)) {
		struct acc *a = wall_acc_of(t,
		    wall_site_unplaced(w, PROFIL_OFFCPU_BLOCKED));

		tl_from_pool(w, t, a->site, left);
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
		    left, tl_shape(w, t, WALL_TL_POOL), fallback_time(t) };
	}
	t->pool_ns = 0;
	t->pool_n = 0;
	if (final)
		wall_truth_settle(w, t);
	for (size_t i = 0; i < t->naccs; i++) {
		const struct acc *a = &t->accs[i];
		const struct site *s = &w->sites[a->site];

		builder_offcpu(w->b, s->frames, s->n, a->off_ns, a->sampled_ns,
		    a->observations, t->pid, t->tid, tl_shape(w, t, a->site),
		    fallback_time(t));
		if (builder_timeline_of(w->b) != NULL)
			timeline_drop(builder_timeline_of(w->b),
			    wall_tl_key(w, t, a->site));
	}
	t->naccs = 0;
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
		builder_offcpu(w->b, unplaced, 2, d->ns, d->ns, 0, d->pid, d->tid,
		    d->shape, d->at);
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
			    d->pid, d->tid, d->shape, d->at);
	}
}

/* The time of threads with no short block of their own seen, placed. */
static void
place_all_deferred(struct wall *w)
{
	uint64_t *keys;
	size_t nkeys;

	keys = hmap_sorted_keys(&w->proc_looks, &nkeys);
	for (size_t i = 0; i < w->ndeferred; i++)
		place_deferred(w, &w->deferred[i], keys, nkeys);
	free(keys);
	w->ndeferred = 0;
}

/* The wall record of the time since the last period's end. */
static void
wall_record(struct wall *w)
{
	struct profil_wall s = w->stats;

	s.switches -= w->stats_cut.switches;
	s.reads -= w->stats_cut.reads;
	s.unread_ns -= w->stats_cut.unread_ns;
	builder_wall(w->b, &s);
	w->stats_cut = w->stats;
}

void
wall_cut(struct wall *w, uint64_t now)
{
	for (size_t i = 0; i < w->nthreads; i++) {
		struct wthread *t = &w->threads[i];
		int placed;

		if (t->state == T_GONE)
			continue;
		if (t->state == T_OFF || t->state == T_UNKNOWN) {
			/* seen where it is, and blocked there since */
			placed = !t->preempted && t->has_look &&
			    t->look_t1 >= t->since;
			wall_end_interval(w, t, now);
			t->since = now;
			if (placed) {
				t->has_look = 1;
				t->look_t1 = t->look_t2 = now;
			}
		}
		wall_flush_period(w, t);
	}
	place_all_deferred(w);
	wall_record(w);
}

void
wall_finish(struct wall *w, uint64_t end)
{
	for (size_t i = 0; i < w->nthreads; i++) {
		struct wthread *t = &w->threads[i];

		/* read last while the thread may still be there */
		if (t->state != T_GONE)
			wall_read_truth_one(w, t, end);
		if (t->state == T_OFF || t->state == T_UNKNOWN)
			wall_end_interval(w, t, end);
		else if (t->state == T_ON && t->on_since != 0 &&
		    end > t->on_since)
			t->sw.on += end - t->on_since;
		if (t->state != T_GONE)
			wall_flush(w, t);
		t->state = T_GONE;
	}
	place_all_deferred(w);
	wall_record(w);
}
