/*
 * jitfile.h - a file the profiled program writes for profilers (the perf
 * map, a jitdump file: perfmap.h, jitdump.h), opened and followed as the
 * untrusted input it is.  The recorder may run as root and the program is
 * anyone's: the path may be a symlink to a file of root's, a FIFO that
 * never answers, another user's file, or a file rewritten while it is
 * read.
 *
 * What the followers share:
 *   - jitfile_open: a regular file only, never through a symlink, never
 *     blocking; the file's identity from the open descriptor itself (what
 *     is judged is what is read, not what the path named a moment before);
 *   - a judge (the caller's): whether a file opened may be read at all
 *     (jit-read.c: its owner is the process's user, nobody else may
 *     write it, it is not older than the process);
 *   - struct jitfile_mark: the last bytes read, looked at again before
 *     reading on, so that a file cut and written again in place (a JVM's
 *     `jcmd PID Compiler.perfmap` truncates the map and writes it anew) is
 *     read again from its start rather than from the middle of other text.
 *
 * Reading is by pread into the followers' own buffers: a file cut short
 * while read gives a short read, never a fault.
 */
#ifndef PROFIL_RECORD_JITFILE_H
#define PROFIL_RECORD_JITFILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Whether the file st, just opened at path, may be read: 1 yes, 0 no (the
 * judge says why, once, its own way).  A follower asks once a file (the
 * same device and inode are not asked again).
 */
typedef int jitfile_judge(const char *path, const struct stat *st,
    void *arg);

/*
 * Open path for reading: O_NOFOLLOW, O_NONBLOCK, close-on-exec, and only
 * a regular file.  Returns the descriptor, *st its fstat; or -1 with
 * errno: ENOENT (or ENOTDIR) there is none, ELOOP a symlink, EINVAL not a
 * regular file, else open's or fstat's.
 */
int jitfile_open(const char *path, struct stat *st);

/* What a failed jitfile_open's errno means, for a line ("a symbolic link"). */
const char *jitfile_why(int err);

/* The last bytes a follower read, before offset end in the file. */
#define JITFILE_MARK	32
struct jitfile_mark {
	off_t end;
	size_t n;
	unsigned char bytes[JITFILE_MARK];
};

/* Remember buf[0..n), the bytes that end at offset end (the last kept). */
void jitfile_mark(struct jitfile_mark *m, const void *buf, size_t n,
    off_t end);

/*
 * Whether fd still holds m's bytes where they were read: 1 yes (or none
 * were marked), 0 no (the file was cut, or written again in place), -1
 * with errno on a read error.
 */
int jitfile_marked(int fd, const struct jitfile_mark *m);

/* Whether st is the same file as it was at old, unchanged since. */
int jitfile_same(const struct stat *old, const struct stat *st);

#endif
