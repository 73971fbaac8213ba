/*
 * timeline-view.c - `profil report --timeline` (timeline-view.h): the threads
 * to show (all, or --limit's busiest), their phases and the program's,
 * as text (timeline-text.c) or as CSV and JSON rows: a row per thread
 * per column, then a row per phase (columns documented in profil.1).
 * Invariant: the machine rows are the profile's own resolution, a column
 * a slice (a bin of them past PHASES_MAX_BINS), whatever the terminal.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"
#include "timeline-view.h"

/* The machine columns: a thread's column, or a phase (empty elsewhere). */
static const struct col timeline_cols[] = {
	{ "row", "row", COL_STR },		/* "column" or "phase" */
	{ "pid", "pid", COL_INT },	/* empty: a phase of the program */
	{ "tid", "tid", COL_INT },
	{ "index", "index", COL_INT },
	{ "start_ns", "start_ns", COL_INT },
	{ "end_ns", "end_ns", COL_INT },
	{ "cpu_ns", "cpu_ns", COL_INT },
	{ "io_ns", "io_ns", COL_INT },	/* off the CPU, by kind: */
	{ "polling_ns", "polling_ns", COL_INT },	/* a wall profile's */
	{ "locks_ns", "locks_ns", COL_INT },
	{ "sleep_ns", "sleep_ns", COL_INT },
	{ "children_ns", "children_ns", COL_INT },
	{ "faults_ns", "faults_ns", COL_INT },
	{ "runnable_ns", "runnable_ns", COL_INT },
	{ "other_ns", "other_ns", COL_INT },
	{ "state", "state", COL_STR },	/* a phase's: on, off, none */
	{ "function", "function", COL_STR },
	{ "wait", "wait", COL_STR },
	{ "what_ns", "what_ns", COL_INT },
	{ "percent", "percent", COL_PCT },
};
#define NCOLS	((int)(sizeof timeline_cols / sizeof timeline_cols[0]))
#define COL_KINDS	7	/* where the kinds' columns start */
#define COL_STATE	15

static int64_t
ns_cell(double ns)
{
	return ns < 9.2e18 ? (int64_t)llround(ns) : INT64_MAX;
}

/* A row's common cells: which, whose, when, its time on and off the CPU. */
static union cell *
new_row(struct table *tab, const struct tldata *t, const char *which,
    size_t th, size_t index, uint64_t start, uint64_t end, double cpu_ns,
    const double *off_ns)
{
	union cell *row = table_row(tab);
	int program = th == PHASES_PROGRAM;

	row[0].s = which;
	row[1].i = program ? TABLE_NO_INT : t->threads[th].pid;
	row[2].i = program ? TABLE_NO_INT : t->threads[th].tid;
	row[3].i = (int64_t)index;
	row[4].i = (int64_t)start;
	row[5].i = (int64_t)end;
	row[6].i = ns_cell(cpu_ns);
	for (int k = 0; k < OFFCPU_NKINDS; k++)
		row[COL_KINDS + k].i = t->wall ? ns_cell(off_ns[k]) :
		    TABLE_NO_INT;
	row[COL_STATE].s = "";
	row[COL_STATE + 1].s = "";
	row[COL_STATE + 2].s = "";
	row[COL_STATE + 3].i = TABLE_NO_INT;
	row[COL_STATE + 4].d = NAN;
	return row;
}

/*
 * ph's rows; their waits' names into waits[*nwaits..] (offcpu_what names
 * an unknown system call in a buffer of its own, the next call's too).
 */
