/*
 * diff.c - the statistics of `profil diff` (diff.h): rows paired by
 * function and object, each share compared as two binomial proportions
 * with Fisher's exact test, q-values by Benjamini-Hochberg within each
 * family (self, inclusive; the two tests are diff-stats.c's).  A row's q
 * decides what is significant: never its p or its error bar alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "diff.h"
#include "diff-stats.h"
#include "report.h"
#include "share.h"

#define Z95 1.959964	/* the normal quantile of a two-sided 95% interval */

/* A function row of one side, before they are paired. */
struct side_row {
	const char *function, *object;
	struct share_part self, incl;	/* what its shares are of (share.h) */
	int after;
};

/* One side of the comparison: a profile and the wholes of its shares. */
struct side {
	struct share_basis b;
	struct share_part all;		/* the self shares' whole */
	struct share_part unwound;	/* the inclusive ones': stacks unwound */
};

/* The parts of a paired row, before and after. */
struct pair {
	struct share_part self[2], incl[2];
};

static int
by_key(const void *a, const void *b)
{
	const struct side_row *x = a, *y = b;
	int c = strcmp(x->function, y->function);

	if (c == 0)
		c = strcmp(x->object, y->object);
	return c ? c : x->after - y->after;
}

/*
 * Smallest p first (so q too), then tested ones (p = 1 is also the p of
 * nothing to test), then those with time off the CPU (untested), then
 * largest |z|, change.
 */
static int
by_change(const struct diff_change *x, const struct diff_change *y)
{
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (x->tested != y->tested)
		return x->tested ? -1 : 1;
	if (x->offcpu != y->offcpu)
		return x->offcpu ? -1 : 1;
	if (!isnan(x->z) && !isnan(y->z) && fabs(x->z) != fabs(y->z))
		return fabs(x->z) > fabs(y->z) ? -1 : 1;
	if (fabs(x->change) != fabs(y->change))
		return fabs(x->change) > fabs(y->change) ? -1 : 1;
	return 0;
}

static int
by_names(const struct diff_row *x, const struct diff_row *y)
{
	int c = strcmp(x->function, y->function);

	return c ? c : strcmp(x->object, y->object);
}

/* By self significance; ties (functions with no self samples) by inclusive. */
static int
by_significance(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	int c = by_change(&x->self, &y->self);

	if (c == 0)
		c = by_change(&x->incl, &y->incl);
	return c ? c : by_names(x, y);
}

static int
by_significance_of_pointers(const void *a, const void *b)
{
	return by_significance(*(const struct diff_row *const *)a,
	    *(const struct diff_row *const *)b);
}

int
diff_by_incl_significance(const void *a, const void *b)
{
	const struct diff_row *x = *(const struct diff_row *const *)a;
	const struct diff_row *y = *(const struct diff_row *const *)b;
	int c = by_change(&x->incl, &y->incl);

	return c ? c : by_names(x, y);
}

/*
 * The change of a share from before (r[0] of w[0]) to after (r[1] of
 * w[1]), each share with its error as every view gives it (share.h):
 *
 *   change  = p2 - p1
 *   error95 = sqrt(e1^2 + e2^2)      e1, e2: the shares' 95% errors
 *   z       = change / se,           se = error95 / 1.96
 *
 * The errors are those of the samples the counts are worth (weighted
 * samples), and none for what was measured (a wall view's time timed
 * where it was).  se is 0 only when neither share has anything sampled:
 * then a change is no sampling error at all, and z is not given (NaN).
 */
static void
compare(struct diff_change *d, const struct share_part *const r[2],
    const struct side *const w[2], int incl)
{
	const struct share_part *whole[2] = { incl ? &w[0]->unwound :
	    &w[0]->all, incl ? &w[1]->unwound : &w[1]->all };
	double e1 = share_error95(&w[0]->b, r[0], whole[0]);
	double e2 = share_error95(&w[1]->b, r[1], whole[1]);
	double se;

	d->before = r[0]->amount;
	d->after = r[1]->amount;
	d->before_percent = share_percent(r[0], whole[0]);
	d->after_percent = share_percent(r[1], whole[1]);
	d->change = d->after_percent - d->before_percent;
	d->error95 = sqrt(e1 * e1 + e2 * e2);
	se = d->error95 / Z95;
	d->z = se > 0 ? d->change / se : NAN;
}

