/*
 * timeline.c - values per key per slice of the run (timeline.h).  Each
 * key has a series of points sorted by slice; samples come nearly in
 * time order, so a point is almost always the series' last or a new
 * last.  Invariant: a key's total is the sum of its points, whatever
 * merges happened.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "timeline.h"

struct series {
	struct timeline_point *p;
	uint32_t n, cap;
	uint64_t total;
};

struct timeline {
	uint64_t origin;
	unsigned shift;			/* a slice is 1 << shift ns */
	uint64_t end_slice;		/* slices so far: past the last seen */
	struct hmap ids;		/* key -> series + 1 */
	struct series *series;
	size_t nseries, cap;
	size_t points;			/* in all series */
};

struct timeline *
timeline_new(uint64_t origin)
{
	struct timeline *tl = xcalloc(1, sizeof *tl);

	tl->origin = origin;
	tl->shift = TIMELINE_MIN_SHIFT;
	tl->end_slice = 1;
	hmap_init(&tl->ids);
	return tl;
}

void
timeline_free(struct timeline *tl)
{
	if (tl == NULL)
		return;
	for (size_t i = 0; i < tl->nseries; i++)
		free(tl->series[i].p);
	free(tl->series);
	hmap_free(&tl->ids);
	free(tl);
}

/* Slices twice as wide: every series' points halved and joined. */
static void
coarsen(struct timeline *tl)
{
	tl->shift++;
	tl->end_slice = (tl->end_slice + 1) / 2;
	tl->points = 0;
	for (size_t i = 0; i < tl->nseries; i++) {
		struct series *s = &tl->series[i];
		uint32_t n = 0;

		for (uint32_t k = 0; k < s->n; k++) {
			uint32_t slice = s->p[k].slice / 2;

			if (n > 0 && s->p[n - 1].slice == slice)
				s->p[n - 1].value += s->p[k].value;
			else
				s->p[n++] = (struct timeline_point){ slice,
				    s->p[k].value };
		}
		s->n = n;
		tl->points += n;
	}
}

/* The slice of time t, the slices widened until it is among them. */
static uint32_t
slice_of(struct timeline *tl, uint64_t t)
{
	uint64_t since = t > tl->origin ? t - tl->origin : 0;

	while ((since >> tl->shift) >= TIMELINE_MAX_SLICES)
		coarsen(tl);
	if ((since >> tl->shift) >= tl->end_slice)
		tl->end_slice = (since >> tl->shift) + 1;
	return (uint32_t)(since >> tl->shift);
}

static struct series *
series_of(struct timeline *tl, uint64_t key)
{
	uint64_t at = hmap_get(&tl->ids, key);

	if (at != 0)
		return &tl->series[at - 1];
	if (tl->nseries == tl->cap) {
		tl->cap = tl->cap ? 2 * tl->cap : 256;
		tl->series = xrealloc(tl->series, tl->cap * sizeof *tl->series);
	}
	tl->series[tl->nseries] = (struct series){ 0 };
	hmap_add(&tl->ids, key, ++tl->nseries);
	return &tl->series[tl->nseries - 1];
}

/* value in slice of series s (the slice in the present width). */
static void
put(struct timeline *tl, struct series *s, uint32_t slice, uint64_t value)
{
	uint32_t lo = 0, hi = s->n;

	s->total += value;
	if (s->n > 0 && s->p[s->n - 1].slice == slice) {
		s->p[s->n - 1].value += value;
		return;
	}
	if (s->n > 0 && s->p[s->n - 1].slice > slice) {
		while (lo < hi) {	/* out of order: its place */
			uint32_t mid = lo + (hi - lo) / 2;

			if (s->p[mid].slice < slice)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (s->p[lo].slice == slice) {
			s->p[lo].value += value;
			return;
		}
	} else
		lo = s->n;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4;
		s->p = xrealloc(s->p, s->cap * sizeof *s->p);
	}
	memmove(&s->p[lo + 1], &s->p[lo], (s->n - lo) * sizeof *s->p);
	s->p[lo] = (struct timeline_point){ slice, value };
	s->n++;
	tl->points++;
}

