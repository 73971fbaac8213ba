/*
 * funcs.h - a profile's samples folded into functions: every object's
 * symbol table opened once, and one row per function that has samples
 * (plus [OBJECT] for code of an object outside its known functions,
 * [kernel] and [unknown]; kernel functions by name, object [kernel],
 * where the profile kept kernel addresses and they can be named here).  What the flat report, the HTML page, diff and
 * the exports share.
 */
#ifndef PROFIL_MODEL_FUNCS_H
#define PROFIL_MODEL_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "cli.h"
#include "symbols/symbols.h"

struct ksyms;

#define FUNC_NO_OBJECT ((size_t)-1)

struct func_row {
	const char *function;	/* demangled; [obj], [kernel], [unknown] */
	const char *symbol;	/* the symbol as in the file (mangled) */
	const char *object;	/* basename of the object, [kernel], [unknown] */
	size_t object_index;	/* into p->objects, or FUNC_NO_OBJECT */
	uint64_t start, end;	/* link-time [start, end); 0, 0 if no function */
	uint64_t samples;
};

struct funcs {
	const struct profil_profile *p;
	struct symtab **tabs;	/* per object with samples (empty when
				   unreadable); NULL for one without */
	const char **problems;	/* per object: why its table is empty, or NULL */
	struct ksyms *ktab;	/* the kernel's names, or NULL */
	const char *kproblem;	/* why the kernel's are not named, or NULL */
	struct func_row *rows;	/* by samples, most first; then name, object */
	size_t nrows;
	char **owned;		/* strings made here */
	size_t nowned;
	int inlines;		/* funcs_build_inline: inlined code is the
				   function it came from */
};

/*
 * Fold p (which must outlive f).  Objects whose symbols cannot be read
 * (or whose build-id differs) get one [OBJECT] row; each such object with
 * samples is named to warn with the reason (cli.h; NULL: to no one, the
 * reasons stay in problems and kproblem).  The symbols of an object
 * without samples are not read: nothing needs its names.
 */
void funcs_build(struct funcs *f, const struct profil_profile *p,
    cli_warn_fn *warn);

/*
 * The same, but code the compiler inlined is credited to the innermost
 * function it came from (DWARF scopes), as pprof's view has it; those
 * rows have no address range (start = end = 0).
 */
void funcs_build_inline(struct funcs *f, const struct profil_profile *p,
    cli_warn_fn *warn);
void funcs_free(struct funcs *f);

/*
 * count samples of a bucket that straddles the n functions of pieces
 * (symtab_pieces), shared in proportion to their bytes in it as gprof
 * does, in whole samples that add up to count: share[0..n).
 */
void funcs_apportion(uint64_t count, const struct symtab_piece *pieces,
    size_t n, uint64_t *share);

/* qsort order of func_rows: most samples first, then function, object. */
int funcs_by_samples(const void *a, const void *b);

/*
 * How a symbol is shown, malloc'd: C++ demangled, a symbol version
 * ("@@GLIBC_2.17") dropped; NULL when it is shown as it is.
 */
char *funcs_display_name(const char *symbol);

/* The basename of a path ("[vdso]" stays as it is). */
const char *funcs_base_name(const char *path);

/*
 * Whether a function shown as full is the one a user named name: the
 * same, or a demangled "ns::f(int) const" named "ns::f" (name without
 * parameters).  How --annotate, --callers and the like find theirs.
 */
int funcs_name_matches(const char *full, const char *name);

/* The first row for function name (demangled or not), or NULL. */
const struct func_row *funcs_find(const struct funcs *f, const char *name);

#endif
