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

/* The rows to show, in their order, with their inclusive parts. */
struct flat_rows {
	struct func_row *rows;
	const struct share_part **incl;	/* per row: its stacks, or NULL */
	uint64_t *sort_key;
	size_t *order;			/* rows' indices, as shown */
	size_t n;
};

/*
 * f's rows, each with its inclusive part of incl (with stacks s, else
 * none); sorted by inclusive time, the functions with none of their own
 * (main, _start, ...) too, for they come first.
 */
static void
gather_rows(struct flat_rows *fr, const struct funcs *f,
    const struct stacks *s, const struct share_part *incl, int sort)
{
	size_t nrows = f->nrows, extra = 0;
	char *matched = s != NULL ? xcalloc(s->nfuncs + 1, 1) : NULL;

	if (s != NULL && sort == SORT_INCLUSIVE)
		extra = s->nfuncs;
	fr->rows = xcalloc(nrows + extra + 1, sizeof *fr->rows);
	if (nrows > 0)		/* (f->rows is NULL then: not memcpy's to see) */
		memcpy(fr->rows, f->rows, nrows * sizeof *fr->rows);
	fr->incl = xcalloc(nrows + extra + 1, sizeof *fr->incl);
	fr->sort_key = xcalloc(nrows + extra + 1, sizeof *fr->sort_key);
	fr->order = xcalloc(nrows + extra + 1, sizeof *fr->order);
	for (size_t i = 0; i < f->nrows; i++) {
		long fn = s != NULL ? stacks_func_of_row(s, &f->rows[i]) : -1;

		/* a function in no stack (none should be): its own samples */
		fr->incl[i] = fn >= 0 ? &incl[fn] : NULL;
		fr->sort_key[i] = fn >= 0 ? incl[fn].amount : f->rows[i].samples;
		if (fn >= 0)
			matched[fn] = 1;
	}
	for (size_t k = 0; k < extra; k++) {
		const struct stack_func *sf = &s->funcs[k];

		if (matched[k] || incl[k].amount == 0)
			continue;
		fr->rows[nrows] = (struct func_row){ sf->function, sf->symbol,
		    sf->object, sf->object_index, sf->start, sf->start, 0 };
		fr->sort_key[nrows] = incl[k].amount;
		fr->incl[nrows++] = &incl[k];
	}
	for (size_t i = 0; i < nrows; i++)
		fr->order[i] = i;
	fr->n = nrows;
	if (sort == SORT_INCLUSIVE && nrows > 1) {
		sort_incl = fr->sort_key;
		qsort(fr->order, nrows, sizeof *fr->order, by_inclusive);
	}
	free(matched);
}

static void
free_rows(struct flat_rows *fr)
{
	free(fr->rows);
	free(fr->incl);
	free(fr->sort_key);
	free(fr->order);
}

/*
 * Row r's cells: its self share, the cumulative one (*cumulative), with
 * stacks its inclusive part in (NULL: r alone), a wall view's time.
 * 0, or -1 if o leaves it out (and the rows after it, with --limit).
 */
static int
fill_row(struct table *t, const struct share_basis *b,
    const struct share_part *all, const struct func_row *r,
    const struct share_part *in, int stacks, double *cumulative,
    const struct report_options *o)
{
	double interval_s = (double)b->p->interval_ns / 1e9;
	long off_obj = stacks ? b->off_obj : -1;
	struct share_part self, alone;
	double pct;
	union cell *c;
	int rc = 0;

	share_part_row(b, &self, r);
	pct = share_percent(&self, all);
	*cumulative += pct;
	if (in == NULL) {	/* in no stack: itself alone */
		share_part_row(b, &alone, r);
		in = &alone;
	} else
		share_part_init(&alone, SHARE_CODE);
	if ((o->sort == SORT_INCLUSIVE ? share_percent(in, all) :
	    pct) < o->min_percent || (o->limit >= 0 &&
	    (long)t->nrows >= o->limit)) {
		rc = -1;
		goto out;
	}
	c = table_row(t);
	c[0].s = r->function;
	c[1].s = r->object;
	/* samples count CPU samples; a wall view's time is in seconds */
	c[2].i = (int64_t)self.cpu;
	c[3].d = pct;
	c[4].d = share_error95(b, &self, all);
	c[5].d = *cumulative;
	c[6].d = (double)self.amount * interval_s;
	if (stacks) {
		c[7].i = (int64_t)in->cpu;
		c[8].d = share_percent(in, all);
		c[9].d = share_error95(b, in, all);
	}
	if (off_obj >= 0) {
		c[10].d = report_percent(in->cpu, all->amount);
		c[11].d = (double)in->amount * interval_s;
	}
out:
	share_part_free(&self);
	share_part_free(&alone);
	return rc;
}

void
report_flat(const struct profil_profile *p, struct funcs *f,
    const struct stacks *s, const struct report_options *o)
{
	int stacks = s != NULL && p->nstacks > 0;
	struct share_basis b;
	struct share_part all, *incl = NULL;
	struct flat_rows fr;
	struct table t;
	double cumulative = 0;
	long off_obj;

	if (f->nrows > 1 && o->sort != SORT_SAMPLES && o->sort != SORT_INCLUSIVE)
		qsort(f->rows, f->nrows, sizeof *f->rows, o->sort == SORT_FUNCTION ?
		    by_function : o->sort == SORT_OBJECT ? by_object : funcs_by_samples);
	share_basis_init(&b, p);
	off_obj = stacks ? b.off_obj : -1;
	share_part_init(&all, SHARE_TIME);
	share_part_all(&b, &all);
	if (stacks)
		incl = share_parts_inclusive(&b, s);
	gather_rows(&fr, f, stacks ? s : NULL, incl, o->sort);
	if (off_obj >= 0)
		table_init(&t, wall_cols(), 12);
	else
		table_init(&t, flat_cols, stacks ? 10 : 7);
	for (size_t i = 0; i < fr.n; i++)
		if (fill_row(&t, &b, &all, &fr.rows[fr.order[i]],
		    fr.incl[fr.order[i]], stacks, &cumulative, o) < 0 &&
		    o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
	table_print(&t, o->format, off_obj >= 0 ? wall_text : stacks ?
	    flat_text_stacks : flat_text, o->caption, &o->style);
	table_free(&t);
	share_parts_free(incl, stacks ? s->nfuncs : 0);
	share_part_free(&all);
	share_basis_free(&b);
	free_rows(&fr);
}