static void
phase_rows(struct table *tab, const struct tldata *t, size_t th,
    const struct phases *ph, char (*waits)[32], size_t *nwaits)
{
	static const char *const states[] = { "on", "off", "none" };

	for (size_t i = 0; i < ph->n; i++) {
		const struct phase *p = &ph->v[i];
		const char *name = tldata_func_name(t, p->func);
		union cell *row = new_row(tab, t, "phase", th, i, p->start_ns,
		    p->end_ns, p->cpu_ns, p->off_ns);

		row[COL_STATE].s = states[p->state];
		row[COL_STATE + 1].s = name != NULL ? name : "";
		if (p->state == PHASE_OFF_CPU) {
			snprintf(waits[*nwaits], sizeof waits[*nwaits], "%s",
			    offcpu_what(p->code));
			row[COL_STATE + 2].s = waits[(*nwaits)++];
		}
		row[COL_STATE + 3].i = ns_cell(p->what_ns);
		row[COL_STATE + 4].d = 100.0 * (double)(p->end_ns -
		    p->start_ns) / (double)t->span_ns;
	}
}

/* v's rows in CSV or JSON. */
static void
timeline_table(const struct tlview_shown *v, int format)
{
	const struct tldata *t = v->t;
	size_t n = phases_nbins(t);
	struct tldata_column *cols = xcalloc(n, sizeof *cols);
	struct table tab;
	size_t nphases = v->program.n, nwaits = 0;
	char (*waits)[32];

	for (size_t i = 0; i < v->n; i++)
		nphases += v->phases[i].n;
	waits = xcalloc(nphases + 1, sizeof *waits);
	table_init(&tab, timeline_cols, NCOLS);
	for (size_t i = 0; i < v->n; i++) {
		tldata_bins(t, v->threads[i], phases_slices_per_bin(t), cols,
		    n);
		for (size_t j = 0; j < n; j++)
			new_row(&tab, t, "column", v->threads[i], j,
			    cols[j].start_ns, cols[j].end_ns, cols[j].cpu_ns,
			    cols[j].off_ns);
	}
	phase_rows(&tab, t, PHASES_PROGRAM, &v->program, waits, &nwaits);
	for (size_t i = 0; i < v->n; i++)
		phase_rows(&tab, t, v->threads[i], &v->phases[i], waits,
		    &nwaits);
	table_print(&tab, format, NULL, NULL, NULL);
	table_free(&tab);
	free(waits);
	free(cols);
}

static const struct tldata *by_time_of;

/* Most time first (on and off the CPU), then in the timeline's order. */
static int
by_time(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct tldata_thread *x = &by_time_of->threads[i];
	const struct tldata_thread *y = &by_time_of->threads[j];
	double tx = x->cpu_ns + x->off_ns, ty = y->cpu_ns + y->off_ns;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int
by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The threads to show: those with time, the limit's busiest, in order. */
static void
pick_threads(struct tlview_shown *v, long limit)
{
	const struct tldata *t = v->t;

	v->threads = xcalloc(t->nthreads + 1, sizeof *v->threads);
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].ncells > 0)
			v->threads[v->n++] = i;
	if (limit >= 0 && (size_t)limit < v->n) {
		by_time_of = t;
		qsort(v->threads, v->n, sizeof *v->threads, by_time);
		v->left_out = v->n - (size_t)limit;
		v->n = (size_t)limit;
		qsort(v->threads, v->n, sizeof *v->threads, by_index);
	}
}

int
report_timeline(const struct profil_profile *p, const struct stacks *s,
    const struct report_options *o, char *cause, size_t cause_size)
{
	struct tldata t;
	struct tlview_shown v = { &t, NULL, 0, 0, { NULL, 0 }, NULL };

	if (tldata_build(&t, p, s, cause, cause_size) < 0)
		return -1;
	pick_threads(&v, o->limit);
	phases_find(&t, PHASES_PROGRAM, &v.program);
	v.phases = xcalloc(v.n + 1, sizeof *v.phases);
	for (size_t i = 0; i < v.n; i++)
		phases_find(&t, v.threads[i], &v.phases[i]);
	if (o->format == FORMAT_TEXT)
		tlview_text(&v, o);
	else
		timeline_table(&v, o->format);
	for (size_t i = 0; i < v.n; i++)
		phases_free(&v.phases[i]);
	free(v.phases);
	phases_free(&v.program);
	free(v.threads);
	tldata_free(&t);
	return 0;
}
