/*
 * outfile.h - every file the command writes (profiles, gmon.out, pprof,
 * HTML).  A name may hold nothing yet, an empty file, or a regular file
 * profil wrote (it starts with that kind's signature): never a symlink,
 * a directory, a device or someone else's file.  The writing is the
 * library's rio_file (lib/codec/rio.h), as profil_profile_save's: the
 * data goes to a temporary file beside it, renamed over it once complete
 * and synced, so a failure (disk full, no permission, a crash) leaves the
 * old file as it was and no partial file behind.
 */
#ifndef PROFIL_OUTFILE_H
#define PROFIL_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "codec/rio.h"

/*
 * Signatures of what profil writes, for outfile_may_replace; a profile's
 * is its magic, PRF_MAGIC (lib/codec/prf.h).
 */
#define OUTFILE_GMON	"gmon"
#define OUTFILE_GZIP	"\x1f\x8b"
#define OUTFILE_HTML	"<!DOCTYPE html>\n<!-- profil report -->"
#define OUTFILE_FOLDED	"\001folded"	/* no signature: by its first line */
#define OUTFILE_SPEEDSCOPE \
	"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""

struct outfile {
	const char *path;	/* may change before commit, in the same
				 * directory (record learns %p's pid late) */
	struct rio_file file;	/* file.fd is open for writing */
};

/*
 * 0 if path may be (re)written: it does not exist, or is an empty regular
 * file, or a regular file starting with signature.  Else -1 and a cause.
 */
int outfile_may_replace(const char *path, const char *signature,
    char *cause, size_t cause_size);

/*
 * Check path as above and create the temporary file (rio_file_open: mode
 * 0644 when committed); of->file.fd is open for writing, close-on-exec.
 * 0, or -1 with a cause.
 */
int outfile_open(struct outfile *of, const char *path, const char *signature,
    char *cause, size_t cause_size);

/*
 * Finish: flush fp if the data went through stdio on of->file.fd (fp is
 * closed), sync, and rename over path.  0, or -1 with a cause; the
 * temporary file is removed on failure.
 */
int outfile_commit(struct outfile *of, FILE *fp, char *cause,
    size_t cause_size);

/* All of data to of->file.fd.  0, or -1 with a cause (nothing removed). */
int outfile_write(struct outfile *of, const void *data, size_t size,
    char *cause, size_t cause_size);

/* Give up: close (fp, or of->file.fd) and remove the temporary file. */
void outfile_abort(struct outfile *of, FILE *fp);

#endif
