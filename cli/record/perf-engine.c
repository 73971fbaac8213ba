/*
 * perf-engine.c - what the perf engine's two runs (perf.c, a program;
 * perf-attach.c, a running process) do alike: the clock, naming the
 * kernel, and freeing the engine's state.
 *
 * Invariant: perf_engine_free frees all but the events and their rings,
 * which perf_events_close has closed before it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <profil.h>

#include "perf-engine.h"
#include "perf-procs.h"
#include "symbols/kernel.h"
#include "unwind.h"

/*
 * Which kernel, where the kernel is sampled: read once the program is on
 * its way (kallsyms, notes and boot id took 1.5 ms of its start here),
 * before any of its samples is named.
 */
void
perf_engine_identify_kernel(struct engine *e)
{
	struct profil_kernel id;

	if (!e->result->kernel_sampled)
		return;
	memset(&id, 0, sizeof id);
	kernel_identify(&id);
	builder_kernel_identity(e->b, &id);
	free(id.release);
}

uint64_t
perf_engine_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
perf_engine_free(struct engine *e)
{
	perf_procs_free(e);
	free(e->batch);
	free(e->pend);
	hmap_free(&e->proc_index);
}
