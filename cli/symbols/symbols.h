/*
 * symbols.h - function names for link-time addresses of a profiled
 * object, from elfutils' libdwfl (symtab, dynsym, .gnu_debuglink and
 * build-id debug files).  Built once per object into a sorted table.
 */
#ifndef PROFIL_SYMBOLS_H
#define PROFIL_SYMBOLS_H

#include <stdint.h>

#include <profil.h>

struct symtab;

/*
 * The functions of object o.  Never NULL: when the file is missing or is
 * not the one recorded (build-id differs) the table is empty and *problem
 * says why (NULL when all is well).
 */
struct symtab *symtab_open(const struct profil_object *o, const char **problem);
void symtab_close(struct symtab *t);

/*
 * The functions of object oi of p: from its file, as symtab_open; where
 * that cannot be had, from the names the profile keeps (profil archive),
 * without source lines or code.
 */
struct symtab *symtab_open_profile(const struct profil_profile *p, size_t oi,
    const char **problem);

/*
 * The function holding addr: its name and [start, end), or NULL if the
 * table is empty (the file is missing or not the one profiled).  Code no
 * symbol covers gets a function made from its call-frame information (an
 * FDE's range; else the 256 bytes around it) named "OBJECT+0xSTART",
 * kept in the table from then on.  Ranges never overlap.  Names live as
 * long as the table.
 */
const char *symtab_lookup(struct symtab *t, uint64_t addr, uint64_t *start,
    uint64_t *end);

/*
 * The functions that overlap [lo, hi), in address order, each with the
 * bytes of it inside: made-up ranges of code without a symbol or FDE
 * (padding between functions, mostly) are not counted.  *out is
 * malloc'd (NULL when none); returns how many.
 */
struct symtab_piece {
	const char *name;
	uint64_t start, end;	/* the function */
	uint64_t overlap;	/* bytes of it in [lo, hi) */
};
size_t symtab_pieces(struct symtab *t, uint64_t lo, uint64_t hi,
    struct symtab_piece **out);

/*
 * The machine code of [start, end) as the file holds it (from the
 * executable section that contains start, cut at its end), *size bytes;
 * NULL when the file does not hold it.  Lives as long as the table.
 */
const unsigned char *symtab_code(struct symtab *t, uint64_t start,
    uint64_t end, size_t *size);

/*
 * The source file (absolute when the compiler recorded where it ran)
 * and line of the instruction at addr, from the DWARF line table, or,
 * for a table of kept names, from the lines the profile keeps (a JIT
 * runtime's); NULL when there is no line information for it.
 */
const char *symtab_source(struct symtab *t, uint64_t addr, int *line);

/*
 * The functions inlined at addr, innermost first, from the DWARF scopes
 * of its compilation unit: each with its name (the linkage name when
 * there is one) and where execution is in it: for the innermost, addr's
 * own file and line; for each outer one, the call that was inlined into
 * it.  The last entry is the real function (name NULL: the caller has
 * it from symtab_lookup) at the outermost inlined call.  Fills at most
 * max; returns how many, 0 when nothing is inlined at addr or there is
 * no debug information.  Strings live as long as the table.
 */
struct symtab_frame {
	const char *name;
	const char *file;
	int line;
	const char *decl_file;	/* where the function is defined, or NULL */
	int decl_line;
};
size_t symtab_inlines(struct symtab *t, uint64_t addr,
    struct symtab_frame *out, size_t max);

#endif
