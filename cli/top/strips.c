/*
 * strips.c - each thread's time across top's window (strips.h): each
 * period summed up as it comes, the window's strips from the sums.
 * Invariant: a period's bins sum to its threads' cpu_ns and off_ns, and
 * a strip's columns to what of them falls in [start_ns, end_ns).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "strips.h"

/* One thread of a period, summed up. */
struct period_thread {
	uint32_t pid, tid;
	char *name;
	uint64_t cpu_ns, off_ns;
	struct top_wait *waits;		/* every wait of its, by code */
	size_t nwaits;
	float cpu[TOP_STRIP_BINS], off[TOP_STRIP_BINS];	/* ns */
};

struct top_period_threads {
	int64_t start_ns;
	uint64_t duration_ns;
	struct period_thread *threads;
	size_t n;
};

void
top_threads_init(struct top_threads *h)
{
	memset(h, 0, sizeof *h);
}

static void
period_free(struct top_period_threads *pt)
{
	for (size_t i = 0; i < pt->n; i++) {
		free(pt->threads[i].name);
		free(pt->threads[i].waits);
	}
	free(pt->threads);
	free(pt);
}

void
top_threads_free(struct top_threads *h)
{
	for (size_t i = 0; i < h->n; i++)
		period_free(h->periods[i]);
	free(h->periods);
	memset(h, 0, sizeof *h);
}

void
top_threads_trim(struct top_threads *h, int64_t start_ns)
{
	size_t drop = 0;

	while (drop < h->n && h->periods[drop]->start_ns +
	    (int64_t)h->periods[drop]->duration_ns <= start_ns)
		period_free(h->periods[drop++]);
	memmove(h->periods, h->periods + drop, (h->n - drop) *
	    sizeof *h->periods);
	h->n -= drop;
}

/* ws[0..*n) with ns more waited in code. */
static void
add_wait(struct top_wait **ws, size_t *n, uint64_t code, uint64_t ns)
{
	for (size_t i = 0; i < *n; i++)
		if ((*ws)[i].code == code) {
			(*ws)[i].ns += ns;
			return;
		}
	*ws = xrealloc(*ws, (*n + 1) * sizeof **ws);
	(*ws)[(*n)++] = (struct top_wait){ code, ns };
}

/* The off-CPU code of stack st of p, or -1 if it ran on the CPU. */
static int64_t
wait_of(const struct profil_profile *p, const struct profil_stack *st)
{
	const struct profil_frame *leaf;

	if (st->depth == 0 || st->off_ns == 0)
		return -1;
	leaf = &p->frames[st->frames[0]];
	return leaf->object == PROFIL_FRAME_OFFCPU ? (int64_t)leaf->addr : -1;
}

/* pt's thread (pid, tid), made if new (index: pid << 32 | tid -> + 1). */
static struct period_thread *
thread_in(struct top_period_threads *pt, size_t *cap, struct hmap *index,
    uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid, at = hmap_get(index, key);
	struct period_thread *t;

	if (at > 0)
		return &pt->threads[at - 1];
	if (pt->n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		pt->threads = xrealloc(pt->threads, *cap * sizeof *pt->threads);
	}
	t = &pt->threads[pt->n];
	memset(t, 0, sizeof *t);
	t->pid = pid;
	t->tid = tid;
	hmap_add(index, key, ++pt->n);
	return t;
}

/* value ns into bins, evenly over the period. */
static void
even(float *bins, double ns)
{
	for (int b = 0; b < TOP_STRIP_BINS; b++)
		bins[b] += (float)(ns / TOP_STRIP_BINS);
}

