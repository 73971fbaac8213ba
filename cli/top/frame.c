/*
 * frame.c - a frame of top (frame.h): its header and threads, then the
 * flat view of report/ on the window.  Invariant: the figures of the
 * functions are report_flat's own, of the profile `profil top -o`
 * writes: no share is worked out here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "frame.h"
#include "model/funcs.h"
#include "model/stacks.h"
#include "profile/wall-view.h"
#include "report/caption.h"
#include "report/report.h"
#include "symbols/offcpu.h"

/* A thread line: tid, name, |strip|, CPU share, what it waited in. */
#define THREAD_FIXED	32	/* the columns around the strip */
#define THREAD_WAITS	28	/* room for its waits */

int
top_frame_strip_columns(const struct top_frame *fr)
{
	int c = fr->columns - THREAD_FIXED - THREAD_WAITS;

	if (fr->columns <= 0)
		return 40;
	return c < 10 ? 10 : c > 120 ? 120 : c;
}

/*
 * The header: what is profiled, the window's end (the clock) and span
 * (in the run's time), the order; what is happening (paused, ended)
 * after.  On a screen that goes to the right, or to a line of its own
 * where the screen is too narrow for both (its edge would cut it), and
 * when nothing is happening, the keys, where there is room; in text,
 * the line starts "profil top:", a block's first.
 */
static void
header(const struct top_frame *fr, const struct top_strips *s)
{
	static const char keys[] = "q quit, w W window, s sort, p pause";
	time_t at = (time_t)(s->end_ns / 1000000000);
	const char *right = fr->status != NULL ? fr->status : fr->keys ?
	    keys : NULL;
	struct tm tm;
	char clock[16] = "--:--:--", line[512];
	int n = 0;

	if (s->end_ns > 0 && localtime_r(&at, &tm) != NULL)
		strftime(clock, sizeof clock, "%H:%M:%S", &tm);
	if (fr->rows == 0)
		n += snprintf(line, sizeof line, "profil top: ");
	n += snprintf(line + n, sizeof line - (size_t)n, "%s, %s, window %.4g "
	    "s: %.2f-%.2f s, by %s", fr->title, clock,
	    (double)fr->span_ns / 1e9,
	    (double)(s->start_ns - fr->run_start_ns) / 1e9,
	    (double)(s->end_ns - fr->run_start_ns) / 1e9,
	    fr->sort == SORT_INCLUSIVE ? "inclusive" : "self");
	if (fr->rows == 0) {
		printf("%s%s%s\n", line, fr->status != NULL ? "; " : "",
		    fr->status != NULL ? fr->status : "");
		return;
	}
	if (right != NULL && n + 2 + (int)strlen(right) <= fr->columns)
		printf("%s%*s\n", line, fr->columns - n, right);
	else if (fr->status != NULL)
		printf("%s\n[%s]\n", line, fr->status);
	else
		printf("%s\n", line);
}

/* Most time (on the CPU and off) first: the threads shown when few fit. */
static int
busiest(const void *a, const void *b)
{
	const struct top_thread *x = *(const struct top_thread *const *)a;
	const struct top_thread *y = *(const struct top_thread *const *)b;
	uint64_t tx = x->cpu_ns + x->off_ns, ty = y->cpu_ns + y->off_ns;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int
in_order(const void *a, const void *b)
{
	const struct top_thread *x = *(const struct top_thread *const *)a;
	const struct top_thread *y = *(const struct top_thread *const *)b;

	return x < y ? -1 : x > y;
}

static void
thread_line(const struct top_frame *fr, const struct top_strips *s,
    const struct top_thread *t)
{
	double span = (double)(s->end_ns - s->start_ns);
	char strip[1024];

	printf("%7u %-15.15s |%s| %3.0f%%", t->tid, t->name,
	    top_strip_text(s, t, fr->utf8, strip, sizeof strip),
	    span > 0 ? 100 * (double)t->cpu_ns / span : 0.0);
	for (int k = 0; k < TOP_STRIP_WAITS && t->waits[k].ns > 0; k++)
		printf("%s%s %.2f s", k ? ", " : "  ", offcpu_what(
		    t->waits[k].code), (double)t->waits[k].ns / 1e9);
	putchar('\n');
}

/*
 * The threads that ran or waited in the window, by tid; on a screen
 * the busiest that fit in a third of it, the others counted.
 */
static void
threads(const struct top_frame *fr, const struct top_strips *s)
{
	const struct top_thread **shown = xcalloc(s->n + 1, sizeof *shown);
	size_t n = 0, most = fr->rows > 0 ? (size_t)(fr->rows / 3) :
	    fr->limit >= 0 ? (size_t)fr->limit : s->n;

	for (size_t i = 0; i < s->n; i++)
		if (s->threads[i].cpu_ns + s->threads[i].off_ns > 0)
			shown[n++] = &s->threads[i];
	if (most < 1)
		most = 1;
	if (n > most) {
		qsort(shown, n, sizeof *shown, busiest);
		qsort(shown, most, sizeof *shown, in_order);
	}
	for (size_t i = 0; i < n && i < most; i++)
		thread_line(fr, s, shown[i]);
	if (n > most)
		printf("%7s (%zu threads more)\n", "", n - most);
	free(shown);
}

/* The window's flat profile, as report shows it. */
static void
functions(const struct top_frame *fr, const struct profil_profile *m)
{
	struct profil_profile *wv = NULL;
	const struct profil_profile *p = m;
	struct funcs f = { 0 };
	struct stacks st = { 0 };
	struct report_options o = { FORMAT_TEXT, fr->sort, -1, fr->limit, NULL,
	    { fr->columns, fr->colour, NULL }, NULL };
	char caption[2048], cause[256];

	if (wall_view(m, 0, &wv, cause, sizeof cause) < 0) {
		printf("%s\n", cause);
		return;
	}
	if (wv != NULL)
		p = wv;
	caption_make(caption, sizeof caption, m, p, 0, "window");
	o.caption = caption;
	if (report_weighted(p))
		o.style.count_title = "counts";
	if (fr->rows > 0 && o.limit < 0)
		o.limit = fr->rows;	/* the screen cuts the rest */
	funcs_build(&f, p, NULL);
	if (p->nstacks > 0)
		stacks_name(&st, p, &f, STACKS_NO_LINES);
	report_flat(p, &f, p->nstacks > 0 ? &st : NULL, &o);
	stacks_free(&st);
	funcs_free(&f);
	profil_profile_free(wv);
}

void
top_frame_print(const struct top_frame *fr, const struct profil_profile *m,
    const struct top_strips *s)
{
	header(fr, s);
	threads(fr, s);
	putchar('\n');
	if (m != NULL)
		functions(fr, m);
}
