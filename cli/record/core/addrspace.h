/*
 * addrspace.h - the executable mappings of one process image, as the
 * recorder learns them (perf's MMAP2 records, /proc/PID/maps): the one
 * copy of them that the perf engine's process table, the unwinder and
 * the timer engine's process slots all read.
 *
 * Mappings are sorted by address and disjoint: a new one replaces what
 * it overlaps (munmap is not reported), and one the same as a mapping
 * already there changes nothing.  With a history, what a new mapping
 * replaced is kept too, so that an address may also be looked up at any
 * time of the run, for a pc known without its time (the timer engine's
 * histogram): the answer is the code every mapping that ever held it
 * agrees on, or none where the address was reused for other code.
 */
#ifndef PROFIL_RECORD_ADDRSPACE_H
#define PROFIL_RECORD_ADDRSPACE_H

#include <stddef.h>
#include <stdint.h>

struct addr_map {
	uint64_t start, end;		/* [start, end) */
	uint64_t pgoff;			/* file offset of start */
	int obj;			/* builder object, -1: no file's code */
	char *path;			/* as mapped ("[vdso]"), or NULL */
};

struct jit_code;

struct addr_space {
	struct addr_map *maps;		/* now: sorted, disjoint */
	size_t n, cap;
	unsigned generation;		/* changes whenever maps do */
	int keep_history;
	struct addr_map *history;	/* replaced, with keep_history */
	size_t nhistory, history_cap;
	/*
	 * The code the image generated as it ran (jit.h), named by its
	 * runtime: owned here, given by jit_attach with what to do when the
	 * space is told of a mapping (a jitdump file is followed), of an
	 * exec (the code is forgotten), and freed.  Not copied.
	 */
	struct jit_code *jit;
	const struct addr_space_jit_ops *jit_ops;
};

struct addr_space_jit_ops {
	void (*mapped)(struct jit_code *jit, const char *path);
	void (*exec)(struct jit_code *jit);
	void (*free)(struct jit_code *jit);
};

/* An empty space; with keep_history, replaced mappings are kept. */
struct addr_space *addr_space_new(int keep_history);
void addr_space_free(struct addr_space *s);

/* A copy of s (a forked child's image), without its history. */
struct addr_space *addr_space_copy(const struct addr_space *s);

/* The image is gone (an exec): no mappings now. */
void addr_space_clear(struct addr_space *s);

/*
 * A mapping [start, end) of path (NULL: none) at file offset pgoff, whose
 * code is builder object obj (-1: none), in place of what it overlaps.
 */
void addr_space_map(struct addr_space *s, uint64_t start, uint64_t end,
    uint64_t pgoff, int obj, const char *path);

/* The mapping that holds pc now, or NULL. */
const struct addr_map *addr_space_find(const struct addr_space *s,
    uint64_t pc);

/*
 * A mapping that held pc at some time (now, or in the history), or NULL
 * if none did or if two that did put it in different code (another
 * object, or the same at another offset: the address was reused).
 */
const struct addr_map *addr_space_find_ever(const struct addr_space *s,
    uint64_t pc);

#endif
