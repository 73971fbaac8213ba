/*
 * share.c - a share and its 95% error (share.h): the one definition every
 * view and diff call.  Invariant: what was measured never adds to an
 * error; only CPU samples (by their counts) and the looks that placed
 * time off the CPU (by pool) do, and the interval stays in [0, 100].
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "profile/wall-view.h"
#include "report.h"
#include "share.h"

#define Z95 1.959964	/* the normal quantile of a two-sided 95% interval */

/* Beyond this many pools, a part keeps them in order, found by bisection. */
#define LINEAR_POOLS 16

double
share_wilson95(double k, double n, double scale)
{
	double p, neff;

	if (n <= 0)
		return 0;
	neff = n / (scale >= 1 ? scale : 1);
	p = k / n;
	return Z95 * sqrt(p * (1 - p) / neff + Z95 * Z95 / (4 * neff * neff)) /
	    (1 + Z95 * Z95 / neff);
}

int
share_stack_offcpu(const struct share_basis *b, size_t i)
{
	const struct profil_stack *st = &b->p->stacks[i];

	return b->off_obj >= 0 && st->depth > 0 &&
	    b->p->frames[st->frames[0]].object == (uint32_t)b->off_obj;
}

void
share_basis_init(struct share_basis *b, const struct profil_profile *p)
{
	struct hmap threads;	/* pid << 32 | tid -> its number + 1 */
	uint64_t nthreads = 0;

	memset(b, 0, sizeof *b);
	b->p = p;
	b->off_obj = wall_view_object(p);
	b->scale = report_error_scale(p);
	b->interval = p->interval_ns ? (double)p->interval_ns : 1;
	b->pool = xcalloc(p->nstacks + 1, sizeof *b->pool);
	if (b->off_obj < 0)
		return;
	/*
	 * A pool per thread and kind: its blocks placed where its looks (or
	 * its process's) found it, and its preemptions placed at its last
	 * CPU sample.  Each pool's total is measured; only its placement is
	 * sampled.  Time with no look at all is placed nowhere known (a
	 * [off-cpu: blocked] leaf without a stack): it is its own row,
	 * exactly, in no pool.
	 */
	hmap_init(&threads);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		uint64_t key = (uint64_t)st->pid << 32 | st->tid, n;
		int runnable;

		if (!share_stack_offcpu(b, i) || st->sampled_ns == 0 ||
		    st->observations == 0)
			continue;
		if (key == UINT64_MAX)	/* hmap's reserved key: a damaged file */
			key--;
		if ((n = hmap_get(&threads, key)) == 0)
			hmap_add(&threads, key, n = ++nthreads);
		runnable = p->frames[st->frames[0]].addr == PROFIL_OFFCPU_RUNNABLE;
		b->pool[i] = (uint32_t)(2 * (n - 1) + (size_t)runnable + 1);
		if (b->pool[i] > b->npools)
			b->npools = b->pool[i];
	}
	hmap_free(&threads);
}

void
share_basis_free(struct share_basis *b)
{
	free(b->pool);
	memset(b, 0, sizeof *b);
}

void
share_part_init(struct share_part *r, int kind)
{
	memset(r, 0, sizeof *r);
	r->code = kind == SHARE_CODE;
}

void
share_part_free(struct share_part *r)
{
	free(r->looks);
	memset(r, 0, sizeof *r);
}

void
share_part_cpu(struct share_part *r, uint64_t n)
{
	r->amount += n;
	r->cpu += n;
}

void
share_part_measured(struct share_part *r, uint64_t n)
{
	r->amount += n;
}

/*
 * r's entry of pool, or NULL.  Few pools: a look from the one found
 * last; many (a part over hundreds of threads): the entries are kept
 * in pool order, found by bisection.
 */
static struct share_looks *
find(const struct share_part *r, uint32_t pool)
{
	size_t lo = 0, hi = r->nlooks;

	if (r->nlooks <= LINEAR_POOLS) {
		for (size_t k = 0; k < r->nlooks; k++) {
			size_t at = (r->last + k) % r->nlooks;

			if (r->looks[at].pool == pool)
				return &r->looks[at];
		}
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->looks[mid].pool < pool)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nlooks && r->looks[lo].pool == pool ? &r->looks[lo] :
	    NULL;
}

static int
by_pool(const void *a, const void *b)
{
	const struct share_looks *x = a, *y = b;

	return x->pool < y->pool ? -1 : x->pool > y->pool;
}

/* r's entry of pool, made (0 looks) when new. */
static struct share_looks *
entry(struct share_part *r, uint32_t pool)
{
	struct share_looks *e = find(r, pool);
	size_t at;

	if (e != NULL) {
		r->last = (uint32_t)(e - r->looks);
		return e;
	}
	if (r->nlooks == r->looks_cap) {
		r->looks_cap = r->looks_cap ? 2 * r->looks_cap : 2;
		r->looks = xrealloc(r->looks, r->looks_cap * sizeof *r->looks);
	}
	at = r->nlooks++;
	if (r->nlooks > LINEAR_POOLS + 1) {
		/* in pool order: insert in place */
		while (at > 0 && r->looks[at - 1].pool > pool) {
			r->looks[at] = r->looks[at - 1];
			at--;
		}
	}
	r->looks[at] = (struct share_looks){ pool, 0, 0 };
	if (r->nlooks == LINEAR_POOLS + 1)	/* from now on, in order */
		qsort(r->looks, r->nlooks, sizeof *r->looks, by_pool);
	e = find(r, pool);
	r->last = (uint32_t)(e - r->looks);
	return e;
}

