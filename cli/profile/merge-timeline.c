/*
 * merge-timeline.c - the timelines of several profiles, their runs side
 * by side (contract in merge-timeline.h).  Invariant: every input entry
 * lands whole in the result stack its stack was summed into, in the
 * slice that holds its own, so each result stack's entries add up to it
 * as the inputs' did to theirs: the reader checks that.
 */
#include <stdlib.h>

#include "cli.h"
#include "merge-timeline.h"

static int
by_entry(const void *a, const void *b)
{
	const struct profil_timeline_entry *x = a, *y = b;

	if (x->stack != y->stack)
		return x->stack < y->stack ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

/*
 * The result's slice width: the coarsest input's, when every input with
 * stacks has a timeline and every width divides it.  0 when the result
 * gets none (a line said why, if anything is lost).
 */
static uint64_t
common_width(struct profil_profile *const *in, const char *const *names,
    size_t n, cli_warn_fn *warn)
{
	size_t widest = 0;
	uint64_t width = 0;

	for (size_t i = 0; i < n; i++)
		if (in[i]->slice_ns > width) {
			width = in[i]->slice_ns;
			widest = i;
		}
	if (width == 0)
		return 0;	/* no input has one: nothing lost */
	for (size_t i = 0; i < n; i++) {
		if (in[i]->nstacks > 0 && in[i]->slice_ns == 0) {
			cli_say(warn, "%s has no timeline (recorded by an older "
			    "profil): the merged profile keeps none, since its "
			    "samples have no time", names[i]);
			return 0;
		}
		if (in[i]->slice_ns > 0 && width % in[i]->slice_ns != 0) {
			cli_say(warn, "%s's timeline has slices of %llu ns, %s's "
			    "of %llu ns, which they do not divide: the merged "
			    "profile keeps no timeline", names[i],
			    (unsigned long long)in[i]->slice_ns, names[widest],
			    (unsigned long long)width);
			return 0;
		}
	}
	return width;
}

/*
 *   input slices of w ns:   | 0 | 1 | 2 | 3 | 4 | 5 | 6 |
 *   result slices of 4w:    |       0       |     1     |
 * input slice k lies whole in result slice k / (width / w); an input of
 * nslices slices needs ceil(nslices / (width / w)) of the result's.
 */
void
merge_timeline(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile *out, uint32_t *const *stack_at,
    cli_warn_fn *warn)
{
	uint64_t width, nslices = 0;
	struct profil_timeline_entry *all;
	size_t total = 0, m = 0;

	if (out->nstacks == 0 || (width = common_width(in, names, n, warn)) == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t per, need;

		if (in[i]->slice_ns == 0)
			continue;	/* no stacks: nothing to place */
		per = width / in[i]->slice_ns;
		need = in[i]->nslices / per + (in[i]->nslices % per != 0);
		if (need > nslices)
			nslices = need;
		total += in[i]->ntimeline;
	}
	/* the longest run, rounded up to whole slices, may pass 2^64 ns */
	if ((unsigned __int128)width * nslices > UINT64_MAX) {
		cli_say(warn, "the merged timeline would run past 2^64 ns (%llu "
		    "slices of %llu ns): the merged profile keeps none",
		    (unsigned long long)nslices, (unsigned long long)width);
		return;
	}
	all = xcalloc(total ? total : 1, sizeof *all);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < in[i]->ntimeline; k++) {
			const struct profil_timeline_entry *e = &in[i]->timeline[k];

			all[m++] = (struct profil_timeline_entry){
			    stack_at[i][e->stack],
			    (uint32_t)(e->slice / (width / in[i]->slice_ns)),
			    e->value };
		}
	qsort(all, m, sizeof *all, by_entry);
	out->timeline = xcalloc(m ? m : 1, sizeof *out->timeline);
	for (size_t k = 0; k < m; k++) {
		struct profil_timeline_entry *last = out->ntimeline > 0 ?
		    &out->timeline[out->ntimeline - 1] : NULL;

		/* no overflow: a stack's entries sum to its summed count */
		if (last != NULL && by_entry(last, &all[k]) == 0)
			last->value += all[k].value;
		else
			out->timeline[out->ntimeline++] = all[k];
	}
	free(all);
	out->slice_ns = width;
	out->nslices = nslices;
}
