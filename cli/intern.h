/*
 * intern.h - strings interned: each kept once, numbered 0 up in the
 * order they came, and found again by an FNV-1a hash.  What the named
 * stacks find their functions by (model/stacks.c, an identity string a
 * function) and the pprof export's string table is (export/pprof*.c).
 */
#ifndef PROFIL_INTERN_H
#define PROFIL_INTERN_H

#include <stddef.h>

/* Zero-initialised is empty; free with intern_free. */
struct intern {
	char **strs;		/* string i, owned */
	size_t n, cap;
	size_t *slots;		/* index + 1, or 0 for an empty slot */
	size_t nslots;		/* a power of two, at least twice n */
};

/*
 * The number of s, a copy of it kept if new (*added 1 then, else 0;
 * added may be NULL).  Memory runs out as the command's allocations do
 * (cli.h).
 */
size_t intern_add(struct intern *t, const char *s, int *added);

/* The number of s, or -1 if it was never added. */
long intern_find(const struct intern *t, const char *s);

void intern_free(struct intern *t);

#endif
