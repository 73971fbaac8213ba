/*
 * jitdump-follow.c - a jitdump file followed as its runtime writes it
 * (jitdump.h): opened as an untrusted file (jitfile.h), read as it grows,
 * what is wholly written handed over once, a file cut and written again
 * read anew; its header and records are jitdump.c's to parse.
 *
 * Invariant: at most one record not wholly written (JITDUMP_RECORD_MAX
 * bytes) is held between two reads.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jitdump.h"

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

/* Why jitdump_header refused the bytes at b (jitdump_header_why). */
static int
jd_refuse_header(struct jitdump_file *f, const unsigned char *b)
{
	jitdump_header_why(b, f->why, sizeof f->why);
	f->problem = f->why;
	return -1;
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
		    jitdump_u32(f->buf + at + 4), (long long)(f->offset - (off_t)left));
	if (left >= 8 && jitdump_u32(f->buf + at + 4) > JITDUMP_RECORD_MAX) {
		/* past what is held: the record is longer than left */
		f->offset += jitdump_u32(f->buf + at + 4) - left;
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
		size_t size = jitdump_u32(f->buf + 4);

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
