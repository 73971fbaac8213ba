/*
 * perf-engine.c - the perf engine's state as its two runs (perf.c, a
 * program; perf-attach.c, a running process) share it (perf-engine.h):
 * the stages its records feed besides the builder started and ended
 * (--wall's accounting, the kernel's time counted from the switches),
 * and the state freed.
 *
 * Invariant: perf_engine_free frees all but the events and their rings,
 * which perf_events_close has closed before it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "perf-engine.h"
#include "perf-procs.h"
#include "perf-records.h"
#include "cli.h"
#include "record/core/clock.h"
#include "record/core/periods.h"
#include "record/unwind/unwind.h"
#include "record/wall/kernel-time.h"
#include "record/wall/wall.h"

/*
 * --wall: blocked threads are looked at every 5 ms, 200 looks a second
 * per thread that blocks and wakes in between (a thread parked for the
 * whole run is looked at once).  Blocks shorter than that are placed
 * by the looks that fall in them (wall.h).
 */
#define WALL_POLL_NS	5000000ull

static struct unwind_space *
unwinder_of(void *arg, pid_t pid)
{
	struct engine *e = arg;

	return perf_procs_get(e, pid)->uw;
}

void
perf_engine_wall_start(struct engine *e)
{
	if (e->opts->wall)
		e->wall = wall_new(e->b, WALL_POLL_NS, e->opts->stack_size,
		    e->opts->period_ns, unwinder_of, e);
}

void
perf_engine_wall_finish(struct engine *e, uint64_t end_ns)
{
	if (e->wall == NULL)
		return;
	wall_finish(e->wall, end_ns);
	e->result->wall_unreadable = wall_unreadable(e->wall,
	    &e->result->wall_unreadable_errno);
}

void
perf_engine_kernel_time_start(struct engine *e)
{
	if (!e->result->kernel_sampled)
		e->ktime = kernel_time_new(e->opts->period_ns,
		    perf_records_kernel_time, e);
}

void
perf_engine_kernel_time_finish(struct engine *e, uint64_t end_ns)
{
	if (e->ktime == NULL)
		return;
	kernel_time_finish(e->ktime, end_ns);
	e->result->kernel_counted = kernel_time_counted(e->ktime);
	kernel_time_free(e->ktime);
	e->ktime = NULL;
}

int
perf_engine_poll_ms(const struct engine *e, int poll_ms)
{
	int ms = (int)(WALL_POLL_NS / 1000000);

	poll_ms = periods_poll_ms(e->opts->periods, record_now_ns(), poll_ms);
	return e->wall != NULL && poll_ms > ms ? ms : poll_ms;
}

/* A period ends at now: the time off the CPU cut, the profile written. */
static void
period(struct engine *e, uint64_t now)
{
	char cause[PATH_MAX + 128];

	if (e->wall != NULL)
		wall_cut(e->wall, now);
	if (periods_write(e->opts->periods, e->b, e->opts, e->result->pid,
	    e->taken, e->weight_sq, now, cause, sizeof cause) < 0)
		cli_warn("cannot write a period's profile: %s", cause);
}

void
perf_engine_wall_look(struct engine *e)
{
	uint64_t now = record_now_ns();

	if (e->wall != NULL && wall_look_due(e->wall, now))
		wall_look(e->wall);
	if (e->opts->periods != NULL && periods_due(e->opts->periods, now))
		period(e, now);
}

void
perf_engine_free(struct engine *e)
{
	perf_procs_free(e);	/* JIT code's samples held back, handed over */
	if (e->wall != NULL) {
		wall_fill_cpu(e->wall);
		wall_free(e->wall);
		e->wall = NULL;
	}
	free(e->batch);
	free(e->pend);
	hmap_free(&e->proc_index);
}
