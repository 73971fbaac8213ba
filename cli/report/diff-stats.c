/*
 * diff-stats.c - Fisher's exact test and Benjamini-Hochberg q-values for
 * `profil diff` (contract in diff-stats.h).  Invariant: p and q are
 * probabilities, in [0, 1], however few or many the samples: the sum of
 * terms walks in ratios of neighbours, so nothing overflows.
 */
#include <math.h>

#include "diff-stats.h"

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
double
diff_fisher_p(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2)
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

void
diff_benjamini_hochberg(struct diff_change *const *family, size_t n)
{
	double smallest = 1;

	for (size_t i = n; i-- > 0; ) {
		double q = family[i]->p * (double)n / (double)(i + 1);

		if (q < smallest)
			smallest = q;
		family[i]->q = smallest;
	}
}
