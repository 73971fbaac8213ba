/*
 * perfmap.c - the perf map a JIT runtime writes (perfmap.h): its lines
 * parsed as if anything could be in them (fuzz/fuzz-perfmap.c), and the
 * file followed as it grows.  What comes out is a range that does not
 * wrap, named by bytes of its own line; between reads the follower holds
 * at most PERFMAP_LINE_MAX bytes, however long a line is.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "jitfile.h"
#include "perfmap.h"

/* Bytes read at a time, after the unfinished line the follower holds. */
#define PERFMAP_CHUNK	65536

struct perfmap_file {
	char *path;
	jitfile_judge *judge;	/* may the file be read (NULL: yes) */
	void *judge_arg;
	int fd;			/* -1 until a file is there, and judged */
	struct stat st;		/* the file open, as last seen */
	struct stat refused;	/* a file the judge refused (st_ino 0: none) */
	off_t offset;		/* the bytes of the file read so far */
	struct jitfile_mark mark;	/* the last of them */
	/*
	 * PERFMAP_LINE_MAX + PERFMAP_CHUNK bytes: the unfinished line of
	 * the last read (held bytes, at most PERFMAP_LINE_MAX), then what
	 * the next read brings.
	 */
	char *buf;
	size_t held;
	int skipping;		/* in a line counted too long, to its newline */
	unsigned long bad;
	int replaced;
};

static int
perfmap_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The hexadecimal number at *p (an optional 0x or 0X first), before end:
 * 1 with *v and *p moved past it, 0 if there is no digit or it needs
 * more than 64 bits.
 */
static int
perfmap_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p, *digits;
	uint64_t n = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (digits = s; s < end; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			d = (unsigned)((*s | 0x20) - 'a' + 10);
		else
			break;
		if (n >> 60 != 0)
			return 0;
		n = n << 4 | d;
	}
	if (s == digits)
		return 0;
	*v = n;
	*p = s;
	return 1;
}

/*
 * One line, s[0..n) without its newline: 1 with *e filled, 0 if it is
 * bad, -1 if it is empty (nothing, or only the '\r' of a CRLF ending).
 * Blanks before START are let pass; those after NAME are NAME's.
 */
static int
perfmap_line(const char *s, size_t n, struct perfmap_entry *e)
{
	const char *p = s, *end;

	if (n > PERFMAP_LINE_MAX)
		return 0;
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (n == 0)
		return -1;
	if (memchr(s, '\0', n) != NULL)
		return 0;
	end = s + n;
	while (p < end && perfmap_blank(*p))
		p++;
	if (!perfmap_hex(&p, end, &e->start) || p == end || !perfmap_blank(*p))
		return 0;
	while (p < end && perfmap_blank(*p))
		p++;
	if (!perfmap_hex(&p, end, &e->size) || p == end || !perfmap_blank(*p))
		return 0;
	while (p < end && perfmap_blank(*p))
		p++;
	if (p == end || e->size == 0 || e->size > UINT64_MAX - e->start)
		return 0;
	e->name = p;
	e->name_len = (size_t)(end - p);
	return 1;
}

size_t
perfmap_parse(const char *buf, size_t len, int at_eof,
    void (*fn)(const struct perfmap_entry *e, void *arg), void *arg,
    unsigned long *bad)
{
	size_t at = 0;

	while (at < len) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - (buf + at)) : len - at;
		struct perfmap_entry e;
		int r;

		if (nl == NULL && !at_eof)
			break;
		r = perfmap_line(buf + at, n, &e);
		if (r > 0)
			fn(&e, arg);
		else if (r == 0 && bad != NULL)
			(*bad)++;
		at += n + (nl != NULL);
	}
	return at;
}

struct perfmap_file *
perfmap_open(const char *path, jitfile_judge *judge, void *judge_arg)
{
	struct perfmap_file *f = xcalloc(1, sizeof *f);

	f->path = xstrdup(path);
	f->judge = judge;
	f->judge_arg = judge_arg;
	f->fd = -1;
	return f;
}

void
perfmap_close(struct perfmap_file *f)
{
	if (f == NULL)
		return;
	if (f->fd >= 0)
		close(f->fd);
	free(f->buf);
	free(f->path);
	free(f);
}

/* Read the file again from its start: it is another, or was cut. */
static void
perfmap_restart(struct perfmap_file *f)
{
	f->offset = 0;
	f->held = 0;
	f->skipping = 0;
	f->mark.n = 0;
	f->replaced = 1;
}

/*
 * Open the file at the path and have it judged: 1 when it is open to be
 * read, 0 when there is none or it was refused (not asked again until
 * the path names another file, or this one changes), -1 with errno.
 */
