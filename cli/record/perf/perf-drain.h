/*
 * perf-drain.h - emptying the perf engine's rings: every complete record
 * of every CPU's ring applied (perf-records.h), all in time order.
 */
#ifndef PROFIL_RECORD_PERF_DRAIN_H
#define PROFIL_RECORD_PERF_DRAIN_H

#include "perf-engine.h"

/*
 * Apply the records e's rings hold now, oldest first, and give their
 * space back to the kernel as they go.  While a ring is over half full
 * (e->behind), samples' stacks are not unwound, so that it catches up.
 */
void perf_drain(struct engine *e);

#endif
