/*
 * timeline-view.h - `report --timeline`: the view (timeline-view.c),
 * what it shows (the threads picked, their phases and the program's)
 * and its text (timeline-text.c): the strips, the time axis, the legend
 * and the phases.
 */
#ifndef PROFIL_REPORT_TIMELINE_VIEW_H
#define PROFIL_REPORT_TIMELINE_VIEW_H

#include <stddef.h>

#include "phases.h"
#include "report.h"
#include "model/stacks.h"
#include "timeline-data.h"

/* The threads shown, their phases and the whole program's. */
struct tlview_shown {
	const struct tldata *t;
	size_t *threads;	/* into t->threads, in its order */
	size_t n;
	size_t left_out;	/* threads --limit left out */
	struct phases program;
	struct phases *phases;	/* per thread shown */
};

/*
 * The text of v on stdout, fitted to o's width (0: a column per slice):
 * the caption, a strip per thread, the axis and legend, the phases.
 */
void tlview_text(const struct tlview_shown *v,
    const struct report_options *o);

/*
 * The view (views.c): a strip per thread across the width, how busy it
 * was on the CPU and what it waited in, the time axis, then the phases
 * (phases.h); or with CSV and JSON, the numbers.  0, or -1 with a
 * one-line cause when p has no timeline.
 */
int report_timeline(const struct profil_profile *p, const struct stacks *s,
    const struct report_options *o, char *cause, size_t cause_size);

#endif
