/*
 * pbuf.c - the Protocol Buffers wire format, write side (see pbuf.h for
 * the rules).  Every field goes through put_key: the wire type in the
 * key must match how the value is written, or readers lose their place.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pbuf.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void
reserve(struct pbuf *b, size_t more)
{
	size_t need = b->len + more;

	if (need < b->len)
		cli_die(1, "out of memory");
	if (need <= b->cap)
		return;
	b->cap = b->cap < 128 ? 256 : b->cap * 2;
	if (b->cap < need)
		b->cap = need;
	b->data = xrealloc(b->data, b->cap);
}

static void
put_varint(struct pbuf *b, uint64_t v)
{
	reserve(b, 10);
	while (v >= 0x80) {
		b->data[b->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (unsigned char)v;
}

static void
put_raw(struct pbuf *b, const void *data, size_t len)
{
	reserve(b, len);
	if (len > 0)
		memcpy(b->data + b->len, data, len);
	b->len += len;
}

static size_t
varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void
put_key(struct pbuf *b, unsigned field, unsigned wire)
{
	put_varint(b, (uint64_t)field << 3 | wire);
}

void
pbuf_free(struct pbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

void
pbuf_reset(struct pbuf *b)
{
	b->len = 0;
}

void
pbuf_uint(struct pbuf *b, unsigned field, uint64_t value)
{
	put_key(b, field, WIRE_VARINT);
	put_varint(b, value);
}

void
pbuf_int(struct pbuf *b, unsigned field, int64_t value)
{
	pbuf_uint(b, field, (uint64_t)value);	/* two's complement */
}

void
pbuf_bytes(struct pbuf *b, unsigned field, const void *data, size_t len)
{
	put_key(b, field, WIRE_LEN);
	put_varint(b, len);
	put_raw(b, data, len);
}

void
pbuf_string(struct pbuf *b, unsigned field, const char *s)
{
	pbuf_bytes(b, field, s, strlen(s));
}

void
pbuf_message(struct pbuf *b, unsigned field, const struct pbuf *msg)
{
	pbuf_bytes(b, field, msg->data, msg->len);
}

void
pbuf_append(struct pbuf *b, const struct pbuf *more)
{
	put_raw(b, more->data, more->len);
}

void
pbuf_packed(struct pbuf *b, unsigned field, const uint64_t *values, size_t n)
{
	size_t len = 0, i;

	if (n == 0)
		return;
	for (i = 0; i < n; i++)
		len += varint_size(values[i]);
	put_key(b, field, WIRE_LEN);
	put_varint(b, len);
	for (i = 0; i < n; i++)
		put_varint(b, values[i]);
}