/* k of n weighted counts as whole samples of equal weight: k / scale of n / scale */
static void
worth(uint64_t k, uint64_t n, double scale, uint64_t *wk, uint64_t *wn)
{
	*wn = (uint64_t)llround((double)n / scale);
	*wk = (uint64_t)llround((double)k / scale);
	if (*wn == 0)
		*wn = 1;
	if (*wk > *wn)
		*wk = *wn;
}

/*
 * The p-value of "no change": Fisher's exact test on the samples the
 * counts are worth where both shares are of CPU samples alone (CPU
 * profiles, --cpu); where time is in them (wall views), the normal one
 * of z, for time is no sample to count (a share with time off the CPU
 * in it is not tested at all: test_family).
 */
static double
p_of(const struct diff_change *c, const struct side *const w[2], int incl)
{
	uint64_t n1, n2, k1, w1, k2, w2;

	if (w[0]->b.off_obj >= 0 || w[1]->b.off_obj >= 0)
		return isnan(c->z) ? 1 : erfc(fabs(c->z) / M_SQRT2);
	n1 = incl ? w[0]->unwound.amount : w[0]->all.amount;
	n2 = incl ? w[1]->unwound.amount : w[1]->all.amount;
	/* Fisher's test counts samples: as many as the counts are worth */
	worth(c->before, n1, w[0]->b.scale, &k1, &w1);
	worth(c->after, n2, w[1]->b.scale, &k2, &w2);
	return diff_fisher_p(k1, w1, k2, w2);
}

/*
 * Compare every row's shares of one kind (self, or inclusive when incl),
 * then give q-values to the family: the rows with samples of that kind
 * on either side, in p order.  A row outside it (no samples of that kind
 * in either profile: nothing to test) keeps q = 1.  Returns the family's
 * size.
 */
static size_t
test_family(struct diff_row *rows, const struct pair *pairs, size_t n,
    int incl, const struct side *const w[2])
{
	struct diff_row **order = xcalloc(n, sizeof *order);
	struct diff_change **family = xcalloc(n, sizeof *family);
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		struct diff_change *c = incl ? &rows[i].incl : &rows[i].self;
		const struct share_part *r[2] = {
			incl ? &pairs[i].incl[0] : &pairs[i].self[0],
			incl ? &pairs[i].incl[1] : &pairs[i].self[1] };

		compare(c, r, w, incl);
		c->p = p_of(c, w, incl);
		c->q = 1;
		c->tested = c->before + c->after > 0;
		/*
		 * Time off the CPU in it: its change is the runs' own (timed
		 * by the switches or counters, placed where sampled with the
		 * error above); whether it recurs is no question sampling
		 * answers, and testing it would mark every wait of two runs
		 * of one program that moved by a millisecond.  Out of the
		 * family, then, and said so.
		 */
		if (c->tested && (r[0]->amount > r[0]->cpu ||
		    r[1]->amount > r[1]->cpu)) {
			c->tested = 0;
			c->offcpu = 1;
			c->p = 1;
			c->q = NAN;
		}
		order[i] = &rows[i];
	}
	qsort(order, n, sizeof *order, incl ? diff_by_incl_significance :
	    by_significance_of_pointers);
	for (size_t i = 0; i < n; i++) {
		struct diff_change *c = incl ? &order[i]->incl :
		    &order[i]->self;

		if (c->tested)
			family[m++] = c;
	}
	diff_benjamini_hochberg(family, m);
	free(order);
	free(family);
	return m;
}

static const struct stack_func *sort_funcs_by;

