/*
 * phases-internal.h - what phases.c finds phases in (phases-series.c):
 * a thread's or the program's time as a series, per bin of slices the
 * time of each key; and where the phases' edges go (phases-edges.c).
 * phases.h is the contract; this is the inside, its files in the order
 * they call: phases-series.c, phases-edges.c, phases.c.
 */
#ifndef PROFIL_REPORT_PHASES_INTERNAL_H
#define PROFIL_REPORT_PHASES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "phases.h"

/* A key: what a phase is named by (a function, a wait, or none). */
struct phase_key {
	int state;		/* PHASE_* */
	uint32_t func;		/* ON_CPU */
	uint64_t code;		/* OFF_CPU */
};

struct phase_entry {
	uint32_t key;
	double ns;
	double runnable_ns;	/* of ns, runnable (a function's) */
};

/* A series: bin b's entries are v[first[b] .. first[b + 1]), by key. */
struct phase_series {
	const struct tldata *t;
	uint64_t per;		/* slices a bin */
	size_t nbins;
	struct phase_key *keys;
	size_t nkeys;
	uint32_t *key_of;	/* per what of t */
	uint32_t none;		/* the key PHASE_NONE */
	struct phase_entry *v;
	size_t nv;
	size_t *first;
};

struct phase_run {
	uint32_t key;
	size_t b0, b1;		/* bins [b0, b1) */
	/*
	 * where it starts, in ns: its first bin's start, or where a wait
	 * measured off the CPU began or ended, within that bin or the one
	 * before (fit_boundaries)
	 */
	uint64_t from_ns;
};

/* Bin b's start and end in ns after the run's start. */
uint64_t phases_bin_start(const struct phase_series *se, size_t b);
uint64_t phases_bin_end(const struct phase_series *se, size_t b);

/*
 * The series of thread th of t (PHASES_PROGRAM: all threads', without
 * none) into *se; free with phases_series_free.
 */
void phases_series_build(struct phase_series *se, const struct tldata *t,
    size_t th);
void phases_series_free(struct phase_series *se);

/* Key k's time in bins [b0, b1); of it, runnable (preempted in it). */
double phases_raw(const struct phase_series *se, uint32_t k, size_t b0,
    size_t b1);
double phases_raw_runnable(const struct phase_series *se, uint32_t k,
    size_t b0, size_t b1);

/*
 * The boundaries of the n runs r of se (labelled over a window of w bins
 * each side) moved to where the raw bins fit best, within w bins, and
 * their from_ns set (phases-edges.c).
 */
void phases_fit_boundaries(const struct phase_series *se, struct phase_run *r,
    size_t n, size_t w);

#endif
