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
#include "hmap.h"
#include "phases-internal.h"

uint64_t
phases_slices_per_bin(const struct tldata *t)
{
	return (t->nslices + PHASES_MAX_BINS - 1) / PHASES_MAX_BINS;
}

size_t
phases_nbins(const struct tldata *t)
{
	uint64_t per = phases_slices_per_bin(t);

	return (size_t)((t->nslices + per - 1) / per);
}

uint64_t
phases_bin_start(const struct phase_series *se, size_t b)
{
	return tldata_slice_start(se->t, b * se->per);
}

uint64_t
phases_bin_end(const struct phase_series *se, size_t b)
{
	uint64_t last = (b + 1) * se->per;

	return tldata_slice_end(se->t, (last < se->t->nslices ? last :
	    se->t->nslices) - 1);
}

/*
 * The keys: a function on the CPU each, a wait each (whoever waited),
 * and none; key_of[w] for each what w.  Time runnable in a function is
 * its function's: the thread was running it, preempted (on a loaded
 * machine a thread in a() was runnable 62% of its phase, which was
 * a()'s all the same).
 */
static void
number_keys(struct phase_series *se)
{
	const struct tldata *t = se->t;
	struct hmap on;		/* func -> its key on the CPU + 1 */

	hmap_init(&on);
	se->keys = xcalloc(t->nwhats + 1, sizeof *se->keys);
	se->key_of = xcalloc(t->nwhats + 1, sizeof *se->key_of);
	for (size_t w = 0; w < t->nwhats; w++) {
		const struct tldata_what *tw = &t->whats[w];
		int running = !tw->off || (tw->code == PROFIL_OFFCPU_RUNNABLE &&
		    tw->func != TLDATA_NO_FUNC);
		struct phase_key k = { PHASE_ON_CPU, tw->func, 0 };
		size_t i = 0;

		if (!running)
			k = (struct phase_key){ PHASE_OFF_CPU, TLDATA_NO_FUNC,
			    tw->code };
		if (running && (i = hmap_get(&on, tw->func)) > 0) {
			se->key_of[w] = (uint32_t)(i - 1);
			continue;
		}
		/* few keys off the CPU: a wait is found among them */
		if (!running)
			for (i = 0; i < se->nkeys; i++)
				if (se->keys[i].state == PHASE_OFF_CPU &&
				    se->keys[i].code == k.code)
					break;
		if (running || i == se->nkeys) {
			se->keys[i = se->nkeys++] = k;
			if (running)
				hmap_add(&on, tw->func, i + 1);
		}
		se->key_of[w] = (uint32_t)i;
	}
	se->none = (uint32_t)se->nkeys;
	se->keys[se->nkeys++] = (struct phase_key){ PHASE_NONE,
	    TLDATA_NO_FUNC, 0 };
	hmap_free(&on);
}

/* A cell as the series is built: its key and time (its bin: where). */
struct item {
	uint32_t key;
	double ns;
	int runnable;		/* a function's time preempted in it */
};

/*
 * Thread th's cells (all threads' with PHASES_PROGRAM) as items, bin by
 * bin: bin b's are it[at[b] .. at[b + 1]) (a counting sort: a profile
 * may have millions of cells, and sorting them took 2/3 of the view's
 * time on one of 2^24 slices).
 */
static struct item *
gather(const struct phase_series *se, size_t th, size_t *at)
{
	const struct tldata *t = se->t;
	size_t lo = th == PHASES_PROGRAM ? 0 : th;
	size_t hi = th == PHASES_PROGRAM ? t->nthreads : th + 1, n = 0;
	size_t *next = xcalloc(se->nbins + 1, sizeof *next);
	struct item *it;

	for (size_t i = lo; i < hi; i++)
		for (size_t c = 0; c < t->threads[i].ncells; c++)
			at[t->threads[i].cells[c].slice / se->per + 1]++;
	for (size_t b = 0; b < se->nbins; b++) {
		at[b + 1] += at[b];	/* at[b]: where bin b's begin */
		next[b] = at[b];
	}
	n = at[se->nbins];
	it = xcalloc(n + 1, sizeof *it);
	for (size_t i = lo; i < hi; i++)
		for (size_t c = 0; c < t->threads[i].ncells; c++) {
			const struct tldata_cell *cell =
			    &t->threads[i].cells[c];

			it[next[cell->slice / se->per]++] = (struct item){
			    se->key_of[cell->what], cell->ns,
			    t->whats[cell->what].off &&
			    se->keys[se->key_of[cell->what]].state ==
			    PHASE_ON_CPU };
		}
	free(next);
	return it;
}

