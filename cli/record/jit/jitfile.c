/*
 * jitfile.c - the runtime's files opened as untrusted input (jitfile.h):
 * what both followers (perfmap.c, jitdump.c) do alike before they parse.
 * Invariant: nothing is opened through a symlink or blocking, and a file's
 * identity is taken from the descriptor read, never from the path again.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "jitfile.h"

int
jitfile_open(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	int e;

	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0)
		goto fail;
	if (!S_ISREG(st->st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

const char *
jitfile_why(int err)
{
	switch (err) {
	case ELOOP:
		return "a symbolic link";
	case EINVAL:
		return "not a regular file";
	default:
		return strerror(err);
	}
}

void
jitfile_mark(struct jitfile_mark *m, const void *buf, size_t n, off_t end)
{
	if (n > JITFILE_MARK) {
		buf = (const unsigned char *)buf + (n - JITFILE_MARK);
		n = JITFILE_MARK;
	}
	memcpy(m->bytes, buf, n);
	m->n = n;
	m->end = end;
}

int
jitfile_marked(int fd, const struct jitfile_mark *m)
{
	unsigned char now[JITFILE_MARK];
	ssize_t got;

	if (m->n == 0)
		return 1;
	do
		got = pread(fd, now, m->n, m->end - (off_t)m->n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;
	return (size_t)got == m->n && memcmp(now, m->bytes, m->n) == 0;
}

int
jitfile_same(const struct stat *old, const struct stat *st)
{
	return old->st_dev == st->st_dev && old->st_ino == st->st_ino &&
	    old->st_size == st->st_size &&
	    old->st_mtim.tv_sec == st->st_mtim.tv_sec &&
	    old->st_mtim.tv_nsec == st->st_mtim.tv_nsec &&
	    old->st_ctim.tv_sec == st->st_ctim.tv_sec &&
	    old->st_ctim.tv_nsec == st->st_ctim.tv_nsec;
}
