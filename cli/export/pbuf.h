/*
 * pbuf.h - a write-only Protocol Buffers encoder into a growing memory
 * buffer: what profile.proto needs (varint and length-delimited fields,
 * packed repeated integers, nested messages), nothing else.
 *
 * Why not a library: Debian's C one, protobuf-c (libprotobuf-c-dev), wants
 * .proto files compiled by protoc-c into generated code, a build step and
 * a runtime library, all to write one message type; the part of the wire
 * format needed here is a handful of rules:
 *   varint: 7 bits a byte, least significant first, high bit = more;
 *   field:  key varint (field << 3 | wire type), then the value;
 *   wire type 0 = varint, 2 = length-delimited (varint length, bytes);
 *   int64 is the varint of its two's complement (10 bytes if negative);
 *   a packed repeated integer field is one length-delimited field whose
 *   bytes are the varints one after the other.
 */
#ifndef PROFIL_PBUF_H
#define PROFIL_PBUF_H

#include <stddef.h>
#include <stdint.h>

/* Zero-initialise; free with pbuf_free.  Allocation exits on failure. */
struct pbuf {
	unsigned char *data;
	size_t len, cap;
};

void pbuf_free(struct pbuf *b);
/* Empty b, keeping its memory for the next message. */
void pbuf_reset(struct pbuf *b);

/* A varint field (uint64, int64, bool, enum), written even when 0. */
void pbuf_uint(struct pbuf *b, unsigned field, uint64_t value);
void pbuf_int(struct pbuf *b, unsigned field, int64_t value);

/* A length-delimited field: bytes, a string, an encoded message. */
void pbuf_bytes(struct pbuf *b, unsigned field, const void *data, size_t len);
void pbuf_string(struct pbuf *b, unsigned field, const char *s);
void pbuf_message(struct pbuf *b, unsigned field, const struct pbuf *msg);

/* The fields already encoded in more, appended as they are. */
void pbuf_append(struct pbuf *b, const struct pbuf *more);

/* A packed repeated integer field; nothing at all when n is 0. */
void pbuf_packed(struct pbuf *b, unsigned field, const uint64_t *values,
    size_t n);

#endif