static int
perfmap_take_file(struct perfmap_file *f)
{
	struct stat st;
	int fd = jitfile_open(f->path, &st);

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	if (f->judge != NULL && !f->judge(f->path, &st, f->judge_arg)) {
		close(fd);
		f->refused = st;
		return 0;
	}
	f->refused.st_ino = 0;
	f->fd = fd;
	f->st = st;
	if (f->buf == NULL)	/* only once there is a file to read */
		f->buf = xmalloc(PERFMAP_LINE_MAX + PERFMAP_CHUNK);
	return 1;
}

/*
 * Have f->fd be the file at f->path, as it is now: 1 when there is
 * something new to read, 2 when it is unchanged since the last read, 0
 * when there is no file (or it is refused), -1 with errno.  A file
 * replaced at the path (another inode), cut shorter than was read, or
 * written again in place (its last bytes read are not there any more) is
 * read again from its start.  A file removed from the path stays open:
 * what its writer wrote before is still to be read.
 */
static int
perfmap_sync(struct perfmap_file *f)
{
	struct stat st;
	int there = lstat(f->path, &st) == 0;

	if (!there && errno != ENOENT && errno != ENOTDIR)
		return -1;
	if (f->fd >= 0 && there && (st.st_dev != f->st.st_dev ||
	    st.st_ino != f->st.st_ino)) {
		close(f->fd);
		f->fd = -1;
		perfmap_restart(f);
	}
	if (f->fd < 0) {
		if (!there)
			return 0;
		if (f->refused.st_ino != 0 && jitfile_same(&f->refused, &st))
			return 0;
		return perfmap_take_file(f);
	}
	if (!there && fstat(f->fd, &st) < 0)
		return -1;
	if (jitfile_same(&f->st, &st))
		return 2;
	f->st = st;
	if (st.st_size < f->mark.end || jitfile_marked(f->fd, &f->mark) == 0)
		perfmap_restart(f);
	return 1;
}

struct perfmap_count {
	void (*fn)(const struct perfmap_entry *e, void *arg);
	void *arg;
	int n;
};

static void
perfmap_counted(const struct perfmap_entry *e, void *arg)
{
	struct perfmap_count *c = arg;

	c->fn(e, c->arg);
	if (c->n < INT_MAX)
		c->n++;
}

/*
 * The got bytes just read after the held line: the lines they complete,
 * and what is left held, or, past PERFMAP_LINE_MAX, counted bad once and
 * skipped to its newline.
 */
static void
perfmap_take(struct perfmap_file *f, size_t got, struct perfmap_count *c)
{
	char *start = f->buf, *end = f->buf + f->held + got;
	size_t used, left;

	if (f->skipping) {	/* nothing held */
		char *nl = memchr(start, '\n', got);

		if (nl == NULL)
			return;
		f->skipping = 0;
		start = nl + 1;
	}
	used = perfmap_parse(start, (size_t)(end - start), 0, perfmap_counted,
	    c, &f->bad);
	left = (size_t)(end - start) - used;
	if (left > PERFMAP_LINE_MAX) {
		f->bad++;
		f->skipping = 1;
		f->held = 0;
	} else {
		memmove(f->buf, start + used, left);
		f->held = left;
	}
}

int
perfmap_read(struct perfmap_file *f, int at_end, size_t budget,
    void (*fn)(const struct perfmap_entry *e, void *arg), void *arg)
{
	struct perfmap_count c = { fn, arg, 0 };
	int r = perfmap_sync(f);
	size_t taken = 0;

	if (r <= 0 || (r == 2 && !at_end))
		return r < 0 ? -1 : 0;
	while (r == 1 && taken < budget) {
		ssize_t got = pread(f->fd, f->buf + f->held, PERFMAP_CHUNK,
		    f->offset);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		f->offset += got;
		taken += (size_t)got;
		/* the bytes before the offset, held ones included */
		jitfile_mark(&f->mark, f->buf, f->held + (size_t)got, f->offset);
		perfmap_take(f, (size_t)got, &c);
	}
	if (taken >= budget) {
		/* more to read next time: the file is not as last seen */
		f->st.st_size = -1;
	} else if (at_end) {
		/* the writer is gone: what it left unfinished is a last line */
		if (!f->skipping)
			perfmap_parse(f->buf, f->held, 1, perfmap_counted, &c,
			    &f->bad);
		f->held = 0;
		f->skipping = 0;
	}
	return c.n;
}

unsigned long
perfmap_bad(const struct perfmap_file *f)
{
	return f->bad;
}

int
perfmap_replaced(const struct perfmap_file *f)
{
	return f->replaced;
}
