/*
 * merge-jit.h - generated code ([jit], profil.h) of several profiles,
 * kept apart for merging: each profile's [jit] addresses are made up by
 * its recording from the same start, so the same address names other
 * code in each.
 */
#ifndef PROFIL_MERGE_JIT_H
#define PROFIL_MERGE_JIT_H

#include <stddef.h>

#include <profil.h>

/*
 * Move the [jit] addresses of in[1..n) (buckets, range, frames, names,
 * lines)
 * past those of the profiles before, so that no two profiles' [jit]
 * code shares an address: merged, each piece keeps its own name.
 */
void merge_jit_apart(struct profil_profile *const *in, size_t n);

#endif
