/*
 * flame.h - the flame graph of the HTML page (flame.c), in steps, for
 * the page's timeline (html-time.h): the call tree of the view's stacks,
 * which nodes are drawn as boxes, and in which box any stack lands (the
 * drawn node nearest its leaf), so that the page can add up the boxes of
 * a window of the run from the stacks' timeline and redraw the graph.
 */
#ifndef PROFIL_REPORT_FLAME_H
#define PROFIL_REPORT_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <profil.h>

#include "calltree.h"
#include "model/stacks.h"
#include "share.h"

/*
 * Boxes narrower than 1/FLAME_PRUNE of the samples are left out: at a
 * page's width they are under a pixel, and without them the data is at
 * most FLAME_PRUNE boxes a level, whatever the number of functions.
 */
#define FLAME_PRUNE 1000

struct flame_graph {
	const struct profil_profile *p;	/* the view drawn */
	const struct stacks *s;		/* its stacks, named */
	struct share_basis b;
	struct calltree t;
	/* after flame_graph_prune: */
	size_t *order;			/* node of each box, in preorder */
	size_t *box;			/* box of each node; SIZE_MAX: left out */
	size_t nboxes;
	size_t pruned;			/* nodes left out */
	uint64_t pruned_samples;	/* the counts at their tops */
	const char *prune_rule;		/* what was left out, for the note */
	size_t *slot;			/* per pool of b: its number on the page */
};

/*
 * The tree of p's stacks (s named on p; both must outlive g), no box
 * chosen yet.  p has stacks.  Free with flame_graph_free.
 */
void flame_graph_build(struct flame_graph *g, const struct profil_profile *p,
    const struct stacks *s);
void flame_graph_free(struct flame_graph *g);

/*
 * The deepest node of g's tree along a path of functions of g->s (leaf
 * first, n of them, as stacks_funcs_of gives them): the stack's own node
 * when the view holds that stack, else the node of its longest outer part
 * the tree has (the root, 0, at least).
 */
size_t flame_graph_node(const struct flame_graph *g, const uint32_t *funcs,
    size_t n);

/*
 * Choose the boxes: with keep NULL, the nodes of at least 1/FLAME_PRUNE
 * of the root's count; else the nodes keep[] marks (g->t.n of them, every
 * marked node's parent marked too, the root always drawn), rule saying
 * in the page's words which ("in every hundredth of the run").  Boxes go
 * in preorder, children heaviest first.
 */
void flame_graph_prune(struct flame_graph *g, const unsigned char *keep,
    const char *rule);

/* The box drawn for node: its own, or its nearest drawn caller's. */
size_t flame_graph_box(const struct flame_graph *g, size_t node);

/*
 * The flame graph section of the page on fp: its intro, tools, the boxes
 * as JSON (#flame-data) and the script that draws, zooms and searches
 * them, and redraws them for a window of the run when the page's
 * timeline sends the element #flame a "profil-window" event (detail: the
 * window's box counts and error basis, or null for the whole run).
 */
void flame_graph_html(FILE *fp, const struct flame_graph *g);

/* The section's words for a profile with no stacks to draw. */
void flame_graph_none(FILE *fp);

/* The script flame_graph_html puts on the page (flame-script.c). */
extern const char flame_script[];

#endif
