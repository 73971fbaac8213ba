/*
 * threads.c - the threads and processes views of `profil report`: each
 * one's samples and share (measured: a thread's samples count its own
 * CPU clock's periods, its waits are timed; share.h), a wall view's time
 * blocked and runnable besides, and how each process ended.  Machine
 * columns are documented in profil.1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "profile/wall-view.h"
#include "report.h"
#include "share.h"
#include "symbols/offcpu.h"
#include "table.h"

static const struct col thread_cols[] = {
	{ "pid", "pid", COL_INT },
	{ "tid", "tid", COL_INT },
	{ "name", "name", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
};
static const int thread_text[] = { 4, 5, 6, 3, 0, 1, 2, -1 };
/* A wall view's: each thread's time running, blocked and runnable. */
static const struct col wall_thread_cols[] = {
	{ "pid", "pid", COL_INT },
	{ "tid", "tid", COL_INT },
	{ "name", "name", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%wall", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "wall s", COL_SEC },
	{ "running_seconds", "running", COL_SEC },
	{ "blocked_seconds", "blocked", COL_SEC },
	{ "runnable_seconds", "runnable", COL_SEC },
};
static const int wall_thread_text[] = { 4, 5, 6, 7, 8, 9, 0, 1, 2, -1 };

/* A wall view's thread th: intervals blocked and runnable, from stacks. */
static void
thread_waits(const struct profil_profile *p, long off_obj,
    const struct profil_thread *th, uint64_t *blocked, uint64_t *runnable)
{
	*blocked = *runnable = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		const struct profil_frame *leaf = &p->frames[st->frames[0]];

		if (st->pid != th->pid || st->tid != th->tid ||
		    leaf->object != (uint32_t)off_obj)
			continue;
		if (leaf->addr == PROFIL_OFFCPU_RUNNABLE)
			*runnable += st->count;
		else
			*blocked += st->count;
	}
}

