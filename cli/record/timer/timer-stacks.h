/*
 * timer-stacks.h - the timer engine's call stacks: the captures the agent
 * leaves in the shared region's ring (stackring.h), drained while the
 * program runs, each unwound and counted with its stack.
 */
#ifndef PROFIL_RECORD_TIMER_STACKS_H
#define PROFIL_RECORD_TIMER_STACKS_H

#include <sys/types.h>

#include "record/core/builder.h"
#include "record/wall/wall.h"
#include "timer-region.h"
#include "timer-slots.h"

/*
 * The captures the ring holds, in order, unwound and counted with their
 * stacks (their samples too: the leaf is the flat profile's sample, and
 * the pc histogram does not have it); each slot's captured gets their
 * samples, for timer_region_weights.  With only_pid (--no-children)
 * those of other processes are left out of the profile (not of
 * captured).  With w (--wall), each is where a preemption of its thread
 * would hit.  With last (once, at the end), also the captures published
 * behind one that never will be.  At most a ring's worth a call, so that
 * a program publishing captures as fast as they are taken cannot hold
 * the recorder here (1: a ring's worth was taken, more may wait; 0: the
 * ring is drained).  A capture that could not be true (a slot never
 * opened, a size past the ring's stacks, a weight past what the time
 * since the start allows) is refused (timer_region_accept).  now is
 * CLOCK_MONOTONIC.
 */
int timer_stacks_drain(struct builder *b, struct timer_region *r,
    struct slot_maps *slots, pid_t only_pid, struct wall *w, int last,
    uint64_t now);

#endif
