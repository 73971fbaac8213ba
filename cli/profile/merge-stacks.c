/*
 * merge-stacks.c - call stacks of several profiles summed (contract in
 * merge-stacks.h).  Invariant: every input stack lands in exactly one
 * result stack with its whole count, and its leaf in the object its flat
 * samples went to, so the result's leaves add up to the merged flat
 * profile as each input's did to its own: the reader checks that.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge-stacks.h"

size_t merge_max_stack_frames = (size_t)1 << 24;

static int
by_frame(const void *a, const void *b)
{
	const struct profil_frame *x = a, *y = b;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Input i's frame f as a frame of the result (objects and kernel moved). */
static struct profil_frame
moved_frame(struct profil_frame f, size_t i, size_t *const *where,
    const struct merge_kplace *kp)
{
	if (f.object == PROFIL_FRAME_KERNEL) {
		/* not placed: no address means anything in the result */
		f.addr = kp[i].placed ? f.addr + kp[i].delta : 0;
	} else if (f.object != PROFIL_FRAME_UNKNOWN &&
	    f.object != PROFIL_FRAME_CUT && f.object != PROFIL_FRAME_OFFCPU) {
		f.object = (uint32_t)where[i][f.object];
	}
	return f;
}

/*
 * The result's frames: every input frame moved, sorted, once each (two
 * builds' frames, or a kernel's moved ones, may meet).  renumber[i][j]
 * receives the result frame of input i's frame j.
 */
static void
merge_frames(struct profil_profile *const *in, size_t n,
    struct profil_profile *out, size_t *const *where,
    const struct merge_kplace *kp, uint32_t **renumber)
{
	size_t total = 0, m = 0;
	struct profil_frame *all;

	for (size_t i = 0; i < n; i++)
		total += in[i]->nframes;
	all = xcalloc(total, sizeof *all);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < in[i]->nframes; j++)
			all[m++] = moved_frame(in[i]->frames[j], i, where, kp);
	qsort(all, m, sizeof *all, by_frame);
	out->frames = xcalloc(m, sizeof *out->frames);
	for (size_t k = 0; k < m; k++)
		if (out->nframes == 0 ||
		    by_frame(&out->frames[out->nframes - 1], &all[k]) != 0)
			out->frames[out->nframes++] = all[k];
	free(all);
	for (size_t i = 0; i < n; i++) {
		renumber[i] = xcalloc(in[i]->nframes, sizeof *renumber[i]);
		for (size_t j = 0; j < in[i]->nframes; j++) {
			struct profil_frame f = moved_frame(in[i]->frames[j], i,
			    where, kp);
			const struct profil_frame *at = bsearch(&f, out->frames,
			    out->nframes, sizeof f, by_frame);

			renumber[i][j] = (uint32_t)(at - out->frames);
		}
	}
}

static int
by_stack(const void *a, const void *b)
{
	const struct profil_stack *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return memcmp(x->frames, y->frames, x->depth * sizeof *x->frames);
}

/* An input stack moved to the result's frames, and whose it was. */
struct moved_stack {
	struct profil_stack st;
	size_t input, index;
};

static int
by_moved_stack(const void *a, const void *b)
{
	const struct moved_stack *x = a, *y = b;

	return by_stack(&x->st, &y->st);
}

/* The reason the result can have no stacks, said once; 1 if there is one. */
static int
no_stacks(struct profil_profile *const *in, const char *const *names,
    size_t n, cli_warn_fn *warn)
{
	size_t with = 0;

	for (size_t i = 0; i < n; i++)
		with += in[i]->nstacks > 0;
	if (with == 0)
		return 1;	/* nothing lost: nothing to say */
	for (size_t i = 0; i < n; i++)
		if (in[i]->samples > 0 && in[i]->nstacks == 0) {
			cli_say(warn, "%s has no call stacks (recorded with "
			    "--no-call-graph, or by an older profil): the merged "
			    "profile keeps none", names[i]);
			return 1;
		}
	return 0;
}

