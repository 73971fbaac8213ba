/*
 * perf-events.h - the perf engine's sampling events: a task-clock event
 * per CPU on the program's tasks, inherited by its threads and children,
 * each CPU's records in one ring buffer that the recorder drains; under
 * a budget (--samples), a set of events per period, one enabled at a
 * time.  perf_paranoid and record_perf_check (perf.h) live here too.
 */
#ifndef PROFIL_RECORD_PERF_EVENTS_H
#define PROFIL_RECORD_PERF_EVENTS_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf-engine.h"

struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	size_t size;			/* data area bytes, a power of 2 */
};

/*
 * Open the events on tids, tids[0]'s first (they own the rings), and map
 * a ring per online CPU into e (e->rings, e->nrings; a budget's sets in
 * e->set_fds); sets e->result->kernel_sampled.  on_exec: enabled when
 * the task execs, else sampling from now on.  Returns 0, or -1 with a
 * one-line cause in cause[] and e's events closed.
 */
int perf_events_open(struct engine *e, const pid_t *tids, size_t ntids,
    int on_exec, char *cause, size_t cause_size);
/* Close every event of e, unmap its rings and free what held them. */
void perf_events_close(struct engine *e);
/* Under a budget, after a drain: move to the set the samples call for. */
void perf_events_budget_step(struct engine *e);
/* How long to wait for samples before the next drain, in ms. */
int perf_events_poll_ms(const struct engine *e);

#endif
