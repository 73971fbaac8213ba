/*
 * jitdump.c - the jitdump file a JIT runtime writes (jitdump.h): records
 * parsed as if anything could be in them (fuzz/fuzz-jitdump.c), and the
 * file followed as it grows.  Every length is checked against what is
 * left of its record before anything it counts is touched, by subtracting
 * from what is left, never by adding to an offset: the lengths are the
 * file's, up to 2^64 - 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "jitdump.h"
#include "jitfile.h"

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

static uint32_t
jd_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
jd_u64(const unsigned char *p)
{
	return jd_u32(p) | (uint64_t)jd_u32(p + 4) << 32;
}

int
jitdump_header(const unsigned char *buf, size_t len,
    struct jitdump_header *h, size_t *header_size)
{
	uint32_t size;

	if (len >= 4 && jd_u32(buf) != JITDUMP_MAGIC)
		return -1;
	if (len >= 8 && jd_u32(buf + 4) != 1)
		return -1;
	if (len < 12)
		return 0;
	size = jd_u32(buf + 8);
	if (size < JITDUMP_HEADER_MIN || size > 4096)
		return -1;
	if (len < size)
		return 0;
	h->version = jd_u32(buf + 4);
	h->elf_mach = jd_u32(buf + 12);
	h->pid = jd_u32(buf + 20);
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
	l.pid = jd_u32(r + 16);
	l.tid = jd_u32(r + 20);
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
	m.pid = jd_u32(r + 16);
	m.tid = jd_u32(r + 20);
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
		lines[i].line = jd_u32(p + 8);
		lines[i].discrim = jd_u32(p + 12);
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
		uint32_t id = jd_u32(r), size = jd_u32(r + 4);
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

/* Bytes read at a time, after what is held. */
#define JITDUMP_CHUNK	65536

struct jitdump_file {
	char *path;
	jitfile_judge *judge;	/* may the file be read (NULL: yes) */
	void *judge_arg;
	int fd;			/* -1 until the file is there */
	struct stat st;		/* the file open, as last seen */
	off_t offset;		/* the bytes of the file read so far */
	struct jitfile_mark mark;	/* the last of them */
	/*
	 * What was read and not consumed: the header, or a record not
	 * wholly written yet (at most JITDUMP_RECORD_MAX bytes); cap bytes
	 * allocated.
	 */
	unsigned char *buf;
	size_t held, cap;
	int have_header;
	struct jitdump_header header;
	const char *problem;	/* NULL, or why: then nothing more is read */
	char why[128];
	unsigned long bad;
	unsigned restarts;	/* times the file was cut and read again */
};

struct jitdump_file *
jitdump_open(const char *path, jitfile_judge *judge, void *judge_arg)
{
	struct jitdump_file *f = xcalloc(1, sizeof *f);

	f->path = xstrdup(path);
	f->judge = judge;
	f->judge_arg = judge_arg;
	f->fd = -1;
	return f;
}

void
jitdump_close(struct jitdump_file *f)
{
	if (f == NULL)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
	free(f->path);
	free(f);
}

__attribute__((format(printf, 2, 3))) static int
jd_refuse(struct jitdump_file *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->why, sizeof f->why, fmt, ap);
	va_end(ap);
	f->problem = f->why;
	return -1;
}

/*
 * Why jitdump_header refused the bytes at b: it looks at a field only
 * when there are bytes of it, and only when those before it were right.
 */
static int
jd_refuse_header(struct jitdump_file *f, const unsigned char *b)
{
	if (jd_u32(b) == __builtin_bswap32(JITDUMP_MAGIC))
		return jd_refuse(f, "a jitdump file of the other byte order");
	if (jd_u32(b) != JITDUMP_MAGIC)
		return jd_refuse(f, "not a jitdump file (bad magic)");
	if (jd_u32(b + 4) != 1)
		return jd_refuse(f, "jitdump version %u, not 1", jd_u32(b + 4));
	return jd_refuse(f, "a jitdump header of %u bytes", jd_u32(b + 8));
}

/* The records of jitdump_read's call, counted on their way through. */
struct jd_count {
	const struct jitdump_ops *ops;
	void *arg;
	int n;
};

static void
jd_counted(struct jd_count *c)
{
	if (c->n < INT_MAX)
		c->n++;
}

static void
jd_count_load(const struct jitdump_load *l, void *arg)
{
	struct jd_count *c = arg;

	if (c->ops->load != NULL)
		c->ops->load(l, c->arg);
	jd_counted(c);
}

static void
jd_count_move(const struct jitdump_move *m, void *arg)
{
	struct jd_count *c = arg;

	if (c->ops->move != NULL)
		c->ops->move(m, c->arg);
	jd_counted(c);
}

static void
jd_count_debug(const struct jitdump_debug *d, void *arg)
{
	struct jd_count *c = arg;

	if (c->ops->debug != NULL)
		c->ops->debug(d, c->arg);
	jd_counted(c);
}

static void
jd_count_unwind(const struct jitdump_unwind *u, void *arg)
{
	struct jd_count *c = arg;

	if (c->ops->unwind != NULL)
		c->ops->unwind(u, c->arg);
	jd_counted(c);
}

