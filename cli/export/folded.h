/*
 * folded.h - `profil export --format folded`: one line per distinct call
 * stack, "outermost;...;leaf COUNT", the format of flamegraph.pl,
 * inferno and speedscope.
 */
#ifndef PROFIL_EXPORT_FOLDED_H
#define PROFIL_EXPORT_FOLDED_H

#include <stdio.h>

#include "symbols/stacks.h"

/*
 * The stacks of s as folded lines on out, sorted, identical stacks (by
 * function) summed; kernel functions end in "_[k]" as the flame graph
 * tools colour them.  A profile without stacks gives one line per
 * function (its flat profile, each function its own stack).  Returns 0,
 * or -1 if out failed.
 */
int export_folded(const struct stacks *s, const struct funcs *f, FILE *out);

#endif
