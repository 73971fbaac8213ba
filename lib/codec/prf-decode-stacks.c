/*
 * prf-decode-stacks.c - the stacks record into a profile's frames and
 * stacks.  A few kilobytes of tree can describe millions of frames, so
 * every size is checked before any stack's frames are built.
 */
#include <stdlib.h>

#include "codec/prf.h"
#include "codec/prf-internal.h"

/* Expanded frames of all stacks: a hostile file could ask for terabytes. */
#define MAX_STACK_FRAMES	(1u << 24)

/*
 * The tree a stacks record describes, kept while its stacks are read:
 * per node its parent (its number + 1; 0: a root), its frame and its
 * depth, and per stack its leaf node.
 */
struct stack_tree {
	uint64_t nframes, nnodes, nstacks;
	uint32_t *parent, *frame, *depth, *leaves;
};

/* The record's frames into p->frames: 0, or -1 with the reason in *why. */
static int
decode_frames(struct profil_profile *p, struct rio_in *in,
    struct stack_tree *t, const char **why)
{
	uint64_t nframes = rio_get_varint(in);

	if (p->frames != NULL || p->stacks != NULL)
		return *why = "a second stacks record", -1;
	if (in->failed || nframes > rio_left(in) / 2)
		return *why = "truncated", -1;
	if ((p->frames = calloc(nframes ? nframes : 1, sizeof *p->frames)) == NULL)
		return *why = "out of memory", -1;
	for (uint64_t i = 0; i < nframes; i++) {
		struct profil_frame *f = &p->frames[i];
		uint64_t object = rio_get_varint(in), addr = rio_get_varint(in);
		int same = i > 0 && f[-1].object == object;

		if (in->failed)
			return *why = "truncated", -1;
		if (object > UINT32_MAX || (i > 0 && f[-1].object > object))
			return *why = "frames out of order", -1;
		if (same && (addr == 0 || addr > UINT64_MAX - f[-1].addr))
			return *why = "frames out of order", -1;
		f->object = (uint32_t)object;
		f->addr = same ? f[-1].addr + addr : addr;
		p->nframes++;
	}
	t->nframes = nframes;
	return 0;
}

/* The record's tree nodes into t: 0, or -1 with the reason in *why. */
static int
decode_nodes(struct rio_in *in, struct stack_tree *t, const char **why)
{
	uint64_t nnodes = rio_get_varint(in);

	if (in->failed || nnodes > rio_left(in) / 2 || nnodes > UINT32_MAX)
		return *why = "truncated", -1;
	t->nnodes = nnodes;
	t->parent = calloc(nnodes ? nnodes : 1, sizeof *t->parent);
	t->frame = calloc(nnodes ? nnodes : 1, sizeof *t->frame);
	t->depth = calloc(nnodes ? nnodes : 1, sizeof *t->depth);
	if (t->parent == NULL || t->frame == NULL || t->depth == NULL)
		return *why = "out of memory", -1;
	for (uint64_t i = 0; i < nnodes; i++) {
		uint64_t up = rio_get_varint(in), f = rio_get_varint(in);

		if (in->failed)
			return *why = "truncated", -1;
		/* a parent comes before its children: no loops */
		if (up > i || f >= t->nframes)
			return *why = "bad stack tree", -1;
		t->parent[i] = (uint32_t)up;	/* its number + 1; 0: a root */
		t->frame[i] = (uint32_t)f;
		/* (kept from growing past what any stack may be) */
		t->depth[i] = up == 0 ? 1 : t->depth[up - 1] > PRF_MAX_DEPTH ?
		    PRF_MAX_DEPTH + 1 : t->depth[up - 1] + 1;
	}
	return 0;
}

/*
 * The record's stacks into d->p->stacks, frames NULL, and their leaves
 * into t, each size checked; the sum of their counts in *samples.  0, or
 * -1 with the reason in *why.
 */
