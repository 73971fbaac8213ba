/*
 * rio.h - the byte streams every file format goes through, so that tests
 * and fuzzers can use memory: a growable output buffer and a bounds-checked
 * input cursor (rio.c).  Fixed little-endian byte order; LEB128 varints.
 * And where the bytes end up: a file put in place whole or not at all
 * (rio-file.c), the one way profil writes a file.
 *
 * Errors are sticky: after a failed get or put every later one fails too
 * (a failed get gives 0, zeroed bytes or NULL), so the caller checks the
 * stream's failed flag once, at a convenient point.
 */
#ifndef PROFIL_RIO_H
#define PROFIL_RIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rio_out {
	uint8_t *data;
	size_t len, cap;
	int failed;		/* out of memory */
};

struct rio_in {
	const uint8_t *data;
	size_t len, pos;
	int failed;		/* read past the end, or a malformed value */
};

void rio_out_init(struct rio_out *out);
void rio_out_free(struct rio_out *out);
void rio_put_bytes(struct rio_out *out, const void *p, size_t n);
void rio_put_u8(struct rio_out *out, uint8_t v);
void rio_put_u16(struct rio_out *out, uint16_t v);
void rio_put_u32(struct rio_out *out, uint32_t v);
void rio_put_u64(struct rio_out *out, uint64_t v);
void rio_put_varint(struct rio_out *out, uint64_t v);
/* A string: u32 length, then the bytes (no NUL). */
void rio_put_str(struct rio_out *out, const char *s);
/* Overwrite a u32 at byte offset at (for lengths known afterwards). */
void rio_patch_u32(struct rio_out *out, size_t at, uint32_t v);

void rio_in_init(struct rio_in *in, const void *data, size_t len);
int rio_get_bytes(struct rio_in *in, void *p, size_t n);
uint8_t rio_get_u8(struct rio_in *in);
uint16_t rio_get_u16(struct rio_in *in);
uint32_t rio_get_u32(struct rio_in *in);
uint64_t rio_get_u64(struct rio_in *in);
uint64_t rio_get_varint(struct rio_in *in);
/* A string of at most max bytes, malloc'd and NUL-terminated; NULL on error. */
char *rio_get_str(struct rio_in *in, size_t max);
static inline size_t rio_left(const struct rio_in *in)
{
	return in->failed ? 0 : in->len - in->pos;
}

/*
 * A file that replaces path whole, or leaves it as it was: the bytes go
 * to a temporary file in path's directory, which commit syncs, gives its
 * mode (0644, or rio_file_open_mode's) and renames over path (a symlink at path is replaced, never
 * followed).  Whatever fails (disk full, no permission), the old file is
 * intact and no temporary file is left; after a crash too, but for a
 * NAME.tmp.XXXXXX where the file system has no unnamed files.  Errors:
 * -1 with errno.
 */
struct rio_file {
	int fd;			/* open for writing, close-on-exec */
	char *tmp;		/* the temporary file's name, NULL while it has
				 * none (O_TMPFILE) */
	mode_t mode;		/* the file's, once committed */
};

/*
 * Create the temporary file beside path.  0, or -1 with errno and nothing
 * to abort.  Creating it finds out early what only a write would tell (a
 * read-only file system, /proc, a name the file system refuses, no inode
 * left), so record opens its output before it runs the program.
 */
int rio_file_open(struct rio_file *f, const char *path);
/* The same, for a file of mode (0600: a private cache, such as kernel
 * addresses). */
int rio_file_open_mode(struct rio_file *f, const char *path, mode_t mode);
/* All of data to f->fd.  0, or -1 with errno (nothing is removed: abort). */
int rio_file_write(struct rio_file *f, const void *data, size_t size);
/*
 * Sync, close and rename over path, which may differ from open's but in
 * the same directory (record learns %p's pid late).  0, or -1 with errno
 * (EIO if nothing said more) and the temporary file removed.
 */
int rio_file_commit(struct rio_file *f, const char *path);
/* Give up: close f->fd (if not -1) and remove the temporary file. */
void rio_file_abort(struct rio_file *f);

#endif
