/*
 * outfile.c - the one way the command writes a file: a name checked
 * (outfile_may_replace: only what profil wrote is replaced), then the
 * library's atomic writer, rio_file (lib/codec/rio-file.c).  A cause
 * names the file: "NAME: No space left on device".
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

int
outfile_open(struct outfile *of, const char *path, const char *signature,
    char *cause, size_t cause_size)
{
	of->path = path;
	of->file.fd = -1;
	of->file.tmp = NULL;
	if (outfile_may_replace(path, signature, cause, cause_size) < 0)
		return -1;
	if (rio_file_open(&of->file, path) < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
outfile_write(struct outfile *of, const void *data, size_t size, char *cause,
    size_t cause_size)
{
	if (rio_file_write(&of->file, data, size) < 0) {
		snprintf(cause, cause_size, "%s: %s", of->path, strerror(errno));
		return -1;
	}
	return 0;
}

int
outfile_commit(struct outfile *of, FILE *fp, char *cause, size_t cause_size)
{
	errno = 0;
	if (fp != NULL) {
		/* the stream's descriptor, kept open to be synced and linked by */
		int fd = dup(of->file.fd);
		int failed = fd < 0 || fflush(fp) != 0 || ferror(fp);

		failed |= fclose(fp) != 0;
		of->file.fd = fd;
		if (failed) {
			snprintf(cause, cause_size, "%s: %s", of->path,
			    strerror(errno ? errno : EIO));
			rio_file_abort(&of->file);
			return -1;
		}
	}
	if (rio_file_commit(&of->file, of->path) < 0) {
		snprintf(cause, cause_size, "%s: %s", of->path, strerror(errno));
		return -1;
	}
	return 0;
}

void
outfile_abort(struct outfile *of, FILE *fp)
{
	int saved = errno;

	if (fp != NULL) {
		fclose(fp);
		of->file.fd = -1;
	}
	rio_file_abort(&of->file);
	errno = saved;
}
