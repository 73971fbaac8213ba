/*
 * perfmap.h - the perf map a JIT runtime writes for profilers,
 * /tmp/perf-PID.map: one line per piece of generated code,
 *
 *     START SIZE NAME
 *
 * START and SIZE in hexadecimal (an optional 0x taken), NAME the rest of
 * the line (it may hold spaces: "JS:*hotA /srv/app.js:2:14").  V8 (Node,
 * Chromium, Deno), the JVM's agents, .NET, CPython 3.12's -X perf,
 * LuaJIT, PCRE2, Julia and wasmtime write it.  The file only grows while
 * the program runs (a later line for the same addresses is newer code
 * there), so it is read as it grows: each read takes the lines completed
 * since the last, and a line still being written waits for the next read
 * (or for the end, when whatever is left is a last line).
 *
 * The parser is pure (perfmap_parse), for the reader and the fuzz target.
 */
#ifndef PROFIL_RECORD_PERFMAP_H
#define PROFIL_RECORD_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jitfile.h"

/* The longest line taken; a longer one is counted bad and skipped. */
#define PERFMAP_LINE_MAX	4096

struct perfmap_entry {
	uint64_t start, size;	/* [start, start + size): size >= 1, no wrap */
	const char *name;	/* not NUL-terminated; name_len >= 1 bytes */
	size_t name_len;	/*   holding no newline and no NUL */
};

/*
 * The complete lines of buf[0..len) (with at_eof, a last line without its
 * newline too): fn for each well-formed one, in order; *bad counts the
 * others (no start, no size, size 0, start + size past 2^64 - 1, no name,
 * a NUL, longer than PERFMAP_LINE_MAX bytes before its newline).  An
 * empty line is neither.  START and SIZE are separated by one or more
 * spaces or tabs (blanks before START are let pass); NAME begins after
 * the blanks following SIZE and keeps its own trailing blanks; the '\r'
 * of a CRLF line ending is no part of it (a line of "\r" alone is empty).
 * Returns the bytes consumed: up to the end of the last complete line
 * (all of len with at_eof); what remains is an unfinished line.
 */
size_t perfmap_parse(const char *buf, size_t len, int at_eof,
    void (*fn)(const struct perfmap_entry *e, void *arg), void *arg,
    unsigned long *bad);

/* One map file being followed as it grows. */
struct perfmap_file;

/*
 * Follow path (nothing is read yet; the file need not exist).  Each file
 * found there is opened as jitfile_open does (no symlink, no FIFO) and,
 * if judge is not NULL, read only if judge(path, its fstat, judge_arg)
 * says so (asked once a file, and again if a refused one changes).
 */
struct perfmap_file *perfmap_open(const char *path, jitfile_judge *judge,
    void *judge_arg);
void perfmap_close(struct perfmap_file *f);

/*
 * Read what was added since the last read, budget bytes at most (SIZE_MAX:
 * all): fn for each new entry.  at_end: the writer is gone, a last
 * unfinished line counts (once all is read).  A file that was replaced
 * (another inode), cut shorter than was read, or written again in place
 * (the last bytes read are not what they were) is read again from its
 * start; a file unchanged since the last read (its size, times and inode)
 * is not read at all.  Returns the number of new entries, 0 when the
 * file is missing, refused or unchanged, -1 with errno on an open or read
 * error (jitfile_open's: ELOOP a symlink, EINVAL no regular file).
 * Between reads at most PERFMAP_LINE_MAX bytes of an unfinished line are
 * held; a longer one is counted bad as soon as it is seen and skipped to
 * its newline.
 */
int perfmap_read(struct perfmap_file *f, int at_end, size_t budget,
    void (*fn)(const struct perfmap_entry *e, void *arg), void *arg);

/* Lines refused so far (perfmap_parse's bad), and whether it was replaced. */
unsigned long perfmap_bad(const struct perfmap_file *f);
int perfmap_replaced(const struct perfmap_file *f);

#endif