/* Over budget: wider slices, while that helps. */
static void
within_budget(struct timeline *tl)
{
	while (tl->points > TIMELINE_BUDGET && tl->end_slice > 1)
		coarsen(tl);
}

void
timeline_add(struct timeline *tl, uint64_t key, uint64_t t, uint64_t value)
{
	uint32_t slice;

	if (value == 0)
		return;
	slice = slice_of(tl, t);
	put(tl, series_of(tl, key), slice, value);
	within_budget(tl);
}

void
timeline_add_span(struct timeline *tl, uint64_t key, uint64_t start,
    uint64_t len)
{
	struct series *s;
	uint64_t at, end;

	if (len == 0)
		return;
	end = start + len < start ? UINT64_MAX : start + len;
	slice_of(tl, end - 1);		/* widened first: the loop is short */
	s = series_of(tl, key);
	if (start < tl->origin) {	/* before the start: its first slice */
		uint64_t before = (end < tl->origin ? end : tl->origin) - start;

		put(tl, s, 0, before);
		start += before;
	}
	for (at = start; at < end;) {
		uint64_t since = at - tl->origin;
		uint64_t next = tl->origin + (((since >> tl->shift) + 1) <<
		    tl->shift);
		uint64_t upto = next < end ? next : end;

		put(tl, s, (uint32_t)(since >> tl->shift), upto - at);
		at = upto;
	}
	within_budget(tl);
}

void
timeline_move(struct timeline *tl, uint64_t from, uint64_t to,
    uint64_t amount, uint64_t at)
{
	uint64_t id = hmap_get(&tl->ids, from), given = 0, cum = 0;
	const struct series *f;
	struct timeline_point *copy;
	uint32_t n;

	if (amount == 0)
		return;
	if (id == 0 || tl->series[id - 1].total == 0) {
		timeline_add(tl, to, at, amount);
		return;
	}
	/* a copy: to may be from, and the series may move as to is made */
	f = &tl->series[id - 1];
	n = f->n;
	copy = xcalloc(n, sizeof *copy);
	memcpy(copy, f->p, n * sizeof *copy);
	{
		uint64_t total = f->total;
		struct series *s = series_of(tl, to);

		for (uint32_t k = 0; k < n; k++) {
			uint64_t upto;

			cum += copy[k].value;
			upto = (uint64_t)((unsigned __int128)amount * cum / total);
			if (upto > given)
				put(tl, s, copy[k].slice, upto - given);
			given = upto;
		}
	}
	free(copy);
	within_budget(tl);
}

uint64_t
timeline_total(const struct timeline *tl, uint64_t key)
{
	uint64_t id = hmap_get(&tl->ids, key);

	return id != 0 ? tl->series[id - 1].total : 0;
}

void
timeline_drop(struct timeline *tl, uint64_t key)
{
	uint64_t id = hmap_get(&tl->ids, key);
	struct series *s;

	if (id == 0)
		return;
	s = &tl->series[id - 1];
	tl->points -= s->n;
	free(s->p);
	*s = (struct series){ 0 };
}

void
timeline_extend(struct timeline *tl, uint64_t end)
{
	if (end > tl->origin)
		slice_of(tl, end - 1);
}

uint64_t
timeline_slice_ns(const struct timeline *tl)
{
	return (uint64_t)1 << tl->shift;
}

uint64_t
timeline_nslices(const struct timeline *tl)
{
	return tl->end_slice;
}

size_t
timeline_points(const struct timeline *tl, uint64_t key,
    struct timeline_point **points)
{
	uint64_t id = hmap_get(&tl->ids, key);
	const struct series *s;

	*points = NULL;
	if (id == 0 || tl->series[id - 1].n == 0)
		return 0;
	s = &tl->series[id - 1];
	*points = xcalloc(s->n, sizeof **points);
	memcpy(*points, s->p, s->n * sizeof **points);
	return s->n;
}
