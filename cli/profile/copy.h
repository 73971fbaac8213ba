/*
 * copy.h - a deep copy of a profile: every array and string the copy's
 * own, so that it can be changed (wall-view.c makes its views of one)
 * and freed with profil_profile_free apart from the original.
 */
#ifndef PROFIL_PROFILE_COPY_H
#define PROFIL_PROFILE_COPY_H

#include <profil.h>

/*
 * A copy of p, field for field; an empty array of p is NULL in the
 * copy.  Memory runs out only as the command's allocations do (cli.h:
 * the command exits saying so); nothing else can fail.
 */
struct profil_profile *profile_copy(const struct profil_profile *p);

/*
 * q's stacks with drop[i] set left out (their frames freed), the rest
 * kept in order, and the timeline's entries following them (those of
 * the stacks left out dropped).
 */
void profile_drop_stacks(struct profil_profile *q, const unsigned char *drop);

#endif
