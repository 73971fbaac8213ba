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
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "symbols/find.h"
#include "symbols/funcs.h"
#include "report/report.h"
#include "report/table.h"

#define Z95 1.96	/* the normal quantile of a two-sided 95% interval */
#define FDR 0.05	/* the false discovery rate significance is held to */

struct diff_row {
	const char *function, *object;
	uint64_t before, after;
	double before_percent, after_percent;	/* of all samples */
	double change;		/* after% - before%, in points */
	double error95;		/* half-width of its 95% interval, in points */
	double z;		/* change / its standard error */
	double p;		/* Fisher's exact test of "no change", two-sided */
	double q;		/* its Benjamini-Hochberg q-value */
};

/* A function row of one side, before they are paired. */
struct side_row {
	const struct func_row *row;
	int after;
};

static int
by_key(const void *a, const void *b)
{
	const struct side_row *x = a, *y = b;
	int c = strcmp(x->row->function, y->row->function);

	if (c == 0)
		c = strcmp(x->row->object, y->row->object);
	return c ? c : x->after - y->after;
}

/* Smallest p first (so q too), then largest |z|, change, then names. */
static int
by_significance(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	int c;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	if (fabs(x->z) != fabs(y->z))
		return fabs(x->z) > fabs(y->z) ? -1 : 1;
	if (fabs(x->change) != fabs(y->change))
		return fabs(x->change) > fabs(y->change) ? -1 : 1;
	c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->object, y->object);
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
compare(struct diff_row *d, uint64_t n1, uint64_t n2, double s1, double s2)
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
 * Benjamini-Hochberg over the n rows, sorted by p already: the i-th
 * smallest of n p-values gets q = min over j >= i of p_j n / j (capped at
 * 1).  A row is significant when q <= FDR: among the rows so marked, the
 * expected share of changes that are not real is at most FDR.
 */
