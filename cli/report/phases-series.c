/*
 * phases-series.c - a thread's or the program's time as a series
 * (phases-internal.h): its cells grouped into bins of whole slices and
 * keys (a function on the CPU, a wait whoever waited, none).
 * Invariant: a bin's entries are sorted by key, each key once, and a
 * thread's fill the bin's time (none makes up what the cells do not).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "phases-internal.h"

uint64_t
phases_slices_per_bin(const struct timeline *t)
{
	return (t->nslices + PHASES_MAX_BINS - 1) / PHASES_MAX_BINS;
}

size_t
phases_nbins(const struct timeline *t)
{
	uint64_t per = phases_slices_per_bin(t);

	return (size_t)((t->nslices + per - 1) / per);
}

uint64_t
phases_bin_start(const struct phase_series *se, size_t b)
{
	return timeline_slice_start(se->t, b * se->per);
}

uint64_t
phases_bin_end(const struct phase_series *se, size_t b)
{
	uint64_t last = (b + 1) * se->per;

	return timeline_slice_end(se->t, (last < se->t->nslices ? last :
	    se->t->nslices) - 1);
}

/*
 * The keys: a function on the CPU each, a wait each (whoever waited),
 * and none; key_of[w] for each what w.
 */
static void
number_keys(struct phase_series *se)
{
	const struct timeline *t = se->t;

	se->keys = xcalloc(t->nwhats + 1, sizeof *se->keys);
	se->key_of = xcalloc(t->nwhats + 1, sizeof *se->key_of);
	for (size_t w = 0; w < t->nwhats; w++) {
		const struct timeline_what *tw = &t->whats[w];
		struct phase_key k = { tw->off ? PHASE_OFF_CPU : PHASE_ON_CPU,
		    tw->off ? TIMELINE_NO_FUNC : tw->func, tw->code };
		size_t i = 0;

		/* few keys off the CPU: a wait is found among them */
		if (tw->off)
			for (i = 0; i < se->nkeys; i++)
				if (se->keys[i].state == PHASE_OFF_CPU &&
				    se->keys[i].code == k.code)
					break;
		if (!tw->off || i == se->nkeys)
			se->keys[i = se->nkeys++] = k;
		se->key_of[w] = (uint32_t)i;
	}
	se->none = (uint32_t)se->nkeys;
	se->keys[se->nkeys++] = (struct phase_key){ PHASE_NONE,
	    TIMELINE_NO_FUNC, 0 };
}

/* A cell as the series is built: its bin, key and time. */
struct item {
	size_t bin;
	uint32_t key;
	double ns;
};

static int
item_order(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->bin != y->bin)
		return x->bin < y->bin ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Thread th's cells (all threads' with PHASES_PROGRAM) as items. */
static struct item *
gather(const struct phase_series *se, size_t th, size_t *n)
{
	const struct timeline *t = se->t;
	size_t lo = th == PHASES_PROGRAM ? 0 : th;
	size_t hi = th == PHASES_PROGRAM ? t->nthreads : th + 1, k = 0;
	struct item *it;

	*n = 0;
	for (size_t i = lo; i < hi; i++)
		*n += t->threads[i].ncells;
	it = xcalloc(*n + 1, sizeof *it);
	for (size_t i = lo; i < hi; i++)
		for (size_t c = 0; c < t->threads[i].ncells; c++) {
			const struct timeline_cell *cell =
			    &t->threads[i].cells[c];

			it[k++] = (struct item){ cell->slice / se->per,
			    se->key_of[cell->what], cell->ns };
		}
	qsort(it, *n, sizeof *it, item_order);
	return it;
}

static void
push(struct phase_series *se, size_t *cap, uint32_t key, double ns)
{
	if (se->nv == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		se->v = xrealloc(se->v, *cap * sizeof *se->v);
	}
	se->v[se->nv++] = (struct phase_entry){ key, ns };
}

/*
 * Bin b's items it[lo..hi) into the series, each key once.  A thread's
 * get none for the bin's time it was neither on nor off the CPU; the
 * program's do not (a thread not yet started does nothing to name).
 */
static void
add_bin(struct phase_series *se, size_t *cap, size_t b, const struct item *it,
    size_t lo, size_t hi, int program)
{
	double span = (double)(phases_bin_end(se, b) -
	    phases_bin_start(se, b)), all = 0;

	for (size_t i = lo; i < hi; i++) {
		double ns = it[i].ns;

		/* keys repeat where several slices or whats make a bin */
		while (i + 1 < hi && it[i + 1].key == it[i].key)
			ns += it[++i].ns;
		all += ns;
		push(se, cap, it[i].key, ns);
	}
	if (!program && all < span)
		push(se, cap, se->none, span - all);
}

/* The series of thread th (or PHASES_PROGRAM) of t. */
void
phases_series_build(struct phase_series *se, const struct timeline *t,
    size_t th)
{
	size_t nitems, cap = 0, i = 0;
	struct item *it;

	memset(se, 0, sizeof *se);
	se->t = t;
	se->per = phases_slices_per_bin(t);
	se->nbins = phases_nbins(t);
	number_keys(se);
	it = gather(se, th, &nitems);
	se->first = xcalloc(se->nbins + 1, sizeof *se->first);
	for (size_t b = 0; b < se->nbins; b++) {
		size_t lo = i;

		while (i < nitems && it[i].bin == b)
			i++;
		add_bin(se, &cap, b, it, lo, i, th == PHASES_PROGRAM);
		se->first[b + 1] = se->nv;
	}
	free(it);
}

void
phases_series_free(struct phase_series *se)
{
	free(se->keys);
	free(se->key_of);
	free(se->v);
	free(se->first);
}

/* Key k's time in bins [b0, b1). */
double
phases_raw(const struct phase_series *se, uint32_t k, size_t b0, size_t b1)
{
	double ns = 0;

	for (size_t b = b0; b < b1; b++)
		for (size_t i = se->first[b]; i < se->first[b + 1]; i++)
			if (se->v[i].key == k)
				ns += se->v[i].ns;
	return ns;
}
