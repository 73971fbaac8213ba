/*
 * perf-procs.c - the perf engine's table of processes: a struct proc per
 * pid seen (e->procs, found through e->proc_index), with its mappings.
 *
 * Invariant: a process's unwinder reads its space, which lives as long
 * as the process's entry (an exec clears it, a fork copies it).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "perf-procs.h"
#include "record/jit/jit.h"
#include "record/unwind/unwind.h"

struct proc *
perf_procs_get(struct engine *e, pid_t pid)
{
	uint64_t i = hmap_get(&e->proc_index, (uint64_t)(uint32_t)pid);

	if (i == 0) {
		struct addr_space *space = addr_space_new(0);

		jit_attach(space, pid);

		e->procs = xrealloc(e->procs, (e->nprocs + 1) * sizeof *e->procs);
		e->procs[e->nprocs] = (struct proc){ pid, space,
		    e->opts->stack_size ? unwind_space_new(pid, space) : NULL, 0 };
		hmap_add(&e->proc_index, (uint64_t)(uint32_t)pid, ++e->nprocs);
		i = e->nprocs;
	}
	return &e->procs[i - 1];
}

void
perf_procs_fork(struct engine *e, pid_t child_pid, pid_t parent_pid)
{
	struct proc *child, *parent;

	perf_procs_get(e, child_pid);
	parent = perf_procs_get(e, parent_pid);	/* may move child: look again */
	child = perf_procs_get(e, child_pid);
	unwind_space_free(child->uw);
	addr_space_free(child->space);
	child->space = addr_space_copy(parent->space);
	jit_attach(child->space, child_pid);
	child->uw = e->opts->stack_size ? unwind_space_new(child_pid,
	    child->space) : NULL;
	child->exited = 0;	/* a pid used again */
}

void
perf_procs_exec(struct proc *p)
{
	addr_space_clear(p->space);
}

/*
 * The unwinders of processes that exited over a second (of sample time)
 * ago (the rest go at the end).  Not at the exit record itself: a
 * loaded machine's rings hand over samples out of order by hundreds of
 * milliseconds (a sanitized recorder saw 268 samples of 300 ms before a
 * process's exit drained after it), and those still want unwinding.
 */
void
perf_procs_free_exited(struct engine *e)
{
	for (size_t i = 0; i < e->nprocs; i++) {
		struct proc *p = &e->procs[i];

		if (p->uw != NULL && p->exited &&
		    p->exited + 1000000000u < e->latest) {
			unwind_space_free(p->uw);
			p->uw = NULL;
		}
	}
}

void
perf_procs_free(struct engine *e)
{
	for (size_t k = 0; k < e->nprocs; k++) {
		unwind_space_free(e->procs[k].uw);
		addr_space_free(e->procs[k].space);
	}
	free(e->procs);
	e->procs = NULL;
	e->nprocs = 0;
}
