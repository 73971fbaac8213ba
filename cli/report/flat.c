/*
 * flat.c - the flat view of `profil report`: a row per function, its
 * self samples with their 95% error (share.h), and with call stacks its
 * inclusive ones; of a wall profile, its wall time on and off the CPU.
 * Machine columns are documented in profil.1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "share.h"
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
	{ "inclusive_seconds", "incl s", COL_SEC },
};
static const int flat_text[] = { 3, 4, 5, 6, 2, 0, 1, -1 };
static const int flat_text_stacks[] = { 3, 4, 8, 9, 6, 2, 0, 1, -1 };
/*
 * A wall view's (wall-view.h): the same, shares of wall time, and two
 * more columns: beside the inclusive share, the part of it on the CPU
 * (of the same whole), so that "40% of wall, 1% on the CPU" reads at a
 * glance, and the inclusive seconds.  Its samples columns count CPU
 * samples (a row of time off the CPU has none); the seconds, its time.
 */
static const int wall_text[] = { 3, 4, 8, 9, 10, 6, 0, 1, -1 };

static const struct col *
wall_cols(void)
{
	static struct col cols[12];

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

void
report_flat(const struct profil_profile *p, struct funcs *f,
    const struct stacks *s, const struct report_options *o)
{
	int stacks = s != NULL && p->nstacks > 0;
	struct share_basis b;
	struct share_part all, *incl = NULL;
	const struct share_part **row_incl;
	uint64_t *sort_key;
	double interval_s = (double)p->interval_ns / 1e9;
	size_t *order;
	struct table t;
	double cumulative = 0;
	size_t i;
	long off_obj;

	if (f->nrows > 1 && o->sort != SORT_SAMPLES && o->sort != SORT_INCLUSIVE)
		qsort(f->rows, f->nrows, sizeof *f->rows, o->sort == SORT_FUNCTION ?
		    by_function : o->sort == SORT_OBJECT ? by_object : funcs_by_samples);
	size_t nrows = f->nrows, extra = 0;
	struct func_row *rows;
	char *matched = NULL;

	share_basis_init(&b, p);
	off_obj = stacks ? b.off_obj : -1;
	share_part_init(&all, SHARE_TIME);
	share_part_all(&b, &all);
	if (stacks) {
		incl = share_parts_inclusive(&b, s);
		matched = xcalloc(s->nfuncs + 1, 1);
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
	sort_key = xcalloc(nrows + extra + 1, sizeof *sort_key);
	order = xcalloc(nrows + extra + 1, sizeof *order);
	for (i = 0; i < f->nrows; i++) {
		long fn = stacks ? stacks_func_of_row(s, &f->rows[i]) : -1;

		/* a function in no stack (none should be): its own samples */
		row_incl[i] = fn >= 0 ? &incl[fn] : NULL;
		sort_key[i] = fn >= 0 ? incl[fn].amount : f->rows[i].samples;
		if (fn >= 0)
			matched[fn] = 1;
	}
	for (size_t k = 0; k < extra; k++) {
		const struct stack_func *sf = &s->funcs[k];

		if (matched[k] || incl[k].amount == 0)
			continue;
		rows[nrows] = (struct func_row){ sf->function, sf->symbol,
		    sf->object, sf->object_index, sf->start, sf->start, 0 };
		sort_key[nrows] = incl[k].amount;
		row_incl[nrows++] = &incl[k];
	}
	for (i = 0; i < nrows; i++)
		order[i] = i;
	if (o->sort == SORT_INCLUSIVE && nrows > 1) {
		sort_incl = sort_key;
		qsort(order, nrows, sizeof *order, by_inclusive);
	}
	if (off_obj >= 0)
		table_init(&t, wall_cols(), 12);
	else
		table_init(&t, flat_cols, stacks ? 10 : 7);
	for (i = 0; i < nrows; i++) {
		const struct func_row *r = &rows[order[i]];
		const struct share_part *in = row_incl[order[i]];
		struct share_part self, alone;
		double pct;
		union cell *c;

		share_part_row(&b, &self, r);
		pct = share_percent(&self, &all);
		cumulative += pct;
		if (in == NULL) {	/* in no stack: itself alone */
			share_part_row(&b, &alone, r);
			in = &alone;
		} else
			share_part_init(&alone, SHARE_CODE);
		if ((o->sort == SORT_INCLUSIVE ? share_percent(in, &all) :
		    pct) < o->min_percent) {
			share_part_free(&self);
			share_part_free(&alone);
			continue;
		}
		if (o->limit >= 0 && (long)t.nrows >= o->limit) {
			share_part_free(&self);
			share_part_free(&alone);
			break;
		}
		c = table_row(&t);
		c[0].s = r->function;
		c[1].s = r->object;
		/* samples count CPU samples; a wall view's time is in seconds */
		c[2].i = (int64_t)self.cpu;
		c[3].d = pct;
		c[4].d = share_error95(&b, &self, &all);
		c[5].d = cumulative;
		c[6].d = (double)self.amount * interval_s;
		if (stacks) {
			c[7].i = (int64_t)in->cpu;
			c[8].d = share_percent(in, &all);
			c[9].d = share_error95(&b, in, &all);
		}
		if (off_obj >= 0) {
			c[10].d = report_percent(in->cpu, all.amount);
			c[11].d = (double)in->amount * interval_s;
		}
		share_part_free(&self);
		share_part_free(&alone);
	}
	table_print(&t, o->format, off_obj >= 0 ? wall_text : stacks ?
	    flat_text_stacks : flat_text, o->caption, &o->style);
	table_free(&t);
	share_parts_free(incl, stacks ? s->nfuncs : 0);
	share_part_free(&all);
	share_basis_free(&b);
	free(matched);
	free(rows);
	free(row_incl);
	free(sort_key);
	free(order);
}
