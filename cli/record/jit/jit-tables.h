/*
 * jit-tables.h - the unwind tables a runtime gives for its generated code
 * (jitdump UNWINDING_INFO: an .eh_frame and its .eh_frame_hdr, for the
 * CODE_LOAD after it), kept for a process while it runs, and made into
 * what libdwfl unwinds by: an ELF image in memory holding them.
 *
 * The layout is V8's, which perf's genelf.c reads the same way: the
 * tables' pointers are relative to where they would lie if .eh_frame
 * followed the code at its size rounded up to 8, and .eh_frame_hdr
 * followed .eh_frame.  The image puts them there, the code at 0, so
 * libdwfl, told the code's address, finds the rules at each pc of it.
 *
 * The bytes are the program's: libdw reads them as it reads any ELF
 * file's, and a table it cannot read only leaves its code without CFI.
 */
#ifndef PROFIL_RECORD_JIT_TABLES_H
#define PROFIL_RECORD_JIT_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* A process keeps at most this much of tables (beyond: none kept). */
#define JIT_TABLES_BYTES	((size_t)64 << 20)

struct jitdump_unwind;

struct jit_tables {
	unsigned char *bytes;		/* each table's .eh_frame, then hdr */
	size_t nbytes, bytes_cap;
	struct jit_table {
		size_t off, eh_frame_size, hdr_size;
	} *t;
	size_t n, cap;
	unsigned long dropped;		/* over JIT_TABLES_BYTES */
};

/*
 * Keep u's tables.  Returns 1 + their index, or 0 if there are none (a
 * record of V8's for code without tables: no .eh_frame, or none
 * mapped) or they are not kept (over JIT_TABLES_BYTES).
 */
uint32_t jit_tables_keep(struct jit_tables *t, const struct jitdump_unwind *u);

/*
 * The ELF image (malloc'd, *len bytes) of table ref (jit_tables_keep's)
 * for code of code_size bytes at its address 0: an x86-64 ET_DYN with
 * one PT_LOAD from 0, its .eh_frame_hdr and .eh_frame where the layout
 * puts them.
 */
unsigned char *jit_tables_image(const struct jit_tables *t, uint32_t ref,
    uint64_t code_size, size_t *len);

/* Free what t holds, and empty it. */
void jit_tables_free(struct jit_tables *t);

#endif
