/*
 * merge.h - several profiles of one program summed into one (`profil
 * merge`): more samples, so smaller error bars, from runs that could not
 * be one (several inputs, several machines of the same build).
 */
#ifndef PROFIL_MERGE_H
#define PROFIL_MERGE_H

#include <stddef.h>

#include <profil.h>

#include "cli.h"

/*
 * Sum in[0..n-1] (n >= 1; names[i] is how causes name in[i]) into a new
 * profile, stored in *out (free it with profil_profile_free()).
 *
 * The inputs must be of the same program, sampled the same way; otherwise
 * this returns -1 with a one-line cause naming the inputs that disagree:
 *   - all CPU profiles, or all wall profiles (record --wall): the cause
 *     names the CPU one;
 *   - the same sampling interval (a sample stands for the same CPU time);
 *   - the same engine (the engines count system-call time differently);
 *   - the same executable: record writes the program it started (or
 *     attached to) as the first object, so the first objects must be the
 *     same file: equal build-ids, or equal paths when either has none;
 *   - bucket sizes that are all equal, or all powers of two (the sum is
 *     then kept at the coarsest size; a bucket never straddles two);
 *   - totals that fit in 64 bits.
 *
 * Generated code ([jit]) is not one file across inputs: each input's
 * [jit] addresses are moved past those of the inputs before it (in the
 * inputs themselves, merge-jit.h), so each piece keeps its own name.
 *
 * Objects are the same file when their build-ids are equal (or, when
 * either has none, their paths); each input object is summed into the
 * first such object of the result that no object of the same input was
 * summed into already, so merging a profile with itself keeps its
 * objects.  Samples, kernel, unknown, lost, CPU and wall time are summed,
 * and so are the weights record's samples taken, squared weights and
 * budgets (an input without one counts its samples, each of weight 1),
 * the slowest interval the largest;
 * argv is the first input's, start the earliest; wall profiles' wall
 * records summed too (switches, reads, unread time; poll_ns the
 * largest), their off-CPU stacks summed as stacks are.  Threads and processes
 * of every input are kept as they are (they are facts of one run), unless
 * an input with samples has none: then the result has none, so that the
 * totals still add up.
 *
 * Call stacks are summed as merge-stacks.h says: kept when every input
 * with samples has them (else a line to warn says which has none),
 * frames moved to the result's objects and kernel addresses, identical
 * stacks (frames, pid, tid) summed.  Their timelines are kept as
 * merge-timeline.h says: the runs side by side, each from its own start
 * on one axis, re-sliced to the coarsest width (else, or when an input
 * with stacks has no timeline, none, and a line to warn says why).
 * Kept names (symbols) are the union
 * of the inputs', each once; the kernel's move with its addresses and go
 * where the result keeps none.
 */
int merge_profiles(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile **out, cli_warn_fn *warn, char *cause,
    size_t cause_size);

#endif
