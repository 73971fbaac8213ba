/*
 * cmd-diff.c - `profil diff BEFORE AFTER`: each function's share of all
 * samples before and after, the change in points with its 95% error bar,
 * most significant change first.  Functions are matched by name and
 * object basename (cli/symbols/funcs.h), so the two runs may be of two builds.
 * Shares are of all samples (lost ones aside), as in the flat report, so
 * the two columns of percentages read like two flat reports side by side.
 *
 * Many functions are tested at once: a change is called significant only
 * when it survives Benjamini-Hochberg at a false discovery rate of 5%
 * over every function compared, so that two runs of one program show
 * none by chance (the per-function error bar alone marks one in twenty).
 *
 * With call stacks in both profiles, each function also gets its
 * inclusive share (the samples of the stacks it is in, once per stack),
 * compared the same way; those tests are a family of their own, so that
 * the self verdicts are the same whether or not stacks were recorded.
 *
 * Two wall profiles (record --wall) are compared as report shows them:
 * shares of wall time, time off the CPU counted in sampling intervals
 * at [off-cpu: read], ... (profile/wall-view.h), or their CPU parts with
 * --cpu.  A wall profile and a CPU one: their CPU parts, said on stderr.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "profile/wall-view.h"
#include "symbols/find.h"
#include "symbols/funcs.h"
#include "symbols/stacks.h"
#include "report/report.h"
#include "report/table.h"

#define Z95 1.96	/* the normal quantile of a two-sided 95% interval */
#define FDR 0.05	/* the false discovery rate significance is held to */

/* One share compared: a function's self, or inclusive, samples. */
struct change {
	uint64_t before, after;
	double before_percent, after_percent;	/* of all samples */
	double change;		/* after% - before%, in points */
	double error95;		/* half-width of its 95% interval, in points */
	double z;		/* change / its standard error */
	double p;		/* Fisher's exact test of "no change", two-sided */
	double q;		/* its Benjamini-Hochberg q-value, in its family */
	int tested;		/* in its family: samples on either side */
};

struct diff_row {
	const char *function, *object;
	struct change self;
	struct change incl;	/* both profiles with stacks only */
};

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
by_change(const struct change *x, const struct change *y)
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

static int
by_incl_significance(const void *a, const void *b)
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
compare(struct change *d, uint64_t n1, uint64_t n2, double s1, double s2)
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
 * (capped at 1).  A test is significant when q <= FDR: among those so
 * marked, the expected share of changes that are not real is at most FDR.
 */
