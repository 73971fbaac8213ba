/*
 * folded.h - `profil export --format folded`: one line per distinct call
 * stack, "outermost;...;leaf COUNT", the format of flamegraph.pl,
 * inferno and speedscope.
 */
#ifndef PROFIL_EXPORT_FOLDED_H
#define PROFIL_EXPORT_FOLDED_H

#include <stdio.h>

#include "model/stacks.h"

/*
 * The stacks of s as folded lines on out, sorted, identical stacks (by
 * function) summed; kernel functions end in "_[k]" as the flame graph
 * tools colour them.  A profile without stacks gives one line per
 * function (its flat profile, each function its own stack).  Lines that
 * come to 0 are left out (a wall profile's off-CPU stacks count no
 * samples).  Returns 0, or -1 if out failed.
 */
int export_folded(const struct stacks *s, const struct funcs *f, FILE *out);

/*
 * The same, counted in microseconds of wall time (a wall profile, s named
 * on it): a CPU stack count x interval_ns / 1000, an off-CPU one (its
 * "[off-cpu: read]" leaf) off_ns / 1000, each line's total rounded to the
 * nearest microsecond (saturating at UINT64_MAX ns).  Flame graph tools
 * then draw wall time: where the threads were, running or waiting.
 */
int export_folded_wall(const struct stacks *s, const struct funcs *f,
    FILE *out);

#endif
