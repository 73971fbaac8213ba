/*
 * window.c - top's window (window.h): the newest periods' profiles in
 * order, and their sum.  Invariant: periods[0..n) are consecutive
 * periods of one recording, oldest first, and the newest ended less
 * than span_ns after the oldest's end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile/merge.h"
#include "window.h"

void
top_window_init(struct top_window *w, uint64_t span_ns)
{
	memset(w, 0, sizeof *w);
	w->span_ns = span_ns;
}

void
top_window_free(struct top_window *w)
{
	for (size_t i = 0; i < w->n; i++)
		profil_profile_free(w->periods[i]);
	free(w->periods);
	memset(w, 0, sizeof *w);
}

static int64_t
end_of(const struct profil_profile *p)
{
	return p->start_ns + (int64_t)p->duration_ns;
}

/* The periods that ended span_ns or more before the newest's end, gone. */
static void
trim(struct top_window *w)
{
	size_t drop = 0;

	if (w->n == 0)
		return;
	while (drop + 1 < w->n && end_of(w->periods[drop]) <=
	    end_of(w->periods[w->n - 1]) - (int64_t)w->span_ns)
		profil_profile_free(w->periods[drop++]);
	memmove(w->periods, w->periods + drop, (w->n - drop) *
	    sizeof *w->periods);
	w->n -= drop;
}

void
top_window_push(struct top_window *w, struct profil_profile *q)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->periods = xrealloc(w->periods, w->cap * sizeof *w->periods);
	}
	w->periods[w->n++] = q;
	trim(w);
}

void
top_window_resize(struct top_window *w, uint64_t span_ns)
{
	w->span_ns = span_ns;
	trim(w);
}

void
top_window_span(const struct top_window *w, int64_t *start, int64_t *end)
{
	*start = w->n > 0 ? w->periods[0]->start_ns : 0;
	*end = w->n > 0 ? end_of(w->periods[w->n - 1]) : 0;
}

/* A thread or process of the sum, where merge listed it (inputs in order). */
struct row_key {
	uint32_t pid, tid;
	size_t at;
};

/* By pid and tid, then where merge listed them: the newer the later. */
static int
key_order(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/*
 * rows[0..n) (of size bytes, row i's key in k[i]) one a key, in place:
 * by key, the oldest of a key's rows kept and each newer one handed to
 * fold(kept, newer), which takes what the newer owns.  Their number.
 */
static size_t
fold_rows(void *rows, size_t size, struct row_key *k, size_t n,
    void (*fold)(void *kept, void *newer))
{
	char *out = xcalloc(n + 1, size), *in = rows;
	size_t m = 0;

	qsort(k, n, sizeof *k, key_order);
	for (size_t i = 0; i < n; i++) {
		if (m > 0 && k[i].pid == k[i - 1].pid &&
		    k[i].tid == k[i - 1].tid)
			fold(out + (m - 1) * size, in + k[i].at * size);
		else
			memcpy(out + m++ * size, in + k[i].at * size, size);
	}
	if (m > 0)
		memcpy(rows, out, m * size);
	free(out);
	free(k);
	return m;
}

/* A thread's samples summed, the newest name kept. */
static void
fold_thread(void *kept, void *newer)
{
	struct profil_thread *t = kept, *u = newer;

	t->samples += u->samples;
	free(t->name);
	t->name = u->name;
}

/*
 * A process's samples summed; the newest command, parent and status
 * kept (a period's is "running" until the last one's).
 */
static void
fold_process(void *kept, void *newer)
{
	struct profil_process *p = kept, *q = newer;
	uint64_t samples = p->samples + q->samples;

	free(p->command);
	*p = *q;
	p->samples = samples;
}

/* m's threads one a (pid, tid), and its processes one a pid. */
static void
sum_rows(struct profil_profile *m)
{
	struct row_key *k = xcalloc(m->nthreads + 1, sizeof *k);

	for (size_t i = 0; i < m->nthreads; i++)
		k[i] = (struct row_key){ m->threads[i].pid,
		    m->threads[i].tid, i };
	m->nthreads = fold_rows(m->threads, sizeof *m->threads, k,
	    m->nthreads, fold_thread);
	k = xcalloc(m->nprocesses + 1, sizeof *k);
	for (size_t i = 0; i < m->nprocesses; i++)
		k[i] = (struct row_key){ m->processes[i].pid, 0, i };
	m->nprocesses = fold_rows(m->processes, sizeof *m->processes, k,
	    m->nprocesses, fold_process);
}

int
top_window_merge(const struct top_window *w, struct profil_profile **out,
    char *cause, size_t cause_size)
{
	const char **names;
	char (*name)[32];

	*out = NULL;
	if (w->n == 0) {
		snprintf(cause, cause_size, "no period has ended yet");
		return -1;
	}
	names = xcalloc(w->n, sizeof *names);
	name = xcalloc(w->n, sizeof *name);
	for (size_t i = 0; i < w->n; i++) {
		snprintf(name[i], sizeof name[i], "period %zu", i + 1);
		names[i] = name[i];
	}
	if (merge_profiles(w->periods, names, w->n, out, NULL, cause,
	    cause_size) == 0)
		sum_rows(*out);
	free(names);
	free(name);
	return *out != NULL ? 0 : -1;
}
