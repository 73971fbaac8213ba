/*
 * phases.c - phases found in a timeline (phases.h).  A thread's (or the
 * program's) time becomes a series: per bin of slices, the time of each
 * key (a function on the CPU, a wait, or none), then a label per bin
 * (the key with the most time over a window of bins), runs of labels,
 * short runs merged away and boundaries fitted.  Invariant: the runs
 * cover the bins end to end, neighbours' keys differ, each run at least
 * one bin long.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "phases-internal.h"

/* How much more time a new label needs than the one before (a share). */
#define PHASES_HYSTERESIS	0.2

/*
 * Half the smoothing window, in bins: enough for about 20 samples of a
 * thread busy on the CPU, at least 2, at most a 40th of the run.
 */
static size_t
half_window(const struct phase_series *se)
{
	double bin_ns = (double)se->t->span_ns / (double)se->nbins;
	double want = 20.0 * (double)se->t->p->interval_ns / bin_ns;
	size_t h = want > 5 ? (size_t)ceil((want - 1) / 2) : 2;
	size_t most = se->nbins / 40 > 2 ? se->nbins / 40 : 2;

	return h < most ? h : most;
}

/* Add (sign 1) or take away (-1) bin b's entries to the window's sums. */
static void
window_add(const struct phase_series *se, size_t b, int sign, double *sum,
    size_t *count, uint32_t *active, size_t *nactive)
{
	for (size_t i = se->first[b]; i < se->first[b + 1]; i++) {
		uint32_t k = se->v[i].key;

		sum[k] += sign * se->v[i].ns;
		if (sign > 0 && count[k]++ == 0)
			active[(*nactive)++] = k;
		else if (sign < 0)
			count[k]--;
	}
}

/*
 * Each bin's label: the key with the most time within h bins of it,
 * unless the label before it has nearly as much (a new key must pass it
 * by PHASES_HYSTERESIS): two things done alike do not flap with noise.
 */
static uint32_t *
labels(const struct phase_series *se, size_t h)
{
	uint32_t *label = xcalloc(se->nbins, sizeof *label);
	double *sum = xcalloc(se->nkeys, sizeof *sum);
	size_t *count = xcalloc(se->nkeys, sizeof *count);
	uint32_t *active = xcalloc(se->nkeys, sizeof *active);
	size_t nactive = 0;

	for (size_t b = 0; b < h && b < se->nbins; b++)
		window_add(se, b, 1, sum, count, active, &nactive);
	for (size_t b = 0; b < se->nbins; b++) {
		size_t k = 0;
		uint32_t best = UINT32_MAX;

		if (b + h < se->nbins)
			window_add(se, b + h, 1, sum, count, active, &nactive);
		if (b > h)
			window_add(se, b - h - 1, -1, sum, count, active,
			    &nactive);
		/* the keys gone from the window leave the active list */
		for (size_t i = 0; i < nactive; i++) {
			uint32_t key = active[i];

			if (count[key] == 0) {
				sum[key] = 0;
				continue;
			}
			active[k++] = key;
			if (best == UINT32_MAX || sum[key] > sum[best] ||
			    (sum[key] == sum[best] && key < best))
				best = key;
		}
		nactive = k;
		if (best == UINT32_MAX)
			best = se->none;	/* (a thread's have none) */
		if (b > 0 && best != label[b - 1] && count[label[b - 1]] > 0 &&
		    sum[best] <= (1 + PHASES_HYSTERESIS) * sum[label[b - 1]])
			best = label[b - 1];
		label[b] = best;
	}
	free(active);
	free(count);
	free(sum);
	return label;
}

/* Runs of equal labels; *n of them. */
static struct phase_run *
runs_of(const uint32_t *label, size_t nbins, size_t *n)
{
	struct phase_run *r = xcalloc(nbins + 1, sizeof *r);

	*n = 0;
	for (size_t b = 0; b < nbins; b++) {
		if (*n > 0 && r[*n - 1].key == label[b])
			r[*n - 1].b1 = b + 1;
		else
			r[(*n)++] = (struct phase_run){ label[b], b, b + 1,
			    0 };
	}
	return r;
}

/* Run i joins run into (its neighbour); neighbours of one key join too. */
static void
absorb(struct phase_run *r, size_t *n, size_t i, size_t into)
{
	if (into < i) {
		r[into].b1 = r[i].b1;
	} else {
		r[into].b0 = r[i].b0;
		r[into].from_ns = r[i].from_ns;
	}
	memmove(&r[i], &r[i + 1], (*n - i - 1) * sizeof *r);
	(*n)--;
	if (into > i)
		into--;
	/* the run now at into may meet one of its own key on either side */
	if (into + 1 < *n && r[into + 1].key == r[into].key) {
		r[into].b1 = r[into + 1].b1;
		memmove(&r[into + 1], &r[into + 2], (*n - into - 2) *
		    sizeof *r);
		(*n)--;
	}
	if (into > 0 && r[into - 1].key == r[into].key) {
		r[into - 1].b1 = r[into].b1;
		memmove(&r[into], &r[into + 1], (*n - into - 1) * sizeof *r);
		(*n)--;
	}
}

