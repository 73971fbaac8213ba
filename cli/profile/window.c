/*
 * window.c - the profile of a window of slices of a profile's timeline
 * (window.h): its stacks' counts summed from their entries there, and
 * everything the codec checks rebuilt from those stacks.  Invariant: the
 * window is as consistent as a file (lib/codec/prf-check.c): the leaves
 * make the histograms, the stacks the totals, the threads' and the
 * processes' sums, and the timeline adds up to the stacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "copy.h"
#include "hmap.h"
#include "window.h"

/* v * part / whole, rounded to the nearest; 0 when whole is. */
static uint64_t
scaled(uint64_t v, uint64_t part, uint64_t whole)
{
	if (whole == 0)
		return 0;
	return (uint64_t)(((unsigned __int128)v * part + whole / 2) / whole);
}

/*
 * q's timeline cut to slices [first, end) and renumbered from 0, each
 * stack's count (or off_ns) the sum of its entries left, and the stacks
 * left with nothing dropped.  p is the profile q was copied from.
 */
static void
cut_stacks(struct profil_profile *q, const struct profil_profile *p,
    uint64_t first, uint64_t end)
{
	uint64_t *sum = xcalloc(q->nstacks, sizeof *sum);
	uint8_t *drop = xcalloc(q->nstacks, 1);
	size_t k = 0;

	for (size_t i = 0; i < q->ntimeline; i++) {
		struct profil_timeline_entry e = q->timeline[i];

		if (e.slice < first || e.slice >= end)
			continue;
		/* no overflow: the codec summed each stack's entries */
		sum[e.stack] += e.value;
		e.slice -= (uint32_t)first;
		q->timeline[k++] = e;
	}
	q->ntimeline = k;
	q->nslices = end - first;
	for (size_t i = 0; i < q->nstacks; i++) {
		struct profil_stack *st = &q->stacks[i];
		const struct profil_stack *was = &p->stacks[i];

		drop[i] = sum[i] == 0;
		if (was->off_ns == 0) {
			st->count = sum[i];
			continue;
		}
		/* what was sampled of it, and the looks, as much as is kept */
		st->off_ns = sum[i];
		st->sampled_ns = (uint64_t)((unsigned __int128)was->sampled_ns *
		    sum[i] / was->off_ns);
		st->observations = scaled(was->observations, sum[i], was->off_ns);
		if (st->observations == 0 && st->sampled_ns > 0)
			st->observations = 1;
	}
	profile_drop_stacks(q, drop);
	free(drop);
	free(sum);
}

/*
 * The bucket of object o that addr is in, as an index from o's lowpc; an
 * address outside o's range (which no recorder writes) at its nearer end.
 */
static uint64_t
bucket_of(const struct profil_object *o, uint64_t addr)
{
	if (addr < o->lowpc || o->highpc <= o->lowpc)
		return 0;
	if (addr >= o->highpc)
		addr = o->highpc - 1;
	return (addr - o->lowpc) / o->bucket_bytes;
}

/* o's histogram made again from hist (bucket index -> samples). */
static void
set_histogram(struct profil_object *o, const struct hmap *hist)
{
	uint64_t *keys;
	size_t n;

	keys = hmap_sorted_keys(hist, &n);
	free(o->buckets);
	o->buckets = xcalloc(n + 1, sizeof *o->buckets);
	o->nbuckets = n;
	o->samples = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t count = hmap_get(hist, keys[i]);

		o->buckets[i] = (struct profil_bucket){ o->lowpc + keys[i] *
		    o->bucket_bytes, count };
		o->samples += count;
	}
	free(keys);
}

/*
 * q's flat profile from its CPU stacks' leaves: each object's histogram,
 * the kernel's (and its record's), the unknown samples, the total.
 */
static void
count_leaves(struct profil_profile *q)
{
	struct hmap *hist = xcalloc(q->nobjects + 1, sizeof *hist);
	struct hmap *khist = &hist[q->nobjects];

	for (size_t i = 0; i <= q->nobjects; i++)
		hmap_init(&hist[i]);
	q->samples = q->kernel = q->unknown = 0;
	for (size_t i = 0; i < q->nstacks; i++) {
		const struct profil_stack *st = &q->stacks[i];
		const struct profil_frame *leaf = &q->frames[st->frames[0]];

		if (st->off_ns > 0)
			continue;	/* time, not samples: in no histogram */
		q->samples += st->count;
		if (leaf->object == PROFIL_FRAME_KERNEL) {
			q->kernel += st->count;
			if (q->kernel_code != NULL)
				hmap_add(khist, bucket_of(&q->kernel_code->code,
				    leaf->addr), st->count);
		} else if (leaf->object < q->nobjects) {
			hmap_add(&hist[leaf->object], bucket_of(
			    &q->objects[leaf->object], leaf->addr), st->count);
		} else {
			q->unknown += st->count;
		}
	}
	for (size_t i = 0; i < q->nobjects; i++)
		set_histogram(&q->objects[i], &hist[i]);
	if (q->kernel_code != NULL)
		set_histogram(&q->kernel_code->code, khist);
	for (size_t i = 0; i <= q->nobjects; i++)
		hmap_free(&hist[i]);
	free(hist);
}

/*
 * Where in a list of n the stack's thread (process) is, by key: index
 * + 1, or 0.  A list that names one twice counts the first.
 */
