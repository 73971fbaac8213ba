/*
 * prf.c - whole .prf files: read one (profil_profile_parse, in
 * prf-decode.c, does the work), save one atomically (rio_file, rio.h),
 * free a profile.
 * The codec's other parts are listed in prf-internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec/prf-internal.h"

/* NULL, with why as the cause (if wanted) and errno EINVAL. */
static struct profil_profile *
refuse(char *cause, size_t cause_size, const char *why)
{
	if (cause != NULL && cause_size > 0)
		snprintf(cause, cause_size, "%s", why);
	errno = EINVAL;
	return NULL;
}

EXPORT struct profil_profile *
profil_profile_read(const char *path, char *cause, size_t cause_size)
{
	struct profil_profile *p = NULL;
	struct stat st;
	uint8_t *data = NULL;
	size_t got = 0;
	int fd = -1, saved;

	/*
	 * What is not a profile is said for what it is, whatever reads it
	 * (report, export, merge, diff, check, archive): a directory by
	 * stat, before open (which an unreadable one fails with EACCES),
	 * and a FIFO or device opened without blocking, so that one with
	 * no writer cannot hang the reader.
	 */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return refuse(cause, cause_size, "is a directory");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return refuse(cause, cause_size, S_ISDIR(st.st_mode) ?
		    "is a directory" : "not a regular file");
	}
	if (st.st_size == 0) {
		close(fd);
		return refuse(cause, cause_size, "empty (0 bytes), not a profile");
	}
	data = malloc((size_t)st.st_size);
	if (data == NULL)
		goto fail;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, data + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	p = profil_profile_parse(data, got, cause, cause_size);
	saved = errno;
	free(data);
	errno = saved;
	return p;
fail:
	saved = errno;
	if (cause != NULL && cause_size > 0)
		snprintf(cause, cause_size, "%s", strerror(saved));
	if (fd >= 0)
		close(fd);
	free(data);
	errno = saved;
	return NULL;
}

/* ---- saving --------------------------------------------------------------- */

/* Through rio_file, as the command writes its files (rio.h). */
EXPORT int
profil_profile_save(const struct profil_profile *p, const char *path,
    char *cause, size_t cause_size)
{
	struct rio_file f;
	void *data = NULL;
	size_t size;
	int rc = -1, saved;

	if (profil_profile_encode(p, &data, &size) < 0)
		goto out;
	if (rio_file_open(&f, path) < 0)
		goto out;
	if (rio_file_write(&f, data, size) < 0) {
		rio_file_abort(&f);
		goto out;
	}
	rc = rio_file_commit(&f, path);
out:
	saved = errno;
	if (rc < 0 && cause != NULL && cause_size > 0)
		snprintf(cause, cause_size, "%s", strerror(saved));
	free(data);
	errno = saved;
	return rc;
}

EXPORT void
profil_profile_free(struct profil_profile *p)
{
	size_t i;

	if (p == NULL)
		return;
	free(p->engine);
	for (i = 0; p->argv != NULL && i < (size_t)p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	for (i = 0; i < p->nobjects; i++) {
		free(p->objects[i].path);
		free(p->objects[i].buckets);
	}
	free(p->objects);
	for (i = 0; i < p->nthreads; i++)
		free(p->threads[i].name);
	free(p->threads);
	for (i = 0; i < p->nprocesses; i++)
		free(p->processes[i].command);
	free(p->processes);
	for (i = 0; i < p->nsymbols; i++)
		free(p->symbols[i].name);
	free(p->symbols);
	for (i = 0; i < p->nline_files; i++)
		free(p->line_files[i]);
	free(p->line_files);
	free(p->lines);
	free(p->fp_frames);
	free(p->timeline);
	for (i = 0; i < p->nstacks; i++)
		free(p->stacks[i].frames);
	free(p->stacks);
	free(p->wall);
	free(p->frames);
	if (p->kernel_code != NULL) {
		free(p->kernel_code->code.path);
		free(p->kernel_code->code.buckets);
		free(p->kernel_code->release);
		free(p->kernel_code);
	}
	free(p);
}