/*
 * Runs shorter than min_len merged into a neighbour, the shortest
 * first: into the neighbour whose key had more time in it (the longer
 * one on a tie), so noise inside a phase joins it and a real short
 * stretch goes to the side it resembles.
 */
static void
merge_short(const struct phase_series *se, struct phase_run *r, size_t *n,
    size_t min_len)
{
	while (*n > 1) {
		size_t i = *n, into;

		for (size_t k = 0; k < *n; k++)
			if (r[k].b1 - r[k].b0 < min_len && (i == *n ||
			    r[k].b1 - r[k].b0 < r[i].b1 - r[i].b0))
				i = k;
		if (i == *n)
			return;
		if (i == 0)
			into = 1;
		else if (i + 1 == *n)
			into = i - 1;
		else {
			double left = phases_raw(se, r[i - 1].key, r[i].b0,
			    r[i].b1);
			double right = phases_raw(se, r[i + 1].key, r[i].b0,
			    r[i].b1);

			if (left != right)
				into = left > right ? i - 1 : i + 1;
			else
				into = r[i - 1].b1 - r[i - 1].b0 >=
				    r[i + 1].b1 - r[i + 1].b0 ? i - 1 : i + 1;
		}
		absorb(r, n, i, into);
	}
}

/* Run r of the series as a phase: its times, what names it. */
static struct phase
describe(const struct phase_series *se, size_t th, const struct phase_run *r,
    uint64_t end_ns, double *by_what)
{
	const struct tldata *t = se->t;
	const struct phase_key *k = &se->keys[r->key];
	struct phase ph = { r->from_ns, end_ns, k->state, k->func, k->code,
	    phases_raw(se, r->key, r->b0, r->b1), 0, 0, { 0 } };
	uint64_t s0 = r->b0 * se->per, s1 = r->b1 * se->per;
	size_t lo = th == PHASES_PROGRAM ? 0 : th;
	size_t hi = th == PHASES_PROGRAM ? t->nthreads : th + 1;
	size_t waiter = t->nwhats;

	memset(by_what, 0, t->nwhats * sizeof *by_what);
	for (size_t i = lo; i < hi; i++)
		for (size_t c = 0; c < t->threads[i].ncells; c++) {
			const struct tldata_cell *cell =
			    &t->threads[i].cells[c];
			const struct tldata_what *w = &t->whats[cell->what];

			if (cell->slice < s0 || cell->slice >= s1)
				continue;
			if (w->off)
				ph.off_ns[w->kind] += cell->ns;
			else
				ph.cpu_ns += cell->ns;
			by_what[cell->what] += cell->ns;
		}
	/* the function that waited most in the wait */
	for (size_t w = 0; w < t->nwhats && k->state == PHASE_OFF_CPU; w++)
		if (t->whats[w].off && t->whats[w].code == k->code &&
		    (waiter == t->nwhats || by_what[w] > by_what[waiter]))
			waiter = w;
	if (waiter < t->nwhats)
		ph.func = t->whats[waiter].func;
	/* the function's time runnable, preempted in it */
	for (size_t w = 0; w < t->nwhats && k->state == PHASE_ON_CPU; w++)
		if (t->whats[w].off && se->key_of[w] == r->key)
			ph.runnable_ns += by_what[w];
	return ph;
}

/*
 * Runs of a function the thread hardly ran, only waited to run
 * (runnable, preempted in it, all but under 2% of the run's span),
 * joined to a neighbour, the longer: one long preemption where a system
 * call returns (90 ms in clock_gettime(), which b() calls, on a machine
 * at load 13) is a pause in what the thread did, not a phase.
 */
static void
join_pauses(const struct phase_series *se, struct phase_run *r, size_t *n)
{
	for (size_t i = 0; i < *n && *n > 1;) {
		double all = phases_raw(se, r[i].key, r[i].b0, r[i].b1);
		double span = (double)(phases_bin_end(se, r[i].b1 - 1) -
		    phases_bin_start(se, r[i].b0));

		if (se->keys[r[i].key].state != PHASE_ON_CPU || !(all > 0) ||
		    all - phases_raw_runnable(se, r[i].key, r[i].b0, r[i].b1) >=
		    0.02 * span) {
			i++;
			continue;
		}
		absorb(r, n, i, i == 0 ? 1 : i + 1 == *n ||
		    r[i - 1].b1 - r[i - 1].b0 >= r[i + 1].b1 - r[i + 1].b0 ?
		    i - 1 : i + 1);
		i = 0;	/* (neighbours may have joined) */
	}
}

/* The shortest phase: PHASES_MIN_SHARE of the run, or 3 bins. */
static size_t
min_run(const struct phase_series *se)
{
	size_t n = (size_t)ceil(PHASES_MIN_SHARE * (double)se->nbins);

	return n > 3 ? n : 3;
}

