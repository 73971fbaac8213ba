/*
 * profil.c - the classic profil() call and the Tru64 extended form
 * (offset == (size_t)-1).  Both build a plan and start it as every
 * front end does (front.h): a bad buffer is refused with EFAULT before
 * anything is counted.
 */
#include <errno.h>
#include <stdint.h>

#include "api/front.h"
#include "plan/bins.h"
#include "plan/plan.h"
#include "profil.h"
#include "session/session.h"

/*
 * Tru64: n ranges in decreasing lowpc order, none overlapping, each with
 * unsigned int counters at index ((pc - offset) / 2) * scale / 65536.
 */
static int
profil_extended(const struct profil_args *args, size_t n, size_t flags)
{
	struct plan *plan;
	size_t i;

	if (flags != 0 || n > PROFIL_MAX_RANGES) {
		errno = EINVAL;
		return -1;
	}
	if (n == 0) {
		session_stop();
		return 0;
	}
	if (front_probe(args, n * sizeof *args, 0) < 0)
		return -1;
	plan = plan_new(n);
	if (plan == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		const struct profil_args *a = &args[i];
		struct plan_range r = { 0 };

		r.lowpc = (uintptr_t)a->lowpc;
		r.offset = (uintptr_t)a->offset;
		r.scale = a->scale;
		r.granule_shift = 1;
		r.counter_bytes = sizeof(unsigned int);
		r.counters = a->buffer;
		if ((uintptr_t)a->highpc <= r.lowpc || r.offset > r.lowpc ||
		    a->scale < 2)
			goto invalid;
		r.lastpc = (uintptr_t)a->highpc - 1;
		if (i > 0 && (uintptr_t)a->highpc > (uintptr_t)args[i - 1].lowpc)
			goto invalid;	/* not decreasing, or overlapping */
		plan_add(plan, &r);
	}
	return front_start(plan, 0, PROFIL_MECH_AUTO, 0);
invalid:
	plan_free(plan);
	errno = EINVAL;
	return -1;
}

__attribute__((visibility("default"))) int
profil(unsigned short *buf, size_t bufsiz, size_t offset, unsigned int scale)
{
	struct plan_range r = { 0 };
	struct plan *plan;

	if (offset == PROFIL_EXTENDED)
		return profil_extended((const struct profil_args *)(void *)buf,
		    bufsiz, scale);
	/* scale 0 or 1 turns profiling off; fewer than one counter does too. */
	if (scale < 2 || bufsiz / sizeof *buf == 0) {
		session_stop();
		return 0;
	}
	r.lowpc = offset;
	r.offset = offset;
	r.scale = scale;
	r.granule_shift = 1;
	r.counter_bytes = sizeof *buf;
	r.counters = buf;
	bins_last_pc(offset, 1, scale, bufsiz / sizeof *buf, &r.lastpc);
	plan = plan_new(1);
	if (plan == NULL)
		return -1;
	plan_add(plan, &r);
	return front_start(plan, 0, PROFIL_MECH_AUTO, 0);
}
