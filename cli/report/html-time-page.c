/*
 * html-time-page.c - the timeline's section of the page (html.h): the
 * tracks' names and canvas, the window's line, the phases' place, and
 * the timeline as JSON for the script (html-time-script.c).  Invariant:
 * a name reaches the page escaped, as HTML in the markup and as JSON safe
 * in a <script> element in the data.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"
#include "json.h"
#include "profile/wall-view.h"
#include "report.h"

static const char intro[] =
"<h2 id=\"timeline\">Timeline</h2>\n"
"<p>A track per thread, the run from left to right: in each column the "
"share of its time the thread spent <span class=\"key\" style=\"background:"
"#e8793a\"></span>on the CPU, and, in a wall profile (record --wall), "
"<span class=\"key\" style=\"background:#e3c13b\"></span>waiting for a CPU "
"and <span class=\"key\" style=\"background:#9d8ad6\"></span>waiting "
"otherwise (off the CPU). Under each track its phases: the spans in which "
"the same function or wait stays the most of its time. <b>Drag across the "
"tracks</b> to choose a window of the run: the flame graph, the functions "
"and their figures are then of that window alone (whole slices of the "
"timeline, as <code>profil report --time</code> takes them); a click on a "
"phase chooses it; a click on the tracks or Escape goes back to the whole "
"run.</p>\n";

/* A track's name: the thread's (or "thread TID"), and its numbers. */
static void
track_name(FILE *fp, const struct html_track *t, int processes)
{
	if (t->others) {
		fprintf(fp, "<div class=\"tl-name\">%zu other threads</div>\n",
		    t->nthreads);
		return;
	}
	fprintf(fp, "<div class=\"tl-name\" title=\"process %u, thread %u\">",
	    t->pid, t->tid);
	if (t->name != NULL && t->name[0] != '\0')
		html_escape(fp, t->name);
	else
		fputs("thread", fp);
	if (processes)
		fprintf(fp, " <span class=\"tl-tid\">%u/%u</span></div>\n", t->pid,
		    t->tid);
	else
		fprintf(fp, " <span class=\"tl-tid\">%u</span></div>\n", t->tid);
}

/* Function fi of s as a JSON entry of the leaves, numbered n, once. */
static void
leaf_json(FILE *fp, const struct html_time *h, const struct funcs *f,
    const long *row, uint32_t *num, uint32_t *n, uint32_t fi)
{
	const struct stack_func *fn = &h->g->s->funcs[fi];

	if (fi == UINT32_MAX || num[fi] != UINT32_MAX)
		return;
	num[fi] = (*n)++;
	fputs(*n > 1 ? ",\n[" : "\n[", fp);
	json_string(fp, row[fi] >= 0 ? f->rows[row[fi]].function :
	    fn->function, JSON_IN_SCRIPT);
	fputc(',', fp);
	json_string(fp, row[fi] >= 0 ? f->rows[row[fi]].object : fn->object,
	    JSON_IN_SCRIPT);
	fprintf(fp, ",%d]", strcmp(fn->object, WALL_VIEW_OBJECT) == 0 ||
	    strncmp(fn->function, "[off-cpu: ", 10) == 0 ? 8 : 0);
}

/*
 * The stacks' leaves and what they were doing (html.h), each function
 * once, as JSON entries [name, object, kinds (8: off the CPU)], named as
 * the functions table names its rows; their numbers there per function
 * of s, malloc'd.
 */
static uint32_t *
leaves_json(FILE *fp, const struct html_time *h, const struct funcs *f)
{
	const struct stacks *s = h->g->s;
	uint32_t *num = xmalloc((s->nfuncs + 1) * sizeof *num), n = 0;
	long *row = xmalloc((s->nfuncs + 1) * sizeof *row);

	for (size_t i = 0; i < s->nfuncs; i++) {
		num[i] = UINT32_MAX;
		row[i] = -1;
	}
	for (size_t r = f->nrows; r-- > 0;) {
		long fn = stacks_func_of_row(s, &f->rows[r]);

		if (fn >= 0)
			row[fn] = (long)r;
	}
	fputs(",\n\"leaves\":[", fp);
	for (size_t i = 0; i < h->rec->nstacks; i++) {
		leaf_json(fp, h, f, row, num, &n, h->leaf[i]);
		leaf_json(fp, h, f, row, num, &n, h->doing[i]);
	}
	fputc(']', fp);
	free(row);
	return num;
}

