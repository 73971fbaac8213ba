/*
 * prf-encode.c - a profile into .prf bytes (format in prf.h and
 * docs/prf-format.md): records framed tag, flags, length; histograms
 * dense or sparse, whichever is smaller; stacks as a tree of nodes.
 * Invariant: the encoder writes nothing its own reader would refuse.
 */
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>

#include "codec/prf.h"
#include "codec/prf-internal.h"
#include "codec/stacktree.h"

static size_t
begin_record_flags(struct rio_out *out, uint16_t tag, uint16_t flags)
{
	rio_put_u16(out, tag);
	rio_put_u16(out, flags);
	rio_put_u32(out, 0);		/* length, patched by end_record */
	return out->len;
}

static size_t
begin_record(struct rio_out *out, uint16_t tag)
{
	return begin_record_flags(out, tag, 0);
}

static void
end_record(struct rio_out *out, size_t payload_start)
{
	size_t n = out->len - payload_start;

	if (n > UINT32_MAX)
		out->failed = 1;
	rio_patch_u32(out, payload_start - 4, (uint32_t)n);
}

/* Bucket index of b in o. */
static uint64_t
bucket_index(const struct profil_object *o, const struct profil_bucket *b)
{
	return (b->addr - o->lowpc) / o->bucket_bytes;
}

static void
encode_histogram(struct rio_out *out, const struct profil_object *o)
{
	struct rio_out sparse, dense;
	uint64_t prev = 0, span = 0;
	size_t i;

	rio_out_init(&sparse);
	rio_put_u64(&sparse, o->nbuckets);
	for (i = 0; i < o->nbuckets; i++) {
		uint64_t index = bucket_index(o, &o->buckets[i]);

		rio_put_varint(&sparse, index - prev);
		rio_put_varint(&sparse, o->buckets[i].count);
		prev = index;
	}
	if (o->nbuckets > 0)
		span = bucket_index(o, &o->buckets[o->nbuckets - 1]) + 1;
	rio_out_init(&dense);
	/* dense only pays when most buckets are hit; don't even try otherwise */
	if (span <= 2 * (uint64_t)o->nbuckets + 16) {
		rio_put_u64(&dense, span);
		for (i = 0, prev = 0; i < o->nbuckets; i++) {
			uint64_t index = bucket_index(o, &o->buckets[i]);

			for (; prev < index; prev++)
				rio_put_varint(&dense, 0);
			rio_put_varint(&dense, o->buckets[i].count);
			prev = index + 1;
		}
	}
	if (dense.len > 0 && !dense.failed && dense.len < sparse.len) {
		rio_put_u8(out, PRF_HIST_DENSE);
		rio_put_bytes(out, dense.data, dense.len);
	} else {
		rio_put_u8(out, PRF_HIST_SPARSE);
		rio_put_bytes(out, sparse.data, sparse.len);
	}
	if (sparse.failed)
		out->failed = 1;
	rio_out_free(&sparse);
	rio_out_free(&dense);
}

/*
 * The stacks record's payload: frames (object, address delta within one
 * object), the tree of stacks from their outermost frame in (each node a
 * parent and a frame), and each stack as its leaf node, thread and count.
 * 0, or -1 with errno (EINVAL for stacks the reader would refuse).
 */
