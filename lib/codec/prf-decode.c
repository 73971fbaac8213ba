/*
 * prf-decode.c - .prf bytes into a profile (profil_profile_parse): the
 * file header, then each record framed in turn (its payload is
 * prf-decode-records.c's), then the end record's checksum and the checks
 * across records (prf-check.c).  The decoder trusts nothing: every length
 * is checked against what is left, and a failure names the record and
 * the byte where it happened.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec/prf.h"
#include "codec/prf-internal.h"

__attribute__((format(printf, 2, 3))) void
prf_say(struct decoder *d, const char *fmt, ...)
{
	va_list ap;

	if (d->cause == NULL || d->cause_size == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(d->cause, d->cause_size, fmt, ap);
	va_end(ap);
}

/* The magic and the version into d: 0, or -1 with the cause said. */
static int
decode_file_header(struct decoder *d)
{
	struct rio_in *in = &d->in;
	uint8_t magic[PRF_MAGIC_LEN];
	uint32_t version;

	if (rio_get_bytes(in, magic, sizeof magic) < 0 ||
	    memcmp(magic, PRF_MAGIC, PRF_MAGIC_LEN) != 0) {
		prf_say(d, "not a profil file (bad magic)");
		return -1;
	}
	version = rio_get_u32(in);
	if (in->failed) {
		prf_say(d, "truncated file header at byte %zu", in->len);
		return -1;
	}
	if (version != PRF_VERSION && version != PRF_VERSION_CPU) {
		prf_say(d, "unsupported version %u (this reader knows %u and %u)",
		    version, PRF_VERSION_CPU, PRF_VERSION);
		return -1;
	}
	d->version = version;
	return 0;
}

/*
 * The next record's frame into r, d->in moved past its payload: 0, or -1
 * with the cause said (a file cut short, a length past its end, flags
 * this reader does not know).
 */
static int
read_record(struct decoder *d, struct prf_record *r)
{
	struct rio_in *in = &d->in;

	r->at = in->pos;
	r->tag = rio_get_u16(in);
	r->flags = rio_get_u16(in);
	r->length = rio_get_u32(in);
	if (in->failed) {
		if (r->at == in->len)
			prf_say(d, "no end record: the file was cut short at "
			    "byte %zu", r->at);
		else
			prf_say(d, "truncated record header at byte %zu", r->at);
		return -1;
	}
	if (r->length > rio_left(in)) {
		prf_say(d, "truncated %s record at byte %zu (%u bytes "
		    "announced, %zu left)", prf_tag_name(r->tag), r->at, r->length,
		    rio_left(in));
		return -1;
	}
	if (r->flags & ~PRF_FLAG_OPTIONAL) {
		prf_say(d, "bad %s record at byte %zu: unknown flags %#x",
		    prf_tag_name(r->tag), r->at, r->flags);
		return -1;
	}
	rio_in_init(&r->payload, in->data + in->pos, r->length);
	in->pos += r->length;
	return 0;
}

/*
 * The end record r: its checksum over every byte before it, nothing
 * after it, then what must agree across records.  0, or -1 with the
 * cause said.
 */
static int
decode_end(struct decoder *d, struct prf_record *r)
{
	struct rio_in *in = &d->in;
	uint32_t crc = rio_get_u32(&r->payload);
	uint32_t want = (uint32_t)crc32_z(0, in->data, r->at);

	if (r->payload.failed || r->length != 4) {
		prf_say(d, "bad end record at byte %zu", r->at);
		return -1;
	}
	if (crc != want) {
		prf_say(d, "checksum mismatch: the file is damaged "
		    "(stored %08x, computed %08x)", crc, want);
		return -1;
	}
	if (rio_left(in) != 0) {
		prf_say(d, "%zu bytes after the end record", rio_left(in));
		return -1;
	}
	/* a wall profile's file says how it was taken */
	if (d->version >= 2 && d->p->wall == NULL) {
		prf_say(d, "a version 2 file without its wall record");
		return -1;
	}
	return prf_check_totals(d);
}

/* The whole file into d->p: 0, or -1 with the cause said. */
static int
decode(struct decoder *d)
{
	if (decode_file_header(d) < 0)
		return -1;
	for (;;) {
		struct prf_record r;

		if (read_record(d, &r) < 0)
			return -1;
		if (!d->seen_header && r.tag != PRF_TAG_HEADER) {
			prf_say(d, "the first record (byte %zu) is not the header",
			    r.at);
			return -1;
		}
		if (r.tag == PRF_TAG_END)
			return decode_end(d, &r);
		if (prf_decode_record(d, &r) < 0)
			return -1;
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
		prf_say(&d, "out of memory");
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
