/*
 * diff.h - the statistics of `profil diff` (cmd-diff.c parses its options
 * and prints the rows): each function's share of all samples before and
 * after, the change in points with its 95% error bar.  Functions are
 * matched by name and object basename (model/funcs.h), so the two runs
 * may be of two builds.  Shares are of all samples (lost ones aside), as
 * in the flat report.
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
 */
#ifndef PROFIL_REPORT_DIFF_H
#define PROFIL_REPORT_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "model/funcs.h"
#include "model/stacks.h"

#define DIFF_FDR 0.05	/* the false discovery rate significance is held to */

/* One share compared: a function's self, or inclusive, samples. */
struct diff_change {
	uint64_t before, after;
	double before_percent, after_percent;	/* of all samples */
	double change;		/* after% - before%, in points */
	double error95;		/* half-width of its 95% interval, in points */
	double z;		/* change / its standard error */
	double p;		/* Fisher's exact test of "no change", two-sided */
	double q;		/* its Benjamini-Hochberg q-value, in its family;
				   NaN for a change measured */
	int tested;		/* in its family: samples on either side */
	int offcpu;		/* time off the CPU in it (a wall view's): a
				   change of the runs' own waiting, not tested;
				   shown all the same */
};

struct diff_row {
	const char *function, *object;
	struct diff_change self;
	struct diff_change incl;	/* both profiles with stacks only */
};

/*
 * One row per (function, object) of either profile's flat rows (f[0]
 * before, f[1] after), and with stacks of either's stacks (s[0], s[1]:
 * callers have no flat row of their own), its samples summed on each
 * side (0 where absent), compared; incl says whether inclusive shares are
 * (both profiles have stacks).  Sorted by significance.  Returns a
 * malloc'd array and its length in *n; *tested receives the size of the
 * self family.  A change is significant when its q <= DIFF_FDR.
 */
struct diff_row *diff_pair_rows(const struct funcs *f, const struct stacks *s,
    int incl, size_t *n, size_t *tested);

/*
 * qsort's comparison of two pointers to rows by their inclusive
 * significance (the self one is diff_pair_rows' order), then names.
 */
int diff_by_incl_significance(const void *a, const void *b);

#endif
