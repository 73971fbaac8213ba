/*
 * jit-bytes.h - the files the tests of the runtime's files' readers
 * write (tests/unit/test-jitfiles.c, tests/unit/test-jitfollow.c): text
 * written or appended, and jitdump files made byte by byte, a header and
 * records with their total_size filled in, little-endian as the format is
 * (cli/record/jit/jitdump.h).  Needs cmocka (assert_true) included first.
 */
#ifndef PROFIL_TEST_JIT_BYTES_H
#define PROFIL_TEST_JIT_BYTES_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static inline void
write_file(const char *path, const char *text, size_t len, int append)
{
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC),
	    0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static inline void
append(const char *path, const char *text)
{
	write_file(path, text, strlen(text), 1);
}

/* A jitdump file being written by the test. */
struct bytes {
	unsigned char b[1 << 16];
	size_t n;
};

static inline void
put(struct bytes *o, const void *p, size_t n)
{
	assert_true(o->n + n <= sizeof o->b);
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static inline void
put32(struct bytes *o, uint32_t v)
{
	unsigned char b[4] = { v, v >> 8, v >> 16, v >> 24 };

	put(o, b, 4);
}

static inline void
put64(struct bytes *o, uint64_t v)
{
	put32(o, (uint32_t)v);
	put32(o, (uint32_t)(v >> 32));
}

static inline void
put_header(struct bytes *o, uint32_t magic, uint32_t version, uint32_t size)
{
	put32(o, magic);
	put32(o, version);
	put32(o, size);
	put32(o, 62);			/* EM_X86_64 */
	put32(o, 0);
	put32(o, 4242);
	put64(o, 123456789);
	put64(o, 1);
	for (uint32_t i = 40; i < size && i < 4096; i++)
		put(o, "", 1);
}

/* The start of a record; end_record fills in its total_size. */
static inline size_t
begin_record(struct bytes *o, uint32_t id, uint64_t timestamp)
{
	size_t at = o->n;

	put32(o, id);
	put32(o, 0);
	put64(o, timestamp);
	return at;
}

static inline void
end_record(struct bytes *o, size_t at)
{
	uint32_t size = (uint32_t)(o->n - at);

	memcpy(o->b + at + 4, (unsigned char[4]){ size, size >> 8, size >> 16,
	    size >> 24 }, 4);
}

static inline void
put_load(struct bytes *o, const char *name, uint64_t addr, const char *code,
    size_t code_size)
{
	size_t at = begin_record(o, 0, 1000);

	put32(o, 4242);
	put32(o, 4243);
	put64(o, addr);			/* vma */
	put64(o, addr);
	put64(o, code_size);
	put64(o, 7);			/* code_index */
	put(o, name, strlen(name) + 1);
	put(o, code, code_size);
	end_record(o, at);
}

#endif
