/*
 * jitdump.h - the jitdump file a JIT runtime writes for profilers
 * (jit-PID.dump; Linux perf's tools/perf/Documentation/jitdump-specification.txt):
 * a header, then records of code loaded, moved, its source lines and its
 * unwind tables.  The runtime maps the file executable once, so that a
 * profiler sees where it is (perf's MMAP records, /proc/PID/maps).
 *
 *     header: magic u32 (0x4A695444 "JiTD"), version u32 (1), total_size
 *             u32 (the header's, >= 40), elf_mach u32, pad u32, pid u32,
 *             timestamp u64, flags u64
 *     record: id u32, total_size u32 (>= 16, the whole record's), timestamp
 *             u64, then by id:
 *       0 CODE_LOAD    pid u32, tid u32, vma u64, code_addr u64,
 *                      code_size u64, code_index u64, name (NUL-ended),
 *                      code_size bytes of code
 *       1 CODE_MOVE    pid u32, tid u32, vma u64, old_code_addr u64,
 *                      new_code_addr u64, code_size u64, code_index u64
 *       2 DEBUG_INFO   code_addr u64, nr_entry u64, then nr_entry of:
 *                      addr u64, line u32, discrim u32, file name
 *                      (NUL-ended; "\xff" alone: the entry before's)
 *       3 CODE_CLOSE   nothing
 *       4 UNWINDING_INFO unwinding_size u64, eh_frame_hdr_size u64,
 *                      mapped_size u64, unwinding_size bytes (.eh_frame
 *                      then .eh_frame_hdr)
 *     other ids are skipped by their total_size.
 *
 * Little-endian, as written on x86-64 (a byte-swapped magic is refused).
 * The file grows while the program runs; a record not yet wholly written
 * waits for the next read.  The parser is pure (jitdump_parse) for the
 * reader and the fuzz target; every record it hands out lies wholly in
 * the buffer, with its lengths checked against the record's.
 */
#ifndef PROFIL_RECORD_JITDUMP_H
#define PROFIL_RECORD_JITDUMP_H

#include <stddef.h>
#include <stdint.h>

#include "jitfile.h"

#define JITDUMP_MAGIC		0x4A695444u
/* The header's flag: timestamps are the machine's counter (TSC), not
   CLOCK_MONOTONIC. */
#define JITDUMP_FLAGS_ARCH_TIMESTAMP	1u
#define JITDUMP_HEADER_MIN	40
#define JITDUMP_NAME_MAX	4096	/* a longer name: the record is bad */
/*
 * The longest record the follower holds (jitdump_read): a longer one is
 * counted bad and skipped in the file, unread, so that a total_size near
 * 2^32 cannot make it buffer 4 GiB.  jitdump_parse has no such limit: it
 * takes what is in the buffer it is given.
 */
#define JITDUMP_RECORD_MAX	(64u << 20)

/* A 32-bit field of the file at p: little-endian, as the format is. */
static inline uint32_t
jitdump_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

struct jitdump_header {
	uint32_t version, elf_mach, pid;
	uint64_t timestamp, flags;
};

struct jitdump_load {
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;	/* code_size >= 1 */
	const char *name;		/* NUL-terminated, in the buffer */
	const unsigned char *code;	/* code_size bytes, in the buffer */
};

struct jitdump_move {
	uint64_t timestamp;
	uint32_t pid, tid;
	uint64_t vma, old_code_addr, new_code_addr, code_size, code_index;
};

struct jitdump_line {
	uint64_t addr;
	uint32_t line, discrim;
	const char *file;		/* NUL-terminated ("\xff" resolved) */
};

struct jitdump_debug {
	uint64_t timestamp, code_addr;
	size_t n;
	const struct jitdump_line *lines;	/* valid during the call only */
};

