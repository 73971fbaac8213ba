/*
 * timeline-data.c - a profile's timeline per thread, per slice, per thing
 * done (timeline-data.h), and the run cut into columns.  Invariant: a
 * thread's cells sum to the time of its stacks in the timeline (a CPU
 * stack's samples times interval_ns, an off-CPU stack's ns), each cell
 * once per (slice, what); columns share a slice by its time in each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile/wall-view.h"
#include "profile/window.h"
#include "timeline-data.h"

/* 0 if p has a timeline; -1 with the cause if it has none. */
static int
has_timeline(const struct profil_profile *p, char *cause,
    size_t cause_size)
{
	if (p->nstacks == 0) {
		snprintf(cause, cause_size, "this profile has no call stacks "
		    "(recorded with --no-call-graph, or by an older profil), "
		    "and no timeline without them");
		return -1;
	}
	if (p->slice_ns == 0 || p->nslices == 0) {
		snprintf(cause, cause_size, "this profile has no timeline "
		    "(recorded by a profil from before timelines): record it "
		    "again to see when its time went");
		return -1;
	}
	return 0;
}

uint64_t
tldata_slice_start(const struct tldata *t, uint64_t k)
{
	/* k < nslices: below the run's end, no overflow */
	uint64_t at = k * t->slice_ns;

	return at < t->span_ns ? at : t->span_ns;
}

uint64_t
tldata_slice_end(const struct tldata *t, uint64_t k)
{
	return k + 1 >= t->nslices ? t->span_ns :
	    tldata_slice_start(t, k + 1);
}


/*
 * What stack st did: its leaf function on the CPU, or its wait and the
 * function that waited (timeline-data.h).  Kernel functions at the leaf
 * are passed over for the program's own below them (a thread in c() on
 * a loaded machine had 88 ms of samples in handle_softirqs, a phase of
 * its own; a phase of writes is the code that writes, not the kernel's
 * copy routine); a stack in the kernel alone keeps its leaf.
 */
static struct tldata_what
what_of(const struct profil_profile *p, const struct stacks *s,
    const struct profil_stack *st)
{
	static uint32_t funcs[STACKS_MAX_DEPTH];
	size_t n = stacks_funcs_of(s, st, funcs, STACKS_MAX_DEPTH);
	struct tldata_what w = { 0, TLDATA_NO_FUNC, 0, 0 };
	/* the first function past the wait itself (an off-CPU stack's leaf) */
	size_t k = st->off_ns > 0 ? 1 : 0, caller;

	while (k + 1 < n && s->funcs[funcs[k]].kernel)
		k++;
	if (st->off_ns == 0) {
		if (n > 0)
			w.func = funcs[k];
		return w;
	}
	w.off = 1;
	w.code = p->frames[st->frames[0]].addr;
	w.kind = offcpu_kind(w.code);
	if (k >= n)
		return w;
	/*
	 * Preempted, faulting or stopped, the thread was in funcs[k]; in a
	 * system call, funcs[k] is its wrapper, and the caller the first
	 * function past the wrapper's object (libc), the wrapper itself
	 * where there is none (a static program's).
	 */
	if (w.code > PROFIL_OFFCPU_SYSCALL_MAX) {
		w.func = funcs[k];
		return w;
	}
	for (caller = k; caller < n && s->funcs[funcs[caller]].object_index ==
	    s->funcs[funcs[k]].object_index; caller++)
		;
	w.func = funcs[caller < n && !s->funcs[funcs[caller]].cut ? caller :
	    k];
	return w;
}

