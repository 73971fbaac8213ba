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
 * The stacks record into p's frames and stacks.  Every stack's depth is
 * known from its node (each node's depth is its parent's + 1, and a
 * parent comes first), so the sizes are all checked before any stack's
 * frames are made: a few kilobytes of tree can describe millions of
 * frames, and a refusal must not cost building them.
 */
int
prf_decode_stacks(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_profile *p = d->p;
	uint64_t nframes = rio_get_varint(in), nnodes, nstacks, total = 0;
	uint64_t samples = 0;
	uint32_t *parent = NULL, *frame = NULL, *depth = NULL, *leaves = NULL;
	int rc = -1;

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
	nnodes = rio_get_varint(in);
	if (in->failed || nnodes > rio_left(in) / 2 || nnodes > UINT32_MAX)
		return *why = "truncated", -1;
	parent = calloc(nnodes ? nnodes : 1, sizeof *parent);
	frame = calloc(nnodes ? nnodes : 1, sizeof *frame);
	depth = calloc(nnodes ? nnodes : 1, sizeof *depth);
	if (parent == NULL || frame == NULL || depth == NULL) {
		*why = "out of memory";
		goto out;
	}
	for (uint64_t i = 0; i < nnodes; i++) {
		uint64_t up = rio_get_varint(in), f = rio_get_varint(in);

		if (in->failed) {
			*why = "truncated";
			goto out;
		}
		/* a parent comes before its children: no loops */
		if (up > i || f >= nframes) {
			*why = "bad stack tree";
			goto out;
		}
		parent[i] = (uint32_t)up;	/* its number + 1; 0: a root */
		frame[i] = (uint32_t)f;
		/* (kept from growing past what any stack may be) */
		depth[i] = up == 0 ? 1 : depth[up - 1] > PRF_MAX_DEPTH ?
		    PRF_MAX_DEPTH + 1 : depth[up - 1] + 1;
	}
	nstacks = rio_get_varint(in);
	if (in->failed || nstacks > rio_left(in) / 4) {
		*why = "truncated";
		goto out;
	}
	p->stacks = calloc(nstacks ? nstacks : 1, sizeof *p->stacks);
	leaves = calloc(nstacks ? nstacks : 1, sizeof *leaves);
	if (p->stacks == NULL || leaves == NULL) {
		*why = "out of memory";
		goto out;
	}
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
		if (in->failed) {
			*why = "truncated";
			goto out;
		}
		/* a sample count, or (wall) time off the CPU: one of them */
		if (leaf >= nnodes || pid > UINT32_MAX || tid > UINT32_MAX ||
		    (st->count == 0) == (st->off_ns == 0) ||
		    st->sampled_ns > st->off_ns ||
		    (st->off_ns == 0 && st->observations != 0)) {
			*why = "bad stack";
			goto out;
		}
		if (depth[leaf] > PRF_MAX_DEPTH) {
			*why = "a stack deeper than any recorder writes";
			goto out;
		}
		if ((total += depth[leaf]) > MAX_STACK_FRAMES) {
			*why = "more stack frames than this reader takes";
			goto out;
		}
		p->nstacks++;		/* frames NULL until the sizes are known */
		st->pid = (uint32_t)pid;
		st->tid = (uint32_t)tid;
		leaves[i] = (uint32_t)leaf;
		if (__builtin_add_overflow(samples, st->count, &samples)) {
			*why = "stack counts overflow";
			goto out;
		}
	}
	/*
	 * What check_stacks will refuse anyway, refused before the frames
	 * are built: counts that cannot add up (the header came first; no
	 * stacks at all are as no record), and bytes after the stacks.
	 */
	if (nstacks > 0 && samples != p->samples) {
		*why = "the stacks' counts do not add up to the header's samples";
		goto out;
	}
	if (rio_left(in) != 0) {
		*why = "bytes left over after the stacks";
		goto out;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		struct profil_stack *st = &p->stacks[i];

		if ((st->frames = calloc(depth[leaves[i]], sizeof *st->frames)) ==
		    NULL) {
			*why = "out of memory";
			goto out;
		}
		for (uint64_t n = leaves[i] + 1; n != 0; n = parent[n - 1])
			st->frames[st->depth++] = frame[n - 1];
	}
	rc = 0;
out:
	free(parent);
	free(frame);
	free(depth);
	free(leaves);
	return rc;
}
