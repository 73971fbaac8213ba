/*
 * merge-lines.h - the source lines profiles keep (profil.h's lines: a
 * jitdump's, for generated code), summed as merge does the rest.
 */
#ifndef PROFIL_MERGE_LINES_H
#define PROFIL_MERGE_LINES_H

#include <stddef.h>

#include <profil.h>

/*
 * The lines of in[0..n) into out, each input's objects mapped to out's
 * through where[i] (as merge.c matched them), their files named once; of
 * lines at the same address of an object, the first input's.
 */
void merge_lines(struct profil_profile *const *in, size_t n,
    struct profil_profile *out, size_t *const *where);

#endif
