/*
 * html-time.c - the page's timeline (html.h): where each stack of the
 * profile as read goes on the page (its thread's track, its box in the
 * flame graph, its leaf's row), the boxes chosen so that small windows
 * keep theirs, and the section with the timeline as JSON for the script
 * (html-time-script.c) to draw and window.  Invariant: the page has every
 * stack as read, in order, with all its timeline, so that a window's
 * counts are the windowed profile's, made into a wall view as the views
 * make one (an off-CPU stack's time in whole intervals, the remainder
 * carried from stack to stack).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "html.h"
#include "json.h"
#include "profile/wall-view.h"
#include "report.h"

int
html_time_has(const struct profil_profile *rec)
{
	return rec->nstacks > 0 && rec->ntimeline > 0 && rec->slice_ns > 0 &&
	    rec->nslices > 0;
}

/* Whether stacks a and b are one stack: the same thread and frames. */
static int
same_stack(const struct profil_stack *a, const struct profil_stack *b)
{
	return a->pid == b->pid && a->tid == b->tid && a->depth == b->depth &&
	    memcmp(a->frames, b->frames, a->depth * sizeof *a->frames) == 0;
}

/*
 * Each stack of h->rec's place in g's view: the same index when the view
 * is the profile, else the view's stacks are some of the profile's, in
 * its order (a wall view leaves out stacks of less than an interval off
 * the CPU, its CPU part every stack off it), with the frames it has.
 */
static void
match_view(struct html_time *h)
{
	const struct profil_profile *rec = h->rec, *v = h->g->p;
	size_t j = 0;

	for (size_t i = 0; i < rec->nstacks; i++) {
		if (v == rec)
			h->in_view[i] = (long)i;
		else if (j < v->nstacks && same_stack(&rec->stacks[i],
		    &v->stacks[j]))
			h->in_view[i] = (long)j++;
		else
			h->in_view[i] = -1;
	}
}

/* A track of h for pid, tid, made when new; its index. */
static uint32_t
track_of(struct html_time *h, struct hmap *at, size_t *cap, uint32_t pid,
    uint32_t tid, const char *name)
{
	uint64_t key = (uint64_t)pid << 32 | tid, n = hmap_get(at, key);

	if (n > 0)
		return (uint32_t)(n - 1);
	if (h->ntracks == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		h->tracks = xrealloc(h->tracks, *cap * sizeof *h->tracks);
	}
	h->tracks[h->ntracks] = (struct html_track){ pid, tid, name, 1, 0, 0 };
	hmap_add(at, key, ++h->ntracks);
	return (uint32_t)(h->ntracks - 1);
}

/* For sorting tracks busiest first. */
static const struct html_track *sort_tracks;

static int
by_busy(const void *a, const void *b)
{
	double x = sort_tracks[*(const uint32_t *)a].busy_ns;
	double y = sort_tracks[*(const uint32_t *)b].busy_ns;

	return (x < y) - (x > y);
}

/*
 * The tracks with time in them, in the order the threads came; past
 * HTML_TIME_TRACKS, the busiest keep theirs and the rest share the last.
 */
static void
keep_tracks(struct html_time *h)
{
	size_t n = h->ntracks, kept = 0;
	uint32_t *order = xmalloc((n + 1) * sizeof *order);
	uint32_t *to = xmalloc((n + 1) * sizeof *to);
	struct html_track *t = xmalloc((n + 1) * sizeof *t);
	size_t rest = 0, most;

	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	sort_tracks = h->tracks;
	qsort(order, n, sizeof *order, by_busy);
	for (most = 0; most < n && h->tracks[order[most]].busy_ns > 0; most++)
		;
	if (most > HTML_TIME_TRACKS)
		most = HTML_TIME_TRACKS - 1;
	for (size_t i = 0; i < n; i++)
		to[i] = UINT32_MAX;
	for (size_t k = 0; k < most; k++)
		to[order[k]] = 0;
	for (size_t i = 0; i < n; i++)
		if (to[i] == 0) {
			to[i] = (uint32_t)kept;
			t[kept++] = h->tracks[i];
		}
	for (size_t i = 0; i < n; i++)
		if (to[i] == UINT32_MAX && h->tracks[i].busy_ns > 0) {
			if (rest++ == 0)
				t[kept] = (struct html_track){ 0, 0, NULL, 0, 1, 0 };
			t[kept].nthreads++;
			t[kept].busy_ns += h->tracks[i].busy_ns;
			to[i] = (uint32_t)kept;
		}
	for (size_t i = 0; i < h->rec->nstacks; i++)
		h->track[i] = to[h->track[i]];
	free(h->tracks);
	h->tracks = t;
	h->ntracks = kept + (rest > 0);
	free(to);
	free(order);
}

/* The tracks: the threads as listed, then any only the stacks name. */
static void
find_tracks(struct html_time *h)
{
	const struct profil_profile *rec = h->rec;
	struct hmap at;		/* pid << 32 | tid -> track + 1 */
	size_t cap = 0;

	hmap_init(&at);
	for (size_t i = 0; i < rec->nthreads; i++)
		track_of(h, &at, &cap, rec->threads[i].pid, rec->threads[i].tid,
		    rec->threads[i].name);
	for (size_t i = 0; i < rec->nstacks; i++) {
		const struct profil_stack *st = &rec->stacks[i];

		h->track[i] = track_of(h, &at, &cap, st->pid, st->tid, NULL);
		h->tracks[h->track[i]].busy_ns += h->kind[i] == HTML_TIME_ON_CPU ?
		    (double)st->count * (double)rec->interval_ns :
		    (double)st->off_ns;
	}
	hmap_free(&at);
	keep_tracks(h);
}

