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
#include "hmap.h"
#include "timer-slots.h"
#include "wall.h"

/*
 * The captures the ring holds, in order, unwound and counted with their
 * stacks (their samples too: the leaf is the flat profile's sample); the
 * samples each (slot, pc) so got go into stacked (slot << 48 | pc ->
 * samples), for timer_region_resolve.  With only_pid (--no-children)
 * those of other processes are left out.  With w (--wall), each is where
 * a preemption of its thread would hit.
 */
void timer_stacks_drain(struct builder *b, struct agent_region *r,
    struct slot_maps *slots, pid_t only_pid, struct hmap *stacked,
    struct wall *w);

#endif
