/*
 * procmaps.h - the executable mappings of a live process, from
 * /proc/PID/maps: what both engines need when the kernel did not tell
 * them (attaching with -p; the timer engine's snapshots).
 */
#ifndef PROFIL_PROCMAPS_H
#define PROFIL_PROCMAPS_H

#include <stdint.h>
#include <sys/types.h>

struct procmap {
	uint64_t start, end, offset;
	const char *name;	/* path, "[vdso]", or "" for anonymous code */
};

/*
 * Call fn for each executable mapping of pid, in address order.  Returns
 * the number of mappings, or -1 if /proc/PID/maps cannot be read.
 */
int procmaps_each(pid_t pid, void (*fn)(const struct procmap *m, void *arg),
    void *arg);

/* True for names that stand for a file we can read symbols from. */
int procmaps_is_object(const char *name);

#endif
