/*
 * outfile.c - the one way the command writes a file: checked name,
 * temporary file in the same directory (rename is atomic only within a
 * file system), fsync before rename so a crash cannot leave an empty
 * file under the old name.
 *
 * The temporary file has no name while it is written (O_TMPFILE): record
 * holds it open for the whole run, and a recorder killed with SIGKILL
 * left a 0-byte NAME.prf.tmp.XXXXXX behind.  It gets a name only to be
 * renamed over the output, microseconds later.  Where the file system
 * has no unnamed files, a named one as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

/*
 * Folded stacks have no signature: a file is taken for one when its first
 * line is text ending in a space and a count ("main;f;g 42").  The line
 * is read whole up to FOLDED_LINE_MAX: C++ names make lines of kilobytes
 * (node's first line was 2.6 KiB, and export would not replace its own
 * file when only 511 bytes of it were read).
 */
#define FOLDED_LINE_MAX	(1 << 20)
static int
looks_folded(const char *head, size_t n)
{
	const char *nl = memchr(head, '\n', n), *end = nl ? nl : head + n;
	const char *digits = end;

	if (memchr(head, '\0', (size_t)(end - head)) != NULL)
		return 0;
	while (digits > head && digits[-1] >= '0' && digits[-1] <= '9')
		digits--;
	return digits < end && digits > head && digits[-1] == ' ';
}

/* The start of fd's file into buf, up to its first newline or size bytes. */
static ssize_t
pread_line(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n < size) {
		ssize_t got = pread(fd, buf + n, size - n < 65536 ? size - n :
		    65536, (off_t)n);

		if (got < 0)
			return -1;
		if (got == 0 || memchr(buf + n, '\n', (size_t)got) != NULL)
			return (ssize_t)(n + (size_t)got);
		n += (size_t)got;
	}
	return (ssize_t)n;
}

int
outfile_may_replace(const char *path, const char *signature, char *cause,
    size_t cause_size)
{
	size_t len = strlen(signature);
	char head[512];
	struct stat st;
	ssize_t got;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(cause, cause_size, "%s is a symbolic link; not writing "
		    "through it (remove it or name another file)", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(cause, cause_size, "%s exists and is not a regular file",
		    path);
		return -1;
	}
	if (st.st_size == 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (strcmp(signature, OUTFILE_FOLDED) == 0) {
		char *line = xmalloc(FOLDED_LINE_MAX);

		got = fd >= 0 ? pread_line(fd, line, FOLDED_LINE_MAX) : -1;
		if (fd >= 0)
			close(fd);
		if (got > 0 && looks_folded(line, (size_t)got)) {
			free(line);
			return 0;
		}
		free(line);
	} else {
		got = fd >= 0 ? read(fd, head, len < sizeof head ? len : sizeof head) :
		    -1;
		if (fd >= 0)
			close(fd);
		if (got == (ssize_t)len && memcmp(head, signature, len) == 0)
			return 0;
	}
	snprintf(cause, cause_size, "%s exists and was not written by profil; "
	    "not replacing it (remove it or name another file)", path);
	return -1;
}

/* A name for path's temporary file (path.tmp.XXXXXX), malloc'd. */
static char *
tmp_name(const char *path)
{
	size_t size = strlen(path) + 16;
	char *tmp = xmalloc(size);

	snprintf(tmp, size, "%s.tmp.XXXXXX", path);
	return tmp;
}

/* An unnamed file in path's directory, or -1. */
static int
open_unnamed(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = xstrdup(slash == NULL ? "." : path);
	int fd;

	if (slash != NULL)
		dir[slash == path ? 1 : slash - path] = '\0';
	/* readable too: copied out if it cannot be linked (copy_unnamed) */
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	free(dir);
	return fd;
}

int
outfile_open(struct outfile *of, const char *path, const char *signature,
    char *cause, size_t cause_size)
{
	of->path = path;
	of->tmp = tmp_name(path);
	of->fd = -1;
	if (outfile_may_replace(path, signature, cause, cause_size) < 0) {
		free(of->tmp);
		of->tmp = NULL;
		return -1;
	}
	/*
	 * The temporary name made and removed at once: what only a name
	 * tells (one the file system refuses, no inode left) is known
	 * before record runs the program, not at its end.  Then the file
	 * itself, unnamed; close-on-exec: record keeps it open while the
	 * program runs.
	 */
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd >= 0) {
		int fd = open_unnamed(path);

		if (fd >= 0) {
			close(of->fd);
			unlink(of->tmp);
			free(of->tmp);
			of->tmp = NULL;
			of->fd = fd;
		}
	}
	if (of->fd < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		free(of->tmp);
		of->tmp = NULL;
		return -1;
	}
	return 0;
}

