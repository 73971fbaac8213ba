/*
 * front.h - the start sequence every front end shares (profil(), its
 * extended form, sprofil(), profil_start()), so that they answer alike:
 * a call that is refused leaves the running session as it was, except
 * with EFAULT, which ends it ("profiling is terminated", BSD's
 * profil(2)), whichever memory was bad: an argument the call reads or
 * writes, or a counter.
 *
 * Layer: above the session, plan and fault, which it drives; below the
 * front ends (api, profil, sprofil), which build the plans.
 */
#ifndef PROFIL_FRONT_H
#define PROFIL_FRONT_H

#include <stddef.h>
#include <stdint.h>

struct plan;

/*
 * 0 if the len bytes at p, the caller's argument, can be read (write
 * != 0: and written).  Else -1 with EFAULT, the running session stopped;
 * or with the error of installing the fault handler (fault.h), the
 * session left alone.
 */
int front_probe(const void *p, size_t len, int write);

/*
 * Seal plan and start it (session_start's rate_hz, mechanism and
 * samples) if every counter it can touch is writable memory.  The plan
 * passes to front_start, also on failure.  Returns 0, or -1 with errno:
 * EINVAL (its ranges overlap), EFAULT (a counter is not writable: the
 * running session is stopped), or the error of the fault handler's
 * install or of session_start.
 */
int front_start(struct plan *plan, unsigned rate_hz, int mechanism,
    uint64_t samples);

#endif
