/*
 * timer-unseen.h - the timer engine's processes that ran unseen.  The
 * engine sees a process only through the library it injects: an image
 * that does not load it (LD_PRELOAD removed, a static or set-uid
 * program) or whose library cannot take a slot in the shared memory
 * (PROFIL_AGENT_FD removed, its descriptor closed, no slot left) runs
 * unsampled, and its CPU time would be in no figure but the total.  So
 * the recorder's descendants are listed from /proc as the program runs;
 * each whose image has no live slot has its CPU time followed and the
 * reason looked for while it lives, and at the end those whose CPU time
 * went unseen are named, with why.
 */
#ifndef PROFIL_RECORD_TIMER_UNSEEN_H
#define PROFIL_RECORD_TIMER_UNSEEN_H

#include <stdint.h>
#include <sys/types.h>

#include "record/core/record.h"
#include "timer-slots.h"

struct timer_unseen;

/* library: the path of the library the engine injects (its name is
   what a process's maps are searched for). */
struct timer_unseen *timer_unseen_new(const char *library);
void timer_unseen_free(struct timer_unseen *u);

/*
 * Look at the recorder's descendants now: new ones noted, each one's
 * CPU time read, and for one whose image has no live slot in slots
 * (its CPU time growing unseen) why, once an image.
 */
void timer_unseen_poll(struct timer_unseen *u, const struct slot_maps *slots);

/*
 * The recording is over: the program, pid, had cpu_ns of CPU time of its
 * own (from its rusage: better than the last look).  Each process (with
 * only, the program alone) with at least min_ns of CPU time unseen goes
 * into r->unseen (most first), their sum into r->unseen_ns.
 */
void timer_unseen_finish(struct timer_unseen *u, pid_t pid, uint64_t cpu_ns,
    int only, uint64_t min_ns, struct record_result *r);

#endif
