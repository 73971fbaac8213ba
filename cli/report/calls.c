/*
 * calls.c - the views of call stacks: a function's callers and callees
 * (gprof's call graph entry: who called it, whom it called, each with its
 * share of the function's inclusive time), and the top-down call tree.
 * A stack that holds a function more than once (recursion) counts once,
 * at its outermost place, so that shares add up to 100%.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "cli.h"
#include "hmap.h"
#include "report.h"
#include "share.h"
#include "table.h"

static uint32_t path[STACKS_MAX_DEPTH];

/* "[root]" and "[self]": the edges of a stack, as rows of their own. */
enum { ROOT = -1, SELF = -2 };

static const struct col call_cols[] = {
	{ "function", "function", COL_STR },
	{ "object", "object", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
};
static const int call_text[] = { 3, 4, 5, 2, 0, 1, -1 };

struct call_row {
	long func;		/* or ROOT, SELF */
	struct share_part part;	/* its stacks */
};

static int
by_amount(const void *a, const void *b)
{
	const struct call_row *x = a, *y = b;

	if (x->part.amount != y->part.amount)
		return x->part.amount > y->part.amount ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* The stacks needed: none recorded is said, not shown as empty. */
static int
need_stacks(const struct profil_profile *p, char *cause, size_t cause_size)
{
	if (p->nstacks > 0)
		return 0;
	snprintf(cause, cause_size, "this profile has no call stacks (recorded "
	    "with --no-call-graph, by the timer engine of an older profil, "
	    "or before profil had them)");
	return -1;
}

/*
 * The caption: the function's share of all, and of what is in it.  A
 * wall view's says seconds, with its CPU samples apart.
 */
static void
calls_caption(char *caption, size_t size, const struct report_options *o,
    const struct share_basis *b, const struct stacks *s, long target,
    const struct share_part *in, const struct share_part *self,
    const struct share_part *all, int callees)
{
	double interval_s = (double)b->p->interval_ns / 1e9;
	const struct stack_func *fn = &s->funcs[target];
	size_t len = (size_t)snprintf(caption, size, "%s%s%s (%s): ",
	    o->caption ? o->caption : "", o->caption ? "\n\n" : "",
	    fn->function, fn->object);

	if (len < size && b->off_obj >= 0)
		len += (size_t)snprintf(caption + len, size - len, "%.3f" CLI_GLUE
		    "s with it on the stack (%llu CPU samples), %.2f%%" CLI_GLUE
		    "±" CLI_GLUE "%.2f" CLI_GLUE "of" CLI_GLUE "all; %.3f" CLI_GLUE
		    "s in itself", (double)in->amount * interval_s,
		    (unsigned long long)in->cpu, share_percent(in, all),
		    share_error95(b, in, all), (double)self->amount * interval_s);
	else if (len < size)
		len += (size_t)snprintf(caption + len, size - len, "%llu samples "
		    "with it on the stack, %.2f%%" CLI_GLUE "±" CLI_GLUE "%.2f"
		    CLI_GLUE "of" CLI_GLUE "all; %llu in itself",
		    (unsigned long long)in->amount, share_percent(in, all),
		    share_error95(b, in, all), (unsigned long long)self->amount);
	if (len < size)
		snprintf(caption + len, size - len, "\n%s of %s, as shares of its "
		    "time:", callees ? "callees" : "callers", fn->function);
}

int
report_calls(const struct profil_profile *p, const struct stacks *s,
    const struct report_options *o, int callees, char *cause,
    size_t cause_size)
{
	long target;
	int kind;		/* the target's */
	struct share_basis b;
	struct share_part all, inclusive, self;
	struct hmap by_func;	/* func + 3 (ROOT, SELF made positive) -> row + 1 */
	struct call_row *rows = NULL;
	size_t nrows = 0;
	struct table t;
	char caption[2048];
	double interval_s = (double)p->interval_ns / 1e9;

	if (need_stacks(p, cause, cause_size) < 0)
		return -1;
	if ((target = stacks_find(s, o->target)) < 0) {
		snprintf(cause, cause_size, "no function named '%s' is on the "
		    "stacks of this profile", o->target);
		return -1;
	}
	share_basis_init(&b, p);
	share_part_init(&all, SHARE_TIME);
	share_part_all(&b, &all);
	kind = share_kind_of_func(&b, s, (size_t)target);
	share_part_init(&inclusive, kind);
	share_part_init(&self, kind);
	hmap_init(&by_func);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		size_t n = stacks_funcs_of(s, st, path, STACKS_MAX_DEPTH), at = n;
		long other;
		uint64_t row;

		/* its outermost place on the stack (leaf first: the last) */
		for (size_t k = n; k-- > 0;)
			if (path[k] == (uint32_t)target) {
				at = k;
				break;
			}
		if (at == n)
			continue;
		share_part_stack(&b, &inclusive, i);
		/* in itself: as the leaf, at whatever depth (the flat self) */
		if (path[0] == (uint32_t)target)
			share_part_stack(&b, &self, i);
		if (callees)
			other = at > 0 ? (long)path[at - 1] : SELF;
		else
			other = at + 1 < n ? (long)path[at + 1] : ROOT;
		if ((row = hmap_get(&by_func, (uint64_t)(other + 3))) == 0) {
			rows = xrealloc(rows, (nrows + 1) * sizeof *rows);
			rows[nrows].func = other;
			share_part_init(&rows[nrows].part, other < 0 ? kind :
			    share_kind_of_func(&b, s, (size_t)other));
			nrows++;
			hmap_add(&by_func, (uint64_t)(other + 3), nrows);
			row = nrows;
		}
		share_part_stack(&b, &rows[row - 1].part, i);
	}
	hmap_free(&by_func);
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, by_amount);
	calls_caption(caption, sizeof caption, o, &b, s, target, &inclusive,
	    &self, &all, callees);
	table_init(&t, call_cols, 6);
	for (size_t i = 0; i < nrows; i++) {
		const struct call_row *r = &rows[i];
		double pct = share_percent(&r->part, &inclusive);
		union cell *c;

		if (pct < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = r->func == ROOT ? "[root]" : r->func == SELF ? "[self]" :
		    s->funcs[r->func].function;
		c[1].s = r->func < 0 ? "" : s->funcs[r->func].object;
		c[2].i = (int64_t)r->part.cpu;
		c[3].d = pct;
		c[4].d = share_error95(&b, &r->part, &inclusive);
		c[5].d = (double)r->part.amount * interval_s;
	}
	table_print(&t, o->format, call_text,
	    o->format == FORMAT_TEXT ? caption : NULL, &o->style);
	table_free(&t);
	for (size_t i = 0; i < nrows; i++)
		share_part_free(&rows[i].part);
	free(rows);
	share_part_free(&self);
	share_part_free(&inclusive);
	share_part_free(&all);
	share_basis_free(&b);
	return 0;
}

/* ---- the call tree -------------------------------------------------------- */

static const struct calltree_node *sort_nodes;

static int
by_inclusive(const void *a, const void *b)
{
	const struct calltree_node *x = &sort_nodes[*(const size_t *)a];
	const struct calltree_node *y = &sort_nodes[*(const size_t *)b];

	if (x->part.amount != y->part.amount)
		return x->part.amount > y->part.amount ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

static const struct col tree_cols[] = {
	{ "id", "id", COL_INT },
	{ "parent", "parent", COL_INT },
	{ "depth", "depth", COL_INT },
	{ "function", "function", COL_STR },
	{ "object", "object", COL_STR },
	{ "inclusive_samples", "incl", COL_INT },
	{ "inclusive_percent", "%incl", COL_PCT },
	{ "inclusive_error95", "95%", COL_ERR },
	{ "self_samples", "self", COL_INT },
	{ "self_percent", "%self", COL_PCT },
	{ "inclusive_seconds", "incl s", COL_SEC },
	{ "self_seconds", "self s", COL_SEC },
};
static const int tree_text[] = { 6, 7, 9, 5, 3, 4, -1 };
/*
 * A wall view's: its samples columns count CPU samples, and two more
 * give the time; text shows the inclusive seconds.
 */
static const int wall_tree_text[] = { 6, 7, 9, 10, 3, 4, -1 };

/*
 * Indentation of a tree line: two columns a level, at most this many,
 * so that names keep their room in 80 columns; deeper lines say their
 * depth in brackets.
 */
#define MAX_INDENT 16

struct emit {
	const struct profil_profile *p;
	const struct share_basis *b;
	const struct share_part *all;
	const struct stacks *s;
	const struct report_options *o;
	struct calltree *tree;
	struct table *t;
	char **names;		/* indented names, owned */
	size_t nnames;
	double min_percent;
	size_t hidden;		/* nodes left out as too small */
};

static void
emit(struct emit *e, size_t node, size_t parent_row, int depth)
{
	struct calltree_node *nd = &e->tree->v[node];
	double pct = share_percent(&nd->part, e->all);
	double interval_s = (double)e->p->interval_ns / 1e9;
	const struct stack_func *fn = &e->s->funcs[nd->func];
	size_t row, indent, *kids, nkids;
	union cell *c;
	char *name;

	if (pct < e->min_percent) {
		e->hidden++;
		return;
	}
	if (e->o->limit >= 0 && (long)e->t->nrows >= e->o->limit)
		return;
	indent = depth * 2 < MAX_INDENT ? (size_t)depth * 2 : MAX_INDENT;
	name = xmalloc(indent + strlen(fn->function) + 16);
	if (e->o->format == FORMAT_TEXT && depth * 2 > MAX_INDENT)
		sprintf(name, "%*s[%d] %s", (int)indent, "", depth, fn->function);
	else
		sprintf(name, "%*s%s", e->o->format == FORMAT_TEXT ? (int)indent : 0,
		    "", fn->function);
	e->names = xrealloc(e->names, (e->nnames + 1) * sizeof *e->names);
	e->names[e->nnames++] = name;
	row = e->t->nrows;
	c = table_row(e->t);
	c[0].i = (int64_t)row;
	c[1].i = parent_row == (size_t)-1 ? -1 : (int64_t)parent_row;
	c[2].i = depth;
	c[3].s = name;
	c[4].s = fn->object;
	/* samples count CPU samples (all of a CPU profile's counts) */
	c[5].i = (int64_t)nd->part.cpu;
	c[6].d = pct;
	c[7].d = share_error95(e->b, &nd->part, e->all);
	c[8].i = (int64_t)nd->self_cpu;
	c[9].d = report_percent(nd->self, e->all->amount);
	if (e->b->off_obj >= 0) {	/* a wall view's: its time */
		c[10].d = (double)nd->part.amount * interval_s;
		c[11].d = (double)nd->self * interval_s;
	}
	kids = calltree_children(e->tree, node, &nkids);
	sort_nodes = e->tree->v;
	if (nkids > 0)		/* a leaf's kids are NULL: not qsort's to see */
		qsort(kids, nkids, sizeof *kids, by_inclusive);
	for (size_t k = 0; k < nkids; k++)
		emit(e, kids[k], row, depth + 1);
	free(kids);
}

int
report_tree(const struct profil_profile *p, const struct stacks *s,
    const struct report_options *o, char *cause, size_t cause_size)
{
	struct share_basis b;
	struct share_part all;
	struct calltree tree;
	struct emit e = { p, &b, &all, s, o, &tree, NULL, NULL, 0, 0, 0 };
	size_t *roots, nroots;
	struct table t;
	char caption[2048];

	if (need_stacks(p, cause, cause_size) < 0)
		return -1;
	share_basis_init(&b, p);
	share_part_init(&all, SHARE_TIME);
	share_part_all(&b, &all);
	/* the roots are the threads' first functions */
	calltree_build(&tree, &b, s);
	roots = calltree_children(&tree, 0, &nroots);
	/* a tree of every path is long: without --min-percent, 1% and up */
	e.min_percent = o->min_percent >= 0 ? o->min_percent : 1.0;
	table_init(&t, tree_cols, b.off_obj >= 0 ? 12 : 10);
	e.t = &t;
	sort_nodes = tree.v;
	if (nroots > 1)		/* roots is NULL without stacks */
		qsort(roots, nroots, sizeof *roots, by_inclusive);
	for (size_t i = 0; i < nroots; i++)
		emit(&e, roots[i], (size_t)-1, 0);
	snprintf(caption, sizeof caption, "%s%scall tree, callers above callees; "
	    "%zu call%s under %.2g%% of the %s left out%s",
	    o->caption ? o->caption : "", o->caption ? "\n\n" : "", e.hidden,
	    e.hidden == 1 ? "" : "s", e.min_percent, b.off_obj >= 0 ? "time" :
	    "samples", o->min_percent >= 0 ? "" : " (--min-percent 0 shows "
	    "them)");
	table_print(&t, o->format, b.off_obj >= 0 ? wall_tree_text : tree_text,
	    o->format == FORMAT_TEXT ? caption : NULL, &o->style);
	table_free(&t);
	for (size_t i = 0; i < e.nnames; i++)
		free(e.names[i]);
	free(e.names);
	calltree_free(&tree);
	free(roots);
	share_part_free(&all);
	share_basis_free(&b);
	return 0;
}
