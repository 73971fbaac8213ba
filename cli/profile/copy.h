/*
 * copy.h - a deep copy of a profile: every array and string the copy's
 * own, so that it can be changed (wall-view.c makes its views of one,
 * window.c its windows) and freed with profil_profile_free apart from
 * the original; and stacks dropped from such a copy.
 */
#ifndef PROFIL_PROFILE_COPY_H
#define PROFIL_PROFILE_COPY_H

#include <stdint.h>

#include <profil.h>

/*
 * A copy of p, field for field; an empty array of p is NULL in the
 * copy.  Memory runs out only as the command's allocations do (cli.h:
 * the command exits saying so); nothing else can fail.
 */
struct profil_profile *profile_copy(const struct profil_profile *p);

/*
 * The stacks i of p with drop[i] nonzero taken out (their frames freed),
 * the others kept in their order, and the timeline's entries with them:
 * those of a dropped stack gone, the others renumbered to name the same
 * stacks.  Nothing else changes: the totals that counted the dropped
 * stacks are the caller's to mend.
 */
void profile_drop_stacks(struct profil_profile *p, const uint8_t *drop);

#endif