struct jitdump_unwind {
	uint64_t timestamp;
	uint64_t eh_frame_hdr_size, mapped_size;
	const unsigned char *eh_frame;	/* unwinding_size - eh_frame_hdr_size */
	size_t eh_frame_size;
	const unsigned char *eh_frame_hdr;
	size_t hdr_size;		/* = eh_frame_hdr_size */
};

/* What the parser hands over; any may be NULL. */
struct jitdump_ops {
	void (*load)(const struct jitdump_load *l, void *arg);
	void (*move)(const struct jitdump_move *m, void *arg);
	void (*debug)(const struct jitdump_debug *d, void *arg);
	void (*unwind)(const struct jitdump_unwind *u, void *arg);
	void (*close)(uint64_t timestamp, void *arg);
};

/*
 * The header at buf[0..len): 1 and *h filled, 0 if more bytes are needed
 * (len below its total_size), -1 if it is no jitdump header (magic,
 * byte-swapped, version other than 1, total_size below 40 or above 4096).
 */
int jitdump_header(const unsigned char *buf, size_t len,
    struct jitdump_header *h, size_t *header_size);
/*
 * Why jitdump_header refused the header at b (12 bytes there at least),
 * in a line into why (size bytes): the other byte order, a bad magic, a
 * version or a size it does not read.
 */
void jitdump_header_why(const unsigned char *b, char *why, size_t size);

/*
 * The whole records in buf[0..len) (the bytes after the header), in
 * order, through ops.  Returns the bytes consumed (the records handed
 * over, or skipped as bad); it stops before a record not wholly in buf.
 * A record that is malformed within its total_size (a name without its
 * NUL or over JITDUMP_NAME_MAX, code_size 0 or not what is left,
 * nr_entry more than fits, a line's file without its NUL, a "\xff" file
 * in the first entry, unwinding sizes that do not add up, a fixed part
 * longer than total_size) counts in *bad and is skipped; bytes after what
 * a record's fields account for are padding.  A total_size
 * below 16 cannot be skipped: *broken is set and nothing past it is
 * read (the rest of the file is lost, said once).
 */
size_t jitdump_parse(const unsigned char *buf, size_t len,
    const struct jitdump_ops *ops, void *arg, unsigned long *bad,
    int *broken);

/* One jitdump file being followed as it grows. */
struct jitdump_file;

/*
 * Follow path (nothing is read yet).  The file is opened as jitfile_open
 * does (no symlink, no FIFO) and, if judge is not NULL, read only if
 * judge(path, its fstat, judge_arg) says so; refused, nothing of it is
 * read, and jitdump_problem is "" (the judge said why).
 */
struct jitdump_file *jitdump_open(const char *path, jitfile_judge *judge,
    void *judge_arg);
void jitdump_close(struct jitdump_file *f);

/*
 * Read the records added since the last read, budget bytes of the file
 * at most (SIZE_MAX: all), through ops.  Returns the number of records
 * handed over, 0 when there is nothing new (the file is missing, or
 * unchanged: its size, times and inode), -1 when the file is not a
 * jitdump file or broken (said once: that read returns -1 and
 * jitdump_problem says why from then on; later reads do nothing and
 * return 0).  A file that cannot be opened (but is there: a symlink, no
 * regular file) or read is refused the same way.  Records handed over
 * before a problem was found stay handed over.  A file cut shorter than
 * was read, or written again in place (the last bytes read are not what
 * they were), is read again from its header: its records come again.
 */
int jitdump_read(struct jitdump_file *f, size_t budget,
    const struct jitdump_ops *ops, void *arg);

/* What is wrong with the file ("not a jitdump file", ...), or NULL. */
const char *jitdump_problem(const struct jitdump_file *f);
unsigned long jitdump_bad(const struct jitdump_file *f);
/* Times the file was cut or written again and read from its start. */
unsigned jitdump_restarts(const struct jitdump_file *f);
/* The header as read (NULL before it was). */
const struct jitdump_header *jitdump_header_of(const struct jitdump_file *f);

#endif