static void
jd_count_close(uint64_t timestamp, void *arg)
{
	struct jd_count *c = arg;

	if (c->ops->close != NULL)
		c->ops->close(timestamp, c->arg);
	jd_counted(c);
}

static const struct jitdump_ops jd_counting = {
	jd_count_load, jd_count_move, jd_count_debug, jd_count_unwind,
	jd_count_close
};

/*
 * Hand over what is held: the header first, then the whole records.
 * What is left is the start of a record, held for the next read; one
 * longer than JITDUMP_RECORD_MAX is counted bad and skipped in the file
 * unread.  -1 when the file is refused.
 */
static int
jd_take(struct jitdump_file *f, struct jd_count *c)
{
	size_t at = 0, left;
	int broken = 0;

	if (!f->have_header) {
		switch (jitdump_header(f->buf, f->held, &f->header, &at)) {
		case 0:
			return 0;
		case -1:
			return jd_refuse_header(f, f->buf);
		}
		f->have_header = 1;
	}
	at += jitdump_parse(f->buf + at, f->held - at, &jd_counting, c,
	    &f->bad, &broken);
	left = f->held - at;
	if (broken)
		return jd_refuse(f, "a record of %u bytes (below 16) at byte "
		    "%lld: the rest of the file is lost",
		    jd_u32(f->buf + at + 4), (long long)(f->offset - (off_t)left));
	if (left >= 8 && jd_u32(f->buf + at + 4) > JITDUMP_RECORD_MAX) {
		/* past what is held: the record is longer than left */
		f->offset += jd_u32(f->buf + at + 4) - left;
		f->bad++;
		at = f->held;
		left = 0;
	}
	memmove(f->buf, f->buf + at, left);
	f->held = left;
	return 0;
}

/*
 * Room after what is held for the next read: a chunk, or the rest of the
 * record begun if it is longer.  A buffer grown for a long record goes
 * back to a chunk's size once that record is consumed.
 */
static size_t
jd_room(struct jitdump_file *f)
{
	size_t want = JITDUMP_CHUNK;

	if (f->have_header && f->held >= 8) {
		size_t size = jd_u32(f->buf + 4);

		if (size > f->held && size - f->held > want)
			want = size - f->held;
	}
	if (f->cap < f->held + want || f->cap / 4 > f->held + want) {
		f->cap = f->held + want;
		f->buf = xrealloc(f->buf, f->cap);
	}
	return f->cap - f->held;
}

/*
 * Have f->fd open on the file, judged: 1 something new to read, 2 not
 * changed since the last read, 0 no file yet, -1 refused (f->problem).
 * A file cut shorter than was read, or written again in place, is read
 * again from its start (its header again).
 */
static int
jd_sync(struct jitdump_file *f)
{
	struct stat st;

	if (f->fd < 0) {
		int fd = jitfile_open(f->path, &st);

		if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
			return 0;
		if (fd < 0)
			return jd_refuse(f, "not read: %s", jitfile_why(errno));
		if (f->judge != NULL && !f->judge(f->path, &st, f->judge_arg)) {
			close(fd);
			f->problem = "";	/* the judge said why */
			return -1;
		}
		f->fd = fd;
		f->st = st;
		return 1;
	}
	if (fstat(f->fd, &st) < 0)
		return jd_refuse(f, "cannot read: %s", strerror(errno));
	if (jitfile_same(&f->st, &st))
		return 2;
	f->st = st;
	/* (the offset may be past the end: a long record skipped unread) */
	if (st.st_size < f->mark.end || jitfile_marked(f->fd, &f->mark) == 0) {
		f->offset = 0;
		f->held = 0;
		f->have_header = 0;
		f->mark.n = 0;
		f->restarts++;
	}
	return 1;
}

int
jitdump_read(struct jitdump_file *f, size_t budget,
    const struct jitdump_ops *ops, void *arg)
{
	struct jd_count c = { ops, arg, 0 };
	size_t taken = 0;
	int r;

	if (f->problem != NULL)
		return 0;	/* said once already */
	if ((r = jd_sync(f)) < 0)
		return -1;
	if (r != 1)
		return 0;
	while (taken < budget) {
		size_t room = jd_room(f);
		ssize_t got = pread(f->fd, f->buf + f->held, room, f->offset);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return jd_refuse(f, "cannot read: %s", strerror(errno));
		if (got == 0)
			break;
		f->offset += got;
		f->held += (size_t)got;
		taken += (size_t)got;
		jitfile_mark(&f->mark, f->buf, f->held, f->offset);
		if (jd_take(f, &c) < 0)
			return -1;
	}
	if (taken >= budget)
		f->st.st_size = -1;	/* more to read next time */
	return c.n;
}

const char *
jitdump_problem(const struct jitdump_file *f)
{
	return f->problem;
}

unsigned long
jitdump_bad(const struct jitdump_file *f)
{
	return f->bad;
}

unsigned
jitdump_restarts(const struct jitdump_file *f)
{
	return f->restarts;
}

const struct jitdump_header *
jitdump_header_of(const struct jitdump_file *f)
{
	return f->have_header ? &f->header : NULL;
}
