/*
 * wall-internal.h - what the files of record --wall's accounting share;
 * wall.h is their contract with the engines.  Private to
 * cli/record/wall*.c (wall-stat.c, a source, uses wall.h only).
 *
 *   wall.c           threads, sites and switches, the looks at blocked
 *                    threads, and the entry points of a switch source
 *   wall-place.c     where each interval off the CPU goes, and the end
 *   wall-counters.c  the entry points of a source of counters instead
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

#include "builder.h"
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

/* The site of frames, made if new. */
uint32_t wall_site_of(struct wall *w, const struct bframe *frames,
    size_t n);

/* A stack of nothing but [off-cpu: code], its place not known. */
uint32_t wall_site_unplaced(struct wall *w, uint64_t code);

/* Thread tid of pid, made if new (running, nothing counted). */
struct wthread *wall_thread_of(struct wall *w, pid_t pid, pid_t tid);

/* t's time at site, made if new (at 0). */
struct acc *wall_acc_of(struct wthread *t, uint32_t site);

/* Look at thread t, blocked (or unknown) and not looked at since. */
void wall_look_thread(struct wall *w, struct wthread *t);

/* ---- wall-place.c -------------------------------------------------------- */

/* len of t's time runnable: where its last CPU sample was (sampled). */
void wall_place_runnable(struct wall *w, struct wthread *t, uint64_t len);

/* The interval off the CPU since t->since ends at end: place it. */
void wall_end_interval(struct wall *w, struct wthread *t, uint64_t end);

/*
 * The thread's blocks never looked at go where the looks found its
 * short blocks, in proportion; then all its time to the builder.
 */
void wall_flush(struct wall *w, struct wthread *t);

#endif