/* Threads, then processes, most samples first (ties by pid, tid). */
static int
thread_order(const void *a, const void *b)
{
	const struct profil_thread *x = *(const struct profil_thread *const *)a;
	const struct profil_thread *y = *(const struct profil_thread *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int
process_order(const void *a, const void *b)
{
	const struct profil_process *x = *(const struct profil_process *const *)a;
	const struct profil_process *y = *(const struct profil_process *const *)b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void
report_threads(const struct profil_profile *p, const struct report_options *o)
{
	const struct profil_thread **by = xcalloc(p->nthreads + 1, sizeof *by);
	struct table t;
	size_t i;

	if (p->nthreads == 0 && o->format == FORMAT_TEXT)
		printf("(this profile has no per-thread figures: the %s engine "
		    "did not record them)\n\n", p->engine);
	for (i = 0; i < p->nthreads; i++)
		by[i] = &p->threads[i];
	qsort(by, p->nthreads, sizeof *by, thread_order);
	long off_obj = wall_view_object(p);
	double interval_s = (double)p->interval_ns / 1e9;
	struct share_basis b;
	struct share_part all;

	share_basis_init(&b, p);
	share_part_init(&all, SHARE_TIME);
	share_part_all(&b, &all);
	table_init(&t, off_obj >= 0 ? wall_thread_cols : thread_cols,
	    off_obj >= 0 ? 10 : 7);
	for (i = 0; i < p->nthreads; i++) {
		const struct profil_thread *th = by[i];
		uint64_t blocked = 0, runnable = 0;
		struct share_part part;
		union cell *c;

		/* counted by the thread's own clock, its waits timed */
		share_part_init(&part, SHARE_TIME);
		share_part_measured(&part, th->samples);
		if (share_percent(&part, &all) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		if (off_obj >= 0)
			thread_waits(p, off_obj, th, &blocked, &runnable);
		c = table_row(&t);
		c[0].i = th->pid;
		c[1].i = th->tid;
		c[2].s = th->name;
		/* samples: its CPU samples; a wall view's waits are no samples */
		c[3].i = (int64_t)(th->samples - blocked - runnable);
		c[4].d = share_percent(&part, &all);
		c[5].d = share_error95(&b, &part, &all);
		c[6].d = (double)th->samples * interval_s;
		if (off_obj >= 0) {
			c[7].d = (double)(th->samples - blocked - runnable) *
			    interval_s;
			c[8].d = (double)blocked * interval_s;
			c[9].d = (double)runnable * interval_s;
		}
	}
	table_print(&t, o->format, off_obj >= 0 ? wall_thread_text :
	    thread_text, o->caption, &o->style);
	table_free(&t);
	share_part_free(&all);
	share_basis_free(&b);
	free(by);
}

const char *
report_exit_status(int32_t status, char *buf, size_t size)
{
	uint32_t raw = (uint32_t)status;
	int sig = (int)(raw & 0x7f);
	const char *name = sig != 0 ? sigabbrev_np(sig) : NULL;

	if (status == REPORT_STATUS_UNKNOWN)	/* not a failure: not known */
		snprintf(buf, size, "ended");
	else if (status == REPORT_STATUS_RUNNING)
		snprintf(buf, size, "running");
	else if (raw > 0xffff)	/* no wait status is: a foreign value */
		snprintf(buf, size, "unknown (0x%x)", raw);
	else if (WIFEXITED(status))
		snprintf(buf, size, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status) && (raw & 0xff00) == 0)
		/* real-time signals have no fixed name: their number only */
		snprintf(buf, size, "signal %d%s%s%s%s", sig, name ? " (SIG" : "",
		    name ? name : "", name ? ")" : "",
		    WCOREDUMP(status) ? ", core dumped" : "");
	else		/* stopped, or bits no final status has */
		snprintf(buf, size, "unknown (0x%x)", raw);
	return buf;
}

/*
 * Processes.  exit_status is the wait status as recorded (documented,
 * numeric); status, appended, says it in words, and is what text shows.
 */
static const struct col process_cols[] = {
	{ "pid", "pid", COL_INT },
	{ "ppid", "ppid", COL_INT },
	{ "command", "command", COL_STR },
	{ "exit_status", "exit_status", COL_INT },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
	{ "status", "status", COL_WORDS },
};
static const int process_text[] = { 5, 6, 7, 4, 0, 1, 8, 2, -1 };

void
report_processes(const struct profil_profile *p, const struct report_options *o)
{
	const struct profil_process **by = xcalloc(p->nprocesses + 1, sizeof *by);
	char (*words)[40] = xcalloc(p->nprocesses + 1, sizeof *words);
	struct share_basis b;
	struct share_part all;
	struct table t;
	size_t i;

	for (i = 0; i < p->nprocesses; i++)
		by[i] = &p->processes[i];
	qsort(by, p->nprocesses, sizeof *by, process_order);
	share_basis_init(&b, p);
	share_part_init(&all, SHARE_TIME);
	share_part_all(&b, &all);
	table_init(&t, process_cols, 9);
	for (i = 0; i < p->nprocesses; i++) {
		const struct profil_process *pr = by[i];
		uint64_t waits = 0;
		struct share_part part;
		union cell *c;

		/* its threads' own clocks' counts, their waits timed */
		share_part_init(&part, SHARE_TIME);
		share_part_measured(&part, pr->samples);
		if (share_percent(&part, &all) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		for (size_t k = 0; k < p->nstacks; k++)
			if (p->stacks[k].pid == pr->pid && share_stack_offcpu(&b, k))
				waits += p->stacks[k].count;
		c = table_row(&t);
		c[0].i = pr->pid;
		c[1].i = pr->ppid;
		c[2].s = pr->command;
		c[3].i = pr->exit_status;
		/* samples: its CPU samples; a wall view's waits are no samples */
		c[4].i = (int64_t)(pr->samples - waits);
		c[5].d = share_percent(&part, &all);
		c[6].d = share_error95(&b, &part, &all);
		c[7].d = (double)pr->samples * (double)p->interval_ns / 1e9;
		c[8].s = report_exit_status(pr->exit_status, words[i],
		    sizeof words[i]);
	}
	table_print(&t, o->format, process_text, o->caption, &o->style);
	table_free(&t);
	share_part_free(&all);
	share_basis_free(&b);
	free(words);
	free(by);
}

