/*
 * diff-checks.h - what test-diff checks `profil diff` with
 * (diff-checks.c): its CSV parsed into rows, and every figure of a row
 * recomputed from the sample counts diff prints, never from its own
 * figures.
 */
#ifndef PROFIL_TEST_DIFF_CHECKS_H
#define PROFIL_TEST_DIFF_CHECKS_H

/* One share compared, as diff prints it (self, or inclusive). */
struct share {
	double before, after, before_pct, after_pct, change, error95, z, q;
	int significant;
};

struct diff_row {
	char function[256], object[256];
	double before, after, before_pct, after_pct, change, error95, z, q;
	int significant;
	int has_incl;		/* inclusive columns filled */
	struct share incl;
};

struct diff {
	struct diff_row rows[256];
	int n;
	/* samples of the stacks unwound on each side: the inclusive totals */
	double unwound[2];
	/*
	 * each side's error scale (e2e_error_scale): its counts are worth
	 * count / scale samples of equal weight, as diff tests them
	 */
	double scale[2];
};

/* `profil diff --format csv` of two files, parsed. */
void diff_csv(struct diff *d, const char *before, const char *after);

/* The row of function, failing the test if there is none. */
const struct diff_row *diff_find(const struct diff *d, const char *function);

/*
 * Each row's self figures (and inclusive ones where the rows have them)
 * recomputed from its sample counts and the totals n1, n2, each side's
 * worth count / scale samples of equal weight (the difference of two
 * binomial proportions, its error that of the two
 * shares' Wilson errors together; Fisher's exact test and
 * Benjamini-Hochberg's q-values over the family, profil.1), significant
 * exactly when q <= 0.05; rows sorted by self q, smallest first, those
 * with no self samples (callers, with stacks) after the family.
 */
void assert_diff_arithmetic(const struct diff *d, double n1, double n2);

#endif
