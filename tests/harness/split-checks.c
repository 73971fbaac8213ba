/*
 * split-checks.c - the known split of tests/programs/workload.c's split
 * mode (six, three, one at 6:3:1) checked in a flat profile, within the
 * margin its samples give (split-checks.h).
 */
#include <math.h>

#include "e2e.h"
#include "harness.h"
#include "split-checks.h"

double
split_need(double max_points)
{
	return e2e_samples_for_share(0.6, 4, max_points / 100 - 0.005);
}

void
assert_split(const struct shares *s, double max_points)
{
	double six = samples_of(s, "six", NULL), three = samples_of(s, "three", NULL);
	double one = samples_of(s, "one", NULL), n = six + three + one;
	const double want[3] = { 0.6, 0.3, 0.1 }, got[3] = { six / n, three / n, one / n };

	/* kernel time (an exec, page faults) is the machine's, not the split's */
	if (n < 0.9 * (s->total - samples_of(s, NULL, "[kernel]")))
		fail_msg("only %.0f of %.0f samples in the three functions", n, s->total);
	for (int i = 0; i < 3; i++) {
		/* of the samples the counts are worth (a container's ticks) */
		double margin = harness_margin(want[i], n / (s->scale > 1 ?
		    s->scale : 1), 4, 0.005) + 0.005;

		if (margin > max_points / 100)
			fail_msg("too few samples (%.0f) for a %.1f-point check", n,
			    max_points);
		if (fabs(got[i] - want[i]) > margin)
			fail_msg("share %d: %.2f%% (want %.0f%% +- %.2f) of %.0f",
			    i, 100 * got[i], 100 * want[i], 100 * margin, n);
	}
}