static int
by_func_name(const void *a, const void *b)
{
	const struct stack_func *x = &sort_funcs_by[*(const size_t *)a];
	const struct stack_func *y = &sort_funcs_by[*(const size_t *)b];
	int c = strcmp(x->function, y->function);

	return c ? c : strcmp(x->object, y->object);
}

/*
 * Whether a stack was left unwound for the recorder's sake (behind, or
 * no stack taken): it says nothing of the program's calls, and how many
 * there are depends on the machine's load, not on the program.
 */
static int
not_unwound(const struct profil_profile *p, const struct profil_stack *st)
{
	const struct profil_frame *last = &p->frames[st->frames[st->depth - 1]];

	return last->object == PROFIL_FRAME_CUT &&
	    (last->addr == PROFIL_CUT_BEHIND || last->addr == PROFIL_CUT_NOT_TAKEN);
}

/*
 * Inclusive parts of s's functions, as side rows of one side: each
 * stack once for every function (name and object, as the flat rows pair
 * them) the stack holds, however often it holds it (recursion).
 * Made-up frames of cut stacks are not functions and count for none;
 * stacks not unwound count for nothing, and w->unwound receives the
 * others (and any sample without a stack), the family's whole.  Returns
 * a malloc'd array and its length in *n.
 */
static struct side_row *
inclusive_rows(const struct stacks *s, struct side *w, int after, size_t *n)
{
	static uint32_t funcs[STACKS_MAX_DEPTH];
	size_t *order = xcalloc(s->nfuncs, sizeof *order);
	size_t *key = xcalloc(s->nfuncs, sizeof *key);
	size_t *stamp, nkeys = 0, out = 0;
	uint64_t in_stacks = 0;
	struct side_row *rows;

	/* a key per (function, object): sort the functions by name */
	for (size_t i = 0; i < s->nfuncs; i++)
		order[i] = i;
	sort_funcs_by = s->funcs;
	qsort(order, s->nfuncs, sizeof *order, by_func_name);
	rows = xcalloc(s->nfuncs, sizeof *rows);
	for (size_t i = 0; i < s->nfuncs; i++) {
		const struct stack_func *fn = &s->funcs[order[i]];

		if (nkeys == 0 || strcmp(rows[nkeys - 1].function, fn->function) ||
		    strcmp(rows[nkeys - 1].object, fn->object)) {
			rows[nkeys] = (struct side_row){ fn->function, fn->object,
			    { 0 }, { 0 }, after };
			share_part_init(&rows[nkeys].self, SHARE_TIME);
			share_part_init(&rows[nkeys++].incl, w->b.off_obj >= 0 &&
			    fn->object_index == (size_t)w->b.off_obj ? SHARE_TIME :
			    SHARE_CODE);
		}
		key[order[i]] = fn->cut ? SIZE_MAX : nkeys - 1;
	}
	stamp = xcalloc(nkeys, sizeof *stamp);
	share_part_init(&w->unwound, SHARE_TIME);
	for (size_t i = 0; i < s->p->nstacks; i++) {
		const struct profil_stack *st = &s->p->stacks[i];
		size_t depth;

		in_stacks += share_stack_offcpu(&w->b, i) ? 0 : st->count;
		if (not_unwound(s->p, st))
			continue;
		share_part_stack(&w->b, &w->unwound, i);
		depth = stacks_funcs_of(s, st, funcs, STACKS_MAX_DEPTH);

		for (size_t d = 0; d < depth; d++) {
			size_t k = key[funcs[d]];

			if (k != SIZE_MAX && stamp[k] != i + 1) {
				stamp[k] = i + 1;
				share_part_stack(&w->b, &rows[k].incl, i);
			}
		}
	}
	/* CPU samples without a stack, if any: in the whole, in no row */
	if (w->all.cpu > in_stacks)
		share_part_cpu(&w->unwound, w->all.cpu - in_stacks);
	for (size_t k = 0; k < nkeys; k++)
		if (rows[k].incl.amount > 0)
			rows[out++] = rows[k];
		else {
			share_part_free(&rows[k].self);
			share_part_free(&rows[k].incl);
		}
	free(stamp);
	free(key);
	free(order);
	*n = out;
	return rows;
}