/* A thread's runs: labelled, short ones merged, boundaries fitted. */
static struct phase_run *
thread_runs(const struct phase_series *se, size_t *n)
{
	size_t h = half_window(se);
	uint32_t *label = labels(se, h);
	struct phase_run *r = runs_of(label, se->nbins, n);

	for (size_t i = 0; i < *n; i++)
		r[i].from_ns = phases_bin_start(se, r[i].b0);
	merge_short(se, r, n, min_run(se));
	join_pauses(se, r, n);
	phases_fit_boundaries(se, r, *n, 2 * h + 1);
	free(label);
	return r;
}

/*
 * What the program did most in bins [b0, b1) of se (the program's): the
 * function most on the CPU where its threads used half a CPU or more
 * there, else the wait they spent most time in, else none.  sum is
 * scratch, nkeys zeros (left so).
 */
static uint32_t
program_key(const struct phase_series *se, size_t b0, size_t b1, double *sum)
{
	double span = (double)(phases_bin_end(se, b1 - 1) -
	    phases_bin_start(se, b0)), cpu = 0;
	uint32_t on = UINT32_MAX, off = UINT32_MAX;

	for (size_t i = se->first[b0]; i < se->first[b1]; i++) {
		sum[se->v[i].key] += se->v[i].ns;
		if (se->keys[se->v[i].key].state == PHASE_ON_CPU)
			cpu += se->v[i].ns;
	}
	/* a key met again compares equal to itself: no harm */
	for (size_t i = se->first[b0]; i < se->first[b1]; i++) {
		uint32_t k = se->v[i].key;
		uint32_t *best = se->keys[k].state == PHASE_ON_CPU ? &on : &off;

		if (*best == UINT32_MAX || sum[k] > sum[*best] ||
		    (sum[k] == sum[*best] && k < *best))
			*best = k;
	}
	for (size_t i = se->first[b0]; i < se->first[b1]; i++)
		sum[se->v[i].key] = 0;
	if (on != UINT32_MAX && cpu >= span / 2)
		return on;
	return off != UINT32_MAX ? off : se->none;
}

/*
 * The program's runs: cut where any of its threads' phases change (a
 * thread's phases are what noise does not move), each stretch named by
 * program_key, neighbours of one name joined, short ones merged.
 */
static struct phase_run *
program_runs(const struct phase_series *se, size_t *n)
{
	const struct tldata *t = se->t;
	/* per bin: 1 + where a thread's phase changed in it, or 0: none did */
	uint64_t *cut = xcalloc(se->nbins + 1, sizeof *cut);
	double *sum = xcalloc(se->nkeys, sizeof *sum);
	struct phase_run *r = xcalloc(se->nbins + 1, sizeof *r);
	size_t b0 = 0;

	for (size_t th = 0; th < t->nthreads; th++) {
		struct phase_series ts;
		struct phase_run *tr;
		size_t tn;

		if (t->threads[th].ncells == 0)
			continue;
		phases_series_build(&ts, t, th);
		tr = thread_runs(&ts, &tn);
		for (size_t i = 1; i < tn; i++)
			if (cut[tr[i].b0] == 0)
				cut[tr[i].b0] = tr[i].from_ns + 1;
		free(tr);
		phases_series_free(&ts);
	}
	*n = 0;
	for (size_t b = 1; b <= se->nbins; b++) {
		uint32_t k;

		if (b < se->nbins && !cut[b])
			continue;
		k = program_key(se, b0, b, sum);
		if (*n > 0 && r[*n - 1].key == k)
			r[*n - 1].b1 = b;
		else
			r[(*n)++] = (struct phase_run){ k, b0, b, b0 > 0 ?
			    cut[b0] - 1 : 0 };
		b0 = b;
	}
	merge_short(se, r, n, min_run(se));
	free(sum);
	free(cut);
	return r;
}

void
phases_find(const struct tldata *t, size_t th, struct phases *out)
{
	struct phase_series se;
	struct phase_run *r;
	size_t n;
	double *by_what;

	memset(out, 0, sizeof *out);
	phases_series_build(&se, t, th);
	r = th == PHASES_PROGRAM ? program_runs(&se, &n) : thread_runs(&se, &n);
	by_what = xcalloc(t->nwhats + 1, sizeof *by_what);
	out->v = xcalloc(n + 1, sizeof *out->v);
	/*
	 * In time order: edges placed within neighbouring bins may cross
	 * (a wait ending late in a bin, the next one's starting early in
	 * it); a phase that comes to nothing is left out.
	 */
	for (size_t i = 1; i < n; i++)
		if (r[i].from_ns < r[i - 1].from_ns)
			r[i].from_ns = r[i - 1].from_ns;
	for (size_t i = 0; i < n; i++) {
		uint64_t end = i + 1 < n ? r[i + 1].from_ns : t->span_ns;

		if (end > r[i].from_ns)
			out->v[out->n++] = describe(&se, th, &r[i], end,
			    by_what);
	}
	free(by_what);
	free(r);
	phases_series_free(&se);
}

void
phases_free(struct phases *ph)
{
	free(ph->v);
	memset(ph, 0, sizeof *ph);
}
