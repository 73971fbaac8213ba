/*
 * jitdump.c - the jitdump file a JIT runtime writes (jitdump.h): its
 * header and records parsed as if anything could be in them
 * (fuzz/fuzz-jitdump.c); the file followed as it grows is
 * jitdump-follow.c's.  Every length is checked against what is left of
 * its record before anything it counts is touched, by subtracting from
 * what is left, never by adding to an offset: the lengths are the
 * file's, up to 2^64 - 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jitdump.h"

/*
 * The fixed parts, by record:
 *
 *     prefix      id 0, total_size 4, timestamp 8                  16
 *     CODE_LOAD   pid 16, tid 20, vma 24, code_addr 32,
 *                 code_size 40, code_index 48, name 56 ...          56
 *     CODE_MOVE   pid 16, tid 20, vma 24, old 32, new 40,
 *                 code_size 48, code_index 56                       64
 *     DEBUG_INFO  code_addr 16, nr_entry 24, entries 32 ...         32
 *       entry     addr 0, line 8, discrim 12, file 16 ...           16
 *     UNWINDING   unwinding_size 16, eh_frame_hdr_size 24,
 *                 mapped_size 32, data 40 ...                       40
 */
enum {
	JD_PREFIX = 16, JD_LOAD = 56, JD_MOVE = 64, JD_DEBUG = 32,
	JD_ENTRY = 16, JD_UNWIND = 40
};
enum { JD_CODE_LOAD, JD_CODE_MOVE, JD_DEBUG_INFO, JD_CODE_CLOSE,
	JD_UNWINDING_INFO };

static uint64_t
jd_u64(const unsigned char *p)
{
	return jitdump_u32(p) | (uint64_t)jitdump_u32(p + 4) << 32;
}

int
jitdump_header(const unsigned char *buf, size_t len,
    struct jitdump_header *h, size_t *header_size)
{
	uint32_t size;

	if (len >= 4 && jitdump_u32(buf) != JITDUMP_MAGIC)
		return -1;
	if (len >= 8 && jitdump_u32(buf + 4) != 1)
		return -1;
	if (len < 12)
		return 0;
	size = jitdump_u32(buf + 8);
	if (size < JITDUMP_HEADER_MIN || size > 4096)
		return -1;
	if (len < size)
		return 0;
	h->version = jitdump_u32(buf + 4);
	h->elf_mach = jitdump_u32(buf + 12);
	h->pid = jitdump_u32(buf + 20);
	h->timestamp = jd_u64(buf + 24);
	h->flags = jd_u64(buf + 32);
	if (header_size != NULL)
		*header_size = size;
	return 1;
}

/* Each record's reader: 1 if it was handed over, 0 if it is bad. */
static int
jd_load(const unsigned char *r, size_t size, const struct jitdump_ops *ops,
    void *arg)
{
	const unsigned char *name = r + JD_LOAD, *nul;
	struct jitdump_load l;
	size_t room, left;

	if (size < JD_LOAD + 2)		/* a NUL, a byte of code */
		return 0;
	room = size - JD_LOAD;
	nul = memchr(name, '\0', room < JITDUMP_NAME_MAX + 1 ? room :
	    JITDUMP_NAME_MAX + 1);
	if (nul == NULL)
		return 0;
	left = room - (size_t)(nul - name) - 1;
	l.code_size = jd_u64(r + 40);
	if (l.code_size == 0 || l.code_size != left)
		return 0;
	l.timestamp = jd_u64(r + 8);
	l.pid = jitdump_u32(r + 16);
	l.tid = jitdump_u32(r + 20);
	l.vma = jd_u64(r + 24);
	l.code_addr = jd_u64(r + 32);
	l.code_index = jd_u64(r + 48);
	l.name = (const char *)name;
	l.code = nul + 1;
	if (ops->load != NULL)
		ops->load(&l, arg);
	return 1;
}

static int
jd_move(const unsigned char *r, size_t size, const struct jitdump_ops *ops,
    void *arg)
{
	struct jitdump_move m;

	if (size < JD_MOVE)
		return 0;
	m.timestamp = jd_u64(r + 8);
	m.pid = jitdump_u32(r + 16);
	m.tid = jitdump_u32(r + 20);
	m.vma = jd_u64(r + 24);
	m.old_code_addr = jd_u64(r + 32);
	m.new_code_addr = jd_u64(r + 40);
	m.code_size = jd_u64(r + 48);
	m.code_index = jd_u64(r + 56);
	if (ops->move != NULL)
		ops->move(&m, arg);
	return 1;
}

/*
 * The entries follow one another (a file name each, so no entry is
 * shorter than 17 bytes); what is after the last is padding.
 */
