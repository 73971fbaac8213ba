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

#include "cli.h"
#include "hmap.h"
#include "report.h"
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
	uint64_t samples;
};

static int
by_samples(const void *a, const void *b)
{
	const struct call_row *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
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

int
report_calls(const struct profil_profile *p, const struct stacks *s,
    const struct report_options *o, int callees, char *cause,
    size_t cause_size)
{
	long target;
	uint64_t inclusive = 0, self = 0;
	struct hmap by_func;	/* func + 3 (ROOT, SELF made positive) -> row + 1 */
	struct call_row *rows = NULL;
	size_t nrows = 0;
	struct table t;
	char caption[2048];

	if (need_stacks(p, cause, cause_size) < 0)
		return -1;
	if ((target = stacks_find(s, o->target)) < 0) {
		snprintf(cause, cause_size, "no function named '%s' is on the "
		    "stacks of this profile", o->target);
		return -1;
	}
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
		inclusive += st->count;
		/* in itself: as the leaf, at whatever depth (the flat self) */
		if (path[0] == (uint32_t)target)
			self += st->count;
		if (callees)
			other = at > 0 ? (long)path[at - 1] : SELF;
		else
			other = at + 1 < n ? (long)path[at + 1] : ROOT;
		if ((row = hmap_get(&by_func, (uint64_t)(other + 3))) == 0) {
			rows = xrealloc(rows, (nrows + 1) * sizeof *rows);
			rows[nrows++] = (struct call_row){ other, 0 };
			hmap_add(&by_func, (uint64_t)(other + 3), nrows);
			row = nrows;
		}
		rows[row - 1].samples += st->count;
	}
	hmap_free(&by_func);
	if (nrows > 1)
		qsort(rows, nrows, sizeof *rows, by_samples);
	snprintf(caption, sizeof caption, "%s%s%s (%s): %llu samples with it on "
	    "the stack, %.2f%%" CLI_GLUE "±" CLI_GLUE "%.2f" CLI_GLUE "of"
	    CLI_GLUE "all; %llu in itself\n%s of %s, as "
	    "shares of its time:", o->caption ? o->caption : "",
	    o->caption ? "\n\n" : "", s->funcs[target].function,
	    s->funcs[target].object, (unsigned long long)inclusive,
	    report_percent(inclusive, p->samples),
	    table_error95(inclusive, p->samples), (unsigned long long)self,
	    callees ? "callees" : "callers", s->funcs[target].function);
	table_init(&t, call_cols, 6);
	for (size_t i = 0; i < nrows; i++) {
		const struct call_row *r = &rows[i];
		double pct = report_percent(r->samples, inclusive);
		union cell *c;

		if (pct < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = r->func == ROOT ? "[root]" : r->func == SELF ? "[self]" :
		    s->funcs[r->func].function;
		c[1].s = r->func < 0 ? "" : s->funcs[r->func].object;
		c[2].i = (int64_t)r->samples;
		c[3].d = pct;
		c[4].d = table_error95(r->samples, inclusive);
		c[5].d = (double)r->samples * (double)p->interval_ns / 1e9;
	}
	table_print(&t, o->format, call_text,
	    o->format == FORMAT_TEXT ? caption : NULL);
	table_free(&t);
	free(rows);
	return 0;
}

/* ---- the call tree -------------------------------------------------------- */

struct node {
	uint32_t func;
	size_t parent;		/* index + 1; 0 for the roots' parent */
	uint64_t inclusive, self;
	size_t *kids;
	size_t nkids;
};

struct tree {
	struct node *v;
	size_t n, cap;
	struct hmap index;	/* parent << 32 | func -> node + 1 */
};

static size_t
child(struct tree *t, size_t parent, uint32_t func)
{
	uint64_t key = (uint64_t)parent << 32 | func, at;

	if ((at = hmap_get(&t->index, key)) != 0)
		return at - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	t->v[t->n] = (struct node){ func, parent, 0, 0, NULL, 0 };
	if (parent > 0) {
		struct node *up = &t->v[parent - 1];

		up->kids = xrealloc(up->kids, (up->nkids + 1) * sizeof *up->kids);
		up->kids[up->nkids++] = t->n;
	}
	hmap_add(&t->index, key, t->n + 1);
	return t->n++;
}

static const struct node *sort_nodes;

static int
by_inclusive(const void *a, const void *b)
{
	const struct node *x = &sort_nodes[*(const size_t *)a];
	const struct node *y = &sort_nodes[*(const size_t *)b];

	if (x->inclusive != y->inclusive)
		return x->inclusive > y->inclusive ? -1 : 1;
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
};
static const int tree_text[] = { 6, 7, 9, 5, 3, 4, -1 };

/*
 * Indentation of a tree line: two columns a level, at most this many,
 * so that names keep their room in 80 columns; deeper lines say their
 * depth in brackets.
 */
#define MAX_INDENT 16

struct emit {
	const struct profil_profile *p;
	const struct stacks *s;
	const struct report_options *o;
	struct tree *tree;
	struct table *t;
	char **names;		/* indented names, owned */
	size_t nnames;
	double min_percent;
	size_t hidden;		/* nodes left out as too small */
};

static void
emit(struct emit *e, size_t node, size_t parent_row, int depth)
{
	struct node *nd = &e->tree->v[node];
	double pct = report_percent(nd->inclusive, e->p->samples);
	const struct stack_func *fn = &e->s->funcs[nd->func];
	size_t row, indent;
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
	c[5].i = (int64_t)nd->inclusive;
	c[6].d = pct;
	c[7].d = table_error95(nd->inclusive, e->p->samples);
	c[8].i = (int64_t)nd->self;
	c[9].d = report_percent(nd->self, e->p->samples);
	sort_nodes = e->tree->v;
	if (nd->nkids > 0)	/* a leaf's kids are NULL: not qsort's to see */
		qsort(nd->kids, nd->nkids, sizeof *nd->kids, by_inclusive);
	for (size_t k = 0; k < nd->nkids; k++)
		emit(e, e->tree->v[node].kids[k], row, depth + 1);
}

int
report_tree(const struct profil_profile *p, const struct stacks *s,
    const struct report_options *o, char *cause, size_t cause_size)
{
	struct tree tree = { NULL, 0, 0, { 0 } };
	struct emit e = { p, s, o, &tree, NULL, NULL, 0, 0, 0 };
	size_t *roots = NULL, nroots = 0;
	struct table t;
	char caption[2048];

	if (need_stacks(p, cause, cause_size) < 0)
		return -1;
	hmap_init(&tree.index);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		size_t n = stacks_funcs_of(s, st, path, STACKS_MAX_DEPTH), at = 0;

		/* outermost in: the roots are the threads' first functions */
		for (size_t k = n; k-- > 0;) {
			size_t before = tree.n;

			at = child(&tree, at, path[k]) + 1;
			if (tree.n > before && k == n - 1) {
				roots = xrealloc(roots, (nroots + 1) * sizeof *roots);
				roots[nroots++] = at - 1;
			}
			tree.v[at - 1].inclusive += st->count;
		}
		if (at > 0)
			tree.v[at - 1].self += st->count;
	}
	/* a tree of every path is long: without --min-percent, 1% and up */
	e.min_percent = o->min_percent >= 0 ? o->min_percent : 1.0;
	table_init(&t, tree_cols, 10);
	e.t = &t;
	sort_nodes = tree.v;
	if (nroots > 1)		/* roots is NULL without stacks */
		qsort(roots, nroots, sizeof *roots, by_inclusive);
	for (size_t i = 0; i < nroots; i++)
		emit(&e, roots[i], (size_t)-1, 0);
	snprintf(caption, sizeof caption, "%s%scall tree, callers above callees; "
	    "%zu call%s under %.2g%% of the samples left out%s",
	    o->caption ? o->caption : "", o->caption ? "\n\n" : "", e.hidden,
	    e.hidden == 1 ? "" : "s", e.min_percent, o->min_percent >= 0 ? "" : " (--min-percent 0 shows "
	    "them)");
	table_print(&t, o->format, tree_text,
	    o->format == FORMAT_TEXT ? caption : NULL);
	table_free(&t);
	for (size_t i = 0; i < e.nnames; i++)
		free(e.names[i]);
	free(e.names);
	for (size_t i = 0; i < tree.n; i++)
		free(tree.v[i].kids);
	free(tree.v);
	free(roots);
	hmap_free(&tree.index);
	return 0;
}
