/*
 * front.c - the start sequence of the front ends (front.h).  The one
 * rule it keeps: an EFAULT goes out only after session_stop().
 */
#include <errno.h>

#include "api/front.h"
#include "plan/fault.h"
#include "plan/plan.h"
#include "session/session.h"

int
front_probe(const void *p, size_t len, int write)
{
	if (fault_install() < 0)
		return -1;
	if (fault_probe(p, len, write) < 0) {
		session_stop();
		errno = EFAULT;
		return -1;
	}
	return 0;
}

int
front_start(struct plan *plan, unsigned rate_hz, int mechanism,
    uint64_t samples)
{
	/* the fault handler: where /proc is not, the check probes the pages */
	if (plan_seal(plan) < 0 || fault_install() < 0) {
		int saved = errno;	/* EINVAL: ranges overlap */

		plan_free(plan);
		errno = saved;
		return -1;
	}
	if (plan_check_writable(plan) < 0) {
		plan_free(plan);
		session_stop();
		errno = EFAULT;
		return -1;
	}
	return session_start(plan, rate_hz, mechanism, samples, NULL);
}
