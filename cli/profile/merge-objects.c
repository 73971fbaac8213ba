/*
 * merge-objects.c - the objects of several profiles matched (one result
 * object per file) and their histograms summed at one bucket size
 * (contract in merge-internal.h).  Invariant: an input bucket lands whole
 * in one result bucket, so the result's objects count what the inputs'
 * did.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge-internal.h"

int
merge_same_file(const struct profil_object *a, const struct profil_object *b)
{
	if (a->build_id_len > 0 && b->build_id_len > 0)
		return a->build_id_len == b->build_id_len &&
		    memcmp(a->build_id, b->build_id, a->build_id_len) == 0;
	return strcmp(a->path, b->path) == 0;
}
/*
 * An input bucket moved to a bucket of the result (target bytes, counted
 * from lowpc, the result's lowpc, aligned to target):
 *
 *   input, 4-byte buckets     |a0 |a1 |a2 |a3 |a4 |
 *   result, 16-byte buckets   |      b0       |      b1 ...
 *                             ^ lowpc
 *   addr' = lowpc + (addr - lowpc) / target * target
 *
 * Sizes are powers of two and recorded buckets start at multiples of their
 * size, so an input bucket lies inside one result bucket: no count is
 * split or guessed.
 */
static uint64_t
rebucket(uint64_t addr, uint64_t lowpc, unsigned target)
{
	return lowpc + (addr - lowpc) / target * target;
}

struct profil_bucket *
merge_buckets(const struct profil_bucket *dst, size_t ndst,
    const struct profil_object *src, uint64_t lowpc, unsigned target,
    size_t *n)
{
	struct profil_bucket *out = xcalloc(ndst + src->nbuckets, sizeof *out);
	size_t i = 0, j = 0, m = 0;

	while (i < ndst || j < src->nbuckets) {
		struct profil_bucket next;

		if (j == src->nbuckets || (i < ndst && dst[i].addr <=
		    rebucket(src->buckets[j].addr, lowpc, target))) {
			next = dst[i++];
		} else {
			next.addr = rebucket(src->buckets[j].addr, lowpc, target);
			next.count = src->buckets[j++].count;
		}
		if (m > 0 && out[m - 1].addr == next.addr)
			out[m - 1].count += next.count;
		else
			out[m++] = next;
	}
	*n = m;
	return out;
}

/*
 * The objects of the result: where[i][j] receives the result object that
 * object j of input i goes to.  Ranges are the union of the matched ones.
 */
static void
match_objects(struct profil_profile *const *in, size_t n, unsigned target,
    struct profil_profile *out, size_t **where)
{
	size_t cap = 0, *last_input = NULL;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < in[i]->nobjects; j++) {
			const struct profil_object *o = &in[i]->objects[j];
			struct profil_object *r;
			size_t k;

			for (k = 0; k < out->nobjects; k++)
				if (last_input[k] != i + 1 &&
				    merge_same_file(&out->objects[k], o))
					break;
			if (k == out->nobjects) {
				if (out->nobjects == cap) {
					cap = cap ? 2 * cap : 16;
					out->objects = xrealloc(out->objects,
					    cap * sizeof *out->objects);
					last_input = xrealloc(last_input,
					    cap * sizeof *last_input);
				}
				out->objects[out->nobjects++] = (struct profil_object){
				    .path = xstrdup(o->path), .lowpc = o->lowpc,
				    .highpc = o->highpc, .bucket_bytes = target };
			}
			r = &out->objects[k];
			last_input[k] = i + 1;
			where[i][j] = k;
			if (r->build_id_len == 0 && o->build_id_len > 0) {
				memcpy(r->build_id, o->build_id, o->build_id_len);
				r->build_id_len = o->build_id_len;
			}
			if (o->lowpc < r->lowpc)
				r->lowpc = o->lowpc;
			if (o->highpc > r->highpc)
				r->highpc = o->highpc;
			r->samples += o->samples;
		}
	}
	for (size_t k = 0; k < out->nobjects; k++)
		out->objects[k].lowpc -= out->objects[k].lowpc % target;
	free(last_input);
}

/* Every input's buckets summed into the result's objects. */
static void
sum_buckets(struct profil_profile *const *in, size_t n, unsigned target,
    struct profil_profile *out, size_t *const *where)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < in[i]->nobjects; j++) {
			struct profil_object *r = &out->objects[where[i][j]];
			struct profil_bucket *merged;
			size_t nmerged;

			merged = merge_buckets(r->buckets, r->nbuckets,
			    &in[i]->objects[j], r->lowpc, target, &nmerged);
			free(r->buckets);
			r->buckets = merged;
			r->nbuckets = nmerged;
		}
	}
}
void
merge_objects(struct profil_profile *const *in, size_t n, unsigned target,
    struct profil_profile *out, size_t **where)
{
	match_objects(in, n, target, out, where);
	sum_buckets(in, n, target, out, where);
}
