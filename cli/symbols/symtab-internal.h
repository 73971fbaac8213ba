/*
 * symtab-internal.h - the table behind symbols.h, shared by the files
 * that make up that module (symbols.c, which opens and closes it, and
 * symtab-*.c) and by no one else: callers see only struct symtab's name.
 *
 * Invariant: funcs[0..n) is sorted by start and its ranges never overlap,
 * as read and after every function a lookup adds.
 */
#ifndef PROFIL_SYMBOLS_SYMTAB_INTERNAL_H
#define PROFIL_SYMBOLS_SYMTAB_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "fdes.h"
#include "scopes.h"

struct func {
	uint64_t start, end;
	const char *name;
	int binding;		/* 0 global, 1 weak, 2 local: see name_order */
};

struct symtab {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	int usable;		/* the file is the one profiled */
	int debug_only;		/* a separate debug file: names, no code */
	const char *base;	/* the object's basename, for made-up names */
	char **paths;		/* source paths made absolute, interned */
	size_t npaths;
	char **made;		/* names made for code without a symbol */
	size_t nmade, made_cap;
	struct func *funcs;
	size_t n, cap;
	struct scope_index *scopes;	/* for symtab_inlines, made at its
					   first call */
	struct fdes fdes;	/* call-frame entries, read at the first
				   lookup of code no symbol covers */
	int fdes_read;
	struct label *labels;	/* where code no function symbol covers
				   is known to start, by address */
	size_t nlabels;
	/* kept names' table: the profile's source lines of the object */
	const struct profil_line *lines;	/* the profile's, sorted */
	size_t nlines;
	char *const *line_files;
};

/*
 * A known start of code that has no function symbol: a label of the
 * symbol table (no type, no size, in code: ld.so's _start, hand-written
 * assembly), or, without a name, the entry point, DT_INIT, DT_FINI or
 * the start of a code section.
 */
struct label {
	uint64_t at;
	const char *name;	/* NULL: named OBJECT+0xSTART */
};

/*
 * Read mod's function symbols, PLT stubs and labels into t (zeroed but
 * for base): one function per address, the name to show, sorted by
 * start, ranges cut so that they never overlap.
 */
void read_functions(struct symtab *t, Dwfl_Module *mod);

/* Keep name (malloc'd), made for code without a symbol, to free with t. */
void keep_made(struct symtab *t, char *name);

#endif
