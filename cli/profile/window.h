/*
 * window.h - a profile cut to a window of its run (report, export and
 * diff --time): the option's text read, resolved against a profile's
 * timeline to whole slices, and the profile of those slices made, a
 * profile as sound as a file's, so that every view and export shows the
 * window without knowing of it.
 *
 * A window [A, B) in ns after the run's start is rounded OUT to whole
 * slices: first = floor(A / slice_ns), end = ceil(B / slice_ns), end
 * exclusive, clipped to the timeline's nslices.  An empty START is the
 * run's start, an empty END its end.
 */
#ifndef PROFIL_PROFILE_WINDOW_H
#define PROFIL_PROFILE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

/*
 * One side of START..END as given: a time after the run's start (ns) or
 * a share of the run (billionths of a percent, 0 to 100e9, so that the
 * arithmetic on it stays exact); not given: that end of the run.
 */
struct window_bound {
	int given;
	int percent;			/* value is in 1e-9 % */
	uint64_t value;
};

struct window_spec {
	const char *text;		/* as given, for messages */
	struct window_bound start, end;
};

/*
 * Read text, "START..END" (either side may be empty), each side a
 * decimal number and a unit: s, ms, us, ns, or % of the run; a bare
 * number is seconds ("1.5s..3s", "90%..", "..500ms", "2..2.5").  0, or
 * -1 with a one-line cause (garbage, a share over 100%, END before
 * START where both are of one kind).  w->text points at text.
 */
int window_parse(const char *text, struct window_spec *w, char *cause,
    size_t cause_size);

/* What window_slices says went wrong: the option, or the profile. */
#define WINDOW_BAD_OPTION	(-2)	/* END not after START */
#define WINDOW_BAD_PROFILE	(-1)	/* no timeline; a window past the run */

/*
 * The run's length in ns, what a window's percentage is of and where
 * its END is: the header's duration_ns where it ends in the timeline's
 * last slice (a recording's slices round the run up), the timeline's
 * slices where not (a merged profile: its duration is the runs' sum,
 * its timeline the runs side by side, as long as the longest), the
 * header's where there is no timeline.
 */
uint64_t window_run_ns(const struct profil_profile *p);

/*
 * The slices [*first, *end) of p's timeline that w covers, rounded out
 * (above).  The run's length, what a percentage is of, is
 * window_run_ns's.  0, or
 * WINDOW_BAD_OPTION / WINDOW_BAD_PROFILE with a one-line cause.
 */
int window_slices(const struct profil_profile *p, const struct window_spec *w,
    uint64_t *first, uint64_t *end, char *cause, size_t cause_size);

/*
 * p's profile of slices [first_slice, end_slice) of its timeline, a new
 * profile (p is left as it is; free it with profil_profile_free), or
 * NULL (errno EINVAL) if p has no timeline or the slices are not
 * 0 <= first < end <= nslices.  Each stack's count, or off_ns, is the
 * sum of its entries in those slices; stacks left with nothing are
 * dropped.  What the codec checks is rebuilt from the stacks: the
 * objects' histograms and the kernel record's from the CPU stacks'
 * leaves (at each object's bucket_bytes from its lowpc), the samples,
 * kernel and unknown counts, the threads' and processes' samples (those
 * with nothing in the window left out).  The header's start_ns moves to
 * the window's start and duration_ns is its length, clipped to the run;
 * cpu_ns is the samples' time (samples * interval_ns); the samples taken,
 * their squared weights and the lost samples are scaled in proportion to
 * the samples kept (when they came is not known), and an off-CPU stack's
 * sampled_ns and observations in proportion to its off_ns kept, so that
 * error bars are the window's.  The timeline is kept, its slices
 * renumbered from 0.  The result passes the codec's checks whenever p
 * did.  Memory runs out only as the command's allocations do (cli.h).
 */
struct profil_profile *profile_window(const struct profil_profile *p,
    uint64_t first_slice, uint64_t end_slice);

/*
 * *p replaced by its window w (the profile read freed), and what the
 * window is in words into label: "window 1.02–2.05 s of 4.80 s" (the
 * whole slices', as many decimals as a slice needs).  0, or the error of
 * window_slices with its cause (*p as it was).
 */
int window_replace(struct profil_profile **p, const struct window_spec *w,
    char *label, size_t label_size, char *cause, size_t cause_size);

/*
 * The window of slices [first, end) of p's timeline in words, into buf,
 * as window_replace gives it.  Returns buf.
 */
const char *window_describe(const struct profil_profile *p, uint64_t first,
    uint64_t end, char *buf, size_t size);

#endif
