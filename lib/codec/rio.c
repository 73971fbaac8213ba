/*
 * rio.c - byte streams over memory (see rio.h).  Invariant: an input
 * cursor never reads outside [data, data + len), whatever it is fed.
 */
#include <stdlib.h>
#include <string.h>

#include "codec/rio.h"

void
rio_out_init(struct rio_out *out)
{
	memset(out, 0, sizeof *out);
}

void
rio_out_free(struct rio_out *out)
{
	free(out->data);
	memset(out, 0, sizeof *out);
}

void
rio_put_bytes(struct rio_out *out, const void *p, size_t n)
{
	if (out->failed || n == 0)
		return;
	if (out->cap - out->len < n) {
		size_t cap = out->cap ? out->cap : 4096;
		uint8_t *grown;

		while (cap - out->len < n) {
			if (cap > SIZE_MAX / 2) {
				out->failed = 1;
				return;
			}
			cap *= 2;
		}
		grown = realloc(out->data, cap);
		if (grown == NULL) {
			out->failed = 1;
			return;
		}
		out->data = grown;
		out->cap = cap;
	}
	memcpy(out->data + out->len, p, n);
	out->len += n;
}

static void
put_le(struct rio_out *out, uint64_t v, int bytes)
{
	uint8_t b[8];

	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	rio_put_bytes(out, b, (size_t)bytes);
}

void rio_put_u8(struct rio_out *out, uint8_t v) { put_le(out, v, 1); }
void rio_put_u16(struct rio_out *out, uint16_t v) { put_le(out, v, 2); }
void rio_put_u32(struct rio_out *out, uint32_t v) { put_le(out, v, 4); }
void rio_put_u64(struct rio_out *out, uint64_t v) { put_le(out, v, 8); }

void
rio_put_varint(struct rio_out *out, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	do {
		b[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v != 0)
			b[n] |= 0x80;
		n++;
	} while (v != 0);
	rio_put_bytes(out, b, n);
}

void
rio_put_str(struct rio_out *out, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > UINT32_MAX) {
		out->failed = 1;
		return;
	}
	rio_put_u32(out, (uint32_t)n);
	rio_put_bytes(out, s, n);
}

void
rio_patch_u32(struct rio_out *out, size_t at, uint32_t v)
{
	if (out->failed || at > out->len || out->len - at < 4)
		return;
	for (int i = 0; i < 4; i++)
		out->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

void
rio_in_init(struct rio_in *in, const void *data, size_t len)
{
	in->data = data;
	in->len = data ? len : 0;
	in->pos = 0;
	in->failed = 0;
}

int
rio_get_bytes(struct rio_in *in, void *p, size_t n)
{
	if (in->failed || in->len - in->pos < n) {
		in->failed = 1;
		if (p != NULL && n > 0)
			memset(p, 0, n);
		return -1;
	}
	if (p != NULL && n > 0)
		memcpy(p, in->data + in->pos, n);
	in->pos += n;
	return 0;
}

static uint64_t
get_le(struct rio_in *in, int bytes)
{
	uint8_t b[8];
	uint64_t v = 0;

	if (rio_get_bytes(in, b, (size_t)bytes) < 0)
		return 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

uint8_t rio_get_u8(struct rio_in *in) { return (uint8_t)get_le(in, 1); }
uint16_t rio_get_u16(struct rio_in *in) { return (uint16_t)get_le(in, 2); }
uint32_t rio_get_u32(struct rio_in *in) { return (uint32_t)get_le(in, 4); }
uint64_t rio_get_u64(struct rio_in *in) { return get_le(in, 8); }

uint64_t
rio_get_varint(struct rio_in *in)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		uint8_t b = rio_get_u8(in);

		if (in->failed)
			return 0;
		if (shift == 63 && (b & 0x7e) != 0)
			break;		/* more than 64 bits */
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	in->failed = 1;
	return 0;
}

char *
rio_get_str(struct rio_in *in, size_t max)
{
	uint32_t n = rio_get_u32(in);
	char *s;

	if (in->failed || n > max || rio_left(in) < n) {
		in->failed = 1;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (s == NULL) {
		in->failed = 1;
		return NULL;
	}
	rio_get_bytes(in, s, n);
	s[n] = '\0';
	if (memchr(s, '\0', n) != NULL) {	/* embedded NUL: malformed */
		free(s);
		in->failed = 1;
		return NULL;
	}
	return s;
}
