/*
 * perf-procs.h - the perf engine's processes: each one seen, by pid, with
 * its executable mappings (addrspace.h), which the flat profile and, with
 * call stacks, its unwinder read.  The side-band records keep it up to
 * date (MMAP2, COMM, FORK, EXIT), or an attach's reading of /proc.
 */
#ifndef PROFIL_RECORD_PERF_PROCS_H
#define PROFIL_RECORD_PERF_PROCS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf-engine.h"
#include "record/core/addrspace.h"

struct proc {
	pid_t pid;
	struct addr_space *space;	/* its image's mappings */
	struct unwind_space *uw;	/* with call stacks, reading space */
	uint64_t exited;		/* the time of its exit record, or 0 */
};

/*
 * The process pid of e, added without mappings if it is new.  Adding one
 * may move the others: a pointer from here holds until the next call.
 */
struct proc *perf_procs_get(struct engine *e, pid_t pid);
/*
 * A child forked from parent (pids): a copy of the parent's mappings,
 * with call stacks an unwinder of its own reading them.
 */
void perf_procs_fork(struct engine *e, pid_t child, pid_t parent);
/* The process exec'd: a new image, no mappings yet. */
void perf_procs_exec(struct proc *p);
/* Free the unwinders of processes that exited a while ago (see there). */
void perf_procs_free_exited(struct engine *e);
/* Free every process of e. */
void perf_procs_free(struct engine *e);

#endif