void
html_time_init(struct html_time *h, const struct profil_profile *rec,
    const struct flame_graph *g)
{
	static uint32_t funcs[STACKS_MAX_DEPTH];
	size_t n = rec->nstacks;

	*h = (struct html_time){ .rec = rec, .g = g };
	h->view = g->b.off_obj >= 0 ? HTML_TIME_WALL : rec->wall != NULL ?
	    HTML_TIME_CPU_PART : HTML_TIME_CPU;
	h->node = xcalloc(n, sizeof *h->node);
	h->in_view = xcalloc(n, sizeof *h->in_view);
	h->kind = xcalloc(n, sizeof *h->kind);
	h->leaf = xcalloc(n, sizeof *h->leaf);
	h->doing = xcalloc(n, sizeof *h->doing);
	h->track = xcalloc(n, sizeof *h->track);
	match_view(h);
	for (size_t i = 0; i < n; i++) {
		const struct profil_stack *st = &rec->stacks[i];
		size_t depth = stacks_funcs_of(g->s, st, funcs, STACKS_MAX_DEPTH);
		const struct profil_frame *leaf = st->depth > 0 ?
		    &rec->frames[st->frames[0]] : NULL;

		if (leaf != NULL && leaf->object == PROFIL_FRAME_OFFCPU)
			h->kind[i] = leaf->addr == PROFIL_OFFCPU_RUNNABLE ?
			    HTML_TIME_RUNNABLE : HTML_TIME_WAITING;
		h->leaf[i] = depth > 0 ? funcs[0] : UINT32_MAX;
		h->doing[i] = h->leaf[i];
		for (size_t d = h->kind[i] == HTML_TIME_RUNNABLE; d < depth &&
		    h->kind[i] != HTML_TIME_WAITING; d++)
			if (!g->s->funcs[funcs[d]].kernel) {
				h->doing[i] = funcs[d];
				break;
			}
		/* the CPU part of a wall profile draws no time off the CPU */
		h->node[i] = h->kind[i] != HTML_TIME_ON_CPU &&
		    h->view != HTML_TIME_WALL ? SIZE_MAX :
		    flame_graph_node(g, funcs, depth);
	}
	find_tracks(h);
}

void
html_time_free(struct html_time *h)
{
	free(h->node);
	free(h->in_view);
	free(h->kind);
	free(h->leaf);
	free(h->doing);
	free(h->track);
	free(h->tracks);
}

/*
 * An entry's value in the view's counts: samples, or intervals off the
 * CPU (unrounded: for choosing boxes); 0 where the view has none.
 */
static double
counts_of(const struct html_time *h, const struct profil_timeline_entry *e)
{
	if (h->node[e->stack] == SIZE_MAX)
		return 0;
	if (h->kind[e->stack] == HTML_TIME_ON_CPU)
		return (double)e->value;
	return (double)e->value / (double)(h->rec->interval_ns ?
	    h->rec->interval_ns : 1);
}

void
html_time_prune(const struct html_time *h, struct flame_graph *g)
{
	const struct profil_profile *rec = h->rec;
	size_t parts = rec->nslices < 100 ? (size_t)rec->nslices : 100;
	size_t *first = xcalloc(parts + 2, sizeof *first);
	size_t *by_part = xmalloc(rec->ntimeline * sizeof *by_part);
	size_t *touched = xmalloc(g->t.n * sizeof *touched);
	double *sum = xcalloc(g->t.n, sizeof *sum);
	unsigned char *keep = xcalloc(g->t.n, 1);
	uint64_t total = g->t.v[0].count;
	uint64_t least = total / FLAME_PRUNE + (total % FLAME_PRUNE != 0);

	/* the entries by hundredth of the run (a counting sort) */
#define PART_OF(e) ((size_t)((e)->slice * (uint64_t)parts / rec->nslices))
	for (size_t k = 0; k < rec->ntimeline; k++)
		first[PART_OF(&rec->timeline[k]) + 2]++;
	for (size_t k = 2; k < parts + 2; k++)
		first[k] += first[k - 1];
	for (size_t k = 0; k < rec->ntimeline; k++)
		by_part[first[PART_OF(&rec->timeline[k]) + 1]++] = k;
#undef PART_OF
	for (size_t part = 0; part < parts; part++) {
		size_t ntouched = 0;
		double in_part = 0;

		for (size_t k = first[part]; k < first[part + 1]; k++) {
			const struct profil_timeline_entry *e =
			    &rec->timeline[by_part[k]];
			double v = counts_of(h, e);

			if (v == 0)
				continue;
			in_part += v;
			for (size_t at = h->node[e->stack];; at = g->t.v[at].parent) {
				if (sum[at] == 0)
					touched[ntouched++] = at;
				sum[at] += v;
				if (at == 0)
					break;
			}
		}
		for (size_t k = 0; k < ntouched; k++) {
			if (sum[touched[k]] * FLAME_PRUNE >= in_part)
				keep[touched[k]] = 1;
			sum[touched[k]] = 0;
		}
	}
	/* (what is 0.1% of the run is so in some hundredth: kept anyway) */
	for (size_t i = 0; i < g->t.n; i++)
		if (g->t.v[i].count >= least)
			keep[i] = 1;
	keep[0] = 1;
	flame_graph_prune(g, keep, "in every hundredth of the run");
	free(keep);
	free(sum);
	free(touched);
	free(by_part);
	free(first);
}
