/*
 * funcdef.h - where the functions of a profile's named stacks are
 * defined: the source file and first line DWARF gives them (a symbol's
 * first line; an inlined function's declaration), which the pprof
 * export's Functions and the speedscope export's frames carry.
 */
#ifndef PROFIL_EXPORT_FUNCDEF_H
#define PROFIL_EXPORT_FUNCDEF_H

#include "model/funcs.h"
#include "model/stacks.h"

struct funcdef {
	const char *file;	/* NULL: not known */
	int line;		/* 0: not known (always 0 without a file) */
};

/*
 * Where each function of s (named on f's tables) is defined, found at
 * its first frame in the profile's order: defs[0 .. s->nfuncs), malloc'd
 * (free it); the strings live as long as f and s.  A symbol whose first
 * line is not known gets the file its frames' line table gives, line 0;
 * kernel, unknown, cut and off-CPU functions, and code outside any known
 * symbol, get none.
 */
struct funcdef *funcdef_of_stacks(const struct stacks *s,
    const struct funcs *f);

/* Inlined functions deeper than this are cut at the outermost ones. */
#define FUNCDEF_MAX_FRAMES 16

#endif