/*
 * The unnamed file fd linked in as a new temporary name beside path
 * (*tmp, malloc'd): 0, or -1 with errno.  By the descriptor where the
 * kernel allows it (CAP_DAC_READ_SEARCH), else through /proc/self/fd.
 */
static int
link_unnamed(int fd, const char *path, char **tmp)
{
	char proc[64];

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 100; tries++) {
		*tmp = tmp_name(path);
		/* a fresh XXXXXX, as mkstemp makes it, but no file yet */
		snprintf(*tmp + strlen(*tmp) - 6, 7, "%06x",
		    (unsigned)((unsigned)getpid() * 2654435761u + (unsigned)tries *
		    40503u) & 0xffffff);
		if (linkat(fd, "", AT_FDCWD, *tmp, AT_EMPTY_PATH) == 0 ||
		    ((errno == ENOENT || errno == EPERM) &&
		    linkat(AT_FDCWD, proc, AT_FDCWD, *tmp, AT_SYMLINK_FOLLOW) == 0))
			return 0;
		free(*tmp);
		*tmp = NULL;
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/*
 * Where the unnamed file cannot be linked (no /proc, and no capability
 * to link by descriptor), its contents copied to a named temporary file
 * beside path (*tmp, malloc'd), synced: 0, or -1 with errno.  The data
 * is never lost for want of a name.
 */
static int
copy_unnamed(int fd, const char *path, char **tmp)
{
	char buf[65536];
	off_t at = 0;
	ssize_t got;
	int out;

	*tmp = tmp_name(path);
	if ((out = mkostemp(*tmp, O_CLOEXEC)) < 0)
		goto fail;
	while ((got = pread(fd, buf, sizeof buf, at)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		for (ssize_t done = 0, n; got > 0 && done < got; done += n)
			if ((n = write(out, buf + done, (size_t)(got - done))) <= 0) {
				if (n < 0 && errno == EINTR) {
					n = 0;
					continue;
				}
				got = -1;
				break;
			}
		if (got < 0)
			break;
		at += got;
	}
	if (got < 0 || fsync(out) < 0 || fchmod(out, 0644) < 0 || close(out) < 0) {
		int saved = errno;

		close(out);
		unlink(*tmp);
		errno = saved;
		goto fail;
	}
	return 0;
fail:
	free(*tmp);
	*tmp = NULL;
	return -1;
}

int
outfile_write(struct outfile *of, const void *data, size_t size, char *cause,
    size_t cause_size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(of->fd, (const char *)data + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(cause, cause_size, "%s: %s", of->path,
			    strerror(n < 0 ? errno : EIO));
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

int
outfile_commit(struct outfile *of, FILE *fp, char *cause, size_t cause_size)
{
	int failed, fd = of->fd;

	errno = 0;
	if (fp != NULL) {
		/* the stream's descriptor, kept open to be linked by */
		fd = dup(of->fd);
		failed = fd < 0 || fflush(fp) != 0 || ferror(fp);
		failed |= fsync(of->fd) < 0 || fchmod(of->fd, 0644) < 0;
		failed |= fclose(fp) != 0;
	} else {
		failed = fsync(of->fd) < 0 || fchmod(of->fd, 0644) < 0;
	}
	if (!failed && of->tmp == NULL && link_unnamed(fd, of->path,
	    &of->tmp) < 0 && copy_unnamed(fd, of->path, &of->tmp) < 0)
		failed = 1;
	if (fd >= 0)
		failed |= close(fd) < 0;
	of->fd = -1;
	if (failed || rename(of->tmp, of->path) < 0) {
		snprintf(cause, cause_size, "%s: %s", of->path,
		    strerror(errno ? errno : EIO));
		outfile_abort(of, NULL);
		return -1;
	}
	free(of->tmp);
	of->tmp = NULL;
	return 0;
}

void
outfile_abort(struct outfile *of, FILE *fp)
{
	int saved = errno;

	if (fp != NULL)
		fclose(fp);
	else if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	if (of->tmp != NULL)
		unlink(of->tmp);
	free(of->tmp);
	of->tmp = NULL;
	errno = saved;
}
