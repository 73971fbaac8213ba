/*
 * timer-stacks.h - the timer engine's call stacks: the captures the agent
 * leaves in the shared region's ring (stackring.h), drained while the
 * program runs, each unwound and counted with its stack.
 */
#ifndef PROFIL_RECORD_TIMER_STACKS_H
#define PROFIL_RECORD_TIMER_STACKS_H

#include <sys/types.h>

#include "agent/agent.h"
#include "builder.h"
#include "timer-slots.h"
#include "wall.h"

/*
 * The captures the ring holds, in order, unwound and counted with their
 * stacks (their samples too: the leaf is the flat profile's sample, and
 * the pc histogram does not have it); each slot's captured gets their
 * samples, for timer_region_weights.  With only_pid (--no-children)
 * those of other processes are left out of the profile (not of
 * captured).  With w (--wall), each is where a preemption of its thread
 * would hit.  With last (once, at the end), also the captures published
 * behind one that never will be.
 */
void timer_stacks_drain(struct builder *b, struct agent_region *r,
    struct slot_maps *slots, pid_t only_pid, struct wall *w, int last);

#endif
