/*
 * timer-region.h - the memory the timer engine shares with the library it
 * injects (lib/agent.h): made before the program starts, filled by the
 * agent in each of its processes (a slot each, timer-slots.h), and read
 * at the end into the builder: the pc histogram, the threads' counts and
 * the weights.
 */
#ifndef PROFIL_RECORD_TIMER_REGION_H
#define PROFIL_RECORD_TIMER_REGION_H

#include <stdint.h>
#include <sys/types.h>

#include "agent/agent.h"
#include "builder.h"
#include "record.h"
#include "timer-slots.h"

/*
 * The shared region: header, pc and thread tables, and with stack_size a
 * ring of stack captures (stackring.h) at the end, in a memfd (*fd_out)
 * the program inherits.  NULL if it cannot be made (errno says why).
 */
struct agent_region *timer_region_new(int *fd_out, unsigned rate_hz,
    uint64_t samples, unsigned stack_size);

/*
 * Every pc of the histogram, to its object and file offset; with only_pid
 * (--no-children) the samples of other processes are left out: the
 * children were sampled (they inherit the library), but not profiled.
 * With stacks, the histogram holds only the samples whose capture failed
 * (the others came with their stacks, timer_stacks_drain): each counts
 * with a stack cut at once ("no stack taken").  Then the lost samples,
 * and each thread's count to its process.  fd is the region's memfd.
 */
void timer_region_resolve(struct builder *b, struct agent_region *r, int fd,
    struct slot_maps *slots, pid_t only_pid, int stacks);

/*
 * The weights record's figures (profil.h) into res: the region counts
 * every sample of every process.  With --no-children the profile keeps
 * only the program's, so taken and the squared weights are scaled to its
 * share of all the counts (the histogram's and, with stacks, each slot's
 * captured, all drained by then): the same error scale, for its samples.
 */
void timer_region_weights(const struct agent_region *r,
    const struct record_opts *o, pid_t only_pid,
    const struct slot_maps *slots, struct record_result *res);

#endif