void
top_threads_add(struct top_threads *h, const struct profil_profile *q)
{
	struct top_period_threads *pt = xcalloc(1, sizeof *pt);
	size_t *of = xcalloc(q->nstacks + 1, sizeof *of);	/* its thread */
	int timed = q->slice_ns > 0 && q->ntimeline > 0 && q->duration_ns > 0;
	struct hmap index;
	size_t cap = 0;

	hmap_init(&index);
	pt->start_ns = q->start_ns;
	pt->duration_ns = q->duration_ns;
	for (size_t i = 0; i < q->nthreads; i++) {
		struct period_thread *t = thread_in(pt, &cap, &index,
		    q->threads[i].pid, q->threads[i].tid);

		free(t->name);
		t->name = xstrdup(q->threads[i].name != NULL ?
		    q->threads[i].name : "");
		if (q->nstacks == 0) {	/* no stacks: its samples alone */
			t->cpu_ns += q->threads[i].samples * q->interval_ns;
			even(t->cpu, (double)(q->threads[i].samples *
			    q->interval_ns));
		}
	}
	for (size_t i = 0; i < q->nstacks; i++) {
		const struct profil_stack *st = &q->stacks[i];
		struct period_thread *t = thread_in(pt, &cap, &index, st->pid,
		    st->tid);
		int64_t code = wait_of(q, st);
		uint64_t ns = code >= 0 ? st->off_ns :
		    st->count * q->interval_ns;

		of[i] = (size_t)(t - pt->threads);
		if (code >= 0) {
			t->off_ns += ns;
			add_wait(&t->waits, &t->nwaits, (uint64_t)code, ns);
		} else
			t->cpu_ns += ns;
		if (!timed)
			even(code >= 0 ? t->off : t->cpu, (double)ns);
	}
	for (size_t i = 0; timed && i < q->ntimeline; i++) {
		const struct profil_timeline_entry *e = &q->timeline[i];
		const struct profil_stack *st;
		struct period_thread *t;
		uint64_t mid, b;

		if (e->stack >= q->nstacks)
			continue;
		st = &q->stacks[e->stack];
		t = &pt->threads[of[e->stack]];
		mid = e->slice * q->slice_ns + q->slice_ns / 2;
		b = mid * TOP_STRIP_BINS / q->duration_ns;
		if (b >= TOP_STRIP_BINS)
			b = TOP_STRIP_BINS - 1;
		if (wait_of(q, st) >= 0)
			t->off[b] += (float)e->value;
		else
			t->cpu[b] += (float)(e->value * q->interval_ns);
	}
	for (size_t i = 0; i < pt->n; i++)
		if (pt->threads[i].name == NULL)
			pt->threads[i].name = xstrdup("");
	hmap_free(&index);
	free(of);
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 16;
		h->periods = xrealloc(h->periods, h->cap * sizeof *h->periods);
	}
	h->periods[h->n++] = pt;
}

/* ns over [from, from + len) into row, each column its overlap's part. */
static void
spread(const struct top_strips *s, double *row, double from, double len,
    double ns)
{
	double width = (double)(s->end_ns - s->start_ns) / s->columns;
	double to = from + len, at = from;

	if (width <= 0 || len <= 0)
		return;
	if (at < (double)s->start_ns)
		at = (double)s->start_ns;
	while (at < to && at < (double)s->end_ns) {
		int c = (int)((at - (double)s->start_ns) / width);
		double edge;

		if (c >= s->columns)
			c = s->columns - 1;
		edge = (double)s->start_ns + (c + 1) * width;
		if (edge <= at)		/* rounding at the last column */
			edge = to;
		if (edge > to)
			edge = to;
		row[c] += ns * (edge - at) / len;
		at = edge;
	}
}

