/*
 * merge-stacks.h - the call stacks part of `profil merge` (merge.c calls
 * it once the result's objects and kernel record are made).
 */
#ifndef PROFIL_MERGE_STACKS_H
#define PROFIL_MERGE_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "cli.h"

/*
 * Where an input's kernel addresses land in the result: moved by delta
 * (placed), or nowhere when the result keeps no addresses of that kernel.
 */
struct merge_kplace {
	int placed;
	uint64_t delta;
};

/*
 * The stacks of in[0..n-1] into out, whose objects and kernel record are
 * made: where[i][j] is the result object of input i's object j, kp[i]
 * where its kernel addresses go.  Frames are renumbered for the result;
 * an input's kernel frames that are not placed become one address-less
 * kernel frame per run of them (as its samples become one [kernel] row);
 * stacks equal in frames, pid and tid are summed (counts, and a wall
 * profile's off-CPU time, sampled part and observations; its off-CPU
 * frames kept as they are, as unknown and cut ones).
 *
 * stack_at[i] (in[i]->nstacks entries, the caller's) receives the result
 * stack each of input i's stacks was summed into (merge-timeline.c moves
 * their timelines by it), when the result keeps stacks.
 *
 * The result gets no stacks, and a line to warn says why, when an input
 * with samples has none (its samples would have no stack: the leaves
 * could not add up) or when they would hold more frames than the reader
 * takes (merge_max_stack_frames).
 */
void merge_stacks(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile *out, size_t *const *where,
    const struct merge_kplace *kp, uint32_t *const *stack_at,
    cli_warn_fn *warn);

/*
 * lib/codec/prf-decode-stacks.c's MAX_STACK_FRAMES: expanded frames of all
 * stacks it reads.
 */
extern size_t merge_max_stack_frames;

#endif
