/*
 * wall-view.c - a wall profile as the views count it (wall-view.h).
 *
 * Invariant: the view is a consistent profile (its totals add up as
 * lib/codec/prf-check.c checks them): the [off-cpu] object's histogram, the
 * threads' and processes' counts and the samples grow by the same
 * intervals as the off-CPU stacks' counts.  All but one: the samples
 * taken and their squared weights stay the CPU samples' (time off the
 * CPU is no sample), so a view is read, never written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "copy.h"
#include "hmap.h"
#include "symbols/offcpu.h"
#include "wall-view.h"

/* The CPU part of q, a copy: its stacks off the CPU left out. */
static void
keep_cpu_stacks(struct profil_profile *q)
{
	unsigned char *drop = xcalloc(q->nstacks + 1, 1);

	for (size_t i = 0; i < q->nstacks; i++)
		drop[i] = q->stacks[i].off_ns > 0;
	profile_drop_stacks(q, drop);
	free(drop);
}

static void
add_to_thread(struct profil_profile *q, uint32_t pid, uint32_t tid,
    uint64_t n)
{
	for (size_t i = 0; i < q->nthreads; i++)
		if (q->threads[i].pid == pid && q->threads[i].tid == tid) {
			q->threads[i].samples += n;
			break;
		}
	for (size_t i = 0; i < q->nprocesses; i++)
		if (q->processes[i].pid == pid) {
			q->processes[i].samples += n;
			break;
		}
}

/*
 * The time off the CPU of q's stacks in intervals, each stack's count,
 * the remainder carried from stack to stack; the intervals of each code
 * into hist, and to the threads and processes.  Stacks that came to no
 * whole interval are left out.  Their sum.
 */
static uint64_t
count_off_cpu(struct profil_profile *q, struct hmap *hist)
{
	uint64_t interval = q->interval_ns ? q->interval_ns : 1;
	uint64_t carry = 0, total = 0;
	unsigned char *drop;

	for (size_t i = 0; i < q->nstacks; i++) {
		struct profil_stack *st = &q->stacks[i];
		uint64_t n;

		if (st->off_ns == 0)
			continue;
		/* no overflow: carry is what is left of the stacks before,
		   whose times the codec summed without overflowing */
		carry += st->off_ns;
		n = carry / interval;
		carry -= n * interval;
		st->count = n;
		total += n;
		if (n > 0) {
			hmap_add(hist, q->frames[st->frames[0]].addr, n);
			add_to_thread(q, st->pid, st->tid, n);
		}
	}
	drop = xcalloc(q->nstacks + 1, 1);
	for (size_t i = 0; i < q->nstacks; i++)
		drop[i] = q->stacks[i].off_ns > 0 && q->stacks[i].count == 0;
	profile_drop_stacks(q, drop);
	free(drop);
	return total;
}

/* The [off-cpu] object, obj, with the histogram of its codes. */
static void
add_off_cpu_object(struct profil_profile *q, const struct hmap *hist,
    const uint64_t *codes, size_t ncodes, uint64_t total)
{
	struct profil_object *o;

	q->objects = xrealloc(q->objects, (q->nobjects + 1) * sizeof *q->objects);
	o = &q->objects[q->nobjects++];
	memset(o, 0, sizeof *o);
	o->path = xstrdup(WALL_VIEW_OBJECT);
	o->bucket_bytes = 1;
	o->lowpc = 0;
	o->highpc = PROFIL_OFFCPU_BLOCKED + 1;
	o->samples = total;
	o->buckets = xcalloc(ncodes + 1, sizeof *o->buckets);
	o->nbuckets = ncodes;
	for (size_t i = 0; i < ncodes; i++)
		o->buckets[i] = (struct profil_bucket){ codes[i],
		    hmap_get(hist, codes[i]) };
}

/* The names of the codes of object obj, kept as archive keeps them. */
static void
add_off_cpu_names(struct profil_profile *q, size_t obj, const uint64_t *codes,
    size_t ncodes)
{
	size_t nsym = q->nsymbols, k = 0;

	q->symbols = xrealloc(q->symbols, (nsym + ncodes + 1) *
	    sizeof *q->symbols);
	/* before the kernel's */
	while (k < nsym && q->symbols[k].object != PROFIL_SYMBOL_KERNEL)
		k++;
	memmove(&q->symbols[k + ncodes], &q->symbols[k],
	    (nsym - k) * sizeof *q->symbols);
	for (size_t i = 0; i < ncodes; i++) {
		char name[96];

		q->symbols[k + i] = (struct profil_symbol){ (uint32_t)obj,
		    codes[i], codes[i] + 1, xstrdup(offcpu_frame_name(codes[i],
		    name, sizeof name)) };
	}
	q->nsymbols = nsym + ncodes;
}

int
wall_view(const struct profil_profile *p, int cpu_only,
    struct profil_profile **view, char *cause, size_t cause_size)
{
	struct profil_profile *q;
	struct hmap hist;		/* code -> intervals */
	uint64_t total, *codes;
	size_t ncodes, obj;

	*view = NULL;
	if (p->wall == NULL)
		return 0;
	q = profile_copy(p);
	/* a view is no wall profile: its time off the CPU is counts now */
	free(q->wall);
	q->wall = NULL;
	if (cpu_only) {
		keep_cpu_stacks(q);
		*view = q;
		return 0;
	}
	/* off-CPU frames become code of the [off-cpu] object, last of all */
	obj = q->nobjects;
	for (size_t i = 0; i < q->nframes; i++)
		if (q->frames[i].object == PROFIL_FRAME_OFFCPU)
			q->frames[i].object = (uint32_t)obj;
	hmap_init(&hist);
	total = count_off_cpu(q, &hist);
	/*
	 * The intervals join the counts, not the samples taken: taken and
	 * weight_sq stay the CPU samples' own, for time off the CPU is no
	 * sample (measured, or placed by looks: report/share.h keeps the
	 * two apart), and a sample's error follows its samples alone.  The
	 * threads' and processes' sums are the samples', so they fit where
	 * the samples do.
	 */
	if (__builtin_add_overflow(q->samples, total, &q->samples)) {
		snprintf(cause, cause_size, "%llu samples and %llu intervals "
		    "off the CPU overflow a count",
		    (unsigned long long)p->samples, (unsigned long long)total);
		hmap_free(&hist);
		profil_profile_free(q);
		return -1;
	}
	codes = hmap_sorted_keys(&hist, &ncodes);
	add_off_cpu_object(q, &hist, codes, ncodes, total);
	add_off_cpu_names(q, obj, codes, ncodes);
	free(codes);
	hmap_free(&hist);
	*view = q;
	return 0;
}

int
wall_view_replace(struct profil_profile **p, int cpu_only, char *cause,
    size_t cause_size)
{
	struct profil_profile *view;

	if (wall_view(*p, cpu_only, &view, cause, cause_size) < 0)
		return -1;
	if (view == NULL)
		return 0;
	profil_profile_free(*p);
	*p = view;
	return 1;
}

long
wall_view_object(const struct profil_profile *p)
{
	for (size_t i = p->nobjects; i-- > 0;)
		if (strcmp(p->objects[i].path, WALL_VIEW_OBJECT) == 0)
			return (long)i;
	return -1;
}

uint64_t
wall_view_cpu_samples(const struct profil_profile *p)
{
	long o = wall_view_object(p);

	return o < 0 ? p->samples : p->samples - p->objects[o].samples;
}
