/*
 * wall-internal.h - what the files of record --wall's accounting share;
 * wall.h is their contract with the engines.  Private to
 * cli/record/wall/wall*.c (cli/record/timer/wall-stat.c, a source,
 * uses wall.h only).
 *
 *   wall-tables.c    a wall made and freed; its threads, sites and
 *                    accounts; the processes that could not be read
 *   wall-truth.c     the kernel's own count of each thread's time (its
 *                    schedstat), which the switches' measure is made to
 *                    agree with, and the CPU time no sample stood for
 *   wall-place.c     where each interval off the CPU goes, and the end
 *   wall.c           the switches applied in order, the looks at
 *                    blocked threads: the entry points of a switch source
 *   wall-counters.c  the entry points of a source of counters instead
 *
 * Each calls only the files above it in this list.
 *
 * Invariant: every nanosecond between a thread's switch out and its
 * next switch in goes to exactly one stack of that thread; a look
 * places an interval only if it was taken wholly inside it.
 */
#ifndef PROFIL_RECORD_WALL_INTERNAL_H
#define PROFIL_RECORD_WALL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <profil.h>

#include "hmap.h"
#include "record/core/builder.h"
#include "record/unwind/unwind.h"
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
	uint64_t intervals;	/* off the CPU here so many times */
};

/*
 * A thread's time by its switches, at some moment: on the CPU, off it
 * preempted (runnable) and blocked, and its intervals off; with what
 * its schedstat said then (wall-truth.c).
 */
struct wsnap {
	uint64_t on, pre, blk, npre, nblk;
	uint64_t run, rq;		/* schedstat: on the CPU, runnable */
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
	uint64_t pool_n;	/*   in so many intervals */
	struct acc *accs;
	size_t naccs, accs_cap;
	/* its time by its switches so far (wsnap's fields, ended intervals) */
	uint64_t on_since;	/* T_ON: since when */
	struct wsnap sw;
	/* the kernel's count (wall-truth.c) */
	int stat_fd;		/* its schedstat, open; -1 not yet, -2 none */
	int reads;		/* readings taken: the first and last kept */
	struct wsnap read_first, read_last;
	uint64_t run_ns;	/* its time on the CPU, once known (0: not) */
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
	/*
	 * Processes a look was refused at (EACCES, EPERM), tried again
	 * later: a process is refused for a moment at its exec too (its
	 * new image not dumpable yet), and one refusal must not cost it
	 * every stack of the run.
	 */
	struct unread {
		pid_t pid;
		int err;
		int read;		/* a look since succeeded */
		uint64_t retry_at, backoff;
	} *unread;
	size_t nunread, unread_cap;
	uint8_t *stack;
	struct profil_wall stats;
	struct profil_wall stats_cut;	/* stats at the last period's end */
	uint64_t begin;			/* an attach's start: none counted before */
	/*
	 * Short blocks seen, by process and place (pid << 32 | site ->
	 * looks), and the unseen time of threads that had no short block
	 * seen themselves: at the end, placed as their process's were.
	 */
	struct hmap proc_looks;
	struct deferred { pid_t pid, tid; uint64_t ns, shape, at; } *deferred;
	size_t ndeferred, deferred_cap;
	/*
	 * Threads done whose time on the CPU the kernel counted: at the end,
	 * what their samples do not stand for goes to their sites off the
	 * CPU (wall_fill_cpu), in proportion to their intervals there.
	 */
	uint64_t period_ns;		/* what a sample stands for */
	struct counted {
		pid_t pid, tid;
		uint64_t run_ns;
		size_t nsites;
		struct { uint32_t site; uint64_t intervals; } *sites;
	} *counted;
	size_t ncounted, counted_cap;
	uint64_t last_read;		/* the threads' schedstat read then */
};

/* ---- wall-tables.c ------------------------------------------------------- */

/* The site of frames, made if new. */
uint32_t wall_site_of(struct wall *w, const struct bframe *frames,
    size_t n);

/* A stack of nothing but [off-cpu: code], its place not known. */
uint32_t wall_site_unplaced(struct wall *w, uint64_t code);

/* Thread tid of pid, made if new (running, nothing counted). */
struct wthread *wall_thread_of(struct wall *w, pid_t pid, pid_t tid);

/* t's time at site, made if new (at 0). */
struct acc *wall_acc_of(struct wthread *t, uint32_t site);

/* A look at pid was refused at now: not tried again for a while. */
void wall_pid_refused(struct wall *w, pid_t pid, int err, uint64_t now);
/* A look at pid was not refused. */
void wall_pid_read(struct wall *w, pid_t pid);
/* Whether pid's threads could not be read (last time they were tried). */
int wall_pid_unreadable(const struct wall *w, pid_t pid);
/* Whether they were refused, and are not to be tried again before now. */
int wall_pid_resting(const struct wall *w, pid_t pid, uint64_t now);

/* ---- wall-truth.c -------------------------------------------------------- */

/* t's switches say so much by time (its open interval to time too). */
struct wsnap wall_snap(const struct wthread *t, uint64_t time);
/*
 * Read the schedstat of thread t at now if it ran or switched since its
 * last reading (opened on first sight); of every thread.
 */
void wall_read_truth_one(struct wall *w, struct wthread *t, uint64_t now);
void wall_read_truth(struct wall *w, uint64_t now);
/*
 * Before t's time goes to the builder: where the kernel counted its time
 * on the CPU and runnable, its sites off the CPU are made to agree (the
 * switches' measure takes the kernel's own work around each switch as
 * time off the CPU: the CPU part goes out of each interval alike, and a
 * woken thread's wait for a CPU from its blocked sites to the runnable
 * ones beside them); its count and sites are kept for wall_fill_cpu.
 */
void wall_truth_settle(struct wall *w, struct wthread *t);

/* ---- wall-place.c -------------------------------------------------------- */

/* len of t's time runnable: where its last CPU sample was (sampled). */
void wall_place_runnable(struct wall *w, struct wthread *t, uint64_t start,
    uint64_t len);
/*
 * The timeline's keys of thread t's time off the CPU (builder.h's
 * caller keys): at a site, pooled (its place decided at its end), and
 * all of it (the shape of what has no shape of its own).
 */
#define WALL_TL_POOL	UINT32_MAX
#define WALL_TL_ALL	(UINT32_MAX - 1)
uint64_t wall_tl_key(const struct wall *w, const struct wthread *t,
    uint32_t site);
/* Where an interval of ns ending at end starts (0 at the earliest). */
static inline uint64_t
wall_tl_start(uint64_t end, uint64_t ns)
{
	return end > ns ? end - ns : 0;
}
/* len ns from start, of t, at site (or WALL_TL_POOL), in the timeline. */
void wall_tl_span(struct wall *w, const struct wthread *t, uint32_t site,
    uint64_t start, uint64_t len);

/* The interval off the CPU since t->since ends at end: place it. */
void wall_end_interval(struct wall *w, struct wthread *t, uint64_t end);

/*
 * The thread's blocks never looked at go where the looks found its
 * short blocks, in proportion; then all its time to the builder.
 */
void wall_flush(struct wall *w, struct wthread *t);
/* wall_flush of a thread that goes on: not settled with the kernel. */
void wall_flush_period(struct wall *w, struct wthread *t);

/* ---- wall.c -------------------------------------------------------------- */

/* Look at thread t, blocked (or unknown) and not looked at since. */
void wall_look_thread(struct wall *w, struct wthread *t);

#endif
