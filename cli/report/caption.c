/*
 * caption.c - the caption of report's text (caption.h): a line or three
 * of what the profile is, then a note a line for what its shares cannot
 * show.  Invariant: every part is appended within size, so a caption is
 * cut, never overrun; each note starts a line of its own, which the
 * table folds to the width (table.c).
 */
#include <stdio.h>
#include <string.h>

#include "caption.h"
#include "report.h"

/* Time the clocks never saw: say so rather than let the shares pass. */
static void
note_unsampled(const struct profil_profile *p, char *caption, size_t size)
{
	size_t len = strlen(caption);
	double seen;

	if (!report_unsampled(p, &seen))
		return;
	snprintf(caption + len, size - len, "\nnote: the samples stand for "
	    "%.2f s of the %.2f s of CPU time (%.0f%%); the rest went "
	    "unsampled: threads or processes shorter than a sampling period, "
	    "or kernel time where only user mode may be sampled (profil(1), "
	    "CAVEATS)", seen / 1e9, (double)p->cpu_ns / 1e9,
	    100 * seen / (double)p->cpu_ns);
}

/*
 * Stacks cut where the copy ended: the callers are missing; say why.
 * The shares are those of the file's profile, as record gave them, in
 * whatever view (report_cut_share).
 */
static void
note_cut(double cut, double unread, char *caption, size_t size)
{
	size_t len = strlen(caption);

	/* a line each, in 80 columns: the callers are missing, what helps */
	if (cut >= REPORT_CUT_NOTE)
		len += (size_t)snprintf(caption + len, size - len, "\nnote: %.0f%% "
		    "of the stacks cut past the stack copied: record "
		    "--stack-size", 100 * cut);
	if (unread >= REPORT_CUT_NOTE && len < size)
		snprintf(caption + len, size - len, "\nnote: %.0f%% of the stacks "
		    "cut at an untouched stack page: record -e timer", 100 * unread);
}

/*
 * A wall profile's caption: the threads' time, on and off the CPU, and
 * how much of the time off it was placed by sampling rather than
 * measured where it was.
 */
static void
wall_caption(const struct profil_profile *p, const char *name, char *caption,
    size_t size)
{
	double on = (double)p->samples * (double)p->interval_ns / 1e9;
	double off = 0, sampled = 0, all;
	char share[32];
	size_t len;

	for (size_t i = 0; i < p->nstacks; i++) {
		off += (double)p->stacks[i].off_ns / 1e9;
		sampled += (double)p->stacks[i].sampled_ns / 1e9;
	}
	all = on + off;
	/* the share off the CPU, as record's line gives it (one rule) */
	len = (size_t)snprintf(caption, size, "%.20s: wall profile, %.2f s of "
	    "threads' time: %.2f s on the CPU, %.2f s off it%s; %.0f Hz (%s); "
	    "± = 95%% error of what was sampled (what was measured has none)",
	    name, all, on, off, report_share_of(off, all, share, sizeof share),
	    p->interval_ns ? 1e9 / (double)p->interval_ns : 0, p->engine);
	if (len < size && off >= REPORT_SHOWN_ZERO_S)
		snprintf(caption + len, size - len, "\nnote: time off the CPU is "
		    "measured from %s; %.0f%% of it is placed by sampling "
		    "(blocks shorter than %.0f ms, and preemptions)",
		    strcmp(p->engine, "perf") == 0 ? "context switches" :
		    "the threads' scheduler counters", 100 * sampled / off,
		    2 * (double)p->wall->poll_ns / 1e6);
}

/*
 * The caption of a profile whose samples weigh their intervals: how many
 * were taken, at what rates, and what the counts are in; the errors are
 * of as many unweighted samples as they are worth.
 */
static void
weighted_caption(const struct profil_profile *p, const char *name,
    char *caption, size_t size)
{
	double worth = (double)p->samples / report_error_scale(p);
	char rates[64];

	/* three short lines: each fits 80 columns whatever the figures */
	snprintf(caption, size, "%.20s: %llu samples, %.2f s CPU (%s), %llu "
	    "lost\nsampled at %s; counts in %.0f us intervals\n± = 95%% "
	    "error, as of %.0f samples of equal weight", name,
	    (unsigned long long)p->taken, (double)p->cpu_ns / 1e9, p->engine,
	    (unsigned long long)p->lost, report_rates(p, rates, sizeof rates),
	    (double)p->interval_ns / 1e3,
	    worth);
}

/*
 * Buckets wider than a byte: one that straddles two functions cannot say
 * whose its samples were; they are shared by bytes (funcs.c).  Say so.
 */
static void
note_buckets(const struct profil_profile *p, char *caption, size_t size)
{
	size_t len = strlen(caption);
	unsigned widest = 1;

	if (p->nstacks > 0)
		return;		/* the stacks keep every sample's address */
	for (size_t i = 0; i < p->nobjects; i++)
		if (p->objects[i].samples > 0 && p->objects[i].bucket_bytes > widest)
			widest = p->objects[i].bucket_bytes;
	if (widest > 1)
		snprintf(caption + len, size - len, "\nnote: buckets of %u bytes: "
		    "one that straddles functions is shared between them by "
		    "their bytes in it, as gprof does; record with -b 1 for "
		    "exact functions", widest);
}

/* The first lines, of a profile whose samples weigh alike. */
static void
plain_caption(const struct profil_profile *p, const char *name, char *caption,
    size_t size)
{
	snprintf(caption, size, "%.20s: %llu samples, %.2f s CPU at %.0f Hz "
	    "(%s), %llu lost; ± = 95%% error", name,
	    (unsigned long long)p->samples, (double)p->cpu_ns / 1e9,
	    p->interval_ns ? 1e9 / (double)p->interval_ns : 0, p->engine,
	    (unsigned long long)p->lost);
}

void
caption_make(char *caption, size_t size, const struct profil_profile *recorded,
    const struct profil_profile *view, int cpu_only, const char *name)
{
	/* of the profile as recorded, whatever the view (report_cut_share) */
	double cut_stack = report_cut_share(recorded, PROFIL_CUT_STACK);
	double cut_unread = report_cut_share(recorded, PROFIL_CUT_UNREAD);

	if (recorded->wall != NULL && !cpu_only)
		wall_caption(recorded, name, caption, size);
	else if (report_weighted(view))
		weighted_caption(view, name, caption, size);
	else
		plain_caption(view, name, caption, size);
	note_unsampled(view, caption, size);
	note_buckets(view, caption, size);
	note_cut(cut_stack, cut_unread, caption, size);
}
