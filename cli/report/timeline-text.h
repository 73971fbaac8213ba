/*
 * timeline-text.h - what `report --timeline` shows (timeline-view.c
 * picks it) and its text (timeline-text.c): the strips, the time axis,
 * the legend and the phases.
 */
#ifndef PROFIL_REPORT_TIMELINE_TEXT_H
#define PROFIL_REPORT_TIMELINE_TEXT_H

#include <stddef.h>

#include "phases.h"
#include "report.h"
#include "timeline.h"

/* The threads shown, their phases and the whole program's. */
struct timeline_shown {
	const struct timeline *t;
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
void timeline_text(const struct timeline_shown *v,
    const struct report_options *o);

/*
 * What a phase of v (of thread th, or PHASES_PROGRAM) did, in words, into
 * buf: "97% on the CPU", "96% off the CPU in read", "not running".
 * Returns buf.
 */
const char *timeline_phase_words(const struct timeline *t, size_t th,
    const struct phase *ph, char *buf, size_t size);

#endif
