/*
 * wall-view.h - a wall profile (record --wall) seen by the views, which
 * count samples: its time off the CPU turned into intervals of the
 * sampling interval at an object of its own, "[off-cpu]", whose
 * "functions" are [off-cpu: read], [off-cpu: futex], ... (kept names, as
 * `profil archive` keeps them).  Every view then shows wall time as it
 * shows CPU time: shares of wall time, off-CPU leaves under the stacks
 * that waited.  Or only the CPU part of it (report --cpu).
 */
#ifndef PROFIL_PROFILE_WALL_VIEW_H
#define PROFIL_PROFILE_WALL_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#define WALL_VIEW_OBJECT "[off-cpu]"

/*
 * The wall view of p in *view (a new profile, made by profile_copy; p is
 * left as it is), or with cpu_only its CPU part (the off-CPU stacks left
 * out); *view NULL if p is not a wall profile: then p is its own view.
 * Off-CPU time is rounded to intervals with the remainder carried from
 * stack to stack, so each thread's total is off by less than one
 * interval.  The intervals are counts, not samples: the view's samples
 * taken and squared weights are the CPU samples' (wall_view_cpu_samples
 * of them), and its stacks keep what of their time was sampled
 * (sampled_ns, observations), for the errors (report/share.h).  Its
 * timeline's entries are those of the stacks it keeps (an off-CPU
 * stack's still in ns, as its off_ns).  A view is for reading, never
 * written (its wall record is gone, its time off
 * the CPU counts).  0, or -1 with a one-line cause and *view NULL when
 * the view cannot be made (the intervals and the samples overflow a
 * count).
 */
int wall_view(const struct profil_profile *p, int cpu_only,
    struct profil_profile **view, char *cause, size_t cause_size);

/*
 * *p as the views count it, for a command that no longer needs the
 * profile as recorded: a wall profile replaced by its wall view (its CPU
 * part with cpu_only), the profile read freed.  1 if *p was a wall
 * profile, 0 if not (*p as it was); -1 with a cause as wall_view's (*p
 * as it was).
 */
int wall_view_replace(struct profil_profile **p, int cpu_only, char *cause,
    size_t cause_size);

/*
 * What --cpu says of a CPU profile, a printf format of its file's name
 * (report, export).
 */
#define WALL_VIEW_CPU_REFUSED \
	"--cpu: %s is a CPU profile already (record --wall makes wall profiles)"

/* The index of the [off-cpu] object in a wall view, or -1 if none. */
long wall_view_object(const struct profil_profile *p);

/*
 * Of a wall view's samples, how many are on the CPU: those not at the
 * [off-cpu] object.
 */
uint64_t wall_view_cpu_samples(const struct profil_profile *p);

#endif