/*
 * Each stack as [track, kind, box, leaf, doing, flags, [slice, value,
 * ...]] and, for time off the CPU placed by looks, [pool, looks,
 * sampled_ns]: flags 1 when a box of its path is left out (its counts in
 * a caller's box), 2 when the view of the whole run has it not.
 */
static void
stacks_json(FILE *fp, const struct html_time *h, const uint32_t *leaf_num)
{
	const struct profil_profile *rec = h->rec;
	const struct flame_graph *g = h->g;
	size_t e = 0;

	fputs(",\n\"stacks\":[", fp);
	for (size_t i = 0; i < rec->nstacks; i++) {
		size_t node = h->node[i];
		long v = h->in_view[i];
		int flags = 0;

		if (node != SIZE_MAX && (g->box[node] == SIZE_MAX || v < 0))
			flags |= 1;
		if (v < 0)
			flags |= 2;
		fprintf(fp, "%s[%u,%d,%ld,%ld,%ld,%d,[", i ? ",\n" : "\n",
		    h->track[i], h->kind[i], node == SIZE_MAX ? -1L :
		    (long)flame_graph_box(g, node), h->leaf[i] == UINT32_MAX ? -1L :
		    (long)leaf_num[h->leaf[i]], h->doing[i] == UINT32_MAX ? -1L :
		    (long)leaf_num[h->doing[i]], flags);
		for (size_t k = 0; e < rec->ntimeline && rec->timeline[e].stack == i;
		    e++, k++)
			fprintf(fp, k ? ",%u,%llu" : "%u,%llu", rec->timeline[e].slice,
			    (unsigned long long)rec->timeline[e].value);
		fputc(']', fp);
		if (h->pool[i] != SIZE_MAX)
			fprintf(fp, ",[%zu,%llu,%llu]", h->pool[i],
			    (unsigned long long)rec->stacks[i].observations,
			    (unsigned long long)rec->stacks[i].sampled_ns);
		fputc(']', fp);
	}
	fputc(']', fp);
}

void
html_time_section(FILE *fp, const struct html_time *h, const struct funcs *f)
{
	const struct profil_profile *rec = h->rec;
	int processes = rec->nprocesses > 1;
	uint32_t *leaf_num;

	fputs(intro, fp);
	fputs("<div class=\"tl\" id=\"tl\"><div class=\"tl-names\" "
	    "id=\"tl-names\">\n", fp);
	for (size_t k = 0; k < h->ntracks; k++)
		track_name(fp, &h->tracks[k], processes);
	fputs("</div><div class=\"tl-plot\" id=\"tl-plot\"><canvas id=\""
	    "tl-canvas\" role=\"img\" aria-label=\"a track per thread: when it "
	    "ran and waited\"></canvas><div class=\"tl-sel\" id=\"tl-sel\" "
	    "hidden></div></div></div>\n<p class=\"tl-window\" id=\"tl-window\" "
	    "aria-live=\"polite\"></p>\n<div class=\"tl-phases\" id=\"tl-phases\">"
	    "</div>\n", fp);
	fprintf(fp, "<script type=\"application/json\" id=\"timeline-data\">"
	    "{\"slice_ns\":%llu,\"nslices\":%llu,\"interval_ns\":%llu,"
	    "\"view\":%d,\"scale\":%.17g,\"wsq\":\"%llu\",\"nsamp\":\"%llu\","
	    "\"npools\":%zu,\n\"tracks\":[",
	    (unsigned long long)rec->slice_ns, (unsigned long long)rec->nslices,
	    (unsigned long long)rec->interval_ns, h->view, h->g->b.scale,
	    (unsigned long long)rec->weight_sq, (unsigned long long)rec->samples,
	    h->g->t.v[0].part.nlooks);
	for (size_t k = 0; k < h->ntracks; k++)
		fprintf(fp, k ? ",%zu" : "%zu", h->tracks[k].nthreads);
	fputc(']', fp);
	leaf_num = leaves_json(fp, h, f);
	stacks_json(fp, h, leaf_num);
	fprintf(fp, "}</script>\n<script>\n%s</script>\n", html_time_script);
	free(leaf_num);
}
