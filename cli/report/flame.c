/*
 * flame.c - the flame graph of `profil report --html` (flame.h): the call
 * stacks merged by function along each path into one tree (calltree.h;
 * its root is every sample, drawn at the bottom), written as compact JSON
 * that the page's script (flame-script.c) lays out, zooms and searches.
 * Invariant: the boxes go out in preorder, so a box's parent comes before
 * it and a subtree is one run of indices; the script lays out and zooms
 * in single passes over that.
 */
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "cli.h"
#include "flame.h"
#include "json.h"
#include "profile/wall-view.h"
#include "report.h"
#include "share.h"

/* For sorting the children of a node: most samples first, then by name. */
static const struct stacks *sort_stacks;
static const struct calltree_node *sort_nodes;

static int
by_count(const void *a, const void *b)
{
	const struct calltree_node *x = &sort_nodes[*(const size_t *)a];
	const struct calltree_node *y = &sort_nodes[*(const size_t *)b];
	int c;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	c = strcmp(sort_stacks->funcs[x->func].function,
	    sort_stacks->funcs[y->func].function);
	return c ? c : (x->func > y->func) - (x->func < y->func);
}

static const char intro[] =
"<h2 id=\"flame-graph\">Flame graph</h2>\n"
"<p>The call stacks merged by function: each box is a function, the "
"functions it called above it, the root (every sample) at the bottom; "
"its width is its samples, with it anywhere on the stack. Click a box to "
"zoom into it, the bottom box or <i>Reset</i> to zoom out. "
"<span class=\"key\" style=\"background:#e8793a\"></span>program and "
"libraries, <span class=\"key\" style=\"background:#6fa8dc\"></span>kernel, "
"<span class=\"key\" style=\"background:#b9a3dc\"></span>off the CPU "
"(a wall profile; <i>on the CPU only</i> shows the CPU part), "
"<span class=\"key\" style=\"background:#a9a9a9\"></span>stack cut (the "
"unwinder stopped; the box says why; a box whose caller below was found by "
"frame pointer, not unwind tables, says so too), "
"<span class=\"key\" style=\"background:#d020e0\"></span>search match.</p>\n";

static const char tools[] =
"<div class=\"fg-tools\"><input id=\"flame-search\" type=\"search\" "
"placeholder=\"search functions: regex or text\" aria-label=\"search "
"functions (a regular expression, or plain text)\" size=\"36\">"
"<button id=\"flame-reset\" type=\"button\">Reset zoom</button>"
"<label hidden><input id=\"flame-cpu\" type=\"checkbox\"> on the CPU only"
"</label>"
"<span id=\"flame-match\" aria-live=\"polite\"></span></div>\n"
"<div class=\"flame\" id=\"flame\"><svg id=\"flame-svg\" "
"xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"flame "
"graph\"></svg><div class=\"fg-tip\" id=\"flame-tip\" hidden></div></div>\n";


/*
 * The errors, as the views give them (share.h): each box's share of the
 * root's, "err" (the root itself is every sample: none); for the search,
 * which adds up boxes the page picks, what they rest on: the pools of
 * time placed by looks, [time, looks] each ("pools"), and the looks of
 * each box in them ("looks": box, pool, looks, ...).
 */
static void
errors_json(FILE *fp, const struct flame_graph *g)
{
	const struct calltree *t = &g->t;
	const struct share_basis *b = &g->b;
	const struct share_part *root = &t->v[0].part;
	size_t n = 0;

	fputs("],\n\"err\":[0", fp);
	for (size_t k = 1; k < g->nboxes; k++)
		fprintf(fp, ",%.4f", share_error95(b, &t->v[g->order[k]].part,
		    root));
	/* the pools in the root's order, numbered as the page knows them */
	fputs("],\n\"pools\":[", fp);
	for (size_t k = 0; k < root->nlooks; k++)
		fprintf(fp, "%s%.6g,%llu", k ? "," : "",
		    (double)root->looks[k].sampled_ns / b->interval,
		    (unsigned long long)root->looks[k].looks);
	fputs("],\n\"looks\":[", fp);
	for (size_t k = 0; k < g->nboxes; k++) {
		const struct share_part *r = &t->v[g->order[k]].part;

		for (size_t j = 0; j < r->nlooks; j++)
			fprintf(fp, "%s%zu,%zu,%llu", n++ ? "," : "", k,
			    g->slot[r->looks[j].pool],
			    (unsigned long long)r->looks[j].looks);
	}
	fputc(']', fp);
}

