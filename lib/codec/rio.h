/*
 * rio.h - the byte streams every file format goes through, so that tests
 * and fuzzers can use memory: a growable output buffer and a bounds-checked
 * input cursor.  Fixed little-endian byte order; LEB128 varints.
 *
 * Errors are sticky: after a failed get or put every later one fails too
 * (a failed get gives 0, zeroed bytes or NULL), so the caller checks the
 * stream's failed flag once, at a convenient point.
 */
#ifndef PROFIL_RIO_H
#define PROFIL_RIO_H

#include <stddef.h>
#include <stdint.h>

struct rio_out {
	uint8_t *data;
	size_t len, cap;
	int failed;		/* out of memory */
};

struct rio_in {
	const uint8_t *data;
	size_t len, pos;
	int failed;		/* read past the end, or a malformed value */
};

void rio_out_init(struct rio_out *out);
void rio_out_free(struct rio_out *out);
void rio_put_bytes(struct rio_out *out, const void *p, size_t n);
void rio_put_u8(struct rio_out *out, uint8_t v);
void rio_put_u16(struct rio_out *out, uint16_t v);
void rio_put_u32(struct rio_out *out, uint32_t v);
void rio_put_u64(struct rio_out *out, uint64_t v);
void rio_put_varint(struct rio_out *out, uint64_t v);
/* A string: u32 length, then the bytes (no NUL). */
void rio_put_str(struct rio_out *out, const char *s);
/* Overwrite a u32 at byte offset at (for lengths known afterwards). */
void rio_patch_u32(struct rio_out *out, size_t at, uint32_t v);

void rio_in_init(struct rio_in *in, const void *data, size_t len);
int rio_get_bytes(struct rio_in *in, void *p, size_t n);
uint8_t rio_get_u8(struct rio_in *in);
uint16_t rio_get_u16(struct rio_in *in);
uint32_t rio_get_u32(struct rio_in *in);
uint64_t rio_get_u64(struct rio_in *in);
uint64_t rio_get_varint(struct rio_in *in);
/* A string of at most max bytes, malloc'd and NUL-terminated; NULL on error. */
char *rio_get_str(struct rio_in *in, size_t max);
static inline size_t rio_left(const struct rio_in *in)
{
	return in->failed ? 0 : in->len - in->pos;
}

#endif
