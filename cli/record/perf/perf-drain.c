/*
 * perf-drain.c - the perf engine's drain: the records of every CPU's
 * ring, read where the kernel wrote them, put in time order and applied.
 *
 * Invariant: records are applied in time order within a drain (mappings
 * before the samples that need them, across CPUs).
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "perf-drain.h"
#include "perf-events.h"
#include "perf-procs.h"
#include "perf-records.h"

struct pending {			/* one record of a drain */
	uint64_t time, seq;
	const uint8_t *rec;		/* in its ring, or NULL: in the batch */
	size_t at;			/* offset in the batch buffer */
	uint64_t end;			/* its ring's tail once it is applied */
	int ring;
};

static int
by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Whether a ring is over half full: the recorder is losing the race (its
 * CPUs shared with many busy threads).  A full ring would drop samples,
 * flat profile and all; the stacks of what is drained then are not
 * unwound instead, so that it catches up ("recorder behind").
 */
static int
rings_behind(const struct engine *e)
{
	for (int r = 0; r < e->nrings; r++) {
		const struct ring *ring = &e->rings[r];
		uint64_t head = __atomic_load_n(&ring->meta->data_head,
		    __ATOMIC_ACQUIRE);

		if (head - ring->meta->data_tail > ring->size / 2)
			return 1;
	}
	return 0;
}

/* n bytes of ring from offset off, across its end if they wrap. */
static void
ring_copy(const struct ring *ring, size_t off, void *dst, size_t n)
{
	size_t first = ring->size - off < n ? ring->size - off : n;

	memcpy(dst, ring->data + off, first);
	memcpy((uint8_t *)dst + first, ring->data, n - first);
}

/*
 * Apply every complete record of every ring in time order.  Records are
 * read where the kernel wrote them: a sample with its stack is some 16
 * KiB, and copying it out was the recorder's largest cost (30% of its
 * CPU with stacks).  Only a record that wraps around its ring's end is
 * copied, to be contiguous.  A ring's tail moves past each record once it
 * is applied, so the kernel has the space back as soon as it can.  Times
 * are taken as never decreasing within a ring, so that the sort keeps
 * each ring's own order and its tail only ever moves past applied
 * records.
 */
void
perf_drain(struct engine *e)
{
	size_t i;
	int r;

	e->batch_len = 0;
	e->npend = 0;
	e->behind = rings_behind(e);
	for (r = 0; r < e->nrings; r++) {
		struct ring *ring = &e->rings[r];
		uint64_t head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = ring->meta->data_tail;
		uint64_t last = 0;

		while (tail + sizeof(struct perf_event_header) <= head) {
			struct perf_event_header h;
			size_t off = (size_t)(tail & (ring->size - 1));
			struct pending *p;

			ring_copy(ring, off, &h, sizeof h);
			if (h.size < sizeof h || tail + h.size > head)
				break;
			if (e->npend == e->pend_cap) {
				e->pend_cap = e->pend_cap ? e->pend_cap * 2 : 1024;
				e->pend = xrealloc(e->pend, e->pend_cap * sizeof *e->pend);
			}
			p = &e->pend[e->npend++];
			*p = (struct pending){ 0, e->seq++, NULL, 0, tail + h.size, r };
			if (off + h.size <= ring->size) {
				p->rec = ring->data + off;
			} else {
				if (e->batch_cap - e->batch_len < h.size) {
					e->batch_cap = (e->batch_cap + h.size) * 2;
					e->batch = xrealloc(e->batch, e->batch_cap);
				}
				p->at = e->batch_len;
				ring_copy(ring, off, e->batch + p->at, h.size);
				e->batch_len += h.size;
			}
			p->time = perf_records_time(p->rec ? p->rec :
			    e->batch + p->at, h.size);
			if (p->time < last)
				p->time = last;
			last = p->time;
			tail += h.size;
		}
	}
	if (e->npend > 1)
		qsort(e->pend, e->npend, sizeof *e->pend, by_time);
	if (e->npend > 0 && e->pend[e->npend - 1].time > e->latest)
		e->latest = e->pend[e->npend - 1].time;
	for (i = 0; i < e->npend; i++) {
		const struct pending *p = &e->pend[i];
		const uint8_t *rec = p->rec ? p->rec : e->batch + p->at;

		/* a long batch: are the rings filling up meanwhile? */
		if (i % 64 == 63 && !e->behind)
			e->behind = rings_behind(e);
		perf_records_apply(e, rec,
		    ((const struct perf_event_header *)rec)->size);
		__atomic_store_n(&e->rings[p->ring].meta->data_tail, p->end,
		    __ATOMIC_RELEASE);
	}
	perf_procs_free_exited(e);
}
