/*
 * perf-procs.h - the perf engine's processes: each one seen, by pid, with
 * its executable mappings for the flat profile and, with call stacks,
 * its unwinder's address space.  The side-band records keep it up to
 * date (MMAP2, COMM, FORK, EXIT), or an attach's reading of /proc.
 */
#ifndef PROFIL_RECORD_PERF_PROCS_H
#define PROFIL_RECORD_PERF_PROCS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf-engine.h"

struct map {
	uint64_t start, end, pgoff;
	int obj;			/* builder object, -1: unknown code */
};

struct proc {
	pid_t pid;
	struct map *maps;
	size_t n, cap;
	struct unwind_space *uw;	/* with call stacks; its own memory */
	uint64_t exited;		/* the time of its exit record, or 0 */
};

/*
 * The process pid of e, added without mappings if it is new.  Adding one
 * may move the others: a pointer from here holds until the next call.
 */
struct proc *perf_procs_get(struct engine *e, pid_t pid);
/* A new executable mapping of p, in place of what it overlaps. */
void perf_procs_add_map(struct proc *p, struct map m, const char *name);
/* The mapping of p that holds ip, or NULL. */
const struct map *perf_procs_find_map(const struct proc *p, uint64_t ip);
/* Free the unwinders of processes that exited a while ago (see there). */
void perf_procs_free_exited(struct engine *e);

#endif
