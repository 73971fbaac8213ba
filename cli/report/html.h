/*
 * html.h - the parts of `profil report --html`'s page (html.c) kept in
 * files of their own: the timeline (html-time.c, its script
 * html-time-script.c), a track per thread above the flame graph of when
 * it ran and waited, with the phases found in it; dragging across the
 * tracks chooses a window of the run, whole slices of the profile's
 * timeline, and the page redraws the flame graph (flame.h), the
 * functions table and the figures for it, as `profil report --time`
 * counts that window.
 */
#ifndef PROFIL_REPORT_HTML_H
#define PROFIL_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <profil.h>

#include "flame.h"
#include "model/funcs.h"

/* s on fp with < > & " ' as HTML's character references (html-escape.c). */
void html_escape(FILE *fp, const char *s);

/* A track of the timeline: one thread, or the threads left over. */
struct html_track {
	uint32_t pid, tid;
	const char *name;	/* the thread's, or NULL */
	size_t nthreads;	/* 1, or the threads folded into it */
	int others;		/* the threads left over, folded */
	double busy_ns;		/* its time on the CPU and off it */
};

/*
 * The page's view of the timeline of rec, the profile as read, whose
 * view g draws (rec itself, a wall view of it or its CPU part): per
 * stack of rec, where its counts go on the page.
 */
struct html_time {
	const struct profil_profile *rec;
	const struct flame_graph *g;
	int view;		/* HTML_TIME_CPU, _WALL, _CPU_PART */
	size_t *node;		/* per stack of rec: its node in g's tree */
	long *in_view;		/* its stack in g's view, or -1 */
	unsigned char *kind;	/* HTML_TIME_ON_CPU, _WAITING, _RUNNABLE */
	uint32_t *leaf;		/* its leaf function in g->s */
	uint32_t *doing;	/* what it was doing, for the phases: on
				   the CPU or waiting for one its innermost
				   function not the kernel's, else off it
				   what it waited in */
	uint32_t *track;	/* into tracks */
	struct html_track *tracks;
	size_t ntracks;
};
enum { HTML_TIME_CPU, HTML_TIME_WALL, HTML_TIME_CPU_PART };
enum { HTML_TIME_ON_CPU, HTML_TIME_WAITING, HTML_TIME_RUNNABLE };

/* At most this many tracks: the busiest threads, the rest in one. */
#define HTML_TIME_TRACKS 32

/* Whether rec has a timeline the page can show. */
int html_time_has(const struct profil_profile *rec);

/*
 * The timeline of rec (html_time_has) for g's view of it (g built, its
 * boxes not yet chosen).  Free with html_time_free.
 */
void html_time_init(struct html_time *h, const struct profil_profile *rec,
    const struct flame_graph *g);
void html_time_free(struct html_time *h);

/*
 * Choose g's boxes for a page whose windows may be small: a node is
 * drawn if it holds 1/FLAME_PRUNE of the samples of some hundredth of
 * the run, so that any window of whole hundredths draws every box of
 * 0.1% of it (a share under 0.1% in each part is under 0.1% of their
 * sum).
 */
void html_time_prune(const struct html_time *h, struct flame_graph *g);

/*
 * The timeline section on fp: the tracks' names, their canvas, the
 * window chosen and the phases, the timeline as JSON (#timeline-data)
 * and its script; g's boxes chosen, f the functions table's rows (each
 * stack's leaf is shown as its row is).
 */
void html_time_section(FILE *fp, const struct html_time *h,
    const struct funcs *f);

/* The script of the section (html-time-script.c). */
extern const char html_time_script[];

#endif
