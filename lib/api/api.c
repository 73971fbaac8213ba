/*
 * api.c - the modern entry points: profil_start() with a config,
 * profil_stop(), profil_get_status(), profil_mechanism_name().
 */
#include <errno.h>
#include <stddef.h>

#include "api/front.h"
#include "plan/plan.h"
#include "profil.h"
#include "session/session.h"

#define API_MAX_RANGES (1u << 20)

static int
is_power_of_two(unsigned v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

static unsigned
log2_of(unsigned v)
{
	unsigned shift = 0;

	while ((1u << shift) < v)
		shift++;
	return shift;
}

__attribute__((visibility("default"))) int
profil_start(const struct profil_config *cfg)
{
	static const struct profil_config defaults;
	struct plan *plan;
	size_t i;

	if (cfg == NULL)
		cfg = &defaults;
	if ((cfg->flags & ~PROFIL_BUDGET) != 0 ||
	    ((cfg->flags & PROFIL_BUDGET) && cfg->samples == 0) ||
	    cfg->rate_hz > PROFIL_MAX_HZ ||
	    cfg->mechanism < PROFIL_MECH_AUTO || cfg->mechanism > PROFIL_MECH_PERF ||
	    cfg->nranges > API_MAX_RANGES ||
	    (cfg->nranges > 0 && cfg->ranges == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (front_probe(cfg->ranges, cfg->nranges * sizeof *cfg->ranges, 0) < 0)
		return -1;
	plan = plan_new(cfg->nranges);
	if (plan == NULL)
		return -1;
	for (i = 0; i < cfg->nranges; i++) {
		const struct profil_range *in = &cfg->ranges[i];
		struct plan_range r = { 0 };

		if (in->highpc <= in->lowpc || !is_power_of_two(in->bucket_bytes) ||
		    in->bucket_bytes > (1u << 30) ||
		    (in->counter_bytes != 2 && in->counter_bytes != 4))
			goto invalid;
		r.lowpc = in->lowpc;
		r.lastpc = in->highpc - 1;
		r.offset = in->lowpc;
		r.scale = 0x10000;
		r.granule_shift = log2_of(in->bucket_bytes);
		r.counter_bytes = in->counter_bytes;
		r.counters = in->counters;
		plan_add(plan, &r);
	}
	return front_start(plan, cfg->rate_hz, cfg->mechanism,
	    (cfg->flags & PROFIL_BUDGET) ? cfg->samples : 0);
invalid:
	plan_free(plan);
	errno = EINVAL;
	return -1;
}

__attribute__((visibility("default"))) int
profil_stop(void)
{
	session_stop();
	return 0;
}

__attribute__((visibility("default"))) int
profil_get_status(struct profil_status *st)
{
	if (st == NULL) {
		errno = EINVAL;
		return -1;
	}
	session_fill_status(st);
	return 0;
}

__attribute__((visibility("default"))) const char *
profil_mechanism_name(int mechanism)
{
	switch (mechanism) {
	case PROFIL_MECH_AUTO:
		return "auto";
	case PROFIL_MECH_TIMER:
		return "timer";
	case PROFIL_MECH_PERF:
		return "perf";
	}
	return NULL;
}
