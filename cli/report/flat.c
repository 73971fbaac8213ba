/*
 * flat.c - the flat view of `profil report`: a row per function, its
 * self samples with their 95% sampling error, and with call stacks its
 * inclusive ones; of a wall profile, its wall time on and off the CPU.
 * Machine columns are documented in profil.1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile/wall-view.h"
#include "report.h"
#include "table.h"

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
