/*
 * speedscope.h - `profil export --format speedscope`: the profile as a
 * speedscope file (https://www.speedscope.app/file-format-schema.json,
 * speedscope's src/lib/file-format-spec.ts), which speedscope opens with
 * a profile per thread in its three views: time order, left heavy and
 * sandwich (a table of each function's self and total).
 *
 * One "sampled" profile per thread that has samples, named "comm tid",
 * in pid, tid order, the busiest (most weight) shown first; frames shared
 * by all of them, one per function as report names it (stacks.h), with
 * the file and first line where it is defined (funcdef.h).  Weights are
 * nanoseconds: a CPU stack's samples times the sampling interval, a wall
 * profile's off-CPU stack (leaf "[off-cpu: read]", ...) its time off the
 * CPU, so each thread's and each function's self and total are report's.
 *
 * With a timeline the samples come in time order, slice by slice (within
 * a slice in stack order), each thread's axis the run's from its start:
 * time a thread has no sample for, a slice or more (before it started,
 * between its slices of CPU), is an empty sample, which speedscope's
 * time order view draws as a gap and its totals leave out, so that each
 * stack is drawn at its slice or less than a slice after it (as far as
 * the slices before it fit in theirs).  startValue is 0, the run's first
 * slice; endValue the end of its last.  Without one, a sample per stack
 * in stack order, endValue their sum.
 */
#ifndef PROFIL_EXPORT_SPEEDSCOPE_H
#define PROFIL_EXPORT_SPEEDSCOPE_H

#include <stddef.h>
#include <stdio.h>

#include <profil.h>

#include "cli.h"
#include "model/funcs.h"
#include "model/stacks.h"

/* What `profil export --format speedscope` writes when no -o is given. */
#define EXPORT_SPEEDSCOPE_DEFAULT_PATH "profile.speedscope.json"

/*
 * p as a speedscope file named name (what speedscope's title shows) on
 * out.  f is built on p (funcs_build, or funcs_build_inline); s names
 * p's stacks on f (with STACKS_INLINES as f was built), or is NULL when
 * p has none: then one profile, named for the whole run, with a sample
 * per function of the flat profile.  Returns 0, or -1 with errno: out
 * failed, or EOVERFLOW for a weight past 2^64 - 1 ns.
 */
int export_speedscope(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, const char *name, FILE *out);

/*
 * p, read from file (its name is the file's), into the file path
 * through outfile.h (atomic; what may be replaced), or standard output
 * for "-": its functions named (with inlines, the inlined ones too), and
 * told to warn (cli.h) what cannot be named, and when p has no timeline
 * or no stacks.  0, or -1 with a cause (path as it was, no temporary
 * file left).
 */
int export_speedscope_save(const struct profil_profile *p, const char *file,
    int inlines, const char *path, cli_warn_fn *warn, char *cause,
    size_t cause_size);

#endif
