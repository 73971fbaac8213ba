/*
 * merge-timeline.h - the timelines part of `profil merge` (merge.c calls
 * it once the result's stacks are made).
 */
#ifndef PROFIL_MERGE_TIMELINE_H
#define PROFIL_MERGE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "cli.h"

/*
 * The timelines of in[0..n-1] into out, whose stacks are made
 * (stack_at[i][j]: the result stack input i's stack j was summed into,
 * from merge_stacks).  The runs lie side by side: each input's slice k
 * is its own run's time from its own start, on one axis, so that slice
 * k of the result holds what every run did in it.  Slices are re-sliced
 * to the coarsest input's width, every other a whole division of it (the
 * recorder's widths are powers of two of ns, so they are), and the
 * result has as many slices as the longest input once re-sliced.  Each
 * result stack's entries sum to its count (or off_ns), as the reader
 * checks, since each input's did.
 *
 * The result gets no timeline, and a line to warn says why, when an
 * input with stacks has none (its samples would have no time: the
 * slices could not add up to the stacks), when a width is not a whole
 * division of the coarsest, or when the slices would run past 2^64 ns.
 * Nothing is said when no input has a timeline, or the result no stacks
 * (merge_stacks said why).
 */
void merge_timeline(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile *out, uint32_t *const *stack_at,
    cli_warn_fn *warn);

#endif