static int
by_ns(const void *a, const void *b)
{
	const struct top_wait *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static int
by_thread(const void *a, const void *b)
{
	const struct top_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The strips as they are gathered: each thread's every wait. */
struct gather {
	struct top_strips *s;
	struct hmap index;		/* pid << 32 | tid -> thread + 1 */
	struct top_wait **waits;	/* per thread, *nwaits of them */
	size_t *nwaits, cap;
};

/* The strip of from's thread, made if new. */
static size_t
strip_of(struct gather *g, const struct period_thread *from)
{
	struct top_strips *s = g->s;
	uint64_t key = (uint64_t)from->pid << 32 | from->tid;
	uint64_t at = hmap_get(&g->index, key);
	struct top_thread *t;

	if (at > 0)
		return at - 1;
	if (s->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		s->threads = xrealloc(s->threads, g->cap * sizeof *s->threads);
		g->waits = xrealloc(g->waits, g->cap * sizeof *g->waits);
		g->nwaits = xrealloc(g->nwaits, g->cap * sizeof *g->nwaits);
	}
	t = &s->threads[s->n];
	memset(t, 0, sizeof *t);
	t->pid = from->pid;
	t->tid = from->tid;
	t->cpu = xcalloc((size_t)s->columns, sizeof *t->cpu);
	t->off = xcalloc((size_t)s->columns, sizeof *t->off);
	g->waits[s->n] = NULL;
	g->nwaits[s->n] = 0;
	hmap_add(&g->index, key, ++s->n);
	return s->n - 1;
}

/* Thread from of period pt into its strip. */
static void
gather(struct gather *g, const struct top_period_threads *pt,
    const struct period_thread *from)
{
	size_t at = strip_of(g, from);
	struct top_thread *t = &g->s->threads[at];
	double bin = (double)pt->duration_ns / TOP_STRIP_BINS;

	t->name = from->name;	/* the newest */
	t->cpu_ns += from->cpu_ns;
	t->off_ns += from->off_ns;
	for (size_t k = 0; k < from->nwaits; k++)
		add_wait(&g->waits[at], &g->nwaits[at], from->waits[k].code,
		    from->waits[k].ns);
	for (int b = 0; b < TOP_STRIP_BINS; b++) {
		double t0 = (double)pt->start_ns + b * bin;

		if (from->cpu[b] > 0)
			spread(g->s, t->cpu, t0, bin, from->cpu[b]);
		if (from->off[b] > 0)
			spread(g->s, t->off, t0, bin, from->off[b]);
	}
}

void
top_strips_build(struct top_strips *s, const struct top_threads *h,
    int64_t start_ns, int64_t end_ns, int columns)
{
	struct gather g = { .s = s };

	memset(s, 0, sizeof *s);
	s->columns = columns > 0 ? columns : 1;
	s->start_ns = start_ns;
	s->end_ns = end_ns;
	hmap_init(&g.index);
	for (size_t p = 0; p < h->n; p++)
		for (size_t i = 0; i < h->periods[p]->n; i++)
			gather(&g, h->periods[p], &h->periods[p]->threads[i]);
	/* (qsort's base must not be NULL, even for none) */
	for (size_t i = 0; i < s->n; i++) {
		if (g.nwaits[i] > 1)
			qsort(g.waits[i], g.nwaits[i], sizeof *g.waits[i],
			    by_ns);
		for (size_t k = 0; k < g.nwaits[i] && k < TOP_STRIP_WAITS; k++)
			s->threads[i].waits[k] = g.waits[i][k];
		free(g.waits[i]);
	}
	if (s->n > 1)
		qsort(s->threads, s->n, sizeof *s->threads, by_thread);
	hmap_free(&g.index);
	free(g.waits);
	free(g.nwaits);
}

void
top_strips_free(struct top_strips *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->threads[i].cpu);
		free(s->threads[i].off);
	}
	free(s->threads);
	memset(s, 0, sizeof *s);
}

const char *
top_strip_text(const struct top_strips *s, const struct top_thread *t,
    int utf8, char *buf, size_t size)
{
	static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583",
	    "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char ascii[8] = ".:-=+*#@";
	double column_ns = (double)(s->end_ns - s->start_ns) / s->columns;
	size_t n = 0;

	for (int c = 0; c < s->columns && n + 4 < size; c++) {
		double on = column_ns > 0 ? t->cpu[c] / column_ns : 0;
		double off = column_ns > 0 ? t->off[c] / column_ns : 0;
		int level = (int)(on * 8 + 0.5);
		const char *g;

		if (on * 8 < 1 && off >= 0.5)
			g = utf8 ? "\u2591" : "~";
		else if (on <= 0)
			g = " ";
		else {
			level = level < 1 ? 1 : level > 8 ? 8 : level;
			if (!utf8) {
				buf[n++] = ascii[level - 1];
				continue;
			}
			g = blocks[level - 1];
		}
		n += (size_t)snprintf(buf + n, size - n, "%s", g);
	}
	buf[n] = '\0';
	return buf;
}
