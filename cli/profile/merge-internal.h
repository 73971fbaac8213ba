/*
 * merge-internal.h - what merge.c, merge-objects.c and merge-kernel.c
 * share; merge.h is their contract with the command.  Private to
 * cli/profile/merge*.c.
 *
 *   merge-objects.c  the objects matched, their histograms summed
 *   merge-kernel.c   the kernel's samples and the kept names
 *   merge.c          the checks, the totals, threads and processes, and
 *                    the parts in order (merge-stacks.c, merge-timeline.c,
 *                    merge-lines.c, merge-jit.c have headers of their own)
 *
 * Each calls only the files above it in this list.
 *
 * Invariant: the result adds up as its inputs did (merge.c's head
 * comment says how).
 */
#ifndef PROFIL_MERGE_INTERNAL_H
#define PROFIL_MERGE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "cli.h"
#include "merge-stacks.h"

/* The same file: equal build-ids, or equal paths when either has none. */
int merge_same_file(const struct profil_object *a,
    const struct profil_object *b);

/*
 * dst (sorted, distinct addresses of the result) plus src's buckets moved
 * to the result's: a new array, sorted with distinct addresses, in *n.
 */
struct profil_bucket *merge_buckets(const struct profil_bucket *dst,
    size_t ndst, const struct profil_object *src, uint64_t lowpc,
    unsigned target, size_t *n);

/*
 * The objects of the result, matched across the inputs (where[i][j]
 * receives the result object that object j of input i goes to; ranges
 * are the union of the matched ones), and every input's buckets summed
 * into them at target bytes a bucket.
 */
void merge_objects(struct profil_profile *const *in, size_t n,
    unsigned target, struct profil_profile *out, size_t **where);

/*
 * The kernel records of the inputs summed, at the addresses of the first
 * input's boot: another boot of the same kernel is moved by the
 * difference of _text.  When an input with kernel samples has no kernel
 * record, or another kernel, or a boot that cannot be placed, the result
 * keeps the kernel counts without addresses, and says so to warn.  kp[i]
 * receives where input i's kernel addresses go.
 */
void merge_kernel(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile *out, struct merge_kplace *kp,
    cli_warn_fn *warn);

/*
 * The kept names of every input, for the result's objects (where[i][j]:
 * the result object of input i's object j): a name the inputs share is
 * kept once, and of names that overlap in one object (two builds matched
 * by path) the first in address order, so that the result is sorted
 * without overlaps as the format wants.  The kernel's names move as its
 * addresses do (kp, from merge_kernel), and go where the result keeps
 * none.
 */
void merge_symbols(struct profil_profile *const *in, size_t n,
    struct profil_profile *out, size_t *const *where,
    const struct merge_kplace *kp);

#endif
