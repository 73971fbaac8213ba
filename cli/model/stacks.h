/*
 * stacks.h - a profile's call stacks with names: each frame (a place in
 * code) becomes the functions it is in, innermost first (a function the
 * compiler inlined there, then the one it was inlined into), each with an
 * identity shared by every frame in the same function, so that the views
 * (callers, callees, the tree, the flame graph, folded stacks) and the
 * flat view's inclusive column count by function.  The names come from
 * the flat view's symbol tables (funcs.h): one lookup per distinct frame.
 */
#ifndef PROFIL_MODEL_STACKS_H
#define PROFIL_MODEL_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "funcs.h"
#include "intern.h"

/* A function of the stacks. */
struct stack_func {
	const char *function;	/* as shown: demangled, [kernel], ... */
	const char *symbol;	/* as in the file (mangled) */
	const char *object;	/* basename, [kernel], [unknown] */
	size_t object_index;	/* into p->objects, or FUNC_NO_OBJECT */
	uint64_t start;		/* its first address (0: none known) */
	int kernel;		/* a kernel function */
	int cut;		/* a made-up frame saying why a stack was cut */
	int fp_caller;		/* its callers were found by frame pointer
				   (somewhere: the profile's fp frames) */
};

/* One function's place in a frame, for the pprof export. */
struct stack_line {
	uint32_t func;		/* into funcs */
	const char *file;	/* source file, or NULL */
	int line;		/* 0: unknown */
};

struct stacks {
	const struct profil_profile *p;
	struct stack_func *funcs;
	size_t nfuncs;
	/* per profile frame: lines[first[i] .. first[i + 1]), innermost first */
	struct stack_line *lines;
	size_t *first;
	char **owned;
	size_t nowned, owned_cap;
	struct intern index;	/* identity i is function i */
};

/*
 * Name every frame of p with f's tables (f built on p); with
 * STACKS_INLINES in flags, inlined functions are frames of their own.
 * Frames of a stack cut short become a made-up function ("[stack cut:
 * too deep]", ...); a wall profile's off-CPU leaves one named as
 * offcpu.h names them ("[off-cpu: read]", object "[off-cpu]").  Lines
 * have their source file and line unless STACKS_NO_LINES (then NULL, 0):
 * reading the line tables cost 0.1 s of CPU on bench/gen-big.py's
 * program, and only views that show lines need them.
 */
#define STACKS_INLINES	1
#define STACKS_NO_LINES	2
void stacks_name(struct stacks *s, const struct profil_profile *p,
    struct funcs *f, int flags);
void stacks_free(struct stacks *s);

/*
 * The functions of stack st, leaf first (inlined ones expanded), into
 * out, at most max; returns how many.
 */
size_t stacks_funcs_of(const struct stacks *s, const struct profil_stack *st,
    uint32_t *out, size_t max);

/*
 * The function named name (as funcs_find matches it; the one with the
 * most inclusive samples when several are); -1 if none.
 */
long stacks_find(const struct stacks *s, const char *name);

/*
 * Inclusive samples of every function into incl[0..nfuncs): the samples
 * of the stacks it is on, each stack once however often it is on it.
 * malloc'd.
 */
uint64_t *stacks_inclusive(const struct stacks *s);

/* The function of the flat view's row (funcs.h); -1 if in no stack. */
long stacks_func_of_row(const struct stacks *s, const struct func_row *row);

/* Frames of one stack after inlines are expanded, at most. */
#define STACKS_MAX_DEPTH	4096

#endif