void
flame_graph_build(struct flame_graph *g, const struct profil_profile *p,
    const struct stacks *s)
{
	const struct share_part *root;

	*g = (struct flame_graph){ .p = p, .s = s };
	share_basis_init(&g->b, p);
	calltree_build(&g->t, &g->b, s);
	/* each pool's number on the page: its place in the root's looks */
	root = &g->t.v[0].part;
	g->slot = xcalloc(g->b.npools + 1, sizeof *g->slot);
	for (size_t k = 0; k < root->nlooks; k++)
		g->slot[root->looks[k].pool] = k;
}

void
flame_graph_free(struct flame_graph *g)
{
	free(g->order);
	free(g->box);
	free(g->slot);
	calltree_free(&g->t);
	share_basis_free(&g->b);
}

size_t
flame_graph_node(const struct flame_graph *g, const uint32_t *funcs, size_t n)
{
	size_t at = 0;

	/* node i of the tree is node i - 1 of its index (calltree.h) */
	while (n-- > 0) {
		uint32_t k = stacktree_find(&g->t.index, at == 0 ? STACKTREE_ROOT :
		    (uint32_t)(at - 1), funcs[n]);

		if (k == STACKTREE_ROOT)
			break;
		at = (size_t)k + 1;
	}
	return at;
}

void
flame_graph_prune(struct flame_graph *g, const unsigned char *keep,
    const char *rule)
{
	const struct calltree *t = &g->t;
	size_t *stack = xmalloc(t->n * sizeof *stack), nstack = 0;
	size_t *kids = xmalloc(t->n * sizeof *kids);
	size_t *size = xmalloc(t->n * sizeof *size);
	/* count * FLAME_PRUNE >= total, without overflowing */
	uint64_t total = t->v[0].count;
	uint64_t least = total / FLAME_PRUNE + (total % FLAME_PRUNE != 0);

	g->order = xmalloc(t->n * sizeof *g->order);
	g->box = xmalloc(t->n * sizeof *g->box);
	g->nboxes = g->pruned = 0;
	g->pruned_samples = 0;
	g->prune_rule = keep != NULL ? rule : NULL;
	/* subtree sizes, to count what pruning leaves out; children come
	   after their parent in creation order */
	for (size_t i = 0; i < t->n; i++) {
		size[i] = 1;
		g->box[i] = SIZE_MAX;
	}
	for (size_t i = t->n; i-- > 1;)
		size[t->v[i].parent] += size[i];
	sort_stacks = g->s;
	sort_nodes = t->v;
	stack[nstack++] = 0;
	while (nstack > 0) {
		size_t at = stack[--nstack], nkids = 0;

		g->box[at] = g->nboxes;
		g->order[g->nboxes++] = at;
		for (size_t c = t->v[at].child; c != 0; c = t->v[c].sibling) {
			if (keep != NULL ? keep[c] != 0 : t->v[c].count >= least) {
				kids[nkids++] = c;
			} else {
				g->pruned += size[c];
				g->pruned_samples += t->v[c].count;
			}
		}
		qsort(kids, nkids, sizeof *kids, by_count);
		while (nkids > 0)
			stack[nstack++] = kids[--nkids];
	}
	free(size);
	free(kids);
	free(stack);
}

size_t
flame_graph_box(const struct flame_graph *g, size_t node)
{
	while (g->box[node] == SIZE_MAX)
		node = g->t.v[node].parent;
	return g->box[node];
}

/*
 * The functions the boxes use, as JSON entries [name, object, kinds];
 * their numbers there, per function of s (UINT32_MAX: none), malloc'd.
 */
static uint32_t *
funcs_json(FILE *fp, const struct flame_graph *g)
{
	const struct stacks *s = g->s;
	uint32_t *fmap = xmalloc(s->nfuncs * sizeof *fmap), nf = 0;

	for (size_t i = 0; i < s->nfuncs; i++)
		fmap[i] = UINT32_MAX;
	for (size_t k = 1; k < g->nboxes; k++) {
		uint32_t fi = g->t.v[g->order[k]].func;
		const struct stack_func *fn = &s->funcs[fi];

		if (fmap[fi] != UINT32_MAX)
			continue;
		fmap[fi] = nf++;
		fputs(nf > 1 ? ",\n[" : "\n[", fp);
		json_string(fp, fn->function, JSON_IN_SCRIPT);
		fputc(',', fp);
		json_string(fp, fn->object, JSON_IN_SCRIPT);
		/*
		 * 1 kernel, 2 stack cut, 4 unknown code, 8 off the CPU, 16 its
		 * callers found by frame pointer
		 */
		fprintf(fp, ",%d]", (fn->kernel ? 1 : 0) | (fn->cut ? 2 : 0) |
		    (strcmp(fn->object, "[unknown]") == 0 ? 4 : 0) |
		    (strcmp(fn->object, WALL_VIEW_OBJECT) == 0 ? 8 : 0) |
		    (fn->fp_caller ? 16 : 0));
	}
	return fmap;
}

