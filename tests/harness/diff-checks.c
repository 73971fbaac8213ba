/*
 * diff-checks.c - diff's figures worked out again (diff-checks.h): its
 * CSV parsed, and each row's shares, change, error, z, p and q computed
 * here from the sample counts it prints, Fisher's test the plain way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff-checks.h"
#include "e2e.h"
#include "harness.h"

/* k of n weighted counts as whole samples of equal weight, as diff has it */
static double
worth(double k, double scale)
{
	return round(k / scale);
}

/*
 * A profile's samples less those of its stacks the recorder did not
 * unwind (behind, or none taken): diff leaves them out of inclusive
 * shares, since how many there are depends on the machine's load.
 */
static double
unwound_samples(const char *prf)
{
	char *argv[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    (char *)prf, NULL };
	static struct run r;
	double all = 0, left = 0;

	run(&r, argv);
	if (r.status != 0)
		return -1;	/* no stacks: no inclusive figures to check */
	for (const char *at = r.out; *at;) {
		const char *nl = strchr(at, '\n'), *sp;

		if (nl == NULL)
			nl = at + strlen(at);
		for (sp = nl; sp > at && sp[-1] != ' '; sp--)
			;
		all += atof(sp);
		if (strncmp(at, "[stack cut: recorder behind]", 28) == 0 ||
		    strncmp(at, "[stack cut: no stack taken]", 27) == 0)
			left += atof(sp);
		at = *nl ? nl + 1 : nl;
	}
	return all - left;
}

/* The self or inclusive figures of x. */
static struct share
share_of(const struct diff_row *x, int incl)
{
	if (incl)
		return x->incl;
	return (struct share){ x->before, x->after, x->before_pct, x->after_pct,
	    x->change, x->error95, x->z, x->q, x->significant };
}

void
diff_csv(struct diff *d, const char *before, const char *after)
{
	static const char header[] = "function,object,before_samples,"
	    "after_samples,before_percent,after_percent,change,error95,z,"
	    "significant,q,incl_before_samples,incl_after_samples,"
	    "incl_before_percent,incl_after_percent,incl_change,incl_error95,"
	    "incl_z,incl_significant,incl_q\n";
	char *argv[] = { profil_bin, "diff", "--format", "csv", (char *)before,
	    (char *)after, NULL };
	struct run r;
	const char *line;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("diff exited %d: %s", r.status, r.err);
	if (strncmp(r.out, header, strlen(header)) != 0)
		fail_msg("diff's CSV header: %.400s", r.out);
	d->unwound[0] = unwound_samples(before);
	d->unwound[1] = unwound_samples(after);
	d->scale[0] = e2e_prf_error_scale(before);
	d->scale[1] = e2e_prf_error_scale(after);
	d->n = 0;
	for (line = r.out + strlen(header); *line && d->n < 256; d->n++) {
		struct diff_row *x = &d->rows[d->n];
		struct share *in = &x->incl;
		char f[20][256];
		int k;

		/*
		 * z is empty where a change has no error, significant and q
		 * where it is not tested (time off the CPU in it)
		 */
		for (k = 0; k < 20 && csv_field(&line, f[k], sizeof f[k]); k++)
			;
		if (k < 11 || f[2][0] == '\0')
			fail_msg("bad diff line %d", d->n);
		for (int c = k; c < 20; c++)	/* empty to the line's end */
			f[c][0] = '\0';
		snprintf(x->function, sizeof x->function, "%s", f[0]);
		snprintf(x->object, sizeof x->object, "%s", f[1]);
		x->before = atof(f[2]);
		x->after = atof(f[3]);
		x->before_pct = atof(f[4]);
		x->after_pct = atof(f[5]);
		x->change = atof(f[6]);
		x->error95 = atof(f[7]);
		x->z = f[8][0] ? atof(f[8]) : NAN;
		x->significant = f[9][0] ? atoi(f[9]) : -1;
		x->q = f[10][0] ? atof(f[10]) : NAN;
		x->has_incl = f[11][0] != '\0';
		if (!x->has_incl) {
			for (int c = 11; c < k; c++)
				if (f[c][0] != '\0')
					fail_msg("bad inclusive columns in line %d",
					    d->n);
		} else {
			*in = (struct share){ atof(f[11]), atof(f[12]),
			    atof(f[13]), atof(f[14]), atof(f[15]), atof(f[16]),
			    f[17][0] ? atof(f[17]) : NAN, f[19][0] ? atof(f[19]) :
			    NAN, f[18][0] ? atoi(f[18]) : -1 };
		}
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 :
		    line + strlen(line);
	}
}

const struct diff_row *
diff_find(const struct diff *d, const char *function)
{
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->rows[i].function, function) == 0)
			return &d->rows[i];
	fail_msg("%s is not in the diff", function);
	return NULL;
}

/*
 * Fisher's exact two-sided p-value of k1 of n1 against k2 of n2, the
 * plain way (every term of the hypergeometric, from lgamma): a second
 * opinion on report/diff-stats.c's walk from the mode.
 */
