/*
 * split-checks.h - the checks of a recording of workload's split
 * (split-checks.c): six, three and one must come out 6:3:1 of their sum,
 * within 4 standard errors of the samples that fell in them.
 */
#ifndef PROFIL_TEST_SPLIT_CHECKS_H
#define PROFIL_TEST_SPLIT_CHECKS_H

#include "e2e.h"

/*
 * The samples of the three that assert_split of max_points needs: the
 * share of 0.6 has the widest error, and the margin's fixed half point
 * is not sampling's.
 */
double split_need(double max_points);

/*
 * six:three:one must come out 6:3:1 of their sum, within the margin; the
 * test has sized its run for it (split_need), so too few samples is a
 * failure, not a reason to skip.
 */
void assert_split(const struct shares *s, double max_points);

#endif
