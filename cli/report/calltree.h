/*
 * calltree.h - a profile's call stacks merged by function along each
 * path into one tree, for the views that show it: the call tree (report
 * --tree, calls.c) and the flame graph (flame.c).  A node is a function
 * under its caller's node, with what the stacks through it hold; the
 * root, node 0, is every stack.  Which node a (caller's node, function)
 * is, is the codec's tree of distinct stacks (lib/codec/stacktree.h),
 * its frames functions here: one such index for the house.
 */
#ifndef PROFIL_REPORT_CALLTREE_H
#define PROFIL_REPORT_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "codec/stacktree.h"
#include "model/stacks.h"
#include "share.h"

#define CALLTREE_NONE	((size_t)-1)

struct calltree_node {
	uint32_t func;		/* into the stacks' funcs; the root's:
				   UINT32_MAX */
	size_t parent;		/* CALLTREE_NONE for the root */
	size_t child, sibling;	/* first child, next sibling; 0: none (the
				   root is no one's child) */
	uint64_t count;		/* the counts of the stacks through it */
	uint64_t cpu;		/*   of which on the CPU (a wall view's) */
	uint64_t self;		/* those of the stacks it ends */
	uint64_t self_cpu;	/*   of which on the CPU */
	/* the stacks through it, for the error: time for the root and
	   [off-cpu], else code */
	struct share_part part;
};

/*
 * Nodes in the order they were made, stack by stack from the outermost
 * function in: a parent comes before its children.
 */
struct calltree {
	struct calltree_node *v;
	size_t n, cap;
	struct stacktree index;	/* node i + 1 is its node i */
};

/*
 * The tree of the stacks s names (on b's profile, which both must
 * outlive the tree).  Free with calltree_free.
 */
void calltree_build(struct calltree *t, const struct share_basis *b,
    const struct stacks *s);
void calltree_free(struct calltree *t);

/*
 * The children of node, malloc'd, *n of them (NULL when none), in no
 * particular order: the views sort them.
 */
size_t *calltree_children(const struct calltree *t, size_t node, size_t *n);

#endif
