/*
 * tables.c - the tabular views of `profil report`: flat (one row
 * per function), objects, threads and processes.  Every share comes with
 * its 95% sampling error; machine columns are documented in profil.1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "profile/wall-view.h"
#include "report.h"
#include "symbols/offcpu.h"
#include "table.h"

#define base_name funcs_base_name

static int
by_function(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;
	int c = strcmp(x->function, y->function);

	return c ? c : funcs_by_samples(a, b);
}

static int
by_object(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;
	int c = strcmp(x->object, y->object);

	return c ? c : funcs_by_samples(a, b);
}

double
report_percent(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0.0;
}

double
report_error_scale(const struct profil_profile *p)
{
	if (p->weight_sq == 0 || p->samples == 0 || p->weight_sq <= p->samples)
		return 1;
	return (double)p->weight_sq / (double)p->samples;
}

int
report_weighted(const struct profil_profile *p)
{
	return p->taken > 0 && (p->budget > 0 || report_error_scale(p) > 1.005);
}

const char *
report_rates(const struct profil_profile *p, char *buf, size_t size)
{
	double hz = p->interval_ns ? 1e9 / (double)p->interval_ns : 0;

	if (p->slowest_ns > p->interval_ns)
		snprintf(buf, size, "%.0f Hz down to %.0f Hz", hz,
		    1e9 / (double)p->slowest_ns);
	else
		snprintf(buf, size, "%.0f Hz", hz);
	return buf;
}

int
report_unsampled(const struct profil_profile *p, double *seen_ns)
{
	*seen_ns = (double)(p->samples + p->lost) * (double)p->interval_ns;
	return p->interval_ns > 0 && p->cpu_ns >= 50 * p->interval_ns &&
	    *seen_ns < 0.8 * (double)p->cpu_ns;
}

double
report_cut_share(const struct profil_profile *p, uint64_t reason)
{
	uint64_t cut = 0, all = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		const struct profil_frame *last;

		all += st->count;
		if (st->depth == 0)
			continue;
		last = &p->frames[st->frames[st->depth - 1]];
		if (last->object == PROFIL_FRAME_CUT && last->addr == reason)
			cut += st->count;
	}
	return all > 0 ? (double)cut / (double)all : 0;
}

/*
 * Flat: columns in machine order; text shows them gprof-like.  With call
 * stacks, three more: the function's inclusive samples (the stacks it is
 * on), share and error; text shows them instead of the cumulative share.
 */
