/*
 * wall-truth.c - the kernel's own count of each thread's time, which
 * record --wall agrees with (wall-internal.h): its schedstat (time on
 * the CPU, time runnable), read while the recording runs; the switches'
 * measure settled to it at the thread's end; and, at the recording's
 * end, the CPU time its samples did not stand for, placed.
 *
 * Invariant: settling moves time between a thread's sites and kinds,
 * never makes or loses any: its time on the CPU, runnable and blocked
 * still add up to its life.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "record/core/procfs.h"
#include "wall-internal.h"

struct wsnap
wall_snap(const struct wthread *t, uint64_t time)
{
	struct wsnap s = t->sw;

	if (t->state == T_ON && t->on_since != 0 && time > t->on_since)
		s.on += time - t->on_since;
	else if (t->state == T_OFF && time > t->since) {
		if (t->preempted)
			s.pre += time - t->since;
		else
			s.blk += time - t->since;
	}
	return s;
}

/*
 * A thread's counters change only when it runs or switches: one that
 * stayed off the CPU since its last reading is not read again.  A
 * running thread's are read as they are (the kernel brings them up to
 * date at its ticks and switches: up to a tick behind, whose error the
 * next reading takes back).
 */
void
wall_read_truth_one(struct wall *w, struct wthread *t, uint64_t now)
{
	struct procfs_schedstat c;
	struct wsnap s;
	char path[64];

	(void)w;
	if (t->state == T_GONE || t->stat_fd == -2)
		return;
	if (t->stat_fd == -1) {
		snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat",
		    (int)t->pid, (int)t->tid);
		t->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (t->stat_fd < 0) {
			t->stat_fd = -2;
			return;
		}
	}
	s = wall_snap(t, now);
	if (t->reads > 0 && t->state != T_ON &&
	    s.npre + s.nblk == t->read_last.npre + t->read_last.nblk)
		return;
	if (procfs_read_schedstat(t->stat_fd, &c) < 0) {
		close(t->stat_fd);
		t->stat_fd = -2;
		return;
	}
	s.run = c.run_ns;
	s.rq = c.wait_ns;
	if (t->reads++ == 0)
		t->read_first = s;
	t->read_last = s;
}

void
wall_read_truth(struct wall *w, uint64_t now)
{
	for (size_t i = 0; i < w->nthreads; i++)
		wall_read_truth_one(w, &w->threads[i], now);
	w->last_read = now;
}

/* a - b, or 0 */
static uint64_t
minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* t's sites, and the kernel's count of its time on the CPU: kept. */
static void
keep_counted(struct wall *w, const struct wthread *t, uint64_t run_ns)
{
	struct counted *c;

	if (w->ncounted == w->counted_cap) {
		w->counted_cap = w->counted_cap ? 2 * w->counted_cap : 64;
		w->counted = xrealloc(w->counted,
		    w->counted_cap * sizeof *w->counted);
	}
	c = &w->counted[w->ncounted++];
	c->pid = t->pid;
	c->tid = t->tid;
	c->run_ns = run_ns;
	c->nsites = t->naccs;
	c->sites = xcalloc(t->naccs + 1, sizeof *c->sites);
	for (size_t i = 0; i < t->naccs; i++) {
		c->sites[i].site = t->accs[i].site;
		c->sites[i].intervals = t->accs[i].intervals;
	}
}

/* The site of s's user stack under [off-cpu: runnable]. */
static uint32_t
runnable_beside(struct wall *w, uint32_t site)
{
	const struct site *s = &w->sites[site];
	struct bframe f[SITE_MAX];
	size_t n = s->n < SITE_MAX ? s->n : SITE_MAX;

	memcpy(f, s->frames, n * sizeof *f);
	f[0] = (struct bframe){ BFRAME_OFFCPU, PROFIL_OFFCPU_RUNNABLE };
	return wall_site_of(w, f, n);
}

/*
 * The switches' measure against the kernel's.  A switch record is
 * written before the kernel's work of switching is done, and the one
 * back after (on a VM, arming and cancelling the task clock's timer
 * alone took some 25 us a round trip): that CPU time falls in the
 * interval off the CPU, the same at each one.  A block's wait for a CPU
 * once woken is not told by the switches at all, and is the same at
 * each wake-up, about.  What the kernel counted between the thread's
 * first and last readings tells both per switch; before and after them,
 * they are taken as the same.  Then each interval gives up its part of
 * the CPU time (to wall_fill_cpu), and each block its wake-up wait, to
 * a runnable site with the same stack.
 */