void
share_part_stack(const struct share_basis *b, struct share_part *r, size_t i)
{
	const struct profil_stack *st = &b->p->stacks[i];
	struct share_looks *e;

	if (!share_stack_offcpu(b, i)) {
		share_part_cpu(r, st->count);
		return;
	}
	r->amount += st->count;
	if (b->pool[i] == 0)
		return;		/* measured where it was, or placed nowhere */
	e = entry(r, b->pool[i] - 1);
	e->looks += st->observations;
	e->sampled_ns += st->sampled_ns < st->off_ns ? st->sampled_ns :
	    st->off_ns;
}

void
share_part_add(struct share_part *r, const struct share_part *src)
{
	r->amount += src->amount;
	r->cpu += src->cpu;
	r->code |= src->code;
	for (size_t k = 0; k < src->nlooks; k++) {
		struct share_looks *e = entry(r, src->looks[k].pool);

		e->looks += src->looks[k].looks;
		e->sampled_ns += src->looks[k].sampled_ns;
	}
}

void
share_part_all(const struct share_basis *b, struct share_part *r)
{
	for (size_t i = 0; i < b->p->nstacks; i++)
		if (share_stack_offcpu(b, i))
			share_part_stack(b, r, i);
	/* the CPU counts: every sample, with a stack or not */
	share_part_cpu(r, b->off_obj >= 0 ? wall_view_cpu_samples(b->p) :
	    b->p->samples);
}

void
share_part_leaf(const struct share_basis *b, struct share_part *r,
    uint64_t code)
{
	const struct profil_profile *p = b->p;

	for (size_t i = 0; i < p->nstacks; i++)
		if (share_stack_offcpu(b, i) &&
		    p->frames[p->stacks[i].frames[0]].addr == code)
			share_part_stack(b, r, i);
}

void
share_part_row(const struct share_basis *b, struct share_part *r,
    const struct func_row *row)
{
	if (b->off_obj >= 0 && row->object_index == (size_t)b->off_obj) {
		share_part_init(r, SHARE_TIME);
		share_part_leaf(b, r, row->start);
	} else {
		share_part_init(r, SHARE_CODE);
		share_part_cpu(r, row->samples);
	}
}

int
share_kind_of_func(const struct share_basis *b, const struct stacks *s,
    size_t func)
{
	return b->off_obj >= 0 && s->funcs[func].object_index ==
	    (size_t)b->off_obj ? SHARE_TIME : SHARE_CODE;
}

struct share_part *
share_parts_inclusive(const struct share_basis *b, const struct stacks *s)
{
	struct share_part *v = xcalloc(s->nfuncs + 1, sizeof *v);
	uint32_t *seen = xcalloc(s->nfuncs + 1, sizeof *seen);
	static uint32_t funcs[STACKS_MAX_DEPTH];

	for (size_t f = 0; f < s->nfuncs; f++)
		share_part_init(&v[f], share_kind_of_func(b, s, f));
	for (size_t i = 0; i < b->p->nstacks; i++) {
		size_t n = stacks_funcs_of(s, &b->p->stacks[i], funcs,
		    STACKS_MAX_DEPTH);

		/* seen[f] == i + 1: already counted for this stack */
		for (size_t k = 0; k < n; k++)
			if (seen[funcs[k]] != i + 1) {
				seen[funcs[k]] = (uint32_t)(i + 1);
				share_part_stack(b, &v[funcs[k]], i);
			}
	}
	free(seen);
	return v;
}

void
share_parts_free(struct share_part *v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		share_part_free(&v[i]);
	free(v);
}

double
share_percent(const struct share_part *r, const struct share_part *whole)
{
	return report_percent(r->amount, whole->amount);
}

double
share_error95(const struct share_basis *b, const struct share_part *r,
    const struct share_part *whole)
{
	double var = 0, err, share, most;

	if (whole->amount == 0)
		return 0;
	/* the CPU samples: where they fell among the code */
	if (r->code && whole->cpu > 0) {
		double cpu = (double)whole->cpu * share_wilson95((double)r->cpu,
		    (double)whole->cpu, b->scale);

		var += cpu * cpu;
	}
	/* the looks: where each pool's sampled time went */
	for (size_t k = 0; k < r->nlooks; k++) {
		const struct share_looks *e = &r->looks[k];
		const struct share_looks *w = find(whole, e->pool);
		double placed;

		if (w == NULL || e->looks == 0)
			continue;
		placed = (double)w->sampled_ns / b->interval *
		    share_wilson95((double)e->looks, (double)w->looks, 1);
		var += placed * placed;
	}
	err = 100 * sqrt(var) / (double)whole->amount;
	/* share +- err within [0, 100]: no more than the farther end */
	share = share_percent(r, whole);
	most = share > 50 ? share : 100 - share;
	return err < most ? err : most;
}
