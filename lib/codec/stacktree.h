/*
 * stacktree.h - the tree of distinct call stacks: a node is a frame under
 * a parent node, so that stacks share the callers they have in common,
 * and a stack is known by its leaf node alone.  Frames are the caller's
 * numbers (an index into its own table of frames): the tree only pairs
 * them.  A stack goes in from its outermost frame, the root's child, to
 * its leaf:
 *
 *   node = STACKTREE_ROOT;
 *   for (i = depth; i-- > 0;)
 *           node = stacktree_node(t, node, frames[i]);
 *
 * Nodes are numbered as they are made, 0 up, and a parent is made before
 * its children: the .prf stacks record is the tree as it is
 * (prf-encode.c), and the recorder's builder counts stacks by leaf node
 * (cli/record/core/builder-stacks.c).  The one copy of it, in the codec's
 * room, the lowest, so both reach it.
 *
 * Invariant: every (parent, frame) pair is one node, made once.
 */
#ifndef PROFIL_CODEC_STACKTREE_H
#define PROFIL_CODEC_STACKTREE_H

#include <stddef.h>
#include <stdint.h>

#define STACKTREE_ROOT	UINT32_MAX	/* the parent of outermost frames */

/* Zero-initialised is empty; free with stacktree_free. */
struct stacktree {
	uint32_t *parent;	/* node's parent + 1 (0: a root's child) */
	uint32_t *frame;	/* node's frame */
	size_t n, cap;
	/* (parent + 1) << 32 | frame, + 1 (0: empty) -> node, by open addressing */
	uint64_t *keys;
	uint32_t *nodes;
	size_t slots;		/* a power of two, or 0 */
};

void stacktree_free(struct stacktree *t);

/*
 * The node of frame under parent (STACKTREE_ROOT: an outermost frame),
 * made if new; or STACKTREE_ROOT, never a node, if memory ran out (errno
 * ENOMEM) or the tree holds 2^32 - 2 nodes already.
 */
uint32_t stacktree_node(struct stacktree *t, uint32_t parent, uint32_t frame);

/*
 * The node of frame under parent if the tree has one, else
 * STACKTREE_ROOT; the tree is left as it is (a reader's lookup).
 */
uint32_t stacktree_find(const struct stacktree *t, uint32_t parent,
    uint32_t frame);

/* How many frames the stack whose leaf is node leaf holds. */
size_t stacktree_depth(const struct stacktree *t, uint32_t leaf);

/*
 * The frames of the stack whose leaf is node leaf, leaf first, into
 * out[0 .. stacktree_depth); returns their number.
 */
size_t stacktree_frames(const struct stacktree *t, uint32_t leaf,
    uint32_t *out);

#endif
