/*
 * rio-file.c - a file put in place whole or not at all (see rio.h):
 * written to a temporary file in the target's directory (rename is atomic
 * only within a file system), synced before the rename so a crash cannot
 * leave an empty file under the old name.  Invariant: once open fails or
 * commit or abort returns, no temporary file of ours is left behind.
 *
 * The temporary file has no name while it is written (O_TMPFILE): record
 * holds it open for the whole run, and a recorder killed with SIGKILL
 * left a 0-byte NAME.prf.tmp.XXXXXX behind.  It gets a name only to be
 * renamed over the target, microseconds later.  Where the file system
 * has no unnamed files, a named one as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/rio.h"

/* A name for path's temporary file (path.tmp.XXXXXX), malloc'd; NULL. */
static char *
tmp_name(const char *path)
{
	size_t size = strlen(path) + 16;
	char *tmp = malloc(size);

	if (tmp != NULL)
		snprintf(tmp, size, "%s.tmp.XXXXXX", path);
	return tmp;
}

/* An unnamed file in path's directory, or -1. */
static int
open_unnamed(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = strdup(slash == NULL ? "." : path);
	int fd;

	if (dir == NULL)
		return -1;
	if (slash != NULL)
		dir[slash == path ? 1 : slash - path] = '\0';
	/* readable too: copied out if it cannot be linked (copy_unnamed) */
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	free(dir);
	return fd;
}

int
rio_file_open(struct rio_file *f, const char *path)
{
	return rio_file_open_mode(f, path, 0644);
}

int
rio_file_open_mode(struct rio_file *f, const char *path, mode_t mode)
{
	f->fd = -1;
	f->mode = mode;
	if ((f->tmp = tmp_name(path)) == NULL)
		return -1;
	/*
	 * The temporary name made and removed at once: what only a name
	 * tells (one the file system refuses, no inode left) is known
	 * before record runs the program, not at its end.  Then the file
	 * itself, unnamed; close-on-exec: record keeps it open while the
	 * program runs.
	 */
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd >= 0) {
		int fd = open_unnamed(path);

		if (fd >= 0) {
			close(f->fd);
			unlink(f->tmp);
			free(f->tmp);
			f->tmp = NULL;
			f->fd = fd;
		}
	}
	if (f->fd < 0) {
		int saved = errno;

		free(f->tmp);
		f->tmp = NULL;
		errno = saved;
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
		if ((*tmp = tmp_name(path)) == NULL)
			return -1;
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
 * beside path (*tmp, malloc'd), synced, of mode: 0, or -1 with errno.  The data
 * is never lost for want of a name.
 */
static int
copy_unnamed(int fd, const char *path, mode_t mode, char **tmp)
{
	char buf[65536];
	off_t at = 0;
	ssize_t got;
	int out;

	if ((*tmp = tmp_name(path)) == NULL)
		return -1;
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
	if (got < 0 || fsync(out) < 0 || fchmod(out, mode) < 0 || close(out) < 0) {
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
rio_file_write(struct rio_file *f, const void *data, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(f->fd, (const char *)data + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

int
rio_file_commit(struct rio_file *f, const char *path)
{
	int failed;

	errno = 0;
	failed = f->fd < 0 || fsync(f->fd) < 0 || fchmod(f->fd, f->mode) < 0;
	if (!failed && f->tmp == NULL && link_unnamed(f->fd, path,
	    &f->tmp) < 0 && copy_unnamed(f->fd, path, f->mode, &f->tmp) < 0)
		failed = 1;
	if (f->fd >= 0)
		failed |= close(f->fd) < 0;
	f->fd = -1;
	if (failed || rename(f->tmp, path) < 0) {
		if (errno == 0)
			errno = EIO;
		rio_file_abort(f);
		return -1;
	}
	free(f->tmp);
	f->tmp = NULL;
	return 0;
}

void
rio_file_abort(struct rio_file *f)
{
	int saved = errno;

	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp != NULL)
		unlink(f->tmp);
	free(f->tmp);
	f->tmp = NULL;
	errno = saved;
}
