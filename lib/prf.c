/*
 * prf.c - encoding and decoding .prf profiles (format in prf.h and
 * docs/prf-format.md).  The decoder trusts nothing: every length is
 * checked against what is left, every count against the totals, and a
 * failure names the record and the byte where it happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "prf.h"
#include "profil.h"
#include "rio.h"

#define EXPORT __attribute__((visibility("default")))

/* ---- encoding ----------------------------------------------------------- */

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
 * Pairs (parent node + 1, frame) to node numbers while encoding stacks: an
 * open-addressing table the encoder owns (the library has no hash map of
 * its own elsewhere).
 */
struct node_table {
	uint64_t *keys;		/* (parent + 1) << 32 | frame, + 1; 0: empty */
	uint32_t *nodes;
	size_t cap, len;
};

/*
 * A slot for key in a table of cap (a power of two) slots.  Keys differ
 * mostly in their high half (the parent: recursion repeats one frame
 * under ever deeper parents), so every bit is mixed into the low ones
 * (MurmurHash3's finaliser); the top bits of a multiplication alone
 * left such keys two slots, and encoding a 4096-deep recursion took
 * 4096^2 probes.
 */
static size_t
node_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int
node_table_grow(struct node_table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 1024;
	uint64_t *keys = calloc(cap, sizeof *keys);
	uint32_t *nodes = calloc(cap, sizeof *nodes);

	if (keys == NULL || nodes == NULL) {
		free(keys);
		free(nodes);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t k;

		if (t->keys[i] == 0)
			continue;
		k = node_slot(t->keys[i], cap);
		while (keys[k] != 0)
			k = (k + 1) & (cap - 1);
		keys[k] = t->keys[i];
		nodes[k] = t->nodes[i];
	}
	free(t->keys);
	free(t->nodes);
	t->keys = keys;
	t->nodes = nodes;
	t->cap = cap;
	return 0;
}

/*
 * The node of frame under parent (UINT32_MAX: a root), made if new with
 * number t->len; its number, or -1 when out of memory.
 */
