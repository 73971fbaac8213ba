/*
 * perf-attach.c - the perf engine attached to a running process (-p):
 * events on each of its threads, what perf would have told us had we
 * been there from the start read from /proc, and the rings drained
 * until it exits or we are told to stop.
 *
 * Invariant: the process is not ours: it is watched (a pidfd, or kill
 * with signal 0), never signalled or waited for.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "hmap.h"
#include "perf-drain.h"
#include "perf-engine.h"
#include "perf-events.h"
#include "perf-procs.h"
#include "perf.h"
#include "record/core/clock.h"
#include "record/core/procfs.h"
#include "record/core/procmaps.h"
#include "record/sink/sample.h"
#include "record/wall/kernel-time.h"
#include "record/wall/wall.h"

/* pid's threads, its main thread first: it owns the ring buffers. */
static pid_t *
list_threads(pid_t pid, size_t *n)
{
	size_t m;
	pid_t *listed = procfs_threads(pid, &m), *tids;

	*n = 0;
	if (listed == NULL)
		return NULL;
	tids = xmalloc((m + 1) * sizeof *tids);
	tids[(*n)++] = pid;
	for (size_t i = 0; i < m; i++)
		if (listed[i] != pid)
			tids[(*n)++] = listed[i];
	free(listed);
	return tids;
}

struct synth {
	struct engine *e;
	struct proc *p;
};

static void
synth_map(const struct procmap *pm, void *arg)
{
	struct synth *sy = arg;
	int obj = procmaps_is_object(pm->name) ?
	    builder_object(sy->e->b, pm->name, NULL, 0) : -1;

	addr_space_map(sy->p->space, pm->start, pm->end, pm->offset, obj,
	    pm->name);
}

/* What perf would have told us had we been there from the start. */
static void
synthesize(struct engine *e, pid_t pid, const pid_t *tids, size_t ntids)
{
	char line[256];
	struct synth sy = { e, perf_procs_get(e, pid) };

	for (size_t i = 0; i < ntids; i++) {
		(void)procfs_read_comm(pid, tids[i], line, sizeof line);
		builder_comm(e->b, pid, tids[i], line);
	}
	procmaps_each(pid, synth_map, &sy);
}

/* CPU time of a process so far, from /proc/PID/stat; 0 if gone. */
static uint64_t
process_cpu_ns(pid_t pid)
{
	struct procfs_stat st;

	if (procfs_read_stat(pid, 0, &st) < 0)
		return 0;
	return (st.utime + st.stime) *
	    (1000000000ull / (uint64_t)sysconf(_SC_CLK_TCK));
}

char **
record_attach_argv(pid_t pid)
{
	char path[64], buf[65536];
	char **argv = xcalloc(1, sizeof *argv);
	size_t n = 0, len = 0, i;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (f != NULL) {
		len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
	}
	buf[len] = '\0';
	for (i = 0; i < len; i += strlen(buf + i) + 1) {
		argv = xrealloc(argv, (n + 2) * sizeof *argv);
		argv[n++] = xstrdup(buf + i);
	}
	if (n == 0) {	/* a kernel thread or a zombie: use its name */
		(void)procfs_read_comm(pid, 0, buf, sizeof buf);
		argv = xrealloc(argv, 2 * sizeof *argv);
		argv[n++] = xstrdup(buf[0] ? buf : "process");
	}
	argv[n] = NULL;
	return argv;
}

int
record_perf_attach(const struct record_opts *o, pid_t pid,
    struct record_result *r, char *cause, size_t cause_size)
{
	struct engine e;
	struct pollfd *pfd;
	sigset_t watched, old;
	pid_t *tids;
	size_t ntids;
	uint64_t start, cpu0, cpu = 0;
	int sfd, pidfd, i, done = 0;

	memset(&e, 0, sizeof e);
	e.opts = o;
	e.result = r;
	e.b = r->builder;
	hmap_init(&e.proc_index);
	r->pid = pid;
	tids = list_threads(pid, &ntids);
	if (tids == NULL) {
		snprintf(cause, cause_size, "no process %d", (int)pid);
		return -1;
	}
	sigemptyset(&watched);
	sigaddset(&watched, SIGINT);
	sigaddset(&watched, SIGTERM);
	sigaddset(&watched, SIGHUP);
	sigaddset(&watched, SIGQUIT);
	sigprocmask(SIG_BLOCK, &watched, &old);
	sfd = signalfd(-1, &watched, SFD_CLOEXEC | SFD_NONBLOCK);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (perf_events_open(&e, tids, ntids, 0, cause, cause_size) < 0) {
		free(tids);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	if (r->kernel_sampled)	/* which kernel (builder.h) */
		builder_identify_kernel(e.b);
	synthesize(&e, pid, tids, ntids);
	start = record_now_ns();
	perf_engine_wall_start(&e);
	perf_engine_kernel_time_start(&e);
	for (size_t k = 0; k < ntids; k++) {
		struct sample_sink ks = { e.b, e.wall, e.ktime };
		struct sample s = { .kind = SAMPLE_ATTACH, .pid = pid,
		    .tid = tids[k], .time = start };

		sample_take(&ks, NULL, &s);
	}
	free(tids);
	cpu0 = process_cpu_ns(pid);
	pfd = xcalloc((size_t)e.nrings + 2, sizeof *pfd);
	for (i = 0; i < e.nrings; i++)
		pfd[i] = (struct pollfd){ e.rings[i].fd, POLLIN, 0 };
	pfd[e.nrings] = (struct pollfd){ sfd, POLLIN, 0 };
	pfd[e.nrings + 1] = (struct pollfd){ pidfd, POLLIN, 0 };
	while (!done) {
		struct signalfd_siginfo si;
		uint64_t now_cpu;

		poll(pfd, (nfds_t)e.nrings + 2, perf_engine_poll_ms(&e, 200));
		while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
			done = 1;	/* Ctrl-C or a request to stop: detach */
		if (pidfd >= 0 && (pfd[e.nrings + 1].revents & POLLIN))
			done = 1;	/* the process has exited */
		if (pidfd < 0 && kill(pid, 0) < 0 && errno == ESRCH)
			done = 1;
		now_cpu = process_cpu_ns(pid);
		if (now_cpu > cpu0)
			cpu = now_cpu - cpu0;
		perf_drain(&e);
		perf_engine_wall_look(&e);
	}
	r->wall_ns = record_now_ns() - start;
	r->cpu_ns = cpu;
	perf_drain(&e);
	perf_engine_wall_finish(&e, start + r->wall_ns);
	perf_engine_kernel_time_finish(&e, start + r->wall_ns);
	perf_events_close(&e);
	r->taken = e.taken;
	r->weight_sq = e.weight_sq;
	r->slowest_ns = o->period_ns;
	free(pfd);
	if (pidfd >= 0)
		close(pidfd);
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	perf_engine_free(&e);
	return 0;
}
