/*
 * calltree.c - the stacks merged by function (calltree.h).  Invariant:
 * node i of the tree is node i - 1 of its stacktree index, made at the
 * same moment, so that a parent is before its children in both.
 */
#include <stdlib.h>

#include "calltree.h"
#include "cli.h"

/* The node of func under node parent, made when new. */
static size_t
child_of(struct calltree *t, const struct share_basis *b,
    const struct stacks *s, size_t parent, uint32_t func)
{
	size_t made = t->index.n;
	uint32_t at = stacktree_node(&t->index, parent == 0 ? STACKTREE_ROOT :
	    (uint32_t)(parent - 1), func);

	if (at == STACKTREE_ROOT)
		cli_die(1, "out of memory");
	if (at < made)
		return (size_t)at + 1;
	if (t->n == t->cap) {
		t->cap *= 2;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	t->v[t->n] = (struct calltree_node){ func, parent, 0,
	    t->v[parent].child, 0, 0, 0, 0, { 0 } };
	share_part_init(&t->v[t->n].part, share_kind_of_func(b, s, func));
	t->v[parent].child = t->n;
	return t->n++;
}

void
calltree_build(struct calltree *t, const struct share_basis *b,
    const struct stacks *s)
{
	static uint32_t funcs[STACKS_MAX_DEPTH];
	const struct profil_profile *p = s->p;

	*t = (struct calltree){ 0 };
	t->cap = 1024;
	t->v = xmalloc(t->cap * sizeof *t->v);
	t->v[0] = (struct calltree_node){ UINT32_MAX, CALLTREE_NONE, 0, 0, 0,
	    0, 0, 0, { 0 } };
	share_part_init(&t->v[0].part, SHARE_TIME);
	t->n = 1;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		size_t depth = stacks_funcs_of(s, st, funcs, STACKS_MAX_DEPTH);
		size_t at = 0;
		uint64_t cpu = share_stack_offcpu(b, i) ? 0 : st->count;

		t->v[0].count += st->count;
		t->v[0].cpu += cpu;
		share_part_stack(b, &t->v[0].part, i);
		/* funcs are leaf first; the tree grows from the outermost */
		for (size_t k = depth; k-- > 0;) {
			at = child_of(t, b, s, at, funcs[k]);
			t->v[at].count += st->count;
			t->v[at].cpu += cpu;
			share_part_stack(b, &t->v[at].part, i);
		}
		if (at > 0) {
			t->v[at].self += st->count;
			t->v[at].self_cpu += cpu;
		}
	}
}

void
calltree_free(struct calltree *t)
{
	for (size_t i = 0; i < t->n; i++)
		share_part_free(&t->v[i].part);
	free(t->v);
	stacktree_free(&t->index);
	*t = (struct calltree){ 0 };
}

size_t *
calltree_children(const struct calltree *t, size_t node, size_t *n)
{
	size_t *kids;

	*n = 0;
	for (size_t c = t->v[node].child; c != 0; c = t->v[c].sibling)
		(*n)++;
	if (*n == 0)
		return NULL;
	kids = xmalloc(*n * sizeof *kids);
	*n = 0;
	for (size_t c = t->v[node].child; c != 0; c = t->v[c].sibling)
		kids[(*n)++] = c;
	return kids;
}
