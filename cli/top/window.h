/*
 * window.h - `profil top`'s window: the profiles of a recording's newest
 * periods (record/core/periods.h hands them over as they end), kept for
 * the window's length and no longer, and summed into the one profile
 * the views show (profile/merge.h).  The periods are of one run, so the
 * sum's threads and processes, which merge keeps input by input, are
 * summed as well: a thread is one row however many periods it ran in.
 */
#ifndef PROFIL_TOP_WINDOW_H
#define PROFIL_TOP_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

struct top_window {
	struct profil_profile **periods;	/* oldest first */
	size_t n, cap;
	uint64_t span_ns;			/* the window's length */
};

void top_window_init(struct top_window *w, uint64_t span_ns);
void top_window_free(struct top_window *w);

/*
 * q, a period's profile (start_ns and duration_ns its own, the next
 * period starting where it ends), kept: the window's to free.  The
 * periods that ended span_ns or more before q's end are dropped, so the
 * window holds span_ns and at most a period more.
 */
void top_window_push(struct top_window *w, struct profil_profile *q);

/* A new length: what it leaves out dropped now. */
void top_window_resize(struct top_window *w, uint64_t span_ns);

/*
 * The time the periods cover (CLOCK_REALTIME ns): the oldest's start,
 * the newest's end; both 0 when there is none yet.
 */
void top_window_span(const struct top_window *w, int64_t *start,
    int64_t *end);

/*
 * The periods summed into *out (free it with profil_profile_free),
 * threads by pid and tid and processes by pid summed, each with its
 * newest name and status: 0, or -1 with a one-line cause (*out NULL),
 * as merge_profiles refuses, or when there is no period yet.
 */
int top_window_merge(const struct top_window *w, struct profil_profile **out,
    char *cause, size_t cause_size);

#endif