struct diff_row *
diff_pair_rows(const struct funcs *f, const struct stacks *s, int incl,
    size_t *n, size_t *tested)
{
	struct side_row *sides, *in[2] = { NULL, NULL };
	struct side w[2];
	const struct side *const sides_of[2] = { &w[0], &w[1] };
	struct diff_row *rows;
	struct pair *pairs;
	size_t nsides = f[0].nrows + f[1].nrows, nin[2] = { 0, 0 }, out = 0;

	for (int k = 0; k < 2; k++) {
		share_basis_init(&w[k].b, f[k].p);
		share_part_init(&w[k].all, SHARE_TIME);
		share_part_all(&w[k].b, &w[k].all);
		share_part_init(&w[k].unwound, SHARE_TIME);
		if (incl) {
			share_part_free(&w[k].unwound);
			in[k] = inclusive_rows(&s[k], &w[k], k, &nin[k]);
			nsides += nin[k];
		}
	}
	sides = xcalloc(nsides, sizeof *sides);
	nsides = 0;
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < f[k].nrows; i++) {
			struct side_row *r = &sides[nsides++];

			r->function = f[k].rows[i].function;
			r->object = f[k].rows[i].object;
			r->after = k;
			share_part_row(&w[k].b, &r->self, &f[k].rows[i]);
			share_part_init(&r->incl, SHARE_TIME);
		}
		for (size_t i = 0; i < nin[k]; i++)
			sides[nsides++] = in[k][i];
		free(in[k]);
	}
	qsort(sides, nsides, sizeof *sides, by_key);
	rows = xcalloc(nsides + 1, sizeof *rows);
	pairs = xcalloc(nsides + 1, sizeof *pairs);
	for (size_t i = 0; i < nsides; i++) {
		struct side_row *r = &sides[i];
		struct diff_row *d = out > 0 ? &rows[out - 1] : NULL;
		struct pair *pr = out > 0 ? &pairs[out - 1] : NULL;

		if (d == NULL || strcmp(d->function, r->function) != 0 ||
		    strcmp(d->object, r->object) != 0) {
			d = &rows[out];
			pr = &pairs[out++];
			d->function = r->function;
			d->object = r->object;
			for (int k = 0; k < 2; k++) {
				share_part_init(&pr->self[k], SHARE_TIME);
				share_part_init(&pr->incl[k], SHARE_TIME);
			}
		}
		share_part_add(&pr->self[r->after], &r->self);
		share_part_add(&pr->incl[r->after], &r->incl);
		share_part_free(&r->self);
		share_part_free(&r->incl);
	}
	free(sides);
	/*
	 * A function is code on both sides or on neither: where it has no
	 * samples, the error of none of the samples (share.h).
	 */
	for (size_t i = 0; i < out; i++) {
		int code = pairs[i].self[0].code | pairs[i].self[1].code |
		    pairs[i].incl[0].code | pairs[i].incl[1].code;

		for (int k = 0; k < 2; k++)
			pairs[i].self[k].code = pairs[i].incl[k].code = code;
	}
	/* no stack unwound on a side: nothing to compare inclusively */
	if (incl && w[0].unwound.amount > 0 && w[1].unwound.amount > 0)
		test_family(rows, pairs, out, 1, sides_of);
	else
		for (size_t i = 0; i < out; i++)
			rows[i].incl.q = 1;
	*tested = test_family(rows, pairs, out, 0, sides_of);
	for (size_t i = 0; i < out; i++)
		for (int k = 0; k < 2; k++) {
			share_part_free(&pairs[i].self[k]);
			share_part_free(&pairs[i].incl[k]);
		}
	free(pairs);
	for (int k = 0; k < 2; k++) {
		share_part_free(&w[k].all);
		share_part_free(&w[k].unwound);
		share_basis_free(&w[k].b);
	}
	qsort(rows, out, sizeof *rows, by_significance);
	*n = out;
	return rows;
}
