/*
 * jit-internal.h - what the jit room's files share: a process's
 * generated code and the page index that finds it.  Private to
 * cli/record/jit/jit*.c; jit.h is their contract with the recorder.
 *
 *   jit-pieces.c   a process's code: its pieces and their page index
 *   jit-read.c     the runtime's files, read as they grow: the perf map
 *                  (judged first: is it this process's?) and jitdump
 *   jit-pending.c  samples waiting for code named late, and what stayed
 *                  unnamed
 *   jit.c          a process's code attached, forgotten, found by pc;
 *                  the unwind tables handed to the unwinder
 *
 * Each calls only the files above it in this list.
 */
#ifndef PROFIL_RECORD_JIT_INTERNAL_H
#define PROFIL_RECORD_JIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "hmap.h"
#include "jit-names.h"
#include "jit-tables.h"
#include "jitdump.h"
#include "perfmap.h"
#include "record/core/builder.h"

#define PAGE_SHIFT	12
/* A piece bigger than this is refused (a bad size would index 2^40 pages). */
#define PIECE_MAX	((uint64_t)64 << 20)
/* Pieces a process keeps at most: past them its files are read no more. */
#define PIECES_MAX	((size_t)1 << 20)
/* Their pages, counted once a piece each (8 bytes a page): 32 MiB. */
#define REFS_MAX	((size_t)1 << 22)
#define DUMPS_MAX	8		/* jitdump files followed per process */
/* Bytes of the files read at most at a time while samples come. */
#define READ_BUDGET	((size_t)4 << 20)
/* ... and at the end, for the samples kept back (a few seconds' parsing). */
#define END_BUDGET	((size_t)256 << 20)
/* Frames of samples kept back, at most, a process (16 bytes each). */
#define PENDING_FRAMES_MAX	((size_t)1 << 21)
/*
 * Samples kept back with the same frames are one, with their weights
 * added, unless this long apart (under half JIT_PENDING_MAX of them): the
 * code at an address may change in between, and a jitdump file says when.
 */
#define PENDING_APART_NS	(16 * 1000000ull)

struct piece {
	uint64_t start, end;		/* where the runtime put it */
	uint64_t since;			/* known there since (ns, CLOCK_MONOTONIC) */
	size_t sym;			/* its name and [jit] range */
	uint32_t table;			/* its unwind tables (jit-tables.h) */
	uint8_t wanted;			/* the unwinder was told of them */
	uint8_t gone;			/* newer code lies over part of it */
};

struct page_ref {
	uint32_t piece, next;		/* next: 1 + the older ref, or 0 */
};

/* A sample kept back until its process's files are read whole. */
struct pending {
	uint64_t hash;			/* of its frames, pid, tid, flat */
	size_t first, n;		/* its frames, in pframes */
	uint64_t weight;
	uint64_t kept_ns;		/* when the first of them was kept */
	pid_t pid, tid;
	uint8_t flat;
	uint8_t leaf_generated;		/* its leaf in generated code */
};

struct jit_code {
	pid_t pid;
	struct addr_space *space;	/* whose jit this is */
	/* the process, as its files are judged (jit-read.c) */
	uid_t euid, fsuid;
	int uid_known;
	double start;			/* seconds since the epoch, or 0 */
	unsigned said;			/* problems said once (jit-read.c) */
	char map_path[64];
	struct perfmap_file *map;
	int map_read;			/* a map of its was read */
	int files_refused;		/* a file of its was not read */
	struct jitdump_file *dumps[DUMPS_MAX];
	char *dump_paths[DUMPS_MAX];
	size_t ndumps;
	struct piece *pieces;
	size_t npieces, pieces_cap;
	struct page_ref *refs;
	size_t nrefs, refs_cap;
	struct hmap pages;		/* page -> 1 + its newest ref */
	uint64_t read_ns;		/* the files were last read then */
	uint64_t reading_ns;		/* the reading under way began then */
	unsigned long refused;		/* pieces too big or wrapping */
	unsigned long over;		/* pieces past PIECES_MAX or the names' */
	/* samples waiting for the files (jit_code_defer): frames in pframes */
	struct pending *pending;
	size_t npending, pending_cap;
	struct hmap pending_at;		/* hash -> 1 + its newest entry */
	struct bframe *pframes;
	size_t npframes, pframes_cap;
	uint64_t not_kept;		/* weight past the limits, unnamed */
	enum jit_runtime runtime;	/* RUNTIME_UNKNOWN: not looked yet */
	/* the last DEBUG_INFO, for the CODE_LOAD at its address after it */
	uint64_t debug_addr;
	struct jitdump_line *debug;
	size_t ndebug;
	char *debug_files;		/* their file names, one after another */
	/* the last UNWINDING_INFO's tables, for the CODE_LOAD after it */
	uint32_t next_table;
	struct jit_tables tables;
	/* the pieces with tables that were sampled (jit_code_unwind) */
	struct wanted {
		uint32_t piece;
		unsigned serial;	/* its name to the unwinder */
	} *wanted;
	size_t nwanted, wanted_cap;
	unsigned unwind_generation;
};

/* The newest piece holding pc, or NULL. */
const struct piece *jit_piece_at(const struct jit_code *c, uint64_t pc);
/*
 * The piece a sample at pc kept back at kept_ns was in: the newest known
 * there since before then, else the first known there after (of those
 * first known at once, the newest); NULL if none holds pc.
 */
const struct piece *jit_piece_then(const struct jit_code *c, uint64_t pc,
    uint64_t kept_ns);
/*
 * Code [start, start + size) at the process's addresses, named name (a
 * new range) or, with sym, the code of that range moved there, with its
 * unwind tables (0: none), known there since `since`.  Returns its
 * range, or SIZE_MAX if it was refused or known already.
 */
size_t jit_add_piece(struct jit_code *c, uint64_t start, uint64_t size,
    const char *name, size_t len, const size_t *sym, uint32_t table,
    uint64_t since);
/*
 * What was added to the process's files since they were last read,
 * budget bytes of each at most (at_end: the writer is done, a last line
 * without its newline counts).
 */
void jit_read_files(struct jit_code *c, int at_end, size_t budget);
/* The process's user and start, read now if they were not (jit-read.c). */
void jit_read_identity(struct jit_code *c);
/* The DEBUG_INFO kept for the next CODE_LOAD, freed. */
void jit_forget_debug(struct jit_code *c);
/* The waiting samples, named from the files read whole, to the builder. */
void jit_flush_pending(struct jit_code *c);
/* The pending store's memory, freed. */
void jit_pending_free(struct jit_code *c);

#endif