void
wall_truth_settle(struct wall *w, struct wthread *t)
{
	struct wsnap all = t->sw, d;
	uint64_t run, rq, n, won, wpre, wnblk;
	double cpu_each, wake_each, x, wb;
	size_t naccs = t->naccs;

	if (t->reads < 2) {
		if (t->run_ns > 0)	/* counted by a source of counters */
			keep_counted(w, t, t->run_ns);
		t->run_ns = 0;
		return;
	}
	d.on = minus(t->read_last.on, t->read_first.on);
	d.pre = minus(t->read_last.pre, t->read_first.pre);
	d.npre = minus(t->read_last.npre, t->read_first.npre);
	d.nblk = minus(t->read_last.nblk, t->read_first.nblk);
	d.run = minus(t->read_last.run, t->read_first.run);
	d.rq = minus(t->read_last.rq, t->read_first.rq);
	n = d.npre + d.nblk;
	cpu_each = n > 0 ? (double)minus(d.run, d.on) / (double)n : 0;
	wake_each = d.nblk > 0 ? ((double)d.rq - ((double)d.pre - cpu_each *
	    (double)d.npre)) / (double)d.nblk : 0;
	if (wake_each < 0)
		wake_each = 0;
	/* outside the readings: as inside, switch for switch */
	won = minus(all.on, d.on);
	wpre = minus(all.pre, d.pre);
	wnblk = minus(all.nblk, d.nblk);
	run = d.run + won + (uint64_t)(cpu_each * (double)(minus(all.npre,
	    d.npre) + wnblk));
	rq = d.rq + minus(wpre, (uint64_t)(cpu_each * (double)minus(all.npre,
	    d.npre))) + (uint64_t)(wake_each * (double)wnblk);
	n = all.npre + all.nblk;
	x = n > 0 ? (double)minus(run, all.on) / (double)n : 0;
	wb = all.nblk > 0 ? (double)minus(rq, minus(all.pre,
	    (uint64_t)(x * (double)all.npre))) / (double)all.nblk : 0;
	for (size_t i = 0; i < naccs; i++) {
		struct acc *a = &t->accs[i];
		uint64_t cut = (uint64_t)(x * (double)a->intervals), move;
		uint32_t site = a->site, to;
		struct acc *r;

		cut = cut < a->off_ns ? cut : a->off_ns;
		a->off_ns -= cut;
		if (w->sites[site].frames[0].value == PROFIL_OFFCPU_RUNNABLE ||
		    wb <= 0)
			continue;
		move = (uint64_t)(wb * (double)a->intervals);
		move = move < a->off_ns ? move : a->off_ns;
		if (move == 0)
			continue;
		a->off_ns -= move;
		if (a->sampled_ns > a->off_ns)
			a->sampled_ns = a->off_ns;
		to = runnable_beside(w, site);
		r = wall_acc_of(t, to);	/* (may move t->accs) */
		r->off_ns += move;
		r->sampled_ns += move;
		r->observations += t->accs[i].intervals;
	}
	for (size_t i = 0; i < t->naccs; i++)
		if (t->accs[i].sampled_ns > t->accs[i].off_ns)
			t->accs[i].sampled_ns = t->accs[i].off_ns;
	keep_counted(w, t, run);
	/* counted once: a flush again (a tid used again) finds nothing */
	t->reads = 0;
	if (t->stat_fd >= 0)
		close(t->stat_fd);
	t->stat_fd = -2;
}

/*
 * The CPU time a counted thread's samples do not stand for (its clock's
 * fires lost in the kernel's switching, a sample period's remainder): to
 * its sites off the CPU in proportion to its intervals there, where the
 * switching was, as kernel time under their user stacks.
 */
void
wall_fill_cpu(struct wall *w)
{
	struct bframe f[SITE_MAX + 1];

	for (size_t i = 0; i < w->ncounted; i++) {
		const struct counted *c = &w->counted[i];
		uint64_t have = builder_thread_count(w->b, c->pid, c->tid) *
		    w->period_ns, want, left, total = 0;
		size_t last = c->nsites;

		if (c->run_ns < have + w->period_ns / 2)
			continue;
		want = (c->run_ns - have + w->period_ns / 2) / w->period_ns;
		for (size_t k = 0; k < c->nsites; k++)
			if (c->sites[k].intervals > 0) {
				total += c->sites[k].intervals;
				last = k;
			}
		f[0] = (struct bframe){ BFRAME_KERNEL, PROFIL_KERNEL_UNSAMPLED };
		if (total == 0) {
			f[1] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_UNSEEN };
			builder_cpu_fill(w->b, f, 2, want, c->pid, c->tid);
			continue;
		}
		left = want;
		for (size_t k = 0; k < c->nsites && left > 0; k++) {
			const struct site *s = &w->sites[c->sites[k].site];
			uint64_t share = k == last ? left : (uint64_t)(
			    (unsigned __int128)want * c->sites[k].intervals /
			    total);
			size_t m = s->n;

			if (share == 0 || c->sites[k].intervals == 0)
				continue;
			share = share < left ? share : left;
			left -= share;
			/* the off-CPU leaf's user stack, under the kernel */
			memcpy(&f[1], &s->frames[1], (m - 1) * sizeof *f);
			if (m == 1)
				f[m++] = (struct bframe){ BFRAME_CUT,
				    PROFIL_CUT_UNSEEN };
			builder_cpu_fill(w->b, f, m, share, c->pid, c->tid);
		}
	}
}
