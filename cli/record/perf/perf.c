/*
 * perf.c - the perf engine's run of a program (record_perf): the program
 * started stopped before its exec, the events opened on it to be enabled
 * at the exec, and the rings drained until it ends (with --wait-all,
 * until all it left behind ends).  perf-engine.h tells the whole engine.
 *
 * Invariant: the events are open before the program execs, and the
 * rings are drained once more after it ends, before they are closed.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "hmap.h"
#include "perf-drain.h"
#include "perf-engine.h"
#include "perf-events.h"
#include "perf.h"
#include "record/core/clock.h"
#include "record/core/launch.h"

int
record_perf(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size)
{
	struct engine e;
	struct launch l;
	struct pollfd *pfd;
	uint64_t start;
	int i;

	memset(&e, 0, sizeof e);
	e.opts = o;
	e.result = r;
	e.b = r->builder;
	hmap_init(&e.proc_index);
	if (launch_prepare(&l, o->argv) < 0) {
		snprintf(cause, cause_size, "cannot start %s: %s", o->argv[0],
		    strerror(errno));
		return -1;
	}
	l.builder = e.b;
	r->pid = l.pid;
	if (perf_events_open(&e, &l.pid, 1, 1, cause, cause_size) < 0) {
		kill(l.pid, SIGKILL);
		waitpid(l.pid, NULL, 0);
		launch_close(&l);
		return -1;
	}
	perf_engine_wall_start(&e);
	perf_engine_kernel_time_start(&e);
	start = record_now_ns();
	r->exec_errno = launch_go(&l);
	/*
	 * which kernel, where the kernel is sampled: read once the program
	 * is on its way (kallsyms, notes and boot id took 1.5 ms of its
	 * start here), before any of its samples is named
	 */
	if (r->kernel_sampled)
		builder_identify_kernel(e.b);
	pfd = xcalloc((size_t)e.nrings + 1, sizeof *pfd);
	for (i = 0; i < e.nrings; i++)
		pfd[i] = (struct pollfd){ e.rings[i].fd, POLLIN, 0 };
	pfd[e.nrings] = (struct pollfd){ l.signal_fd, POLLIN, 0 };
	/* until the program ends; with --wait-all, until all it left ends */
	while (!l.exited || (o->wait_all && !l.stop && launch_descendants(&l))) {
		poll(pfd, (nfds_t)e.nrings + 1, perf_engine_poll_ms(&e,
		    l.exited ? 20 : perf_events_poll_ms(&e)));
		/*
		 * A ring hangs up when the program's task ends; the events
		 * its children inherited still write into it: poll no more
		 * (it would return at once, forever), drain on the timeout.
		 */
		for (i = 0; i < e.nrings; i++)
			if (pfd[i].revents & POLLHUP)
				pfd[i].fd = -1;
		launch_poll(&l);
		perf_drain(&e);
		perf_engine_wall_look(&e);
		perf_events_budget_step(&e);
	}
	r->wall_ns = record_now_ns() - start;
	perf_drain(&e);		/* what the last moments left in the rings */
	perf_engine_wall_finish(&e, start + r->wall_ns);
	perf_engine_kernel_time_finish(&e, start + r->wall_ns);
	perf_events_close(&e);
	free(pfd);
	launch_finish(&l, o, r);
	launch_close(&l);
	r->throttled = e.throttled;
	r->taken = e.taken;
	r->weight_sq = e.weight_sq;
	r->slowest_ns = o->period_ns << e.set;
	perf_engine_free(&e);
	return 0;
}

const struct record_engine record_engine_perf = {
	"perf", record_perf_check, record_perf, record_perf_attach, NULL,
};
