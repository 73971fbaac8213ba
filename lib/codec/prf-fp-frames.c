/*
 * prf-fp-frames.c - the fp frames record (tag 11, docs/prf-format.md):
 * the frames whose callers the recorder found by frame pointer, not by
 * unwind tables.  After the stacks record, whose frames it names.
 *
 *     fp_frames := n:varint gap:varint{n}
 *
 * each frame's index as its distance from the one before (the first's
 * from 0): ascending, so every gap after the first is 1 or more.
 */
#include <stdlib.h>

#include "codec/prf.h"
#include "codec/prf-internal.h"

void
prf_encode_fp_frames(struct rio_out *out, const struct profil_profile *p)
{
	rio_put_varint(out, p->nfp_frames);
	for (size_t i = 0; i < p->nfp_frames; i++)
		rio_put_varint(out, p->fp_frames[i] -
		    (i > 0 ? p->fp_frames[i - 1] : 0));
}

int
prf_decode_fp_frames(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_profile *p = d->p;
	uint64_t n = rio_get_varint(in), at = 0;

	if (p->fp_frames != NULL)
		return *why = "a second fp frames record", -1;
	if (p->frames == NULL)
		return *why = "fp frames before the stacks", -1;
	/* a gap takes a byte at least */
	if (in->failed || n > rio_left(in))
		return *why = "truncated", -1;
	if ((p->fp_frames = calloc(n ? n : 1, sizeof *p->fp_frames)) == NULL)
		return *why = "out of memory", -1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t gap = rio_get_varint(in);

		if (in->failed)
			return *why = "truncated", -1;
		if ((i > 0 && gap == 0) || gap > UINT32_MAX - at)
			return *why = "fp frames out of order", -1;
		at += gap;
		p->fp_frames[p->nfp_frames++] = (uint32_t)at;
	}
	return 0;
}