/* A result frame is marked found by frame pointer if an input's was. */
static void
merge_fp_frames(struct profil_profile *const *in, size_t n,
    struct profil_profile *out, uint32_t *const *renumber)
{
	unsigned char *marked = xcalloc(out->nframes + 1, 1);
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < in[i]->nfp_frames; k++)
			if (in[i]->fp_frames[k] < in[i]->nframes)
				marked[renumber[i][in[i]->fp_frames[k]]] = 1;
	for (size_t f = 0; f < out->nframes; f++)
		m += marked[f];
	if (m > 0) {
		out->fp_frames = xcalloc(m, sizeof *out->fp_frames);
		for (size_t f = 0; f < out->nframes; f++)
			if (marked[f])
				out->fp_frames[out->nfp_frames++] = (uint32_t)f;
	}
	free(marked);
}

void
merge_stacks(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile *out, size_t *const *where,
    const struct merge_kplace *kp, uint32_t *const *stack_at,
    cli_warn_fn *warn)
{
	uint32_t **renumber, kernel_nowhere = UINT32_MAX;
	struct moved_stack *all;
	size_t total = 0, m = 0, frames = 0;

	if (no_stacks(in, names, n, warn))
		return;
	renumber = xcalloc(n, sizeof *renumber);
	merge_frames(in, n, out, where, kp, renumber);
	merge_fp_frames(in, n, out, renumber);
	for (size_t k = 0; k < out->nframes; k++)
		if (out->frames[k].object == PROFIL_FRAME_KERNEL &&
		    out->frames[k].addr == 0)
			kernel_nowhere = (uint32_t)k;
	for (size_t i = 0; i < n; i++)
		total += in[i]->nstacks;
	all = xcalloc(total, sizeof *all);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < in[i]->nstacks; j++) {
			const struct profil_stack *st = &in[i]->stacks[j];
			struct profil_stack *r = &all[m].st;

			all[m].input = i;
			all[m++].index = j;
			*r = *st;
			r->frames = xcalloc(st->depth, sizeof *r->frames);
			r->depth = 0;
			for (size_t d = 0; d < st->depth; d++) {
				uint32_t f = renumber[i][st->frames[d]];

				/* kernel frames without addresses: one is enough */
				if (f == kernel_nowhere && !kp[i].placed &&
				    r->depth > 0 && r->frames[r->depth - 1] == f)
					continue;
				r->frames[r->depth++] = f;
			}
		}
	for (size_t i = 0; i < n; i++)
		free(renumber[i]);
	free(renumber);
	/* identical stacks side by side, then summed */
	qsort(all, m, sizeof *all, by_moved_stack);
	out->stacks = xcalloc(m, sizeof *out->stacks);
	for (size_t k = 0; k < m; k++) {
		struct profil_stack *last = out->nstacks > 0 ?
		    &out->stacks[out->nstacks - 1] : NULL, *st = &all[k].st;

		if (last == NULL || by_stack(last, st) != 0) {
			out->stacks[out->nstacks++] = *st;
			frames += st->depth;
		} else {
			last->count += st->count;	/* <= the summed samples */
			/* off-CPU time: at most the summed inputs' threads' time */
			last->off_ns += st->off_ns;
			last->sampled_ns += st->sampled_ns;
			last->observations += st->observations;
			free(st->frames);
		}
		stack_at[all[k].input][all[k].index] =
		    (uint32_t)(out->nstacks - 1);
	}
	free(all);
	if (frames > merge_max_stack_frames) {
		cli_say(warn, "the merged call stacks would hold %zu frames, "
		    "more than a reader takes (%zu): the merged profile keeps "
		    "none", frames, merge_max_stack_frames);
		for (size_t k = 0; k < out->nstacks; k++)
			free(out->stacks[k].frames);
		free(out->stacks);
		free(out->frames);
		free(out->fp_frames);
		out->stacks = NULL;
		out->frames = NULL;
		out->fp_frames = NULL;
		out->nstacks = out->nframes = out->nfp_frames = 0;
	}
}
