/*
 * prf-decode-records.c - each record's payload into the profile being
 * parsed: the header, objects, threads, processes, kernel, symbols,
 * weights, refused and wall records here, the stacks, lines and fp frames
 * records handed to theirs.  A payload is read only within its length
 * (prf-decode.c framed it), and a refusal says why and where.
 */
#include <stdlib.h>
#include <string.h>

#include "codec/prf.h"
#include "codec/prf-internal.h"

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

/* Records the recorder refused (written only when there were some). */
static int
decode_refused(struct decoder *d, struct rio_in *in, int *seen,
    const char **why)
{
	if (*seen)
		return *why = "a second refused record", -1;
	*seen = 1;
	d->p->refused = rio_get_u64(in);
	if (in->failed)
		return *why = "truncated", -1;
	if (d->p->refused == 0)
		return *why = "none refused", -1;
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

const char *
prf_tag_name(unsigned tag)
{
	switch (tag) {
	case PRF_TAG_HEADER: return "header";
	case PRF_TAG_OBJECT: return "object";
	case PRF_TAG_THREAD: return "thread";
	case PRF_TAG_PROCESS: return "process";
	case PRF_TAG_KERNEL: return "kernel";
	case PRF_TAG_SYMBOLS: return "symbols";
	case PRF_TAG_LINES: return "lines";
	case PRF_TAG_FP_FRAMES: return "fp frames";
	case PRF_TAG_STACKS: return "stacks";
	case PRF_TAG_WEIGHTS: return "weights";
	case PRF_TAG_WALL: return "wall";
	case PRF_TAG_REFUSED: return "refused";
	case PRF_TAG_TIMELINE: return "timeline";
	case PRF_TAG_END: return "end";
	}
	return "unknown";
}

int
prf_decode_record(struct decoder *d, struct prf_record *r)
{
	struct rio_in *payload = &r->payload;
	const char *why = NULL;
	int rc = 0;

	switch (r->tag) {
	case PRF_TAG_HEADER:
		if (d->seen_header) {
			prf_say(d, "second header record at byte %zu", r->at);
			return -1;
		}
		d->seen_header = 1;
		rc = decode_header(d, payload, &why);
		break;
	case PRF_TAG_OBJECT:
		rc = decode_object(d, payload, &why);
		break;
	case PRF_TAG_THREAD:
		rc = decode_thread(d, payload);
		break;
	case PRF_TAG_PROCESS:
		rc = decode_process(d, payload);
		break;
	case PRF_TAG_KERNEL:
		rc = decode_kernel(d, payload, &why);
		break;
	case PRF_TAG_SYMBOLS:
		rc = decode_symbols(d, payload, &why);
		break;
	case PRF_TAG_STACKS:
		rc = prf_decode_stacks(d, payload, &why);
		break;
	case PRF_TAG_LINES:
		rc = prf_decode_lines(d, payload, &why);
		break;
	case PRF_TAG_FP_FRAMES:
		rc = prf_decode_fp_frames(d, payload, &why);
		break;
	case PRF_TAG_WEIGHTS:
		rc = decode_weights(d, payload, &d->seen_weights, &why);
		break;
	case PRF_TAG_WALL:
		rc = decode_wall(d, payload, &why);
		break;
	case PRF_TAG_REFUSED:
		rc = decode_refused(d, payload, &d->seen_refused, &why);
		break;
	case PRF_TAG_TIMELINE:
		rc = prf_decode_timeline(d, payload, &why);
		break;
	default:
		if (!(r->flags & PRF_FLAG_OPTIONAL)) {
			prf_say(d, "unknown record type %u at byte %zu", r->tag,
			    r->at);
			return -1;
		}
		return 0;
	}
	if (rc < 0 || payload->failed) {
		prf_say(d, "%s %s record at byte %zu%s%s",
		    why && strcmp(why, "truncated") != 0 ? "bad" : "truncated",
		    prf_tag_name(r->tag), r->at,
		    why && strcmp(why, "truncated") ? ": " : "",
		    why && strcmp(why, "truncated") ? why : "");
		return -1;
	}
	if (rio_left(payload) != 0) {
		prf_say(d, "bad %s record at byte %zu: %zu bytes left over",
		    prf_tag_name(r->tag), r->at, rio_left(payload));
		return -1;
	}
	return 0;
}
