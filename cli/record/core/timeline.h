/*
 * timeline.h - when things happened, kept bounded: values (samples,
 * nanoseconds) added under a key at a time, or spread over a span of
 * time, summed per slice of the run.  Slices are 2^k ns wide from the
 * run's start, k growing (slices merging two by two) whenever the run
 * passes TIMELINE_MAX_SLICES slices or the points kept pass the budget,
 * so a run of any length keeps 1,024 to 2,048 slices (fewer when the
 * budget merges them), and memory follows keys x slices, not samples.
 * What a merge loses is resolution in time; every key's total is kept.
 *
 * Keys are the caller's (the builder's stacks and threads, the wall
 * time's accounts): a key's slices may be moved to another key in
 * proportion (time whose place is decided late keeps the shape it came
 * in).
 */
#ifndef PROFIL_RECORD_TIMELINE_H
#define PROFIL_RECORD_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#define TIMELINE_MAX_SLICES	2048
#define TIMELINE_MIN_SHIFT	16	/* 65.5 us: the finest slice */
#define TIMELINE_BUDGET		200000u	/* points kept: ~3.7 bytes each in a file,
					   under 1 MiB with its stacks */

struct timeline;

/* Slice 0 starts at origin (the records' clock, ns). */
struct timeline *timeline_new(uint64_t origin);
void timeline_free(struct timeline *tl);

/* value at time t under key (a time before the origin: in slice 0). */
void timeline_add(struct timeline *tl, uint64_t key, uint64_t t,
    uint64_t value);
/* len ns from start, each slice its part of them. */
void timeline_add_span(struct timeline *tl, uint64_t key, uint64_t start,
    uint64_t len);
/*
 * amount added under to, spread as from's values are (from is left as
 * it is); where from has none, all at time at.
 */
void timeline_move(struct timeline *tl, uint64_t from, uint64_t to,
    uint64_t amount, uint64_t at);
/* What key has, in all; and key forgotten. */
uint64_t timeline_total(const struct timeline *tl, uint64_t key);
void timeline_drop(struct timeline *tl, uint64_t key);

/* The run so far ends at time end: its slices cover it. */
void timeline_extend(struct timeline *tl, uint64_t end);

/* A slice's width (ns), and how many slices the run has. */
uint64_t timeline_slice_ns(const struct timeline *tl);
uint64_t timeline_nslices(const struct timeline *tl);
/*
 * key's (slice, value) points, ascending by slice, into *points (malloc'd
 * by the callee; free it); returns how many.
 */
struct timeline_point { uint32_t slice; uint64_t value; };
size_t timeline_points(const struct timeline *tl, uint64_t key,
    struct timeline_point **points);

#endif