static void
benjamini_hochberg(struct diff_row *rows, size_t n)
{
	double smallest = 1;

	for (size_t i = n; i-- > 0; ) {
		double q = rows[i].p * (double)n / (double)(i + 1);

		if (q < smallest)
			smallest = q;
		rows[i].q = smallest;
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
 * One row per (function, object) of either profile, its samples summed
 * on each side (0 where absent), compared; sorted by significance.
 * Returns a malloc'd array and its length in *n.
 */
static struct diff_row *
pair_rows(const struct funcs *before, const struct funcs *after, size_t *n)
{
	double s1 = report_error_scale(before->p), s2 = report_error_scale(after->p);
	size_t nsides = before->nrows + after->nrows, out = 0;
	struct side_row *sides = xcalloc(nsides, sizeof *sides);
	struct diff_row *rows = xcalloc(nsides, sizeof *rows);

	for (size_t i = 0; i < before->nrows; i++)
		sides[i] = (struct side_row){ &before->rows[i], 0 };
	for (size_t i = 0; i < after->nrows; i++)
		sides[before->nrows + i] = (struct side_row){ &after->rows[i], 1 };
	qsort(sides, nsides, sizeof *sides, by_key);
	for (size_t i = 0; i < nsides; i++) {
		const struct func_row *r = sides[i].row;
		struct diff_row *d = out > 0 ? &rows[out - 1] : NULL;

		if (d == NULL || strcmp(d->function, r->function) != 0 ||
		    strcmp(d->object, r->object) != 0) {
			d = &rows[out++];
			d->function = r->function;
			d->object = r->object;
		}
		if (sides[i].after)
			d->after += r->samples;
		else
			d->before += r->samples;
	}
	free(sides);
	for (size_t i = 0; i < out; i++) {
		uint64_t k1, n1, k2, n2;

		compare(&rows[i], before->p->samples, after->p->samples, s1, s2);
		/* Fisher's test counts samples: as many as the counts are worth */
		worth(rows[i].before, before->p->samples, s1, &k1, &n1);
		worth(rows[i].after, after->p->samples, s2, &k2, &n2);
		rows[i].p = fisher_p(k1, n1, k2, n2);
	}
	qsort(rows, out, sizeof *rows, by_significance);
	benjamini_hochberg(rows, out);
	*n = out;
	return rows;
}

/*
 * Machine formats show the first 11 columns (q appended after the
 * documented 10: columns never move).  Text adds the mark and leaves z
 * out to fit 80 columns: change and its bar say as much, q says more.
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
	{ "mark", "", COL_STR },
};
#define DIFF_MACHINE_COLS 11
static const int diff_text[] = { 4, 5, 6, 7, 10, 11, 0, 1, -1 };

struct diff_options {
	int format;
	long limit;		/* -1: all */
	double min_change;	/* in points */
};

static void
print_diff(const struct diff_row *rows, size_t n, const struct diff_options *o,
    const char *caption)
{
	struct table t;

	table_init(&t, diff_cols, o->format == FORMAT_TEXT ? 12 :
	    DIFF_MACHINE_COLS);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *d = &rows[i];
		int significant = d->q <= FDR;
		union cell *c;

		if (fabs(d->change) < o->min_change)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = d->function;
		c[1].s = d->object;
		c[2].i = (int64_t)d->before;
		c[3].i = (int64_t)d->after;
		c[4].d = d->before_percent;
		c[5].d = d->after_percent;
		c[6].d = d->change;
		c[7].d = d->error95;
		c[8].d = d->z;
		c[9].i = significant;
		c[10].d = d->q;
		if (o->format == FORMAT_TEXT)
			c[11].s = significant ? "*" : "";
	}
	table_print(&t, o->format, diff_text, caption);
	table_free(&t);
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct diff_options o = { FORMAT_TEXT, -1, 0 };
	struct profil_profile *p[2];
	struct funcs f[2];
	struct diff_row *rows;
	char cause[256], caption[1024], worth_of[2][64] = { "", "" };
	const char *symfs = NULL, *debug_dirs = NULL;
	size_t nrows;
	int c;

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
		if (p[k] == NULL || p[k]->samples == 0) {
			if (p[k] == NULL)
				cli_error("%s: %s", file, cause);
			else
				cli_error("%s: no samples: nothing to compare", file);
			profil_profile_free(p[k]);
			if (k == 1)
				profil_profile_free(p[0]);
			return 1;
		}
	}
	funcs_build(&f[0], p[0], 1);
	funcs_build(&f[1], p[1], 1);
	rows = pair_rows(&f[0], &f[1], &nrows);
	for (int k = 0; k < 2; k++)
		if (report_weighted(p[k]))
			snprintf(worth_of[k], sizeof worth_of[k], ", as %.0f of "
			    "equal weight", (double)p[k]->samples /
			    report_error_scale(p[k]));
	snprintf(caption, sizeof caption, "before: %s (%llu samples%s)\n"
	    "after: %s (%llu samples%s)\nchange = after%% - before%% in points, "
	    "+- 95%% error (each function alone)\n*: significant, q <= 0.05: "
	    "a false discovery rate of 5%% over the %zu functions\ncompared "
	    "(Benjamini-Hochberg)",
	    argv[optind], (unsigned long long)p[0]->samples, worth_of[0],
	    argv[optind + 1], (unsigned long long)p[1]->samples, worth_of[1],
	    nrows);
	print_diff(rows, nrows, &o, caption);
	c = cli_finish_stdout(0);
	free(rows);
	funcs_free(&f[0]);
	funcs_free(&f[1]);
	profil_profile_free(p[0]);
	profil_profile_free(p[1]);
	return c;
}

const struct cmd cmd_diff = {
	"diff", "[--format text|csv|json] [--limit N] [--min-change P] "
	    "BEFORE AFTER",
	"compare two profiles function by function, with error bars",
	diff_exec,
	"  -f, --format FORMAT  text (default), csv or json (stable columns)\n"
	"  -n, --limit N        at most N rows (default: all)\n"
	"      --min-change P   leave out changes under P points either way\n"
	"                       (default 0)\n"
FIND_HELP
	"  -h, --help           this help\n",
};