static void
benjamini_hochberg(struct change *const *family, size_t n)
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
	struct change **family = xcalloc(n, sizeof *family);
	double s1 = report_error_scale(before), s2 = report_error_scale(after);
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		struct change *c = incl ? &rows[i].incl : &rows[i].self;
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
	qsort(order, n, sizeof *order, incl ? by_incl_significance :
	    by_significance_of_pointers);
	for (size_t i = 0; i < n; i++) {
		struct change *c = incl ? &order[i]->incl : &order[i]->self;

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

/*
 * One row per (function, object) of either profile's flat rows, and with
 * stacks of either's stacks (callers have no flat row of their own), its
 * samples summed on each side (0 where absent), compared; incl says
 * whether inclusive shares are (both profiles have stacks).  Sorted by
 * significance.  Returns a malloc'd array and its length in *n; *tested
 * receives the size of the self family.
 */
static struct diff_row *
pair_rows(const struct funcs *f, const struct stacks *s, int incl, size_t *n,
    size_t *tested)
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

/*
 * Machine formats show the first 20 columns: the documented 10, q after
 * them, then the inclusive ones (empty, or null, without stacks): columns
 * never move.  Text shows the self columns, and with stacks a second
 * table of the inclusive ones; it adds the mark and leaves z out to fit
 * 80 columns: change and its bar say as much, q says more.
 */
static const struct col diff_cols[] = {
	{ "function", "function", COL_STR },
	{ "object", "object", COL_STR },
	{ "before_samples", "before", COL_INT },
	{ "after_samples", "after", COL_INT },
	{ "before_percent", "before%", COL_PCT },
	{ "after_percent", "after%", COL_PCT },
	{ "change", "change", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "z", "z", COL_PCT },
	{ "significant", "significant", COL_INT },
	{ "q", "q", COL_PROB },
	{ "incl_before_samples", "before", COL_INT },
	{ "incl_after_samples", "after", COL_INT },
	{ "incl_before_percent", "before%", COL_PCT },
	{ "incl_after_percent", "after%", COL_PCT },
	{ "incl_change", "change", COL_PCT },
	{ "incl_error95", "95%", COL_ERR },
	{ "incl_z", "z", COL_PCT },
	{ "incl_significant", "significant", COL_INT },
	{ "incl_q", "q", COL_PROB },
	{ "mark", "", COL_STR },
};
#define DIFF_MACHINE_COLS 20
static const int diff_text[] = { 4, 5, 6, 7, 10, 20, 0, 1, -1 };
static const int diff_text_incl[] = { 13, 14, 15, 16, 19, 20, 0, 1, -1 };

struct diff_options {
	int format;
	long limit;		/* -1: all */
	double min_change;	/* in points */
};

/* c's cells from column first on: 9 of them, empty when c is not there. */
static void
change_cells(union cell *c, const struct change *d, int there)
{
	c[0].i = there ? (int64_t)d->before : TABLE_NO_INT;
	c[1].i = there ? (int64_t)d->after : TABLE_NO_INT;
	c[2].d = there ? d->before_percent : NAN;
	c[3].d = there ? d->after_percent : NAN;
	c[4].d = there ? d->change : NAN;
	c[5].d = there ? d->error95 : NAN;
	c[6].d = there ? d->z : NAN;
	c[7].i = there ? d->q <= FDR : TABLE_NO_INT;
	c[8].d = there ? d->q : NAN;
}

/*
 * The rows (in their order) as a table: all of them in machine formats,
 * where --min-change keeps a row when either of its changes reaches it;
 * for text, the shares of one kind (inclusive when incl_text) of the
 * functions that have such samples.
 */
static void
print_diff(const struct diff_row *const *rows, size_t n, int incl,
    int incl_text, const struct diff_options *o, const char *caption)
{
	int text = o->format == FORMAT_TEXT;
	struct table t;

	table_init(&t, diff_cols, text ? 21 : DIFF_MACHINE_COLS);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *d = rows[i];
		const struct change *shown = incl_text ? &d->incl : &d->self;
		union cell *c;

		/* in text, a table shows the functions its family tested */
		if (text && !shown->tested)
			continue;
		if (text ? fabs(shown->change) < o->min_change :
		    fabs(d->self.change) < o->min_change &&
		    (!incl || fabs(d->incl.change) < o->min_change))
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = d->function;
		c[1].s = d->object;
		change_cells(c + 2, &d->self, 1);
		change_cells(c + 11, &d->incl, incl);
		if (text)
			c[20].s = shown->q <= FDR ? "*" : "";
	}
	table_print(&t, o->format, incl_text ? diff_text_incl : diff_text,
	    caption);
	table_free(&t);
}

/*
 * Two profiles of different programs (their first objects, the programs
 * record started, have other names), or by different engines (which
 * count system-call time differently): compared all the same, functions
 * matched by name, but not without a word (merge refuses them).
 */