static int
jd_debug(const unsigned char *r, size_t size, const struct jitdump_ops *ops,
    void *arg)
{
	const unsigned char *p = r + JD_DEBUG, *end = r + size;
	struct jitdump_line *lines;
	struct jitdump_debug d;
	uint64_t nr;

	if (size < JD_DEBUG)
		return 0;
	nr = jd_u64(r + 24);
	if (nr > (size - JD_DEBUG) / (JD_ENTRY + 1))
		return 0;
	lines = xcalloc(nr > 0 ? (size_t)nr : 1, sizeof *lines);
	for (size_t i = 0; i < nr; i++) {
		const unsigned char *file, *nul;

		if ((size_t)(end - p) < JD_ENTRY + 1)
			goto bad;
		file = p + JD_ENTRY;
		nul = memchr(file, '\0', (size_t)(end - file));
		if (nul == NULL)
			goto bad;
		lines[i].addr = jd_u64(p);
		lines[i].line = jitdump_u32(p + 8);
		lines[i].discrim = jitdump_u32(p + 12);
		if (nul - file == 1 && file[0] == 0xff) {
			/* the file of the entry before, which the first lacks */
			if (i == 0)
				goto bad;
			lines[i].file = lines[i - 1].file;
		} else
			lines[i].file = (const char *)file;
		p = nul + 1;
	}
	d.timestamp = jd_u64(r + 8);
	d.code_addr = jd_u64(r + 16);
	d.n = (size_t)nr;
	d.lines = lines;
	if (ops->debug != NULL)
		ops->debug(&d, arg);
	free(lines);
	return 1;
bad:
	free(lines);
	return 0;
}

/*
 *     40        unwinding_size                                 size
 *     | eh_frame             | eh_frame_hdr       | padding     |
 *                             <- eh_frame_hdr_size ->
 */
static int
jd_unwind(const unsigned char *r, size_t size, const struct jitdump_ops *ops,
    void *arg)
{
	struct jitdump_unwind u;
	uint64_t unwinding_size;

	if (size < JD_UNWIND)
		return 0;
	unwinding_size = jd_u64(r + 16);
	u.eh_frame_hdr_size = jd_u64(r + 24);
	if (unwinding_size > size - JD_UNWIND ||
	    u.eh_frame_hdr_size > unwinding_size)
		return 0;
	u.timestamp = jd_u64(r + 8);
	u.mapped_size = jd_u64(r + 32);
	u.eh_frame = r + JD_UNWIND;
	u.eh_frame_size = (size_t)(unwinding_size - u.eh_frame_hdr_size);
	u.eh_frame_hdr = u.eh_frame + u.eh_frame_size;
	u.hdr_size = (size_t)u.eh_frame_hdr_size;
	if (ops->unwind != NULL)
		ops->unwind(&u, arg);
	return 1;
}

size_t
jitdump_parse(const unsigned char *buf, size_t len,
    const struct jitdump_ops *ops, void *arg, unsigned long *bad,
    int *broken)
{
	size_t at = 0;

	while (len - at >= 8) {
		const unsigned char *r = buf + at;
		uint32_t id = jitdump_u32(r), size = jitdump_u32(r + 4);
		int ok = 1;

		if (size < JD_PREFIX) {
			if (broken != NULL)
				*broken = 1;
			break;
		}
		if (size > len - at)
			break;
		switch (id) {
		case JD_CODE_LOAD:
			ok = jd_load(r, size, ops, arg);
			break;
		case JD_CODE_MOVE:
			ok = jd_move(r, size, ops, arg);
			break;
		case JD_DEBUG_INFO:
			ok = jd_debug(r, size, ops, arg);
			break;
		case JD_CODE_CLOSE:
			if (ops->close != NULL)
				ops->close(jd_u64(r + 8), arg);
			break;
		case JD_UNWINDING_INFO:
			ok = jd_unwind(r, size, ops, arg);
			break;
		}
		if (!ok && bad != NULL)
			(*bad)++;
		at += size;
	}
	return at;
}

void
jitdump_header_why(const unsigned char *b, char *why, size_t size)
{
	if (jitdump_u32(b) == __builtin_bswap32(JITDUMP_MAGIC))
		snprintf(why, size, "a jitdump file of the other byte order");
	else if (jitdump_u32(b) != JITDUMP_MAGIC)
		snprintf(why, size, "not a jitdump file (bad magic)");
	else if (jitdump_u32(b + 4) != 1)
		snprintf(why, size, "jitdump version %u, not 1", jitdump_u32(b + 4));
	else
		snprintf(why, size, "a jitdump header of %u bytes",
		    jitdump_u32(b + 8));
}