static int
encode_stacks(struct rio_out *out, const struct profil_profile *p)
{
	struct stacktree t = { 0 };
	struct rio_out leaves;
	int rc = 0;

	rio_put_varint(out, p->nframes);
	for (size_t i = 0; i < p->nframes; i++) {
		const struct profil_frame *f = &p->frames[i], *prev = f - 1;
		int same = i > 0 && prev->object == f->object;

		if (i > 0 && (prev->object > f->object ||
		    (same && prev->addr >= f->addr))) {
			errno = EINVAL;		/* not sorted, or twice */
			return -1;
		}
		rio_put_varint(out, f->object);
		rio_put_varint(out, same ? f->addr - prev->addr : f->addr);
	}
	rio_out_init(&leaves);
	for (size_t i = 0; i < p->nstacks && rc == 0; i++) {
		const struct profil_stack *st = &p->stacks[i];
		uint32_t node = STACKTREE_ROOT;

		if (st->depth == 0 || st->depth > PRF_MAX_DEPTH) {
			errno = EINVAL;
			rc = -1;
			break;
		}
		for (size_t d = st->depth; d-- > 0 && rc == 0;) {
			if (st->frames[d] >= p->nframes) {
				errno = EINVAL;
				rc = -1;
			} else if ((node = stacktree_node(&t, node,
			    st->frames[d])) == STACKTREE_ROOT) {
				rc = -1;	/* ENOMEM */
			}
		}
		rio_put_varint(&leaves, node);
		rio_put_varint(&leaves, st->pid);
		rio_put_varint(&leaves, st->tid);
		rio_put_varint(&leaves, st->count);
		if (p->wall != NULL) {
			rio_put_varint(&leaves, st->off_ns);
			rio_put_varint(&leaves, st->sampled_ns);
			rio_put_varint(&leaves, st->observations);
		}
	}
	/* the nodes as made: parent + 1 (0 for a root), always below ours */
	rio_put_varint(out, t.n);
	for (size_t k = 0; k < t.n; k++) {
		rio_put_varint(out, t.parent[k]);
		rio_put_varint(out, t.frame[k]);
	}
	rio_put_varint(out, p->nstacks);
	rio_put_bytes(out, leaves.data, leaves.len);
	if (leaves.failed)
		out->failed = 1;
	rio_out_free(&leaves);
	stacktree_free(&t);
	return rc;
}

/* An object's fields and histogram (object and kernel records). */
static void
encode_object(struct rio_out *out, const struct profil_object *o)
{
	rio_put_str(out, o->path);
	rio_put_u8(out, (uint8_t)o->build_id_len);
	rio_put_bytes(out, o->build_id, o->build_id_len);
	rio_put_u64(out, o->lowpc);
	rio_put_u64(out, o->highpc);
	rio_put_u32(out, o->bucket_bytes);
	rio_put_u64(out, o->samples);
	encode_histogram(out, o);
}

/* The magic, the version and the header record. */
static void
encode_header(struct rio_out *out, const struct profil_profile *p)
{
	size_t at;
	int a;

	rio_put_bytes(out, PRF_MAGIC, PRF_MAGIC_LEN);
	/* CPU profiles stay readable by readers of version 1 */
	rio_put_u32(out, p->wall != NULL ? PRF_VERSION : PRF_VERSION_CPU);

	at = begin_record(out, PRF_TAG_HEADER);
	rio_put_u64(out, p->interval_ns);
	rio_put_u32(out, p->bucket_bytes);
	rio_put_str(out, p->engine);
	rio_put_u32(out, (uint32_t)p->argc);
	for (a = 0; a < p->argc; a++)
		rio_put_str(out, p->argv[a]);
	rio_put_u64(out, (uint64_t)p->start_ns);
	rio_put_u64(out, p->duration_ns);
	rio_put_u64(out, p->cpu_ns);
	rio_put_u64(out, p->samples);
	rio_put_u64(out, p->kernel);
	rio_put_u64(out, p->unknown);
	rio_put_u64(out, p->lost);
	end_record(out, at);
}

/* A record per object, thread and process. */
static void
encode_parts(struct rio_out *out, const struct profil_profile *p)
{
	size_t at, i;

	for (i = 0; i < p->nobjects; i++) {
		at = begin_record(out, PRF_TAG_OBJECT);
		encode_object(out, &p->objects[i]);
		end_record(out, at);
	}
	for (i = 0; i < p->nthreads; i++) {
		at = begin_record(out, PRF_TAG_THREAD);
		rio_put_u32(out, p->threads[i].pid);
		rio_put_u32(out, p->threads[i].tid);
		rio_put_str(out, p->threads[i].name);
		rio_put_u64(out, p->threads[i].samples);
		end_record(out, at);
	}
	for (i = 0; i < p->nprocesses; i++) {
		at = begin_record(out, PRF_TAG_PROCESS);
		rio_put_u32(out, p->processes[i].pid);
		rio_put_u32(out, p->processes[i].ppid);
		rio_put_str(out, p->processes[i].command);
		rio_put_u32(out, (uint32_t)p->processes[i].exit_status);
		rio_put_u64(out, p->processes[i].samples);
		end_record(out, at);
	}
}