static void
index_keys(struct hmap *at, size_t n, uint64_t (*key)(const void *, size_t),
    const void *list)
{
	hmap_init(at);
	for (size_t i = 0; i < n; i++)
		if (hmap_get(at, key(list, i)) == 0)
			hmap_add(at, key(list, i), i + 1);
}

static uint64_t
thread_key(const void *list, size_t i)
{
	const struct profil_thread *t = list;

	return (uint64_t)t[i].pid << 32 | t[i].tid;
}

static uint64_t
process_key(const void *list, size_t i)
{
	const struct profil_process *pr = list;

	return pr[i].pid;
}

/*
 * The samples of each of n threads or processes (sum), and whether it
 * has anything in the window (seen: a stack, of samples or time off the
 * CPU), from q's stacks; 1 if a stack with samples is of none of them.
 */
static int
sum_stacks(const struct profil_profile *q, const struct hmap *at, int process,
    uint64_t *sum, uint8_t *seen)
{
	int unlisted = 0;

	for (size_t i = 0; i < q->nstacks; i++) {
		const struct profil_stack *st = &q->stacks[i];
		uint64_t k = hmap_get(at, process ? st->pid :
		    (uint64_t)st->pid << 32 | st->tid);

		if (k == 0) {
			unlisted |= st->count > 0;
			continue;
		}
		sum[k - 1] += st->count;
		seen[k - 1] = 1;
	}
	return unlisted;
}

/*
 * q's threads' and processes' samples from its stacks, those with
 * nothing in the window left out.  Where a stack with samples is of no
 * listed thread (process), none is listed, as the recorder lists none
 * when it cannot say each one's samples: the sums must add up.
 */
static void
count_threads(struct profil_profile *q)
{
	size_t most = q->nthreads > q->nprocesses ? q->nthreads : q->nprocesses;
	uint64_t *sum = xcalloc(most, sizeof *sum);
	uint8_t *seen = xcalloc(most, 1);
	struct hmap at;
	size_t k = 0;
	int unlisted;

	index_keys(&at, q->nthreads, thread_key, q->threads);
	unlisted = sum_stacks(q, &at, 0, sum, seen);
	hmap_free(&at);
	for (size_t i = 0; i < q->nthreads; i++) {
		if (!seen[i] || unlisted) {
			free(q->threads[i].name);
			continue;
		}
		q->threads[i].samples = sum[i];
		q->threads[k++] = q->threads[i];
	}
	q->nthreads = k;

	memset(sum, 0, most * sizeof *sum);
	memset(seen, 0, most);
	index_keys(&at, q->nprocesses, process_key, q->processes);
	unlisted = sum_stacks(q, &at, 1, sum, seen);
	hmap_free(&at);
	for (size_t i = k = 0; i < q->nprocesses; i++) {
		if (!seen[i] || unlisted) {
			free(q->processes[i].command);
			continue;
		}
		q->processes[i].samples = sum[i];
		q->processes[k++] = q->processes[i];
	}
	q->nprocesses = k;
	free(seen);
	free(sum);
}

uint64_t
window_run_ns(const struct profil_profile *p)
{
	/* the codec checked that it does not overflow */
	uint64_t end = p->slice_ns * p->nslices;

	if (end == 0)
		return p->duration_ns;	/* no timeline: the header's */
	/* the recorder's slices round the run up: it ends in the last */
	if (p->duration_ns > end - p->slice_ns && p->duration_ns < end)
		return p->duration_ns;
	/* merged runs lie side by side: the longest, rounded up */
	return end;
}

/*
 * q's header as the window's, slices [first, end) of p's run: when it
 * started and how long it was, its CPU time, and what scales with its
 * samples.
 */
static void
window_header(struct profil_profile *q, const struct profil_profile *p,
    uint64_t first, uint64_t end)
{
	uint64_t run = window_run_ns(p);
	uint64_t from = first * p->slice_ns, to = end * p->slice_ns;
	unsigned __int128 cpu = (unsigned __int128)q->samples * q->interval_ns;

	if (to > run)
		to = run;
	if (q->start_ns > 0 && from <= (uint64_t)INT64_MAX - (uint64_t)q->start_ns)
		q->start_ns += (int64_t)from;
	q->duration_ns = to > from ? to - from : 0;
	q->cpu_ns = cpu > UINT64_MAX ? UINT64_MAX : (uint64_t)cpu;
	/* error bars are the window's: its samples are worth their share */
	q->taken = scaled(p->taken, q->samples, p->samples);
	if (q->taken == 0 && p->taken > 0 && q->samples > 0)
		q->taken = 1;
	/* >= q->samples, as p's weight_sq >= p->samples */
	q->weight_sq = scaled(p->weight_sq, q->samples, p->samples);
	q->lost = scaled(p->lost, q->samples, p->samples);
}

struct profil_profile *
profile_window(const struct profil_profile *p, uint64_t first_slice,
    uint64_t end_slice)
{
	struct profil_profile *q;

	if (p->slice_ns == 0 || first_slice >= end_slice ||
	    end_slice > p->nslices) {
		errno = EINVAL;
		return NULL;
	}
	q = profile_copy(p);
	cut_stacks(q, p, first_slice, end_slice);
	count_leaves(q);
	count_threads(q);
	window_header(q, p, first_slice, end_slice);
	return q;
}
