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
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "symbols/offcpu.h"
#include "wall-view.h"

/* A deep copy of p's stacks (frames included) into q. */
static void
copy_stacks(const struct profil_profile *p, struct profil_profile *q,
    int cpu_only)
{
	q->stacks = xcalloc(p->nstacks + 1, sizeof *q->stacks);
	q->nstacks = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		struct profil_stack *c;

		if (cpu_only && st->off_ns > 0)
			continue;
		c = &q->stacks[q->nstacks++];
		*c = *st;
		c->frames = xcalloc(st->depth, sizeof *c->frames);
		memcpy(c->frames, st->frames, st->depth * sizeof *c->frames);
	}
}

/* A copy of p, owning all it points to, stacks as cpu_only says. */
static struct profil_profile *
copy(const struct profil_profile *p, int cpu_only)
{
	struct profil_profile *q;
	void *data;
	size_t size;
	char cause[256];

	/* everything but the stacks through the codec: one copy, checked */
	struct profil_profile flat = *p;

	flat.nstacks = 0;
	flat.stacks = NULL;
	flat.nframes = 0;
	flat.frames = NULL;
	flat.wall = NULL;
	if (profil_profile_encode(&flat, &data, &size) < 0 ||
	    (q = profil_profile_parse(data, size, cause, sizeof cause)) == NULL)
		cli_die(1, "out of memory");
	free(data);
	q->frames = xcalloc(p->nframes + 1, sizeof *q->frames);
	memcpy(q->frames, p->frames, p->nframes * sizeof *q->frames);
	q->nframes = p->nframes;
	copy_stacks(p, q, cpu_only);
	return q;
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

struct profil_profile *
wall_view(const struct profil_profile *p, int cpu_only)
{
	struct profil_profile *q;
	struct profil_object *o;
	struct hmap hist;		/* code -> intervals */
	uint64_t carry = 0, total = 0, *codes;
	size_t ncodes, obj, nsym;
	uint64_t interval = p->interval_ns ? p->interval_ns : 1;

	if (p->wall == NULL)
		return NULL;
	q = copy(p, cpu_only);
	if (cpu_only)
		return q;
	/* off-CPU frames become code of the [off-cpu] object, last of all */
	obj = q->nobjects;
	for (size_t i = 0; i < q->nframes; i++)
		if (q->frames[i].object == PROFIL_FRAME_OFFCPU)
			q->frames[i].object = (uint32_t)obj;
	hmap_init(&hist);
	for (size_t i = 0; i < q->nstacks; i++) {
		struct profil_stack *st = &q->stacks[i];
		uint64_t n;

		if (st->off_ns == 0)
			continue;
		carry += st->off_ns;
		n = carry / interval;
		carry -= n * interval;
		st->count = n;
		total += n;
		if (n > 0) {
			hmap_add(&hist, q->frames[st->frames[0]].addr, n);
			add_to_thread(q, st->pid, st->tid, n);
		}
	}
	/* stacks that came to no whole interval are left out */
	{
		size_t k = 0;

		for (size_t i = 0; i < q->nstacks; i++) {
			if (q->stacks[i].off_ns > 0 && q->stacks[i].count == 0) {
				free(q->stacks[i].frames);
				continue;
			}
			q->stacks[k++] = q->stacks[i];
		}
		q->nstacks = k;
	}
	q->objects = xrealloc(q->objects, (q->nobjects + 1) * sizeof *q->objects);
	o = &q->objects[q->nobjects++];
	memset(o, 0, sizeof *o);
	o->path = xstrdup(WALL_VIEW_OBJECT);
	o->bucket_bytes = 1;
	o->lowpc = 0;
	o->highpc = PROFIL_OFFCPU_BLOCKED + 1;
	o->samples = total;
	codes = hmap_sorted_keys(&hist, &ncodes);
	o->buckets = xcalloc(ncodes + 1, sizeof *o->buckets);
	o->nbuckets = ncodes;
	for (size_t i = 0; i < ncodes; i++)
		o->buckets[i] = (struct profil_bucket){ codes[i],
		    hmap_get(&hist, codes[i]) };
	/*
	 * The intervals join the counts, not the samples taken: taken and
	 * weight_sq stay the CPU samples' own, for time off the CPU is no
	 * sample (measured, or placed by looks: report/share.h keeps the
	 * two apart), and a sample's error follows its samples alone.
	 */
	q->samples += total;
	/* their names, kept as archive keeps them: before the kernel's */
	nsym = q->nsymbols;
	q->symbols = xrealloc(q->symbols, (nsym + ncodes + 1) *
	    sizeof *q->symbols);
	{
		size_t k = 0;

		while (k < nsym && q->symbols[k].object != PROFIL_SYMBOL_KERNEL)
			k++;
		memmove(&q->symbols[k + ncodes], &q->symbols[k],
		    (nsym - k) * sizeof *q->symbols);
		for (size_t i = 0; i < ncodes; i++) {
			char name[96];

			q->symbols[k + i] = (struct profil_symbol){ (uint32_t)obj,
			    codes[i], codes[i] + 1, xstrdup(offcpu_frame_name(
			    codes[i], name, sizeof name)) };
		}
		q->nsymbols = nsym + ncodes;
	}
	free(codes);
	hmap_free(&hist);
	return q;
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
