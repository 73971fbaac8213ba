/*
 * procmaps.h - the executable mappings of a live process, from
 * /proc/PID/maps: what both engines need when the kernel did not tell
 * them (attaching with -p; the timer engine's snapshots).
 */
#ifndef PROFIL_PROCMAPS_H
#define PROFIL_PROCMAPS_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

struct procmap {
	uint64_t start, end, offset;
	const char *name;	/* path, "[vdso]", or "" for anonymous code */
};

/* A line longer than this (the path alone is at most PATH_MAX) is skipped. */
#define PROCMAPS_LINE_MAX (PATH_MAX + 128)

/*
 * Parse one line of a maps file (NUL-terminated; a newline ends it and
 * is cut off): 1 and *m filled for an executable mapping with start below
 * end (m->name points into line), else 0.
 */
int procmaps_line(char *line, struct procmap *m);

/*
 * Call fn for each executable mapping of pid, in address order.  Returns
 * the number of mappings, or -1 if /proc/PID/maps cannot be read.
 */
int procmaps_each(pid_t pid, void (*fn)(const struct procmap *m, void *arg),
    void *arg);

/* True for names that stand for a file we can read symbols from. */
int procmaps_is_object(const char *name);

/*
 * Whether path names a jitdump file (its last part is jit-PID.dump): a
 * JIT runtime maps it executable for profilers to see it, not to run it
 * (record/jit/jit.h follows it).
 */
int procmaps_is_jitdump(const char *path);

#endif