static int64_t
node_of(struct node_table *t, struct rio_out *nodes_out, uint32_t parent,
    uint32_t frame)
{
	uint64_t key = (((uint64_t)parent + 1) << 32 | frame) + 1;
	size_t k;

	if (2 * (t->len + 1) > t->cap && node_table_grow(t) < 0)
		return -1;
	k = node_slot(key, t->cap);
	for (; t->keys[k] != 0; k = (k + 1) & (t->cap - 1))
		if (t->keys[k] == key)
			return t->nodes[k];
	t->keys[k] = key;
	t->nodes[k] = (uint32_t)t->len;
	/* parent as its number + 1, 0 for a root: always below our own */
	rio_put_varint(nodes_out, parent == UINT32_MAX ? 0 : (uint64_t)parent + 1);
	rio_put_varint(nodes_out, frame);
	return (int64_t)t->len++;
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
	struct node_table t = { NULL, NULL, 0, 0 };
	struct rio_out nodes, leaves;
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
	rio_out_init(&nodes);
	rio_out_init(&leaves);
	for (size_t i = 0; i < p->nstacks && rc == 0; i++) {
		const struct profil_stack *st = &p->stacks[i];
		int64_t node = UINT32_MAX;

		if (st->depth == 0 || st->depth > PRF_MAX_DEPTH) {
			errno = EINVAL;
			rc = -1;
			break;
		}
		for (size_t d = st->depth; d-- > 0 && rc == 0;) {
			if (st->frames[d] >= p->nframes) {
				errno = EINVAL;
				rc = -1;
			} else if ((node = node_of(&t, &nodes, (uint32_t)node,
			    st->frames[d])) < 0) {
				errno = ENOMEM;
				rc = -1;
			}
		}
		rio_put_varint(&leaves, (uint64_t)node);
		rio_put_varint(&leaves, st->pid);
		rio_put_varint(&leaves, st->tid);
		rio_put_varint(&leaves, st->count);
		if (p->wall != NULL) {
			rio_put_varint(&leaves, st->off_ns);
			rio_put_varint(&leaves, st->sampled_ns);
			rio_put_varint(&leaves, st->observations);
		}
	}
	rio_put_varint(out, t.len);
	rio_put_bytes(out, nodes.data, nodes.len);
	rio_put_varint(out, p->nstacks);
	rio_put_bytes(out, leaves.data, leaves.len);
	if (nodes.failed || leaves.failed)
		out->failed = 1;
	rio_out_free(&nodes);
	rio_out_free(&leaves);
	free(t.keys);
	free(t.nodes);
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

EXPORT int
profil_profile_encode(const struct profil_profile *p, void **data, size_t *size)
{
	struct rio_out out;
	size_t at, i;
	int a;

	rio_out_init(&out);
	rio_put_bytes(&out, PRF_MAGIC, PRF_MAGIC_LEN);
	/* CPU profiles stay readable by readers of version 1 */
	rio_put_u32(&out, p->wall != NULL ? PRF_VERSION : PRF_VERSION_CPU);

	at = begin_record(&out, PRF_TAG_HEADER);
	rio_put_u64(&out, p->interval_ns);
	rio_put_u32(&out, p->bucket_bytes);
	rio_put_str(&out, p->engine);
	rio_put_u32(&out, (uint32_t)p->argc);
	for (a = 0; a < p->argc; a++)
		rio_put_str(&out, p->argv[a]);
	rio_put_u64(&out, (uint64_t)p->start_ns);
	rio_put_u64(&out, p->duration_ns);
	rio_put_u64(&out, p->cpu_ns);
	rio_put_u64(&out, p->samples);
	rio_put_u64(&out, p->kernel);
	rio_put_u64(&out, p->unknown);
	rio_put_u64(&out, p->lost);
	end_record(&out, at);

	for (i = 0; i < p->nobjects; i++) {
		at = begin_record(&out, PRF_TAG_OBJECT);
		encode_object(&out, &p->objects[i]);
		end_record(&out, at);
	}
	for (i = 0; i < p->nthreads; i++) {
		at = begin_record(&out, PRF_TAG_THREAD);
		rio_put_u32(&out, p->threads[i].pid);
		rio_put_u32(&out, p->threads[i].tid);
		rio_put_str(&out, p->threads[i].name);
		rio_put_u64(&out, p->threads[i].samples);
		end_record(&out, at);
	}
	for (i = 0; i < p->nprocesses; i++) {
		at = begin_record(&out, PRF_TAG_PROCESS);
		rio_put_u32(&out, p->processes[i].pid);
		rio_put_u32(&out, p->processes[i].ppid);
		rio_put_str(&out, p->processes[i].command);
		rio_put_u32(&out, (uint32_t)p->processes[i].exit_status);
		rio_put_u64(&out, p->processes[i].samples);
		end_record(&out, at);
	}
	if (p->kernel_code != NULL) {
		const struct profil_kernel *k = p->kernel_code;

		/* optional: a reader that does not know it skips it */
		at = begin_record_flags(&out, PRF_TAG_KERNEL, PRF_FLAG_OPTIONAL);
		rio_put_str(&out, k->release ? k->release : "");
		rio_put_bytes(&out, k->boot_id, sizeof k->boot_id);
		rio_put_u64(&out, k->text_addr);
		encode_object(&out, &k->code);
		end_record(&out, at);
	}
	if (p->nsymbols > 0) {
		at = begin_record_flags(&out, PRF_TAG_SYMBOLS, PRF_FLAG_OPTIONAL);
		rio_put_varint(&out, p->nsymbols);
		for (i = 0; i < p->nsymbols; i++) {
			const struct profil_symbol *sy = &p->symbols[i];

			rio_put_varint(&out, sy->object);
			rio_put_varint(&out, sy->start);
			rio_put_varint(&out, sy->end - sy->start);
			rio_put_str(&out, sy->name);
		}
		end_record(&out, at);
	}
	if (p->nstacks > 0) {
		at = begin_record_flags(&out, PRF_TAG_STACKS, PRF_FLAG_OPTIONAL);
		if (encode_stacks(&out, p) < 0) {
			int saved = errno;

			rio_out_free(&out);
			errno = saved;
			return -1;
		}
		end_record(&out, at);
	}
	if (p->taken > 0 || p->weight_sq > 0) {
		at = begin_record_flags(&out, PRF_TAG_WEIGHTS, PRF_FLAG_OPTIONAL);
		rio_put_u64(&out, p->taken);
		rio_put_u64(&out, p->weight_sq);
		rio_put_u64(&out, p->budget);
		rio_put_u64(&out, p->slowest_ns);
		end_record(&out, at);
	}
	if (p->wall != NULL) {
		at = begin_record(&out, PRF_TAG_WALL);
		rio_put_u64(&out, p->wall->poll_ns);
		rio_put_u64(&out, p->wall->switches);
		rio_put_u64(&out, p->wall->reads);
		rio_put_u64(&out, p->wall->unread_ns);
		end_record(&out, at);
	}
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

/* ---- decoding ----------------------------------------------------------- */

struct decoder {
	struct rio_in in;
	char *cause;
	size_t cause_size;
	struct profil_profile *p;
	size_t objects_cap, threads_cap, processes_cap;
	uint32_t version;
};

__attribute__((format(printf, 2, 3))) static void
say(struct decoder *d, const char *fmt, ...)
{
	va_list ap;

	if (d->cause == NULL || d->cause_size == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(d->cause, d->cause_size, fmt, ap);
	va_end(ap);
}

static void *
grow(void *array, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return array;
	size_t want = *cap ? *cap * 2 : 8;
	void *grown = realloc(array, want * size);

	if (grown != NULL)
		*cap = want;
	return grown;
}

/* Returns 0, or -1 (with the reason in *why) for a malformed histogram. */
static int
decode_histogram(struct rio_in *in, struct profil_object *o, const char **why)
{
	uint8_t kind = rio_get_u8(in);
	uint64_t n = rio_get_u64(in), index = 0, sum = 0, i;
	unsigned __int128 end;

	if (in->failed)
		return *why = "truncated", -1;
	/* every entry takes at least one (dense) or two (sparse) bytes */
	if (kind != PRF_HIST_DENSE && kind != PRF_HIST_SPARSE)
		return *why = "unknown histogram encoding", -1;
	if (n > rio_left(in) / (kind == PRF_HIST_SPARSE ? 2 : 1))
		return *why = "histogram longer than its record", -1;
	o->buckets = calloc(n ? n : 1, sizeof *o->buckets);
	if (o->buckets == NULL)
		return *why = "out of memory", -1;
	for (i = 0; i < n; i++) {
		uint64_t count;

		if (kind == PRF_HIST_SPARSE) {
			uint64_t delta = rio_get_varint(in);

			if (i > 0 && delta == 0)
				return *why = "buckets out of order", -1;
			if (delta > UINT64_MAX - index)
				return *why = "bucket index overflows", -1;
			index += delta;
			count = rio_get_varint(in);
			if (count == 0 && !in->failed)
				return *why = "empty bucket in a sparse histogram", -1;
		} else {
			index = i;
			count = rio_get_varint(in);
		}
		if (in->failed)
			return *why = "truncated", -1;
		if (count == 0)
			continue;
		end = (unsigned __int128)o->lowpc +
		    (unsigned __int128)index * o->bucket_bytes;
		if (end >= o->highpc)
			return *why = "bucket beyond the object's range", -1;
		if (count > UINT64_MAX - sum)
			return *why = "counts overflow", -1;
		sum += count;
		o->buckets[o->nbuckets].addr = (uint64_t)end;
		o->buckets[o->nbuckets].count = count;
		o->nbuckets++;
	}
	if (sum != o->samples)
		return *why = "bucket counts do not add up to the object's samples", -1;
	return 0;
}

static int
decode_header(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_profile *p = d->p;
	uint32_t argc;

	p->interval_ns = rio_get_u64(in);
	p->bucket_bytes = rio_get_u32(in);
	p->engine = rio_get_str(in, PRF_MAX_NAME);
	argc = rio_get_u32(in);
	if (in->failed || argc > PRF_MAX_ARGS || argc > rio_left(in) / 4)
		return -1;
	p->argv = calloc((size_t)argc + 1, sizeof *p->argv);
	if (p->argv == NULL)
		return -1;
	for (p->argc = 0; p->argc < (int)argc; p->argc++) {
		p->argv[p->argc] = rio_get_str(in, PRF_MAX_PATH);
		if (p->argv[p->argc] == NULL)
			return -1;
	}
	p->start_ns = (int64_t)rio_get_u64(in);
	p->duration_ns = rio_get_u64(in);
	p->cpu_ns = rio_get_u64(in);
	p->samples = rio_get_u64(in);
	p->kernel = rio_get_u64(in);
	p->unknown = rio_get_u64(in);
	p->lost = rio_get_u64(in);
	if (in->failed)
		return -1;
	/* -b's size: one an object may have (a merge sums at the largest) */
	if (p->bucket_bytes == 0 || p->bucket_bytes > PRF_MAX_BUCKET)
		return *why = "bad bucket size", -1;
	return 0;
}

/* An object's fields and histogram into o (zeroed by the caller). */
static int
decode_object_body(struct rio_in *in, struct profil_object *o, const char **why)
{
	o->path = rio_get_str(in, PRF_MAX_PATH);
	o->build_id_len = rio_get_u8(in);
	if (o->build_id_len > sizeof o->build_id)
		return *why = "build-id too long", -1;
	rio_get_bytes(in, o->build_id, o->build_id_len);
	o->lowpc = rio_get_u64(in);
	o->highpc = rio_get_u64(in);
	o->bucket_bytes = rio_get_u32(in);
	o->samples = rio_get_u64(in);
	if (in->failed)
		return *why = "truncated", -1;
	if (o->lowpc >= o->highpc)
		return *why = "empty address range", -1;
	if (o->bucket_bytes == 0 || o->bucket_bytes > PRF_MAX_BUCKET)
		return *why = "bad bucket size", -1;
	return decode_histogram(in, o, why);
}

static int
decode_object(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_profile *p = d->p;
	struct profil_object *o;
	void *grown = grow(p->objects, &d->objects_cap, p->nobjects, sizeof *o);

	if (grown == NULL)
		return *why = "out of memory", -1;
	p->objects = grown;
	o = &p->objects[p->nobjects++];
	memset(o, 0, sizeof *o);
	return decode_object_body(in, o, why);
}

static int
decode_kernel(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_kernel *k;

	if (d->p->kernel_code != NULL)
		return *why = "a second kernel record", -1;
	if ((k = d->p->kernel_code = calloc(1, sizeof *k)) == NULL)
		return *why = "out of memory", -1;
	k->release = rio_get_str(in, PRF_MAX_NAME);
	rio_get_bytes(in, k->boot_id, sizeof k->boot_id);
	k->text_addr = rio_get_u64(in);
	if (in->failed)
		return *why = "truncated", -1;
	return decode_object_body(in, &k->code, why);
}

static int
decode_thread(struct decoder *d, struct rio_in *in)
{
	struct profil_profile *p = d->p;
	struct profil_thread *t;
	void *grown = grow(p->threads, &d->threads_cap, p->nthreads, sizeof *t);

	if (grown == NULL)
		return -1;
	p->threads = grown;
	t = &p->threads[p->nthreads++];
	memset(t, 0, sizeof *t);
	t->pid = rio_get_u32(in);
	t->tid = rio_get_u32(in);
	t->name = rio_get_str(in, PRF_MAX_NAME);
	t->samples = rio_get_u64(in);
	return in->failed ? -1 : 0;
}

static int
decode_process(struct decoder *d, struct rio_in *in)
{
	struct profil_profile *p = d->p;
	struct profil_process *pr;
	void *grown = grow(p->processes, &d->processes_cap, p->nprocesses,
	    sizeof *pr);

	if (grown == NULL)
		return -1;
	p->processes = grown;
	pr = &p->processes[p->nprocesses++];
	memset(pr, 0, sizeof *pr);
	pr->pid = rio_get_u32(in);
	pr->ppid = rio_get_u32(in);
	pr->command = rio_get_str(in, PRF_MAX_PATH);
	pr->exit_status = (int32_t)rio_get_u32(in);
	pr->samples = rio_get_u64(in);
	return in->failed ? -1 : 0;
}

static int
decode_symbols(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_profile *p = d->p;
	uint64_t n = rio_get_varint(in);

	if (p->symbols != NULL)
		return *why = "a second symbols record", -1;
	/* each takes four bytes at least */
	if (in->failed || n > rio_left(in) / 4)
		return *why = "truncated", -1;
	if ((p->symbols = calloc(n ? n : 1, sizeof *p->symbols)) == NULL)
		return *why = "out of memory", -1;
	for (uint64_t i = 0; i < n; i++) {
		struct profil_symbol *sy = &p->symbols[p->nsymbols];
		uint64_t object = rio_get_varint(in), size;

		sy->start = rio_get_varint(in);
		size = rio_get_varint(in);
		sy->name = rio_get_str(in, PRF_MAX_PATH);
		if (in->failed || sy->name == NULL)
			return *why = "truncated", -1;
		p->nsymbols++;
		if (object > UINT32_MAX || size == 0 ||
		    size > UINT64_MAX - sy->start)
			return *why = "bad symbol", -1;
		sy->object = (uint32_t)object;
		sy->end = sy->start + size;
		if (i > 0 && (sy[-1].object > sy->object ||
		    (sy[-1].object == sy->object && sy[-1].end > sy->start)))
			return *why = "symbols out of order or overlapping", -1;
	}
	return 0;
}

/* Expanded frames of all stacks: a hostile file could ask for terabytes. */
#define MAX_STACK_FRAMES	(1u << 24)

/*
 * The stacks record into p's frames and stacks.  Every stack's depth is
 * known from its node (each node's depth is its parent's + 1, and a
 * parent comes first), so the sizes are all checked before any stack's
 * frames are made: a few kilobytes of tree can describe millions of
 * frames, and a refusal must not cost building them.
 */
static int
decode_stacks(struct decoder *d, struct rio_in *in, const char **why)
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

/*
 * Stacks agree with the flat profile: frames point at objects of the
 * profile, a cut only ends a stack, and the leaves add up to each
 * object's samples, the kernel's and the unknown ones.  0, or -1 (said).
 */
static int
check_stacks(struct decoder *d)
{
	const struct profil_profile *p = d->p;
	uint64_t *leaves, kernel = 0, unknown = 0, total = 0, off = 0;
	int rc = -1;

	if (p->nstacks == 0)
		return 0;
	for (size_t i = 0; i < p->nframes; i++) {
		uint32_t o = p->frames[i].object;

		if (o == PROFIL_FRAME_OFFCPU && p->wall == NULL) {
			say(d, "an off-CPU frame in a profile without a wall "
			    "record");
			return -1;
		}
		if (o == PROFIL_FRAME_OFFCPU &&
		    p->frames[i].addr > PROFIL_OFFCPU_BLOCKED) {
			say(d, "an off-CPU frame of an unknown kind (%#llx)",
			    (unsigned long long)p->frames[i].addr);
			return -1;
		}
		if (o >= p->nobjects && o != PROFIL_FRAME_KERNEL &&
		    o != PROFIL_FRAME_UNKNOWN && o != PROFIL_FRAME_CUT &&
		    (o != PROFIL_FRAME_OFFCPU || p->wall == NULL)) {
			say(d, "a stack frame belongs to no object of the profile");
			return -1;
		}
	}
	if ((leaves = calloc(p->nobjects + 1, sizeof *leaves)) == NULL) {
		say(d, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		const struct profil_frame *leaf = &p->frames[st->frames[0]];

		for (size_t k = 0; k + 1 < st->depth; k++)
			if (p->frames[st->frames[k]].object == PROFIL_FRAME_CUT) {
				say(d, "a stack goes on past its cut");
				goto out;
			}
		for (size_t k = 1; k < st->depth; k++)
			if (p->frames[st->frames[k]].object == PROFIL_FRAME_OFFCPU) {
				say(d, "an off-CPU frame that is not a stack's leaf");
				goto out;
			}
		/* off the CPU: time, not samples, and nowhere in the histograms */
		if ((leaf->object == PROFIL_FRAME_OFFCPU) != (st->off_ns > 0)) {
			say(d, "a stack's off-CPU time is not at an off-CPU leaf");
			goto out;
		}
		if (st->off_ns > 0) {
			if (__builtin_add_overflow(off, st->off_ns, &off)) {
				say(d, "off-CPU times overflow");
				goto out;
			}
			continue;
		}
		if (__builtin_add_overflow(total, st->count, &total)) {
			say(d, "stack counts overflow");
			goto out;
		}
		if (leaf->object == PROFIL_FRAME_KERNEL)
			kernel += st->count;
		else if (leaf->object == PROFIL_FRAME_UNKNOWN)
			unknown += st->count;
		else if (leaf->object < p->nobjects)
			leaves[leaf->object] += st->count;
		else {
			say(d, "a stack starts at a cut, not at a sampled place");
			goto out;
		}
	}
	if (total != p->samples || kernel != p->kernel || unknown != p->unknown) {
		say(d, "counts do not add up: the stacks have %llu samples (%llu "
		    "kernel, %llu unknown), the header says %llu (%llu, %llu)",
		    (unsigned long long)total, (unsigned long long)kernel,
		    (unsigned long long)unknown, (unsigned long long)p->samples,
		    (unsigned long long)p->kernel, (unsigned long long)p->unknown);
		goto out;
	}
	for (size_t i = 0; i < p->nobjects; i++)
		if (leaves[i] != p->objects[i].samples) {
			say(d, "counts do not add up: stacks end in %s %llu times, "
			    "its histogram has %llu samples", p->objects[i].path,
			    (unsigned long long)leaves[i],
			    (unsigned long long)p->objects[i].samples);
			goto out;
		}
	rc = 0;
out:
	free(leaves);
	return rc;
}

/*
 * How the samples were weighted.  Every weight is at least 1, so the sum
 * of their squares is at least their number and their sum (the header's
 * samples); the slowest interval is a whole number of intervals.
 */
static int
decode_weights(struct decoder *d, struct rio_in *in, int *seen,
    const char **why)
{
	struct profil_profile *p = d->p;

	if (*seen)
		return *why = "a second weights record", -1;
	*seen = 1;
	p->taken = rio_get_u64(in);
	p->weight_sq = rio_get_u64(in);
	p->budget = rio_get_u64(in);
	p->slowest_ns = rio_get_u64(in);
	if (in->failed)
		return *why = "truncated", -1;
	if (p->weight_sq < p->taken)
		return *why = "squared weights sum to less than the samples taken", -1;
	if (p->slowest_ns != 0 && (p->interval_ns == 0 ||
	    p->slowest_ns < p->interval_ns || p->slowest_ns % p->interval_ns != 0))
		return *why = "the slowest interval is not a whole number of "
		    "intervals", -1;
	return 0;
}

/*
 * How a wall profile was taken (version 2, whose stacks carry time off
 * the CPU: check_stacks takes off-CPU frames only with this record).
 */
static int
decode_wall(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_profile *p = d->p;

	if (d->version < 2)
		return *why = "a wall record in a version 1 file", -1;
	if (p->wall != NULL)
		return *why = "a second wall record", -1;
	if ((p->wall = calloc(1, sizeof *p->wall)) == NULL)
		return *why = "out of memory", -1;
	p->wall->poll_ns = rio_get_u64(in);
	p->wall->switches = rio_get_u64(in);
	p->wall->reads = rio_get_u64(in);
	p->wall->unread_ns = rio_get_u64(in);
	if (in->failed)
		return *why = "truncated", -1;
	return 0;
}

static const char *
tag_name(unsigned tag)
{
	switch (tag) {
	case PRF_TAG_HEADER: return "header";
	case PRF_TAG_OBJECT: return "object";
	case PRF_TAG_THREAD: return "thread";
	case PRF_TAG_PROCESS: return "process";
	case PRF_TAG_KERNEL: return "kernel";
	case PRF_TAG_SYMBOLS: return "symbols";
	case PRF_TAG_STACKS: return "stacks";
	case PRF_TAG_WEIGHTS: return "weights";
	case PRF_TAG_WALL: return "wall";
	case PRF_TAG_END: return "end";
	}
	return "unknown";
}

/* The totals must agree with the parts. */
static int
check_totals(struct decoder *d)
{
	const struct profil_profile *p = d->p;
	unsigned __int128 sum = (unsigned __int128)p->kernel + p->unknown;
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		sum += p->objects[i].samples;
	if (sum != p->samples) {
		say(d, "counts do not add up: objects, kernel and unknown make "
		    "%llu samples, the header says %llu",
		    (unsigned long long)sum, (unsigned long long)p->samples);
		return -1;
	}
	if (p->kernel_code != NULL && p->kernel_code->code.samples != p->kernel) {
		say(d, "counts do not add up: the kernel record has %llu samples, "
		    "the header says %llu kernel samples",
		    (unsigned long long)p->kernel_code->code.samples,
		    (unsigned long long)p->kernel);
		return -1;
	}
	for (i = 0; i < p->nsymbols; i++) {
		uint32_t object = p->symbols[i].object;

		if (object == PROFIL_SYMBOL_KERNEL ? p->kernel_code == NULL :
		    object >= p->nobjects) {
			say(d, "a kept name (%s) belongs to no object of the "
			    "profile", p->symbols[i].name);
			return -1;
		}
	}
	if (check_stacks(d) < 0)
		return -1;
	if ((p->taken > 0 || p->weight_sq > 0) && p->weight_sq < p->samples) {
		say(d, "counts do not add up: squared weights sum to %llu, less "
		    "than the %llu samples they weigh",
		    (unsigned long long)p->weight_sq,
		    (unsigned long long)p->samples);
		return -1;
	}
	if (p->nthreads > 0) {
		for (sum = 0, i = 0; i < p->nthreads; i++)
			sum += p->threads[i].samples;
		if (sum != p->samples) {
			say(d, "counts do not add up: threads have %llu samples, "
			    "the header says %llu", (unsigned long long)sum,
			    (unsigned long long)p->samples);
			return -1;
		}
	}
	if (p->nprocesses > 0) {
		for (sum = 0, i = 0; i < p->nprocesses; i++)
			sum += p->processes[i].samples;
		if (sum != p->samples) {
			say(d, "counts do not add up: processes have %llu samples, "
			    "the header says %llu", (unsigned long long)sum,
			    (unsigned long long)p->samples);
			return -1;
		}
	}
	return 0;
}

static int
decode(struct decoder *d)
{
	struct rio_in *in = &d->in;
	uint8_t magic[PRF_MAGIC_LEN];
	uint32_t version;
	int have_header = 0, have_weights = 0;

	if (rio_get_bytes(in, magic, sizeof magic) < 0 ||
	    memcmp(magic, PRF_MAGIC, PRF_MAGIC_LEN) != 0) {
		say(d, "not a profil file (bad magic)");
		return -1;
	}
	version = rio_get_u32(in);
	if (in->failed) {
		say(d, "truncated file header at byte %zu", in->len);
		return -1;
	}
	if (version != PRF_VERSION && version != PRF_VERSION_CPU) {
		say(d, "unsupported version %u (this reader knows %u and %u)",
		    version, PRF_VERSION_CPU, PRF_VERSION);
		return -1;
	}
	d->version = version;
	for (;;) {
		size_t at = in->pos;
		uint16_t tag = rio_get_u16(in), flags = rio_get_u16(in);
		uint32_t length = rio_get_u32(in);
		struct rio_in payload;
		const char *why = NULL;
		int rc = 0;

		if (in->failed) {
			if (at == in->len)
				say(d, "no end record: the file was cut short at "
				    "byte %zu", at);
			else
				say(d, "truncated record header at byte %zu", at);
			return -1;
		}
		if (length > rio_left(in)) {
			say(d, "truncated %s record at byte %zu (%u bytes "
			    "announced, %zu left)", tag_name(tag), at, length,
			    rio_left(in));
			return -1;
		}
		if (flags & ~PRF_FLAG_OPTIONAL) {
			say(d, "bad %s record at byte %zu: unknown flags %#x",
			    tag_name(tag), at, flags);
			return -1;
		}
		rio_in_init(&payload, in->data + in->pos, length);
		in->pos += length;
		if (!have_header && tag != PRF_TAG_HEADER) {
			say(d, "the first record (byte %zu) is not the header", at);
			return -1;
		}
		switch (tag) {
		case PRF_TAG_HEADER:
			if (have_header) {
				say(d, "second header record at byte %zu", at);
				return -1;
			}
			have_header = 1;
			rc = decode_header(d, &payload, &why);
			break;
		case PRF_TAG_OBJECT:
			rc = decode_object(d, &payload, &why);
			break;
		case PRF_TAG_THREAD:
			rc = decode_thread(d, &payload);
			break;
		case PRF_TAG_PROCESS:
			rc = decode_process(d, &payload);
			break;
		case PRF_TAG_KERNEL:
			rc = decode_kernel(d, &payload, &why);
			break;
		case PRF_TAG_SYMBOLS:
			rc = decode_symbols(d, &payload, &why);
			break;
		case PRF_TAG_STACKS:
			rc = decode_stacks(d, &payload, &why);
			break;
		case PRF_TAG_WEIGHTS:
			rc = decode_weights(d, &payload, &have_weights, &why);
			break;
		case PRF_TAG_WALL:
			rc = decode_wall(d, &payload, &why);
			break;
		case PRF_TAG_END: {
			uint32_t crc = rio_get_u32(&payload);
			uint32_t want = (uint32_t)crc32_z(0, in->data, at);

			if (payload.failed || length != 4) {
				say(d, "bad end record at byte %zu", at);
				return -1;
			}
			if (crc != want) {
				say(d, "checksum mismatch: the file is damaged "
				    "(stored %08x, computed %08x)", crc, want);
				return -1;
			}
			if (rio_left(in) != 0) {
				say(d, "%zu bytes after the end record", rio_left(in));
				return -1;
			}
			/* a wall profile's file says how it was taken */
			if (d->version >= 2 && d->p->wall == NULL) {
				say(d, "a version 2 file without its wall record");
				return -1;
			}
			return check_totals(d);
		}
		default:
			if (!(flags & PRF_FLAG_OPTIONAL)) {
				say(d, "unknown record type %u at byte %zu", tag, at);
				return -1;
			}
			continue;
		}
		if (rc < 0 || payload.failed) {
			say(d, "%s %s record at byte %zu%s%s",
			    why && strcmp(why, "truncated") != 0 ? "bad" : "truncated",
			    tag_name(tag), at, why && strcmp(why, "truncated") ? ": " : "",
			    why && strcmp(why, "truncated") ? why : "");
			return -1;
		}
		if (rio_left(&payload) != 0) {
			say(d, "bad %s record at byte %zu: %zu bytes left over",
			    tag_name(tag), at, rio_left(&payload));
			return -1;
		}
	}
}

EXPORT struct profil_profile *
profil_profile_parse(const void *data, size_t size, char *cause,
    size_t cause_size)
{
	struct decoder d;

	memset(&d, 0, sizeof d);
	rio_in_init(&d.in, data, size);
	d.cause = cause;
	d.cause_size = cause_size;
	d.p = calloc(1, sizeof *d.p);
	if (d.p == NULL) {
		say(&d, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (decode(&d) < 0) {
		profil_profile_free(d.p);
		errno = EINVAL;
		return NULL;
	}
	return d.p;
}

EXPORT struct profil_profile *
profil_profile_read(const char *path, char *cause, size_t cause_size)
{
	struct profil_profile *p = NULL;
	struct stat st;
	uint8_t *data = NULL;
	size_t got = 0;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		if (cause != NULL && cause_size > 0)
			snprintf(cause, cause_size, "not a regular file");
		close(fd);
		return NULL;
	}
	data = malloc(st.st_size > 0 ? (size_t)st.st_size : 1);
	if (data == NULL)
		goto fail;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	p = profil_profile_parse(data, got, cause, cause_size);
	saved = errno;
	free(data);
	errno = saved;
	return p;
fail:
	saved = errno;
	if (cause != NULL && cause_size > 0)
		snprintf(cause, cause_size, "%s", strerror(saved));
	if (fd >= 0)
		close(fd);
	free(data);
	errno = saved;
	return NULL;
}

/* ---- saving --------------------------------------------------------------- */

EXPORT int
profil_profile_save(const struct profil_profile *p, const char *path,
    char *cause, size_t cause_size)
{
	char *tmp = NULL;
	void *data = NULL;
	size_t size, done = 0;
	int fd = -1, saved, created = 0;

	if (profil_profile_encode(p, &data, &size) < 0)
		goto fail;
	tmp = malloc(strlen(path) + 16);
	if (tmp == NULL)
		goto fail;
	sprintf(tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	created = 1;
	while (done < size) {
		ssize_t n = write(fd, (char *)data + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		done += (size_t)n;
	}
	if (fsync(fd) < 0 || fchmod(fd, 0644) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	/* rename replaces a symlink at path, never what it points to */
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	free(data);
	return 0;
fail:
	saved = errno;
	if (cause != NULL && cause_size > 0)
		snprintf(cause, cause_size, "%s", strerror(saved));
	if (fd >= 0)
		close(fd);
	if (created)
		unlink(tmp);
	free(tmp);
	free(data);
	errno = saved;
	return -1;
}

EXPORT void
profil_profile_free(struct profil_profile *p)
{
	size_t i;

	if (p == NULL)
		return;
	free(p->engine);
	for (i = 0; p->argv != NULL && i < (size_t)p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	for (i = 0; i < p->nobjects; i++) {
		free(p->objects[i].path);
		free(p->objects[i].buckets);
	}
	free(p->objects);
	for (i = 0; i < p->nthreads; i++)
		free(p->threads[i].name);
	free(p->threads);
	for (i = 0; i < p->nprocesses; i++)
		free(p->processes[i].command);
	free(p->processes);
	for (i = 0; i < p->nsymbols; i++)
		free(p->symbols[i].name);
	free(p->symbols);
	for (i = 0; i < p->nstacks; i++)
		free(p->stacks[i].frames);
	free(p->stacks);
	free(p->wall);
	free(p->frames);
	if (p->kernel_code != NULL) {
		free(p->kernel_code->code.path);
		free(p->kernel_code->code.buckets);
		free(p->kernel_code->release);
		free(p->kernel_code);
	}
	free(p);
}