static const struct col flat_cols[] = {
	{ "function", "function", COL_STR },
	{ "object", "object", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%self", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "cumulative", "cum%", COL_PCT },
	{ "seconds", "self s", COL_SEC },
	{ "inclusive_samples", "incl", COL_INT },
	{ "inclusive_percent", "%incl", COL_PCT },
	{ "inclusive_error95", "95%", COL_ERR },
	{ "inclusive_cpu_percent", "%cpu", COL_PCT },
};
static const int flat_text[] = { 3, 4, 5, 6, 2, 0, 1, -1 };
static const int flat_text_stacks[] = { 3, 4, 8, 9, 6, 2, 0, 1, -1 };
/*
 * A wall view's (wall-view.h): the same, shares of wall time, and the
 * last column: beside the inclusive share, the part of it on the CPU
 * (of the same whole), so that "40% of wall, 1% on the CPU" reads at a
 * glance.
 */
static const int wall_text[] = { 3, 4, 8, 9, 10, 6, 0, 1, -1 };

static const struct col *
wall_cols(void)
{
	static struct col cols[11];

	memcpy(cols, flat_cols, sizeof cols);
	cols[3].title = "%wall";
	return cols;
}

static const uint64_t *sort_incl;

/* Most inclusive samples first, then as the default order. */
static int
by_inclusive(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_incl[x] != sort_incl[y])
		return sort_incl[x] > sort_incl[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * A wall view's time off the CPU placed by sampling, as a variance per
 * function of the stacks, in intervals squared: a stack's sampled part
 * S, placed on m looks, errs by about S / sqrt(m) (by all of it when m
 * is 0: nothing was seen where it went), summed over the stacks the
 * function is on.  What was measured where it was errs by nothing.
 */
static double *
wall_sampled_var(const struct stacks *s, const struct profil_profile *p,
    long off_obj)
{
	double *var = xcalloc(s->nfuncs + 1, sizeof *var);
	uint32_t *seen = xcalloc(s->nfuncs + 1, sizeof *seen);
	static uint32_t funcs[STACKS_MAX_DEPTH];
	double interval = p->interval_ns ? (double)p->interval_ns : 1;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		double sampled = (double)st->sampled_ns / interval, v;
		size_t n;

		if (st->sampled_ns == 0 || st->depth == 0 ||
		    p->frames[st->frames[0]].object != (uint32_t)off_obj)
			continue;
		v = sampled * sampled / (st->observations ?
		    (double)st->observations : 1);
		n = stacks_funcs_of(s, st, funcs, STACKS_MAX_DEPTH);
		for (size_t k = 0; k < n; k++)
			if (seen[funcs[k]] != i + 1) {
				seen[funcs[k]] = (uint32_t)(i + 1);
				var[funcs[k]] += v;
			}
	}
	free(seen);
	return var;
}

/* The 95% half-width, in points of n, of a variance in intervals². */
static double
points95(double var, uint64_t n)
{
	return n > 0 ? 100 * 1.959964 * sqrt(var) / (double)n : 0;
}

void
report_flat(const struct profil_profile *p, struct funcs *f,
    const struct stacks *s, const struct report_options *o)
{
	int stacks = s != NULL && p->nstacks > 0;
	long off_obj = stacks ? wall_view_object(p) : -1;
	uint64_t *incl = NULL, *incl_cpu = NULL, *row_incl, *row_cpu;
	double *sampled_var = NULL, *row_var;
	size_t *order;
	struct table t;
	double cumulative = 0;
	size_t i;

	if (f->nrows > 1 && o->sort != SORT_SAMPLES && o->sort != SORT_INCLUSIVE)
		qsort(f->rows, f->nrows, sizeof *f->rows, o->sort == SORT_FUNCTION ?
		    by_function : o->sort == SORT_OBJECT ? by_object : funcs_by_samples);
	size_t nrows = f->nrows, extra = 0;
	struct func_row *rows;
	char *matched = NULL;

	if (stacks) {
		incl = stacks_inclusive(s);
		matched = xcalloc(s->nfuncs + 1, 1);
		if (off_obj >= 0) {
			incl_cpu = stacks_inclusive_except(s, (size_t)off_obj);
			sampled_var = wall_sampled_var(s, p, off_obj);
		}
	}
	/*
	 * Sorted by inclusive time, the functions with none of their own
	 * (main, _start, ...) come first: they get rows too.
	 */
	if (stacks && o->sort == SORT_INCLUSIVE)
		extra = s->nfuncs;
	rows = xcalloc(nrows + extra + 1, sizeof *rows);
	if (nrows > 0)		/* (f->rows is NULL then: not memcpy's to see) */
		memcpy(rows, f->rows, nrows * sizeof *rows);
	row_incl = xcalloc(nrows + extra + 1, sizeof *row_incl);
	row_cpu = xcalloc(nrows + extra + 1, sizeof *row_cpu);
	row_var = xcalloc(nrows + extra + 1, sizeof *row_var);
	order = xcalloc(nrows + extra + 1, sizeof *order);
	for (i = 0; i < f->nrows; i++) {
		long fn = stacks ? stacks_func_of_row(s, &f->rows[i]) : -1;

		/* a function in no stack (none should be): its own samples */
		row_incl[i] = fn >= 0 ? incl[fn] : f->rows[i].samples;
		if (incl_cpu != NULL) {
			row_cpu[i] = fn >= 0 ? incl_cpu[fn] : 0;
			row_var[i] = fn >= 0 ? sampled_var[fn] : 0;
		}
		if (fn >= 0)
			matched[fn] = 1;
	}
	for (size_t k = 0; k < extra; k++) {
		const struct stack_func *sf = &s->funcs[k];

		if (matched[k] || incl[k] == 0)
			continue;
		rows[nrows] = (struct func_row){ sf->function, sf->symbol,
		    sf->object, sf->object_index, sf->start, sf->start, 0 };
		if (incl_cpu != NULL) {
			row_cpu[nrows] = incl_cpu[k];
			row_var[nrows] = sampled_var[k];
		}
		row_incl[nrows++] = incl[k];
	}
	for (i = 0; i < nrows; i++)
		order[i] = i;
	if (o->sort == SORT_INCLUSIVE && nrows > 1) {
		sort_incl = row_incl;
		qsort(order, nrows, sizeof *order, by_inclusive);
	}
	if (off_obj >= 0)
		table_init(&t, wall_cols(), 11);
	else
		table_init(&t, flat_cols, stacks ? 10 : 7);
	for (i = 0; i < nrows; i++) {
		const struct func_row *r = &rows[order[i]];
		uint64_t in = row_incl[order[i]];
		double pct = report_percent(r->samples, p->samples);
		union cell *c;

		cumulative += pct;
		if ((o->sort == SORT_INCLUSIVE ? report_percent(in, p->samples) :
		    pct) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = r->function;
		c[1].s = r->object;
		c[2].i = (int64_t)r->samples;
		c[3].d = pct;
		c[4].d = table_error95(r->samples, p->samples);
		c[5].d = cumulative;
		c[6].d = (double)r->samples * (double)p->interval_ns / 1e9;
		if (stacks) {
			c[7].i = (int64_t)in;
			c[8].d = report_percent(in, p->samples);
			c[9].d = table_error95(in, p->samples);
		}
		if (off_obj >= 0) {
			double var = row_var[order[i]];
			double cpu_err = table_error95(row_cpu[order[i]], p->samples);

			c[10].d = report_percent(row_cpu[order[i]], p->samples);
			/*
			 * Time off the CPU measured where it was errs by
			 * nothing: a row's error is its CPU samples' and its
			 * sampled time's (an off-CPU leaf has no CPU part).
			 */
			c[4].d = r->object_index == (size_t)off_obj ?
			    points95(var, p->samples) : c[4].d;
			c[9].d = sqrt(cpu_err * cpu_err +
			    points95(var, p->samples) * points95(var, p->samples));
		}
	}
	table_print(&t, o->format, off_obj >= 0 ? wall_text : stacks ?
	    flat_text_stacks : flat_text, o->caption);
	table_free(&t);
	free(incl);
	free(incl_cpu);
	free(row_cpu);
	free(sampled_var);
	free(row_var);
	free(matched);
	free(rows);
	free(row_incl);
	free(order);
}

static const struct col object_cols[] = {
	{ "object", "object", COL_STR },
	{ "path", "path", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
};
static const int object_text[] = { 3, 4, 5, 2, 0, 1, -1 };

struct object_share *
report_object_shares(const struct profil_profile *p, size_t *count)
{
	struct object_share *v = xcalloc(p->nobjects + 3, sizeof *v);
	size_t n = 0, i, j;

	for (i = 0; i < p->nobjects; i++)
		v[n++] = (struct object_share){ base_name(p->objects[i].path),
		    p->objects[i].path, p->objects[i].samples };
	v[n++] = (struct object_share){ "[kernel]", "", p->kernel };
	v[n++] = (struct object_share){ "[unknown]", "", p->unknown };
	v[n++] = (struct object_share){ "[lost]", "", p->lost };
	for (i = 1; i < n; i++)	/* insertion sort by samples, few rows */
		for (j = i; j > 0 && v[j].n > v[j - 1].n; j--) {
			struct object_share tmp = v[j];
			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	*count = n;
	return v;
}

/*
 * Objects: the program, each library, the kernel, unknown code and lost
 * samples, as shares of every sample taken (lost included).
 */
void
report_objects(const struct profil_profile *p, const struct report_options *o)
{
	uint64_t total = p->samples + p->lost;
	size_t n, i;
	struct object_share *v = report_object_shares(p, &n);
	struct table t;
	long off_obj = wall_view_object(p);

	/*
	 * A wall view: PROFIL's "I/O system and DOS" counters grown up, the
	 * time off the CPU by what it waited for, in place of one [off-cpu].
	 */
	if (off_obj >= 0) {
		static char names[OFFCPU_NKINDS][32];
		uint64_t kinds[OFFCPU_NKINDS] = { 0 };
		const struct profil_object *ob = &p->objects[off_obj];

		for (i = 0; i < ob->nbuckets; i++)
			kinds[offcpu_kind(ob->buckets[i].addr)] +=
			    ob->buckets[i].count;
		v = xrealloc(v, (n + OFFCPU_NKINDS) * sizeof *v);
		for (i = 0; i < n && strcmp(v[i].path, WALL_VIEW_OBJECT) != 0; i++)
			;
		if (i < n)
			memmove(&v[i], &v[i + 1], (--n - i) * sizeof *v);
		for (int k = 0; k < OFFCPU_NKINDS; k++) {
			size_t j = n++;

			snprintf(names[k], sizeof names[k], "[off-cpu: %s]",
			    offcpu_kind_name(k));
			v[j] = (struct object_share){ names[k], "", kinds[k] };
			for (; j > 0 && v[j].n > v[j - 1].n; j--) {
				struct object_share tmp = v[j];

				v[j] = v[j - 1];
				v[j - 1] = tmp;
			}
		}
	}

	table_init(&t, object_cols, 6);
	for (i = 0; i < n; i++) {
		union cell *c;

		if (v[i].n == 0 && (o->format == FORMAT_TEXT || v[i].path[0] == 0))
			continue;
		if (report_percent(v[i].n, total) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = v[i].name;
		c[1].s = v[i].path;
		c[2].i = (int64_t)v[i].n;
		c[3].d = report_percent(v[i].n, total);
		c[4].d = table_error95(v[i].n, total);
		c[5].d = (double)v[i].n * (double)p->interval_ns / 1e9;
	}
	table_print(&t, o->format, object_text, o->caption);
	table_free(&t);
	free(v);
}

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

	table_init(&t, off_obj >= 0 ? wall_thread_cols : thread_cols,
	    off_obj >= 0 ? 10 : 7);
	for (i = 0; i < p->nthreads; i++) {
		const struct profil_thread *th = by[i];
		union cell *c;

		if (report_percent(th->samples, p->samples) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].i = th->pid;
		c[1].i = th->tid;
		c[2].s = th->name;
		c[3].i = (int64_t)th->samples;
		c[4].d = report_percent(th->samples, p->samples);
		c[5].d = table_error95(th->samples, p->samples);
		c[6].d = (double)th->samples * (double)p->interval_ns / 1e9;
		if (off_obj >= 0) {
			uint64_t blocked, runnable;

			thread_waits(p, off_obj, th, &blocked, &runnable);
			c[7].d = (double)(th->samples - blocked - runnable) *
			    (double)p->interval_ns / 1e9;
			c[8].d = (double)blocked * (double)p->interval_ns / 1e9;
			c[9].d = (double)runnable * (double)p->interval_ns / 1e9;
		}
	}
	table_print(&t, o->format, off_obj >= 0 ? wall_thread_text :
	    thread_text, o->caption);
	table_free(&t);
	free(by);
}

const char *
report_exit_status(int32_t status, char *buf, size_t size)
{
	uint32_t raw = (uint32_t)status;
	int sig = (int)(raw & 0x7f);
	const char *name = sig != 0 ? sigabbrev_np(sig) : NULL;

	if (status == REPORT_STATUS_UNKNOWN)
		snprintf(buf, size, "unknown");
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
	struct table t;
	size_t i;

	for (i = 0; i < p->nprocesses; i++)
		by[i] = &p->processes[i];
	qsort(by, p->nprocesses, sizeof *by, process_order);
	table_init(&t, process_cols, 9);
	for (i = 0; i < p->nprocesses; i++) {
		const struct profil_process *pr = by[i];
		union cell *c;

		if (report_percent(pr->samples, p->samples) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].i = pr->pid;
		c[1].i = pr->ppid;
		c[2].s = pr->command;
		c[3].i = pr->exit_status;
		c[4].i = (int64_t)pr->samples;
		c[5].d = report_percent(pr->samples, p->samples);
		c[6].d = table_error95(pr->samples, p->samples);
		c[7].d = (double)pr->samples * (double)p->interval_ns / 1e9;
		c[8].s = report_exit_status(pr->exit_status, words[i],
		    sizeof words[i]);
	}
	table_print(&t, o->format, process_text, o->caption);
	table_free(&t);
	free(words);
	free(by);
}