static double
fisher_plain(double k1, double n1, double k2, double n2)
{
	double k = k1 + k2, lo = k > n1 ? k - n1 : 0, hi = k < n2 ? k : n2;
	double all = lgamma(n1 + n2 + 1) - lgamma(k + 1) - lgamma(n1 + n2 - k + 1);
	double observed = 0, p = 0;

	for (int pass = 0; pass < 2; pass++)
		for (double j = lo; j <= hi; j++) {
			double lp = lgamma(n2 + 1) - lgamma(j + 1) - lgamma(n2 - j + 1) +
			    lgamma(n1 + 1) - lgamma(k - j + 1) -
			    lgamma(n1 - k + j + 1) - all;

			if (pass == 0 && j == k2)
				observed = lp;
			if (pass == 1 && lp <= observed + 1e-7)
				p += exp(lp);
		}
	return p < 1 ? p : 1;
}

static int
by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Each row's figures of one kind (self, or inclusive when incl),
 * recomputed from its sample counts and the totals n1, n2 (the
 * difference of two binomial proportions, its error that of the two
 * shares' Wilson errors together, as every view gives a share's error;
 * Fisher's exact test and
 * Benjamini-Hochberg's q-values over the family: the rows with samples
 * of that kind on either side, profil.1).  Significant exactly when
 * q <= 0.05; a row outside the family has q 1.  Returns the family's size.
 */
static int
assert_family_arithmetic(const struct diff *d, double n1, double n2, int incl)
{
	double p[256], sorted[256], q;
	double s1 = d->scale[0] > 1 ? d->scale[0] : 1;
	double s2 = d->scale[1] > 1 ? d->scale[1] : 1;
	int m = 0;

	for (int i = 0; i < d->n; i++) {
		struct share x = share_of(&d->rows[i], incl);

		if (x.before + x.after > 0)
			sorted[m++] = p[i] = fisher_plain(
			    fmin(worth(x.before, s1), fmax(worth(n1, s1), 1)),
			    fmax(worth(n1, s1), 1),
			    fmin(worth(x.after, s2), fmax(worth(n2, s2), 1)),
			    fmax(worth(n2, s2), 1));
	}
	qsort(sorted, (size_t)m, sizeof *sorted, by_double);
	for (int i = 0; i < d->n; i++) {
		struct share x = share_of(&d->rows[i], incl);

		if (x.before + x.after == 0) {
			assert_float_equal(x.q, 1, 0);
			assert_int_equal(x.significant, 0);
			continue;
		}
		/* q of p: the smallest p_(j) m / j over the ranks j at or after p's */
		q = 1;
		for (int j = m; j >= 1; j--) {
			if (sorted[j - 1] * m / j < q)
				q = sorted[j - 1] * m / j;
			if (sorted[j - 1] <= p[i] * (1 + 1e-9))
				break;
		}
		if (fabs(x.q - q) > 1e-5 + 1e-4 * q)
			fail_msg("%s: %sq %.6g, recomputed %.6g", d->rows[i].function,
			    incl ? "inclusive " : "", x.q, q);
		if (fabs(q - 0.05) > 1e-6)
			assert_int_equal(x.significant, q <= 0.05);
	}
	for (int i = 0; i < d->n; i++) {
		struct share x = share_of(&d->rows[i], incl);
		double p1 = x.before / n1, p2 = x.after / n2;
		/* each share's error as the views give it: Wilson's */
		double e1 = e2e_wilson95(x.before, n1, s1);
		double e2 = e2e_wilson95(x.after, n2, s2);
		double se = sqrt(e1 * e1 + e2 * e2) / 1.959964 / 100;

		assert_float_equal(x.before_pct, 100 * p1, 1e-4);
		assert_float_equal(x.after_pct, 100 * p2, 1e-4);
		assert_float_equal(x.change, 100 * (p2 - p1), 1e-4);
		assert_float_equal(x.error95, sqrt(e1 * e1 + e2 * e2), 1e-4);
		if (se > 0)
			assert_float_equal(x.z, (p2 - p1) / se, 1e-3 + 1e-4 * fabs(x.z));
	}
	return m;
}

void
assert_diff_arithmetic(const struct diff *d, double n1, double n2)
{
	int m = assert_family_arithmetic(d, n1, n2, 0);

	for (int i = 1; i < d->n; i++)
		if (d->rows[i].q < d->rows[i - 1].q - 1e-9)
			fail_msg("row %d (q %.6g) after one with q %.6g", i,
			    d->rows[i].q, d->rows[i - 1].q);
	for (int i = m; i < d->n; i++)
		assert_true(d->rows[i].before + d->rows[i].after == 0);
	if (d->n > 0 && d->rows[0].has_incl) {
		for (int i = 0; i < d->n; i++)
			assert_true(d->rows[i].has_incl);
		/* of the stacks unwound (a profile made here has all) */
		assert_family_arithmetic(d, d->unwound[0] > 0 ? d->unwound[0] : n1,
		    d->unwound[1] > 0 ? d->unwound[1] : n2, 1);
	}
}
