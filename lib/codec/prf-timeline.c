/*
 * prf-timeline.c - the timeline record (tag 13, docs/prf-format.md):
 * when each stack's samples, or its time off the CPU, came.  After the
 * stacks record, whose stacks it names.
 *
 *     timeline := slice_ns:varint nslices:varint n:varint entry{n}
 *     entry    := stack_gap:varint slice:varint value:varint
 *
 * Entries sorted by stack, then slice: stack_gap is the stack's index
 * less the previous entry's (the first's from 0); slice is the slice
 * itself for a stack's first entry, else its distance from the one
 * before (1 or more).  That the entries add up to their stacks is
 * prf_check_timeline's, once every record is in.
 */
#include <stdlib.h>

#include "codec/prf.h"
#include "codec/prf-internal.h"

/* The most slices a reader takes: a recorder keeps about 2,000. */
#define MAX_SLICES	(1u << 24)

void
prf_encode_timeline(struct rio_out *out, const struct profil_profile *p)
{
	uint32_t stack = 0, slice = 0;

	rio_put_varint(out, p->slice_ns);
	rio_put_varint(out, p->nslices);
	rio_put_varint(out, p->ntimeline);
	for (size_t i = 0; i < p->ntimeline; i++) {
		const struct profil_timeline_entry *e = &p->timeline[i];
		int same = i > 0 && e->stack == stack;

		rio_put_varint(out, e->stack - stack);
		rio_put_varint(out, same ? e->slice - slice : e->slice);
		rio_put_varint(out, e->value);
		stack = e->stack;
		slice = e->slice;
	}
}

int
prf_decode_timeline(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_profile *p = d->p;
	uint64_t slice_ns = rio_get_varint(in), nslices = rio_get_varint(in);
	uint64_t n = rio_get_varint(in), stack = 0, slice = 0;

	if (p->timeline != NULL || p->slice_ns != 0)
		return *why = "a second timeline record", -1;
	if (p->stacks == NULL)
		return *why = "a timeline before the stacks", -1;
	/* without stacks a profile has no timeline: the encoder writes none */
	if (p->nstacks == 0)
		return *why = "a timeline of no stacks", -1;
	/* an entry takes three bytes at least */
	if (in->failed || n > rio_left(in) / 3)
		return *why = "truncated", -1;
	if (slice_ns == 0 || nslices == 0 || nslices > MAX_SLICES ||
	    slice_ns > UINT64_MAX / nslices)
		return *why = "bad slices", -1;
	p->slice_ns = slice_ns;
	p->nslices = nslices;
	if ((p->timeline = calloc(n ? n : 1, sizeof *p->timeline)) == NULL)
		return *why = "out of memory", -1;
	for (uint64_t i = 0; i < n; i++) {
		struct profil_timeline_entry *e = &p->timeline[i];
		uint64_t gap = rio_get_varint(in), at = rio_get_varint(in);

		e->value = rio_get_varint(in);
		if (in->failed)
			return *why = "truncated", -1;
		if (gap > p->nstacks - stack)
			return *why = "an entry of no stack", -1;
		stack += gap;
		if (i > 0 && gap == 0 && at == 0)
			return *why = "entries out of order", -1;
		if (at >= nslices || (i > 0 && gap == 0 && at >= nslices - slice))
			return *why = "an entry past the last slice", -1;
		slice = i > 0 && gap == 0 ? slice + at : at;
		if (stack >= p->nstacks)
			return *why = "an entry of no stack", -1;
		if (e->value == 0)
			return *why = "an empty entry", -1;
		e->stack = (uint32_t)stack;
		e->slice = (uint32_t)slice;
		p->ntimeline++;
	}
	return 0;
}

/*
 * Thread (pid, tid) of st does not add up: say what its stacks of st's
 * kind (samples, or a wall profile's ns off the CPU: never the two
 * summed) have in their slices and in themselves.
 */
static void
say_thread(struct decoder *d, const struct profil_profile *p,
    const struct profil_stack *st, const uint64_t *sum)
{
	uint64_t want = 0, got = 0;
	int off = st->off_ns > 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *s = &p->stacks[i];

		if (s->pid != st->pid || s->tid != st->tid || (s->off_ns > 0) != off)
			continue;
		/* check_stacks bounds the stacks' sums, not the slices' */
		want += s->count + s->off_ns;
		if (__builtin_add_overflow(got, sum[i], &got))
			got = UINT64_MAX;
	}
	prf_say(d, "the timeline does not add up: thread %u of process %u has "
	    "%llu %s in its slices, %llu in its stacks", st->tid, st->pid,
	    (unsigned long long)got, off ? "ns off the CPU" : "samples",
	    (unsigned long long)want);
}

int
prf_check_timeline(struct decoder *d)
{
	const struct profil_profile *p = d->p;
	uint64_t *sum;
	int rc = 0;

	if (p->slice_ns == 0)
		return 0;
	if ((sum = calloc(p->nstacks ? p->nstacks : 1, sizeof *sum)) == NULL) {
		prf_say(d, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < p->ntimeline && rc == 0; i++) {
		const struct profil_timeline_entry *e = &p->timeline[i];

		if (__builtin_add_overflow(sum[e->stack], e->value,
		    &sum[e->stack])) {
			prf_say(d, "the timeline's counts overflow");
			rc = -1;
		}
	}
	for (size_t i = 0; i < p->nstacks && rc == 0; i++) {
		const struct profil_stack *st = &p->stacks[i];

		if (sum[i] != st->count + st->off_ns) {
			say_thread(d, p, st, sum);
			rc = -1;
		}
	}
	free(sum);
	return rc;
}
