/*
 * prf-check.c - what must agree across a profile's records, checked once
 * the end record is read: the header's totals with the objects, threads,
 * processes, kept names and weights, and the stacks with the flat
 * profile.  A profile that passes adds up however a view counts it.
 */
#include <stdlib.h>

#include "codec/prf-internal.h"

/*
 * Stacks agree with the flat profile: frames point at objects of the
 * profile, a cut only ends a stack, and the leaves add up to each
 * object's samples, the kernel's and the unknown ones.  0, or -1 (said).
 */
static int
check_stacks(struct decoder *d)
{
	const struct profil_profile *p = d->p;
	uint64_t *leaves, kernel = 0, unknown = 0, total = 0, off = 0;
	int rc = -1;

	if (p->nstacks == 0)
		return 0;
	for (size_t i = 0; i < p->nframes; i++) {
		uint32_t o = p->frames[i].object;

		if (o == PROFIL_FRAME_OFFCPU && p->wall == NULL) {
			prf_say(d, "an off-CPU frame in a profile without a wall "
			    "record");
			return -1;
		}
		if (o == PROFIL_FRAME_OFFCPU &&
		    p->frames[i].addr > PROFIL_OFFCPU_BLOCKED) {
			prf_say(d, "an off-CPU frame of an unknown kind (%#llx)",
			    (unsigned long long)p->frames[i].addr);
			return -1;
		}
		if (o >= p->nobjects && o != PROFIL_FRAME_KERNEL &&
		    o != PROFIL_FRAME_UNKNOWN && o != PROFIL_FRAME_CUT &&
		    (o != PROFIL_FRAME_OFFCPU || p->wall == NULL)) {
			prf_say(d, "a stack frame belongs to no object of the profile");
			return -1;
		}
	}
	if ((leaves = calloc(p->nobjects + 1, sizeof *leaves)) == NULL) {
		prf_say(d, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		const struct profil_frame *leaf = &p->frames[st->frames[0]];

		for (size_t k = 0; k + 1 < st->depth; k++)
			if (p->frames[st->frames[k]].object == PROFIL_FRAME_CUT) {
				prf_say(d, "a stack goes on past its cut");
				goto out;
			}
		for (size_t k = 1; k < st->depth; k++)
			if (p->frames[st->frames[k]].object == PROFIL_FRAME_OFFCPU) {
				prf_say(d, "an off-CPU frame that is not a stack's leaf");
				goto out;
			}
		/* off the CPU: time, not samples, and nowhere in the histograms */
		if ((leaf->object == PROFIL_FRAME_OFFCPU) != (st->off_ns > 0)) {
			prf_say(d, "a stack's off-CPU time is not at an off-CPU leaf");
			goto out;
		}
		if (st->off_ns > 0) {
			if (__builtin_add_overflow(off, st->off_ns, &off)) {
				prf_say(d, "off-CPU times overflow");
				goto out;
			}
			continue;
		}
		if (__builtin_add_overflow(total, st->count, &total)) {
			prf_say(d, "stack counts overflow");
			goto out;
		}
		if (leaf->object == PROFIL_FRAME_KERNEL)
			kernel += st->count;
		else if (leaf->object == PROFIL_FRAME_UNKNOWN)
			unknown += st->count;
		else if (leaf->object < p->nobjects)
			leaves[leaf->object] += st->count;
		else {
			prf_say(d, "a stack starts at a cut, not at a sampled place");
			goto out;
		}
	}
	if (total != p->samples || kernel != p->kernel || unknown != p->unknown) {
		prf_say(d, "counts do not add up: the stacks have %llu samples (%llu "
		    "kernel, %llu unknown), the header says %llu (%llu, %llu)",
		    (unsigned long long)total, (unsigned long long)kernel,
		    (unsigned long long)unknown, (unsigned long long)p->samples,
		    (unsigned long long)p->kernel, (unsigned long long)p->unknown);
		goto out;
	}
	for (size_t i = 0; i < p->nobjects; i++)
		if (leaves[i] != p->objects[i].samples) {
			prf_say(d, "counts do not add up: stacks end in %s %llu times, "
			    "its histogram has %llu samples", p->objects[i].path,
			    (unsigned long long)leaves[i],
			    (unsigned long long)p->objects[i].samples);
			goto out;
		}
	rc = 0;
out:
	free(leaves);
	return rc;
}

/* The totals must agree with the parts. */
int
prf_check_totals(struct decoder *d)
{
	const struct profil_profile *p = d->p;
	unsigned __int128 sum = (unsigned __int128)p->kernel + p->unknown;
	size_t i;

	for (i = 0; i < p->nobjects; i++)
		sum += p->objects[i].samples;
	if (sum != p->samples) {
		prf_say(d, "counts do not add up: objects, kernel and unknown make "
		    "%llu samples, the header says %llu",
		    (unsigned long long)sum, (unsigned long long)p->samples);
		return -1;
	}
	if (p->kernel_code != NULL && p->kernel_code->code.samples != p->kernel) {
		prf_say(d, "counts do not add up: the kernel record has %llu samples, "
		    "the header says %llu kernel samples",
		    (unsigned long long)p->kernel_code->code.samples,
		    (unsigned long long)p->kernel);
		return -1;
	}
	for (i = 0; i < p->nsymbols; i++) {
		uint32_t object = p->symbols[i].object;

		if (object == PROFIL_SYMBOL_KERNEL ? p->kernel_code == NULL :
		    object >= p->nobjects) {
			prf_say(d, "a kept name (%s) belongs to no object of the "
			    "profile", p->symbols[i].name);
			return -1;
		}
	}
	for (i = 0; i < p->nlines; i++)
		if (p->lines[i].object >= p->nobjects) {
			prf_say(d, "a kept source line belongs to no object of the "
			    "profile");
			return -1;
		}
	if (check_stacks(d) < 0)
		return -1;
	if (prf_check_timeline(d) < 0)
		return -1;
	if (p->nfp_frames > 0 && p->fp_frames[p->nfp_frames - 1] >= p->nframes) {
		prf_say(d, "a frame marked as found by frame pointer is no frame of "
		    "the stacks");
		return -1;
	}
	if ((p->taken > 0 || p->weight_sq > 0) && p->weight_sq < p->samples) {
		prf_say(d, "counts do not add up: squared weights sum to %llu, less "
		    "than the %llu samples they weigh",
		    (unsigned long long)p->weight_sq,
		    (unsigned long long)p->samples);
		return -1;
	}
	if (p->nthreads > 0) {
		for (sum = 0, i = 0; i < p->nthreads; i++)
			sum += p->threads[i].samples;
		if (sum != p->samples) {
			prf_say(d, "counts do not add up: threads have %llu samples, "
			    "the header says %llu", (unsigned long long)sum,
			    (unsigned long long)p->samples);
			return -1;
		}
	}
	if (p->nprocesses > 0) {
		for (sum = 0, i = 0; i < p->nprocesses; i++)
			sum += p->processes[i].samples;
		if (sum != p->samples) {
			prf_say(d, "counts do not add up: processes have %llu samples, "
			    "the header says %llu", (unsigned long long)sum,
			    (unsigned long long)p->samples);
			return -1;
		}
	}
	return 0;
}