/* The kernel's code and the symbols records, if the profile has them. */
static void
encode_kernel_symbols(struct rio_out *out, const struct profil_profile *p)
{
	size_t at, i;

	if (p->kernel_code != NULL) {
		const struct profil_kernel *k = p->kernel_code;

		/* optional: a reader that does not know it skips it */
		at = begin_record_flags(out, PRF_TAG_KERNEL, PRF_FLAG_OPTIONAL);
		rio_put_str(out, k->release ? k->release : "");
		rio_put_bytes(out, k->boot_id, sizeof k->boot_id);
		rio_put_u64(out, k->text_addr);
		encode_object(out, &k->code);
		end_record(out, at);
	}
	if (p->nsymbols > 0) {
		at = begin_record_flags(out, PRF_TAG_SYMBOLS, PRF_FLAG_OPTIONAL);
		rio_put_varint(out, p->nsymbols);
		for (i = 0; i < p->nsymbols; i++) {
			const struct profil_symbol *sy = &p->symbols[i];

			rio_put_varint(out, sy->object);
			rio_put_varint(out, sy->start);
			rio_put_varint(out, sy->end - sy->start);
			rio_put_str(out, sy->name);
		}
		end_record(out, at);
	}
}

/*
 * The lines, stacks and fp frames records, those the profile has: 0, or
 * -1 with errno set if the stacks could not be encoded.
 */
static int
encode_lines_stacks(struct rio_out *out, const struct profil_profile *p)
{
	size_t at;

	if (p->nlines > 0) {
		at = begin_record_flags(out, PRF_TAG_LINES, PRF_FLAG_OPTIONAL);
		prf_encode_lines(out, p);
		end_record(out, at);
	}
	if (p->nstacks > 0) {
		at = begin_record_flags(out, PRF_TAG_STACKS, PRF_FLAG_OPTIONAL);
		if (encode_stacks(out, p) < 0)
			return -1;
		end_record(out, at);
	}
	if (p->nfp_frames > 0) {
		at = begin_record_flags(out, PRF_TAG_FP_FRAMES,
		    PRF_FLAG_OPTIONAL);
		prf_encode_fp_frames(out, p);
		end_record(out, at);
	}
	if (p->nstacks > 0 && p->slice_ns > 0) {
		at = begin_record_flags(out, PRF_TAG_TIMELINE,
		    PRF_FLAG_OPTIONAL);
		prf_encode_timeline(out, p);
		end_record(out, at);
	}
	return 0;
}

/* How the profile was taken: the weights, refused and wall records. */
static void
encode_taking(struct rio_out *out, const struct profil_profile *p)
{
	size_t at;

	if (p->taken > 0 || p->weight_sq > 0) {
		at = begin_record_flags(out, PRF_TAG_WEIGHTS, PRF_FLAG_OPTIONAL);
		rio_put_u64(out, p->taken);
		rio_put_u64(out, p->weight_sq);
		rio_put_u64(out, p->budget);
		rio_put_u64(out, p->slowest_ns);
		end_record(out, at);
	}
	if (p->refused > 0) {
		at = begin_record_flags(out, PRF_TAG_REFUSED, PRF_FLAG_OPTIONAL);
		rio_put_u64(out, p->refused);
		end_record(out, at);
	}
	if (p->wall != NULL) {
		at = begin_record(out, PRF_TAG_WALL);
		rio_put_u64(out, p->wall->poll_ns);
		rio_put_u64(out, p->wall->switches);
		rio_put_u64(out, p->wall->reads);
		rio_put_u64(out, p->wall->unread_ns);
		end_record(out, at);
	}
}

EXPORT int
profil_profile_encode(const struct profil_profile *p, void **data, size_t *size)
{
	struct rio_out out;
	size_t at;

	rio_out_init(&out);
	encode_header(&out, p);
	encode_parts(&out, p);
	encode_kernel_symbols(&out, p);
	if (encode_lines_stacks(&out, p) < 0) {
		int saved = errno;

		rio_out_free(&out);
		errno = saved;
		return -1;
	}
	encode_taking(&out, p);
	if (!out.failed) {
		uint32_t crc = (uint32_t)crc32_z(0, out.data, out.len);

		at = begin_record(&out, PRF_TAG_END);
		rio_put_u32(&out, crc);
		end_record(&out, at);
	}
	if (out.failed) {
		rio_out_free(&out);
		errno = ENOMEM;
		return -1;
	}
	*data = out.data;
	*size = out.len;
	return 0;
}