static void
warn_unlike(struct profil_profile *const p[2], char *const names[2])
{
	const char *a = p[0]->nobjects ? funcs_base_name(p[0]->objects[0].path) :
	    NULL;
	const char *b = p[1]->nobjects ? funcs_base_name(p[1]->objects[0].path) :
	    NULL;

	if (a != NULL && b != NULL && strcmp(a, b) != 0)
		cli_warn("%s profiles %s, %s profiles %s: different programs, "
		    "their functions matched by name", names[0], a, names[1], b);
	if (strcmp(p[0]->engine, p[1]->engine) != 0)
		cli_warn("%s was recorded by the %s engine, %s by the %s engine: "
		    "they count time in system calls differently", names[0],
		    p[0]->engine, names[1], p[1]->engine);
}

/*
 * p[0] and p[1] (files names) as they are compared: wall views of two
 * wall profiles (their CPU parts with cpu_only), the CPU part of one
 * wall profile beside a CPU profile.  Replaced in p; 1 if wall time is
 * compared.
 */
static int
wall_or_cpu(struct profil_profile *p[2], char *const names[2], int cpu_only)
{
	int walls = (p[0]->wall != NULL) + (p[1]->wall != NULL);

	if (walls == 0 && cpu_only)
		cli_die(EXIT_USAGE, "--cpu: %s and %s are CPU profiles already "
		    "(record --wall makes wall profiles)", names[0], names[1]);
	if (walls == 1)
		cli_warn("%s is a wall profile, %s a CPU profile: their CPU parts "
		    "compared", names[p[0]->wall != NULL ? 0 : 1],
		    names[p[0]->wall != NULL ? 1 : 0]);
	for (int k = 0; k < 2; k++) {
		struct profil_profile *v = wall_view(p[k], cpu_only || walls == 1);

		if (v != NULL) {
			profil_profile_free(p[k]);
			p[k] = v;
		}
	}
	return walls == 2 && !cpu_only;
}

