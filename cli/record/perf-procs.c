/*
 * perf-procs.c - the perf engine's table of processes: a struct proc per
 * pid seen (e->procs, found through e->proc_index), with its mappings.
 *
 * Invariant: a process's maps are sorted by address and never overlap
 * (a new one replaces what it overlaps), so that a lookup can bisect.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "perf-procs.h"
#include "unwind.h"

struct proc *
perf_procs_get(struct engine *e, pid_t pid)
{
	uint64_t i = hmap_get(&e->proc_index, (uint64_t)pid);

	if (i == 0) {
		e->procs = xrealloc(e->procs, (e->nprocs + 1) * sizeof *e->procs);
		e->procs[e->nprocs] = (struct proc){ pid, NULL, 0, 0,
		    e->opts->stack_size ? unwind_space_new(pid) : NULL, 0 };
		hmap_add(&e->proc_index, (uint64_t)pid, ++e->nprocs);
		i = e->nprocs;
	}
	return &e->procs[i - 1];
}

static void
insert_map(struct proc *p, struct map m)
{
	size_t i, k = 0;
	struct map *out;

	/* a new mapping replaces whatever it overlaps (munmap is not reported) */
	out = xmalloc((p->n + 3) * sizeof *out);
	for (i = 0; i < p->n; i++) {
		struct map old = p->maps[i];

		if (old.end <= m.start || old.start >= m.end) {
			out[k++] = old;
			continue;
		}
		if (old.start < m.start) {
			struct map left = old;
			left.end = m.start;
			out[k++] = left;
		}
		if (old.end > m.end) {
			struct map right = old;
			right.pgoff += m.end - old.start;
			right.start = m.end;
			out[k++] = right;
		}
	}
	/* keep it sorted: insert m in place */
	for (i = 0; i < k && out[i].start < m.start; i++)
		;
	memmove(&out[i + 1], &out[i], (k - i) * sizeof *out);
	out[i] = m;
	free(p->maps);
	p->maps = out;
	p->n = k + 1;
	p->cap = k + 3;
}

/* A new executable mapping of p, for the flat profile and the unwinder. */
void
perf_procs_add_map(struct proc *p, struct map m, const char *name)
{
	insert_map(p, m);
	if (p->uw != NULL)
		unwind_space_map(p->uw, m.start, m.end, m.pgoff, name, m.obj);
}

const struct map *
perf_procs_find_map(const struct proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ip < p->maps[mid].start)
			hi = mid;
		else if (ip >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
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