static void
push(struct phase_series *se, size_t *cap, uint32_t key, double ns,
    double runnable_ns)
{
	if (se->nv == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		se->v = xrealloc(se->v, *cap * sizeof *se->v);
	}
	se->v[se->nv++] = (struct phase_entry){ key, ns, runnable_ns };
}

static int
key_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Scratch of add_bin: a key's sums in the bin, the keys it has. */
struct bin_sums {
	double *sum, *runnable;
	uint32_t *keys;
	size_t nkeys;
};

/*
 * Bin b's items it[lo..hi) into the series, each key once, in order.  A
 * thread's get none for the bin's time it was neither on nor off the
 * CPU; the program's do not (a thread not yet started does nothing to
 * name).
 */
static void
add_bin(struct phase_series *se, size_t *cap, size_t b, const struct item *it,
    size_t lo, size_t hi, int program, struct bin_sums *bs)
{
	double span = (double)(phases_bin_end(se, b) -
	    phases_bin_start(se, b)), all = 0;

	bs->nkeys = 0;
	for (size_t i = lo; i < hi; i++) {
		if (!(it[i].ns > 0))
			continue;	/* (samples of an interval of 0 ns) */
		if (bs->sum[it[i].key] == 0)
			bs->keys[bs->nkeys++] = it[i].key;
		bs->sum[it[i].key] += it[i].ns;
		if (it[i].runnable)
			bs->runnable[it[i].key] += it[i].ns;
	}
	qsort(bs->keys, bs->nkeys, sizeof *bs->keys, key_order);
	for (size_t i = 0; i < bs->nkeys; i++) {
		uint32_t k = bs->keys[i];

		all += bs->sum[k];
		push(se, cap, k, bs->sum[k], bs->runnable[k]);
		bs->sum[k] = bs->runnable[k] = 0;
	}
	if (!program && all < span)
		push(se, cap, se->none, span - all, 0);
}

/* The series of thread th (or PHASES_PROGRAM) of t. */
void
phases_series_build(struct phase_series *se, const struct tldata *t,
    size_t th)
{
	size_t cap = 0, *at;
	struct item *it;
	struct bin_sums bs;

	memset(se, 0, sizeof *se);
	se->t = t;
	se->per = phases_slices_per_bin(t);
	se->nbins = phases_nbins(t);
	number_keys(se);
	at = xcalloc(se->nbins + 1, sizeof *at);
	it = gather(se, th, at);
	bs = (struct bin_sums){ xcalloc(se->nkeys, sizeof *bs.sum),
	    xcalloc(se->nkeys, sizeof *bs.runnable),
	    xcalloc(se->nkeys, sizeof *bs.keys), 0 };
	se->first = xcalloc(se->nbins + 1, sizeof *se->first);
	for (size_t b = 0; b < se->nbins; b++) {
		add_bin(se, &cap, b, it, at[b], at[b + 1], th == PHASES_PROGRAM,
		    &bs);
		se->first[b + 1] = se->nv;
	}
	free(bs.keys);
	free(bs.runnable);
	free(bs.sum);
	free(it);
	free(at);
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

double
phases_raw_runnable(const struct phase_series *se, uint32_t k, size_t b0,
    size_t b1)
{
	double ns = 0;

	for (size_t b = b0; b < b1; b++)
		for (size_t i = se->first[b]; i < se->first[b + 1]; i++)
			if (se->v[i].key == k)
				ns += se->v[i].runnable_ns;
	return ns;
}
