/*
 * diff.c - the statistics of `profil diff` (diff.h): rows paired by
 * function and object, each share compared as two binomial proportions
 * with Fisher's exact test, q-values by Benjamini-Hochberg within each
 * family (self, inclusive).  A row's q decides what is significant: never
 * its p or its error bar alone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "diff.h"
#include "report.h"

#define Z95 1.96	/* the normal quantile of a two-sided 95% interval */

/* A function row of one side, before they are paired. */
struct side_row {
	const char *function, *object;
	uint64_t self, incl;
	int after;
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
 * nothing to test), then largest |z|, change.
 */
static int
by_change(const struct diff_change *x, const struct diff_change *y)
{
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (x->tested != y->tested)
		return x->tested ? -1 : 1;
	if (fabs(x->z) != fabs(y->z))
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
 * The change of a share from k1 of n1 samples to k2 of n2 (n1, n2 > 0),
 * as two independent binomial proportions p1, p2 (normal approximation):
 *
 *   change  = p2 - p1
 *   se      = sqrt(p1 (1 - p1) / e1 + p2 (1 - p2) / e2)
 *   error95 = 1.96 se,  z = change / se
 *
 * e1 = n1 / s1 and e2 = n2 / s2 are the samples the counts are worth
 * (each profile's error scale, report_error_scale: 1 unless its samples
 * weigh their intervals).  se is 0 only when both shares are 0 or 1; if
 * they still differ (all samples in one function before, none after), z
 * uses the pooled share's error, the test's error under "no change",
 * which is not 0 then.
 */
static void
compare(struct diff_change *d, uint64_t n1, uint64_t n2, double s1, double s2)
{
	double p1 = (double)d->before / (double)n1;
	double p2 = (double)d->after / (double)n2;
	double e1 = (double)n1 / s1, e2 = (double)n2 / s2;
	double se = sqrt(p1 * (1 - p1) / e1 + p2 * (1 - p2) / e2);

	d->before_percent = 100 * p1;
	d->after_percent = 100 * p2;
	d->change = 100 * (p2 - p1);
	d->error95 = 100 * Z95 * se;
	if (se > 0) {
		d->z = (p2 - p1) / se;
	} else if (p1 != p2) {
		double p = (p1 * e1 + p2 * e2) / (e1 + e2);

		d->z = (p2 - p1) / sqrt(p * (1 - p) * (1 / e1 + 1 / e2));
	} else {
		d->z = 0;
	}
}

static double
log_choose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

/*
 * The two-sided p-value of Fisher's exact test that a function's share is
 * the same before and after, from its k1 of n1 samples and k2 of n2.
 * Given the k = k1 + k2 samples it had in all, the number j that fell
 * after is hypergeometric under no change:
 *
 *   P(j) = C(n2, j) C(n1, k - j) / C(n1 + n2, k),  j in [lo, hi]
 *
 * and p sums P(j) over every j no likelier than k2.  P rises to one mode
 * and falls, so the sum walks out from the mode both ways, in ratios of
 * neighbours relative to P(mode) (no overflow), and stops where terms
 * fall under 1e-17 of the threshold (underflow then changes nothing).
 * Exact, so it stays honest for functions with a handful of samples,
 * where the normal approximation of z calls 0 -> 5 samples p = 0.025
 * (Fisher: 0.06).
 */
static double
fisher_p(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
{
	uint64_t k = k1 + k2, lo = k > n1 ? k - n1 : 0, hi = k < n2 ? k : n2;
	double all = log_choose((double)(n1 + n2), (double)k);
	double mode_lp, threshold, sum = 0, r;
	uint64_t mode, j;

	mode = (uint64_t)(((double)k + 1) * ((double)n2 + 1) /
	    ((double)(n1 + n2) + 2));
	mode = mode < lo ? lo : mode > hi ? hi : mode;
	mode_lp = log_choose((double)n2, (double)mode) +
	    log_choose((double)n1, (double)(k - mode)) - all;
	/* relative to P(mode), with room for rounding in ties */
	threshold = exp(log_choose((double)n2, (double)k2) +
	    log_choose((double)n1, (double)k1) - all - mode_lp) * (1 + 1e-7);
	for (j = mode, r = 1;;) {
		if (r <= threshold)
			sum += r;
		if (j == hi || r < threshold * 1e-17)
			break;
		r *= (double)(k - j) * (double)(n2 - j) /
		    ((double)(j + 1) * (double)(n1 - k + j + 1));
		j++;
	}
	for (j = mode, r = 1; j > lo && r >= threshold * 1e-17; ) {
		r *= (double)j * (double)(n1 - k + j) /
		    ((double)(k - j + 1) * (double)(n2 - j + 1));
		j--;
		if (r <= threshold)
			sum += r;
	}
	sum *= exp(mode_lp);
	return sum < 1 ? sum : 1;
}

/*
 * Benjamini-Hochberg over one family of n tests, sorted by p already: the
 * i-th smallest of n p-values gets q = min over j >= i of p_j n / j
 * (capped at 1).  A test is significant when q <= DIFF_FDR: among those so
 * marked, the expected share of changes that are not real is at most DIFF_FDR.
 */
static void
benjamini_hochberg(struct diff_change *const *family, size_t n)
{
	double smallest = 1;

	for (size_t i = n; i-- > 0; ) {
		double q = family[i]->p * (double)n / (double)(i + 1);

		if (q < smallest)
			smallest = q;
		family[i]->q = smallest;
	}
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
 * Compare every row's shares of one kind (self, or inclusive when incl),
 * then give q-values to the family: the rows with samples of that kind
 * on either side, in p order.  A row outside it (no samples of that kind
 * in either profile: nothing to test) keeps q = 1.  Returns the family's
 * size.
 */
static size_t
test_family(struct diff_row *rows, size_t n, int incl,
    const struct profil_profile *before, const struct profil_profile *after,
    uint64_t n1, uint64_t n2)
{
	struct diff_row **order = xcalloc(n, sizeof *order);
	struct diff_change **family = xcalloc(n, sizeof *family);
	double s1 = report_error_scale(before), s2 = report_error_scale(after);
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		struct diff_change *c = incl ? &rows[i].incl : &rows[i].self;
		uint64_t k1, w1, k2, w2;

		compare(c, n1, n2, s1, s2);
		/* Fisher's test counts samples: as many as the counts are worth */
		worth(c->before, n1, s1, &k1, &w1);
		worth(c->after, n2, s2, &k2, &w2);
		c->p = fisher_p(k1, w1, k2, w2);
		c->q = 1;
		c->tested = c->before + c->after > 0;
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
	benjamini_hochberg(family, m);
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
 * Inclusive samples of s's functions, as side rows of one side: each
 * stack's count once for every function (name and object, as the flat
 * rows pair them) the stack holds, however often it holds it (recursion).
 * Made-up frames of cut stacks are not functions and count for none;
 * stacks not unwound count for nothing, and *unwound receives the samples
 * of the others, the family's total.  Returns a malloc'd array and its
 * length in *n.
 */
static struct side_row *
inclusive_rows(const struct stacks *s, int after, size_t *n,
    uint64_t *unwound)
{
	static uint32_t funcs[STACKS_MAX_DEPTH];
	size_t *order = xcalloc(s->nfuncs, sizeof *order);
	size_t *key = xcalloc(s->nfuncs, sizeof *key);
	size_t *stamp, nkeys = 0, out = 0;
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
		    strcmp(rows[nkeys - 1].object, fn->object))
			rows[nkeys++] = (struct side_row){ fn->function, fn->object,
			    0, 0, after };
		key[order[i]] = fn->cut ? SIZE_MAX : nkeys - 1;
	}
	stamp = xcalloc(nkeys, sizeof *stamp);
	*unwound = s->p->samples;
	for (size_t i = 0; i < s->p->nstacks; i++) {
		const struct profil_stack *st = &s->p->stacks[i];
		size_t depth;

		if (not_unwound(s->p, st)) {
			*unwound -= st->count;
			continue;
		}
		depth = stacks_funcs_of(s, st, funcs, STACKS_MAX_DEPTH);

		for (size_t d = 0; d < depth; d++) {
			size_t k = key[funcs[d]];

			if (k != SIZE_MAX && stamp[k] != i + 1) {
				stamp[k] = i + 1;
				rows[k].incl += st->count;
			}
		}
	}
	for (size_t k = 0; k < nkeys; k++)
		if (rows[k].incl > 0)
			rows[out++] = rows[k];
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
	struct diff_row *rows;
	size_t nsides = f[0].nrows + f[1].nrows, nin[2] = { 0, 0 }, out = 0;
	uint64_t unwound[2] = { 0, 0 };

	for (int k = 0; incl && k < 2; k++) {
		in[k] = inclusive_rows(&s[k], k, &nin[k], &unwound[k]);
		nsides += nin[k];
	}
	sides = xcalloc(nsides, sizeof *sides);
	rows = xcalloc(nsides, sizeof *rows);
	nsides = 0;
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < f[k].nrows; i++)
			sides[nsides++] = (struct side_row){ f[k].rows[i].function,
			    f[k].rows[i].object, f[k].rows[i].samples, 0, k };
		for (size_t i = 0; i < nin[k]; i++)
			sides[nsides++] = in[k][i];
		free(in[k]);
	}
	qsort(sides, nsides, sizeof *sides, by_key);
	for (size_t i = 0; i < nsides; i++) {
		const struct side_row *r = &sides[i];
		struct diff_row *d = out > 0 ? &rows[out - 1] : NULL;

		if (d == NULL || strcmp(d->function, r->function) != 0 ||
		    strcmp(d->object, r->object) != 0) {
			d = &rows[out++];
			d->function = r->function;
			d->object = r->object;
		}
		*(r->after ? &d->self.after : &d->self.before) += r->self;
		*(r->after ? &d->incl.after : &d->incl.before) += r->incl;
	}
	free(sides);
	/* no stack unwound on a side: nothing to compare inclusively */
	if (incl && unwound[0] > 0 && unwound[1] > 0)
		test_family(rows, out, 1, f[0].p, f[1].p, unwound[0], unwound[1]);
	else
		for (size_t i = 0; i < out; i++)
			rows[i].incl.q = 1;
	*tested = test_family(rows, out, 0, f[0].p, f[1].p, f[0].p->samples,
	    f[1].p->samples);
	qsort(rows, out, sizeof *rows, by_significance);
	*n = out;
	return rows;
}