/* The boxes as JSON arrays: parent, function, counts (and CPU counts). */
static void
boxes_json(FILE *fp, const struct flame_graph *g, const uint32_t *fmap)
{
	const struct calltree_node *v = g->t.v;

	fputs("],\n\"parent\":[-1", fp);
	for (size_t k = 1; k < g->nboxes; k++)
		fprintf(fp, ",%zu", g->box[v[g->order[k]].parent]);
	fputs("],\n\"func\":[-1", fp);
	for (size_t k = 1; k < g->nboxes; k++)
		fprintf(fp, ",%u", fmap[v[g->order[k]].func]);
	fputs("],\n\"count\":[", fp);
	for (size_t k = 0; k < g->nboxes; k++)
		fprintf(fp, k ? ",%llu" : "%llu",
		    (unsigned long long)v[g->order[k]].count);
	if (g->b.off_obj >= 0) {
		fprintf(fp, "],\n\"cputotal\":%llu,\n\"cpu\":[",
		    (unsigned long long)v[0].cpu);
		for (size_t k = 0; k < g->nboxes; k++)
			fprintf(fp, k ? ",%llu" : "%llu",
			    (unsigned long long)v[g->order[k]].cpu);
	}
}

/* What the page says of the boxes left out, if any. */
static void
pruned_note(FILE *fp, const struct flame_graph *g)
{
	uint64_t total = g->t.v[0].count;

	if (g->pruned == 0)
		return;
	fputs("<p class=\"fg-note\" id=\"flame-pruned\">", fp);
	if (g->prune_rule != NULL)
		fprintf(fp, "Boxes under 0.1%% of the samples %s are left out",
		    g->prune_rule);
	else
		fprintf(fp, "Boxes under 0.1%% of the samples (fewer than %llu) "
		    "are left out", (unsigned long long)(total / FLAME_PRUNE +
		    (total % FLAME_PRUNE != 0)));
	fprintf(fp, ": %zu of %zu boxes; <span id=\"flame-pruned-share\">"
	    "%.2f%%</span> of the samples have one on their stack (the gaps "
	    "above their callers). The search counts only the boxes drawn."
	    "</p>\n", g->pruned, g->t.n - 1,
	    report_percent(g->pruned_samples, total));
}

void
flame_graph_html(FILE *fp, const struct flame_graph *g)
{
	uint32_t *fmap;

	fputs(intro, fp);
	fputs(tools, fp);
	pruned_note(fp, g);
	/* scale: weighted samples widen the errors (share.h) */
	fprintf(fp, "<script type=\"application/json\" id=\"flame-data\">"
	    "{\"total\":%llu,\"scale\":%.6g,\"secs\":%.9g,\"funcs\":[",
	    (unsigned long long)g->t.v[0].count, g->b.scale,
	    (double)g->p->interval_ns / 1e9);
	/* the function table holds only what the boxes use */
	fmap = funcs_json(fp, g);
	boxes_json(fp, g, fmap);
	errors_json(fp, g);
	fprintf(fp, "}</script>\n<script>\n%s</script>\n", flame_script);
	free(fmap);
}

/* The page's words when the profile has no stacks to draw. */
void
flame_graph_none(FILE *fp)
{
	fputs("<h2 id=\"flame-graph\">Flame graph</h2>\n<p id=\"flame-none\">"
	    "The flame graph needs call stacks, and this profile has none: "
	    "record with the perf engine, without --no-call-graph.</p>\n", fp);
}

void
report_flame_html(FILE *fp, const struct profil_profile *p,
    const struct stacks *s)
{
	struct flame_graph g;

	if (p->nstacks == 0) {
		flame_graph_none(fp);
		return;
	}
	flame_graph_build(&g, p, s);
	flame_graph_prune(&g, NULL, NULL);
	flame_graph_html(fp, &g);
	flame_graph_free(&g);
}
