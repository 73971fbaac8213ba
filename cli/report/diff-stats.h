/*
 * diff-stats.h - the two tests `profil diff` makes (diff.c), on numbers
 * alone: Fisher's exact test of two proportions, and Benjamini-Hochberg
 * q-values over a family of such tests.
 */
#ifndef PROFIL_REPORT_DIFF_STATS_H
#define PROFIL_REPORT_DIFF_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "diff.h"

/*
 * The two-sided p-value of Fisher's exact test that a function's share is
 * the same before and after, from its k1 of n1 samples and k2 of n2 (how
 * it is summed: diff-stats.c).
 */
double diff_fisher_p(uint64_t k1, uint64_t n1, uint64_t k2, uint64_t n2);

/*
 * Benjamini-Hochberg over one family of n tests, sorted by p already: the
 * i-th smallest of n p-values gets q = min over j >= i of p_j n / j
 * (capped at 1).  A test is significant when q <= DIFF_FDR: among those so
 * marked, the expected share of changes that are not real is at most DIFF_FDR.
 */
void diff_benjamini_hochberg(struct diff_change *const *family, size_t n);

#endif