static int
what_order(const struct tldata_what *x, const struct tldata_what *y)
{
	if (x->off != y->off)
		return x->off - y->off;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static const struct tldata_what *sort_whats;

static int
by_what(const void *a, const void *b)
{
	return what_order(&sort_whats[*(const size_t *)a],
	    &sort_whats[*(const size_t *)b]);
}

/* Each stack's what, numbered once each: what[i] for stack i. */
static uint32_t *
number_whats(struct tldata *t)
{
	const struct profil_profile *p = t->p;
	struct tldata_what *all = xcalloc(p->nstacks, sizeof *all);
	size_t *order = xcalloc(p->nstacks, sizeof *order);
	uint32_t *what = xcalloc(p->nstacks, sizeof *what);

	for (size_t i = 0; i < p->nstacks; i++) {
		all[i] = what_of(p, t->s, &p->stacks[i]);
		order[i] = i;
	}
	sort_whats = all;
	qsort(order, p->nstacks, sizeof *order, by_what);
	t->whats = xcalloc(p->nstacks, sizeof *t->whats);
	for (size_t k = 0; k < p->nstacks; k++) {
		const struct tldata_what *w = &all[order[k]];

		if (t->nwhats == 0 ||
		    what_order(&t->whats[t->nwhats - 1], w) != 0)
			t->whats[t->nwhats++] = *w;
		what[order[k]] = (uint32_t)(t->nwhats - 1);
	}
	free(order);
	free(all);
	return what;
}

static int
thread_order(const void *a, const void *b)
{
	const struct tldata_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The threads of p's stacks, in order; thread[i] for stack i. */
static uint32_t *
number_threads(struct tldata *t)
{
	const struct profil_profile *p = t->p;
	uint32_t *thread = xcalloc(p->nstacks, sizeof *thread);

	t->threads = xcalloc(p->nstacks, sizeof *t->threads);
	for (size_t i = 0; i < p->nstacks; i++)
		t->threads[i] = (struct tldata_thread){ p->stacks[i].pid,
		    p->stacks[i].tid, "", NULL, 0, 0, 0 };
	qsort(t->threads, p->nstacks, sizeof *t->threads, thread_order);
	for (size_t i = 0; i < p->nstacks; i++)
		if (t->nthreads == 0 ||
		    thread_order(&t->threads[t->nthreads - 1], &t->threads[i]))
			t->threads[t->nthreads++] = t->threads[i];
	for (size_t i = 0; i < p->nstacks; i++) {
		struct tldata_thread key = { p->stacks[i].pid,
		    p->stacks[i].tid, NULL, NULL, 0, 0, 0 };
		struct tldata_thread *th = bsearch(&key, t->threads,
		    t->nthreads, sizeof key, thread_order);

		thread[i] = (uint32_t)(th - t->threads);
	}
	for (size_t i = 0; i < p->nthreads; i++) {
		struct tldata_thread key = { p->threads[i].pid,
		    p->threads[i].tid, NULL, NULL, 0, 0, 0 };
		struct tldata_thread *th = bsearch(&key, t->threads,
		    t->nthreads, sizeof key, thread_order);

		if (th != NULL && p->threads[i].name != NULL)
			th->name = p->threads[i].name;
	}
	return thread;
}

static int
cell_order(const void *a, const void *b)
{
	const struct tldata_cell *x = a, *y = b;

	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	return x->what < y->what ? -1 : x->what > y->what;
}

/* th's cells in order, one per (slice, what), its totals summed. */
static void
settle_cells(const struct tldata *t, struct tldata_thread *th)
{
	size_t k = 0;

	qsort(th->cells, th->ncells, sizeof *th->cells, cell_order);
	for (size_t i = 0; i < th->ncells; i++) {
		struct tldata_cell *c = &th->cells[i];

		if (t->whats[c->what].off)
			th->off_ns += c->ns;
		else
			th->cpu_ns += c->ns;
		if (k > 0 && cell_order(&th->cells[k - 1], c) == 0)
			th->cells[k - 1].ns += c->ns;
		else
			th->cells[k++] = *c;
	}
	th->ncells = k;
}

int
tldata_build(struct tldata *t, const struct profil_profile *p,
    const struct stacks *s, char *cause, size_t cause_size)
{
	uint32_t *what, *thread;
	size_t *cap;

	memset(t, 0, sizeof *t);
	if (has_timeline(p, cause, cause_size) < 0)
		return -1;
	t->p = p;
	t->s = s;
	t->slice_ns = p->slice_ns;
	t->nslices = p->nslices;
	t->span_ns = window_run_ns(p);
	t->wall = p->wall != NULL || wall_view_object(p) >= 0;
	what = number_whats(t);
	thread = number_threads(t);
	cap = xcalloc(t->nthreads + 1, sizeof *cap);
	for (size_t i = 0; i < p->ntimeline; i++) {
		const struct profil_timeline_entry *e = &p->timeline[i];
		const struct profil_stack *st;
		struct tldata_thread *th;
		size_t k;

		if (e->stack >= p->nstacks || e->slice >= p->nslices)
			continue;	/* (the codec's reader lets none by) */
		st = &p->stacks[e->stack];
		k = thread[e->stack];
		th = &t->threads[k];

		if (th->ncells == cap[k]) {
			cap[k] = cap[k] ? 2 * cap[k] : 64;
			th->cells = xrealloc(th->cells, cap[k] *
			    sizeof *th->cells);
		}
		th->cells[th->ncells++] = (struct tldata_cell){ e->slice,
		    what[e->stack], st->off_ns > 0 ? (double)e->value :
		    (double)e->value * (double)p->interval_ns };
	}
	for (size_t k = 0; k < t->nthreads; k++)
		settle_cells(t, &t->threads[k]);
	free(cap);
	free(thread);
	free(what);
	return 0;
}

void
tldata_free(struct tldata *t)
{
	for (size_t k = 0; k < t->nthreads; k++)
		free(t->threads[k].cells);
	free(t->threads);
	free(t->whats);
	memset(t, 0, sizeof *t);
}

/* Column j's start when the span is cut into n: floor(j * span / n). */
static uint64_t
column_start(const struct tldata *t, size_t j, size_t n)
{
	return (uint64_t)((unsigned __int128)t->span_ns * j / n);
}

void
tldata_columns(const struct tldata *t, size_t th,
    struct tldata_column *cols, size_t n)
{
	const struct tldata_thread *tt = &t->threads[th];

	for (size_t j = 0; j < n; j++) {
		memset(&cols[j], 0, sizeof cols[j]);
		cols[j].start_ns = column_start(t, j, n);
		cols[j].end_ns = column_start(t, j + 1, n);
	}
	for (size_t i = 0; i < tt->ncells; i++) {
		const struct tldata_cell *c = &tt->cells[i];
		const struct tldata_what *w = &t->whats[c->what];
		uint64_t s0 = tldata_slice_start(t, c->slice);
		uint64_t s1 = tldata_slice_end(t, c->slice);
		/* the first column the slice is in */
		size_t j = (size_t)((unsigned __int128)s0 * n / t->span_ns);

		for (; j < n && cols[j].start_ns < s1; j++) {
			uint64_t lo = s0 > cols[j].start_ns ? s0 :
			    cols[j].start_ns;
			uint64_t hi = s1 < cols[j].end_ns ? s1 : cols[j].end_ns;
			double part;

			if (hi <= lo)
				continue;
			part = c->ns * (double)(hi - lo) / (double)(s1 - s0);
			if (w->off)
				cols[j].off_ns[w->kind] += part;
			else
				cols[j].cpu_ns += part;
		}
	}
}

void
tldata_bins(const struct tldata *t, size_t th, uint64_t per,
    struct tldata_column *cols, size_t n)
{
	const struct tldata_thread *tt = &t->threads[th];

	for (size_t j = 0; j < n; j++) {
		uint64_t last = (j + 1) * per;

		memset(&cols[j], 0, sizeof cols[j]);
		cols[j].start_ns = tldata_slice_start(t, j * per);
		cols[j].end_ns = tldata_slice_end(t, (last < t->nslices ?
		    last : t->nslices) - 1);
	}
	for (size_t i = 0; i < tt->ncells; i++) {
		const struct tldata_cell *c = &tt->cells[i];
		const struct tldata_what *w = &t->whats[c->what];
		size_t j = (size_t)(c->slice / per);

		if (j >= n)
			continue;
		if (w->off)
			cols[j].off_ns[w->kind] += c->ns;
		else
			cols[j].cpu_ns += c->ns;
	}
}

const char *
tldata_func_name(const struct tldata *t, uint32_t func)
{
	if (func == TLDATA_NO_FUNC || func >= t->s->nfuncs)
		return NULL;
	return t->s->funcs[func].function;
}