static int
decode_stack_heads(struct decoder *d, struct rio_in *in, struct stack_tree *t,
    uint64_t *samples, const char **why)
{
	struct profil_profile *p = d->p;
	uint64_t nstacks = rio_get_varint(in), total = 0;

	if (in->failed || nstacks > rio_left(in) / 4)
		return *why = "truncated", -1;
	t->nstacks = nstacks;
	p->stacks = calloc(nstacks ? nstacks : 1, sizeof *p->stacks);
	t->leaves = calloc(nstacks ? nstacks : 1, sizeof *t->leaves);
	if (p->stacks == NULL || t->leaves == NULL)
		return *why = "out of memory", -1;
	for (uint64_t i = 0; i < nstacks; i++) {
		struct profil_stack *st = &p->stacks[i];
		uint64_t leaf = rio_get_varint(in), pid = rio_get_varint(in);
		uint64_t tid = rio_get_varint(in);

		st->count = rio_get_varint(in);
		if (d->version >= 2) {
			st->off_ns = rio_get_varint(in);
			st->sampled_ns = rio_get_varint(in);
			st->observations = rio_get_varint(in);
		}
		if (in->failed)
			return *why = "truncated", -1;
		/* a sample count, or (wall) time off the CPU: one of them */
		if (leaf >= t->nnodes || pid > UINT32_MAX || tid > UINT32_MAX ||
		    (st->count == 0) == (st->off_ns == 0) ||
		    st->sampled_ns > st->off_ns ||
		    (st->off_ns == 0 && st->observations != 0))
			return *why = "bad stack", -1;
		if (t->depth[leaf] > PRF_MAX_DEPTH)
			return *why = "a stack deeper than any recorder writes", -1;
		if ((total += t->depth[leaf]) > MAX_STACK_FRAMES)
			return *why = "more stack frames than this reader takes", -1;
		p->nstacks++;		/* frames NULL until the sizes are known */
		st->pid = (uint32_t)pid;
		st->tid = (uint32_t)tid;
		t->leaves[i] = (uint32_t)leaf;
		if (__builtin_add_overflow(*samples, st->count, samples))
			return *why = "stack counts overflow", -1;
	}
	return 0;
}

/* Each stack's frames, leaf first, from t: 0, or -1 with *why. */
static int
build_stack_frames(struct profil_profile *p, const struct stack_tree *t,
    const char **why)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		struct profil_stack *st = &p->stacks[i];

		if ((st->frames = calloc(t->depth[t->leaves[i]],
		    sizeof *st->frames)) == NULL)
			return *why = "out of memory", -1;
		for (uint64_t n = t->leaves[i] + 1; n != 0; n = t->parent[n - 1])
			st->frames[st->depth++] = t->frame[n - 1];
	}
	return 0;
}

/*
 * The stacks record into p's frames and stacks.  Every stack's depth is
 * known from its node (each node's depth is its parent's + 1, and a
 * parent comes first), so the sizes are all checked before any stack's
 * frames are made: a few kilobytes of tree can describe millions of
 * frames, and a refusal must not cost building them.
 */
int
prf_decode_stacks(struct decoder *d, struct rio_in *in, const char **why)
{
	struct stack_tree t = { 0 };
	uint64_t samples = 0;
	int rc = -1;

	if (decode_frames(d->p, in, &t, why) < 0)
		return -1;
	if (decode_nodes(in, &t, why) < 0 ||
	    decode_stack_heads(d, in, &t, &samples, why) < 0)
		goto out;
	/*
	 * What check_stacks will refuse anyway, refused before the frames
	 * are built: counts that cannot add up (the header came first; no
	 * stacks at all are as no record), and bytes after the stacks.
	 */
	if (t.nstacks > 0 && samples != d->p->samples) {
		*why = "the stacks' counts do not add up to the header's samples";
		goto out;
	}
	if (rio_left(in) != 0) {
		*why = "bytes left over after the stacks";
		goto out;
	}
	if (build_stack_frames(d->p, &t, why) < 0)
		goto out;
	rc = 0;
out:
	free(t.parent);
	free(t.frame);
	free(t.depth);
	free(t.leaves);
	return rc;
}
