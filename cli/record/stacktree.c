/*
 * stacktree.c - the tree of distinct call stacks (stacktree.h).  A node's
 * parent is kept + 1 so that 0 can mean "none" (a child of the root): a
 * walk from a leaf up follows parent[k - 1] until it reaches 0.
 */
#include <stdlib.h>

#include "cli.h"
#include "stacktree.h"

void
stacktree_init(struct stacktree *t)
{
	t->parent = NULL;
	t->frame = NULL;
	t->n = t->cap = 0;
	hmap_init(&t->index);
}

void
stacktree_free(struct stacktree *t)
{
	free(t->parent);
	free(t->frame);
	hmap_free(&t->index);
}

uint32_t
stacktree_node(struct stacktree *t, uint32_t parent, uint32_t frame)
{
	uint64_t key = ((uint64_t)parent + 1) << 32 | frame;
	uint64_t at = hmap_get(&t->index, key);

	if (at != 0)
		return (uint32_t)(at - 1);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->parent = xrealloc(t->parent, t->cap * sizeof *t->parent);
		t->frame = xrealloc(t->frame, t->cap * sizeof *t->frame);
	}
	t->parent[t->n] = parent == STACKTREE_ROOT ? 0 : parent + 1;
	t->frame[t->n] = frame;
	hmap_add(&t->index, key, t->n + 1);
	return (uint32_t)t->n++;
}

size_t
stacktree_depth(const struct stacktree *t, uint32_t leaf)
{
	size_t depth = 0;

	for (uint64_t k = (uint64_t)leaf + 1; k != 0; k = t->parent[k - 1])
		depth++;
	return depth;
}

size_t
stacktree_frames(const struct stacktree *t, uint32_t leaf, uint32_t *out)
{
	size_t depth = 0;

	for (uint64_t k = (uint64_t)leaf + 1; k != 0; k = t->parent[k - 1])
		out[depth++] = t->frame[k - 1];
	return depth;
}