static int
diff_exec(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "min-change", required_argument, NULL, 'm' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "cpu", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct diff_options o = { FORMAT_TEXT, -1, 0 };
	struct profil_profile *p[2];
	struct funcs f[2];
	struct stacks s[2];
	struct diff_row *rows, **order;
	char cause[256], caption[1024], worth_of[2][64] = { "", "" };
	const char *symfs = NULL, *debug_dirs = NULL;
	size_t nrows, tested, nincl = 0;
	int c, incl, cpu_only = 0, wall;

	while ((c = cli_getopt(argc, argv, "f:n:h", options, NULL)) != -1) {
		switch (c) {
		case 'f':
			o.format = table_option_format(optarg);
			break;
		case 'n':
			o.limit = cli_option_limit(optarg);
			break;
		case 'm':
			if (cli_parse_percent(optarg, &o.min_change) < 0)
				cli_die(EXIT_USAGE, "--min-change: '%s' is not a number "
				    "of points from 0 to 100", optarg);
			break;
		case 'S':
			symfs = optarg;
			break;
		case 'D':
			debug_dirs = optarg;
			break;
		case 'C':
			cpu_only = 1;
			break;
		case 'h':
			return cli_help(&cmd_diff, options);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	find_search_set(symfs, debug_dirs);
	if (argc - optind != 2)
		cli_die(EXIT_USAGE, "two profiles to compare, before and after "
		    "(see 'profil diff --help')");
	for (int k = 0; k < 2; k++) {
		const char *file = argv[optind + k];

		p[k] = profil_profile_read(file, cause, sizeof cause);
		if (p[k] == NULL) {
			cli_error("%s: %s", file, cause);
			if (k == 1)
				profil_profile_free(p[0]);
			return 1;
		}
	}
	wall = wall_or_cpu(p, argv + optind, cpu_only);
	for (int k = 0; k < 2; k++)
		if (p[k]->samples == 0) {
			cli_error("%s: no samples: nothing to compare",
			    argv[optind + k]);
			profil_profile_free(p[0]);
			profil_profile_free(p[1]);
			return 1;
		}
	warn_unlike(p, argv + optind);
	incl = p[0]->nstacks > 0 && p[1]->nstacks > 0;
	for (int k = 0; k < 2; k++) {
		funcs_build(&f[k], p[k], 1);
		/* inlined code is its caller's here, as in the self rows */
		if (incl)
			stacks_name(&s[k], p[k], &f[k], STACKS_NO_LINES);
	}
	rows = pair_rows(f, s, incl, &nrows, &tested);
	order = xcalloc(nrows, sizeof *order);
	for (size_t i = 0; i < nrows; i++)
		order[i] = &rows[i];
	for (int k = 0; k < 2; k++)
		if (report_weighted(p[k]))
			snprintf(worth_of[k], sizeof worth_of[k], ", as %.0f of "
			    "equal weight", (double)p[k]->samples /
			    report_error_scale(p[k]));
	snprintf(caption, sizeof caption, "before: %s (%llu samples%s)\n"
	    "after: %s (%llu samples%s)\nchange = after%% - before%% in points, "
	    "+-" CLI_GLUE "95%%" CLI_GLUE "error (each function alone)\n*: "
	    "significant, q <= 0.05: "
	    "a false discovery rate of 5%% over the %zu functions\ncompared "
	    "(Benjamini-Hochberg)%s%s%s%s",
	    argv[optind], (unsigned long long)p[0]->samples, worth_of[0],
	    argv[optind + 1], (unsigned long long)p[1]->samples, worth_of[1],
	    tested,
	    !incl && p[0]->nstacks + p[1]->nstacks > 0 ? "\nno inclusive "
	    "shares: " : "", !incl && p[0]->nstacks + p[1]->nstacks > 0 ?
	    argv[optind + (p[0]->nstacks == 0 ? 0 : 1)] : "",
	    !incl && p[0]->nstacks + p[1]->nstacks > 0 ? " has no call stacks" :
	    "", wall ? "\nwall profiles: shares of wall time, on the CPU and "
	    "off it (time off\nthe CPU in sampling intervals; --cpu compares "
	    "the CPU parts)" : "");
	print_diff((const struct diff_row *const *)order, nrows, incl, 0, &o,
	    caption);
	if (incl && o.format == FORMAT_TEXT) {
		/* the inclusive family in a table of its own, in its order */
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].incl.tested)
				order[nincl++] = &rows[i];
		qsort(order, nincl, sizeof *order, by_incl_significance);
		snprintf(caption, sizeof caption, "\ninclusive: the share of "
		    "samples whose call stack holds the function (once a\nstack; "
		    "of the stacks unwound), +-" CLI_GLUE "95%%" CLI_GLUE "error; "
		    "*: q <= 0.05 over the "
		    "%zu\nfunctions in the stacks, a family of their own "
		    "(Benjamini-Hochberg)", nincl);
		print_diff((const struct diff_row *const *)order, nincl, incl, 1,
		    &o, caption);
	}
	c = cli_finish_stdout(0);
	free(order);
	free(rows);
	for (int k = 0; incl && k < 2; k++)
		stacks_free(&s[k]);
	funcs_free(&f[0]);
	funcs_free(&f[1]);
	profil_profile_free(p[0]);
	profil_profile_free(p[1]);
	return c;
}

const struct cmd cmd_diff = {
	"diff", "[--format text|csv|json] [--limit N] [--min-change P] "
	    "[--cpu] [--symfs DIR] [--debug-dir DIRS] BEFORE AFTER",
	"compare two profiles function by function, with error bars",
	diff_exec,
	"  -f, --format FORMAT  text (default), csv or json (stable columns)\n"
	"  -n, --limit N        at most N rows (default: all)\n"
	"      --min-change P   leave out changes under P points either way\n"
	"                       (default 0)\n"
	"      --cpu            wall profiles (record --wall): compare their CPU\n"
	"                       parts (default: shares of wall time, off-CPU time\n"
	"                       at [off-cpu: read], ...; a wall profile and a CPU\n"
	"                       one: their CPU parts)\n"
FIND_HELP
	"  -h, --help           this help\n",
};
