/*
 * jit-internal.h - what jit.c, jit-read.c and jit-pending.c share: a
 * process's generated code and the page index that finds it.  Private to
 * cli/record/jit*.c; jit.h is their contract with the recorder.
 *
 *   jit.c          a process's code: its pieces, found by pc; the unwind
 *                  tables handed to the unwinder
 *   jit-read.c     the runtime's files, read as they grow: the perf map
 *                  (judged first: is it this process's?) and jitdump
 *   jit-pending.c  samples waiting for code named late
 */
#ifndef PROFIL_RECORD_JIT_INTERNAL_H
#define PROFIL_RECORD_JIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "builder.h"
#include "hmap.h"
#include "jit-tables.h"
#include "jitdump.h"
#include "perfmap.h"

#define PAGE_SHIFT	12
/* A piece bigger than this is refused (a bad size would index 2^40 pages). */
#define PIECE_MAX	((uint64_t)64 << 20)
#define DUMPS_MAX	8		/* jitdump files followed per process */

struct piece {
	uint64_t start, end;		/* where the runtime put it */
	size_t sym;			/* its name and [jit] range */
	uint32_t table;			/* its unwind tables (jit-tables.h) */
	uint8_t wanted;			/* the unwinder was told of them */
	uint8_t gone;			/* newer code lies over part of it */
};

struct page_ref {
	uint32_t piece, next;		/* next: 1 + the older ref, or 0 */
};

struct jit_code {
	pid_t pid;
	char map_path[64];
	struct perfmap_file *map;
	struct stat map_seen;		/* the map file as last judged */
	int map_judged, map_ok;
	struct jitdump_file *dumps[DUMPS_MAX];
	char *dump_paths[DUMPS_MAX];
	size_t ndumps;
	struct piece *pieces;
	size_t npieces, pieces_cap;
	struct page_ref *refs;
	size_t nrefs, refs_cap;
	struct hmap pages;		/* page -> 1 + its newest ref */
	uint64_t read_ns;		/* the files were last read then */
	unsigned long refused;		/* pieces too big or wrapping */
	/* samples waiting for the files (jit_code_defer): frames in pframes */
	struct pending {
		size_t first, n;
		uint64_t weight;
		pid_t pid, tid;
		int flat;
	} *pending;
	size_t npending, pending_cap;
	struct bframe *pframes;
	size_t npframes, pframes_cap;
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
 * Code [start, start + size) at the process's addresses, named name (a
 * new range) or, with sym, the code of that range moved there, with its
 * unwind tables (0: none).  Returns its range, or SIZE_MAX if it was
 * refused or known already.
 */
size_t jit_add_piece(struct jit_code *c, uint64_t start, uint64_t size,
    const char *name, size_t len, const size_t *sym, uint32_t table);
/*
 * What was added to the process's files since they were last read
 * (at_end: the writer is done, a last line without its newline counts).
 */
void jit_read_files(struct jit_code *c, int at_end);
/* The DEBUG_INFO kept for the next CODE_LOAD, freed. */
void jit_forget_debug(struct jit_code *c);
/* The waiting samples, named from the files read whole, to the builder. */
void jit_flush_pending(struct jit_code *c);

#endif
