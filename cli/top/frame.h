/*
 * frame.h - one frame of `profil top`: a header line (what is profiled,
 * the window's time), a line per thread with its strip (strips.h), then
 * the window's flat profile exactly as `profil report` shows it (its
 * caption, and report_flat: self and inclusive shares with their error
 * bars, share.h), sorted by self or inclusive time.  A wall profile's
 * time off the CPU is in it as report's wall view has it ([off-cpu:
 * WHAT] rows), and each thread's line names what it waited in longest.
 */
#ifndef PROFIL_TOP_FRAME_H
#define PROFIL_TOP_FRAME_H

#include <stdint.h>

#include <profil.h>

#include "strips.h"

struct top_frame {
	const char *title;	/* what is profiled: "phases (pid 1234)" */
	int64_t run_start_ns;	/* the recording's start (CLOCK_REALTIME) */
	uint64_t span_ns;	/* the window asked for */
	int sort;		/* SORT_SAMPLES (self) or SORT_INCLUSIVE */
	const char *status;	/* said after the header ("paused"), or NULL */
	int columns;		/* text fitted to them; 0: never cut */
	int rows;		/* a screen's (threads and rows fitted to
				   it); 0: a block of text */
	long limit;		/* functions at most; -1: all */
	int colour, utf8;	/* ANSI colours; UTF-8 strips */
	int keys;		/* say which keys do what */
};

/* How many columns a thread's strip has in fr. */
int top_frame_strip_columns(const struct top_frame *fr);

/*
 * Frame fr of m, the window's periods summed as recorded (window.h),
 * with s, its threads' strips, on stdout.  A wall profile is shown as
 * its wall view; a view that cannot be made is said in a line instead.
 */
void top_frame_print(const struct top_frame *fr,
    const struct profil_profile *m, const struct top_strips *s);

#endif
