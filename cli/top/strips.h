/*
 * strips.h - the threads of `profil top`'s window, each with a strip
 * across the window's time, a column a slice of it: how much of the
 * column the thread spent on the CPU (its samples' CPU time, from the
 * periods' timelines: when each stack's samples came) and, in a wall
 * profile, off it; its CPU and off-CPU time in the window, and what it
 * waited in longest (off-CPU leaves, symbols/offcpu.h).
 *
 * Each period is summed up as it comes (top_threads_add: its threads'
 * time in TOP_STRIP_BINS bins of it), so that a frame reads bins, not
 * the periods' timelines again: a thread blocked for a whole period has
 * an entry in each of its thousand-odd slices.
 */
#ifndef PROFIL_TOP_STRIPS_H
#define PROFIL_TOP_STRIPS_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#define TOP_STRIP_BINS	32	/* a period's time, in bins: 7.8 ms of 250 */
#define TOP_STRIP_WAITS	2	/* the waits shown a thread, longest first */

struct top_wait {
	uint64_t code;		/* an off-CPU frame's addr: what it waited in */
	uint64_t ns;
};

/* The periods' threads, summed up, oldest first. */
struct top_threads {
	struct top_period_threads **periods;
	size_t n, cap;
};

void top_threads_init(struct top_threads *h);
void top_threads_free(struct top_threads *h);
/*
 * Period q summed up: each CPU sample (count x interval) and each
 * nanosecond off the CPU in the bin of its timeline slice's middle; a
 * period without a timeline, its time spread over the period.  q may be
 * freed after.
 */
void top_threads_add(struct top_threads *h, const struct profil_profile *q);
/* The periods that ended at or before start_ns dropped. */
void top_threads_trim(struct top_threads *h, int64_t start_ns);

struct top_thread {
	uint32_t pid, tid;
	const char *name;	/* the newest period's (h's) */
	uint64_t cpu_ns, off_ns;	/* in the window */
	struct top_wait waits[TOP_STRIP_WAITS];	/* ns 0: none */
	double *cpu, *off;	/* a column each: ns on, off the CPU */
};

struct top_strips {
	struct top_thread *threads;	/* by pid, then tid */
	size_t n;
	int columns;
	int64_t start_ns, end_ns;	/* the time across (CLOCK_REALTIME) */
};

/*
 * The threads of h's periods in columns columns across [start_ns,
 * end_ns): each bin's time shared among the columns it overlaps.  h
 * must outlive s (the names).
 */
void top_strips_build(struct top_strips *s, const struct top_threads *h,
    int64_t start_ns, int64_t end_ns, int columns);
void top_strips_free(struct top_strips *s);

/*
 * Thread t's strip in buf, a character a column: blank where it did not
 * run, else its CPU time's share of the column in eighths, rounded, from
 * one (or less) to eight ("▁" to "█" in UTF-8, ".:-=+*#@" in ASCII);
 * where it ran for under an eighth and was off the CPU for half the
 * column or more, "░" (ASCII "~").  Returns buf.
 */
const char *top_strip_text(const struct top_strips *s,
    const struct top_thread *t, int utf8, char *buf, size_t size);

#endif
