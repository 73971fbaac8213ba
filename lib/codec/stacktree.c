/*
 * stacktree.c - the tree of distinct call stacks (stacktree.h).  A node's
 * parent is kept + 1 so that 0 can mean "none" (a child of the root): a
 * walk from a leaf up follows parent[k - 1] until it reaches 0.  Library
 * code: allocation failure is returned, never fatal.
 */
#include <errno.h>
#include <stdlib.h>

#include "codec/stacktree.h"

void
stacktree_free(struct stacktree *t)
{
	free(t->parent);
	free(t->frame);
	free(t->keys);
	free(t->nodes);
	*t = (struct stacktree){ 0 };
}

/*
 * A slot for key in a table of slots (a power of two).  Keys differ
 * mostly in their high half (the parent: recursion repeats one frame
 * under ever deeper parents), so every bit is mixed into the low ones
 * (MurmurHash3's finaliser); the top bits of a multiplication alone
 * left such keys two slots, and a 4096-deep recursion took 4096^2
 * probes.
 */
static size_t
slot_of(uint64_t key, size_t slots)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	key ^= key >> 33;
	return (size_t)key & (slots - 1);
}

static int
grow_index(struct stacktree *t)
{
	size_t slots = t->slots ? 2 * t->slots : 1024;
	uint64_t *keys = calloc(slots, sizeof *keys);
	uint32_t *nodes = calloc(slots, sizeof *nodes);

	if (keys == NULL || nodes == NULL) {
		free(keys);
		free(nodes);
		return -1;
	}
	for (size_t i = 0; i < t->slots; i++) {
		size_t k;

		if (t->keys[i] == 0)
			continue;
		k = slot_of(t->keys[i], slots);
		while (keys[k] != 0)
			k = (k + 1) & (slots - 1);
		keys[k] = t->keys[i];
		nodes[k] = t->nodes[i];
	}
	free(t->keys);
	free(t->nodes);
	t->keys = keys;
	t->nodes = nodes;
	t->slots = slots;
	return 0;
}

static int
grow_nodes(struct stacktree *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	uint32_t *parent = realloc(t->parent, cap * sizeof *parent);
	uint32_t *frame;

	if (parent == NULL)
		return -1;
	t->parent = parent;
	if ((frame = realloc(t->frame, cap * sizeof *frame)) == NULL)
		return -1;
	t->frame = frame;
	t->cap = cap;
	return 0;
}

uint32_t
stacktree_node(struct stacktree *t, uint32_t parent, uint32_t frame)
{
	uint64_t key = (((uint64_t)parent + 1) << 32 | frame) + 1;
	size_t k;

	if (t->n >= STACKTREE_ROOT - 1) {
		errno = ENOMEM;
		return STACKTREE_ROOT;
	}
	if ((2 * (t->n + 1) > t->slots && grow_index(t) < 0) ||
	    (t->n == t->cap && grow_nodes(t) < 0)) {
		errno = ENOMEM;
		return STACKTREE_ROOT;
	}
	k = slot_of(key, t->slots);
	for (; t->keys[k] != 0; k = (k + 1) & (t->slots - 1))
		if (t->keys[k] == key)
			return t->nodes[k];
	t->keys[k] = key;
	t->nodes[k] = (uint32_t)t->n;
	t->parent[t->n] = parent == STACKTREE_ROOT ? 0 : parent + 1;
	t->frame[t->n] = frame;
	return (uint32_t)t->n++;
}

uint32_t
stacktree_find(const struct stacktree *t, uint32_t parent, uint32_t frame)
{
	uint64_t key = (((uint64_t)parent + 1) << 32 | frame) + 1;

	if (t->slots == 0)
		return STACKTREE_ROOT;
	for (size_t k = slot_of(key, t->slots); t->keys[k] != 0;
	    k = (k + 1) & (t->slots - 1))
		if (t->keys[k] == key)
			return t->nodes[k];
	return STACKTREE_ROOT;
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
