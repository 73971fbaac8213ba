/*
 * fuzz-prf.c - the .prf reader (lib/codec/) fed anything:
 * it must return a profile or a non-empty cause, and a profile it accepts
 * must hold what the format promises (buckets, kept names, stacks and
 * the timeline in order and in range, stacks adding up to the flat
 * profile and the timeline to the stacks) and survive encoding: read back
 * equal (kernel record, kept names, frames, stacks and timeline too), and
 * encoded again to the same bytes.  Each input is also tried
 * with its checksum made right, or almost no mutation would get past it.
 */
#include <string.h>

#include <profil.h>

#include "fuzz.h"
#include "codec/prf.h"

static int
same_str(const char *a, const char *b)
{
	return (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
}

static int
same_object(const struct profil_object *x, const struct profil_object *y)
{
	return same_str(x->path, y->path) && x->build_id_len == y->build_id_len &&
	    memcmp(x->build_id, y->build_id, x->build_id_len) == 0 &&
	    x->lowpc == y->lowpc && x->highpc == y->highpc &&
	    x->bucket_bytes == y->bucket_bytes && x->samples == y->samples &&
	    x->nbuckets == y->nbuckets && (x->nbuckets == 0 ||
	    memcmp(x->buckets, y->buckets, x->nbuckets * sizeof *x->buckets) == 0);
}

/* The optional records of a and b: which differs, or NULL. */
static const char *
optional_difference(const struct profil_profile *a,
    const struct profil_profile *b)
{
	const struct profil_kernel *ka = a->kernel_code, *kb = b->kernel_code;
	size_t i;

	if ((ka == NULL) != (kb == NULL))
		return "kernel record";
	if (ka != NULL && (!same_str(ka->release, kb->release) ||
	    memcmp(ka->boot_id, kb->boot_id, sizeof ka->boot_id) != 0 ||
	    ka->text_addr != kb->text_addr || !same_object(&ka->code, &kb->code)))
		return "kernel record";
	if (a->nsymbols != b->nsymbols)
		return "number of kept names";
	for (i = 0; i < a->nsymbols; i++)
		if (a->symbols[i].object != b->symbols[i].object ||
		    a->symbols[i].start != b->symbols[i].start ||
		    a->symbols[i].end != b->symbols[i].end ||
		    !same_str(a->symbols[i].name, b->symbols[i].name))
			return "kept name";
	/* a lines record without lines is none: its files are not kept */
	if (a->nlines != b->nlines)
		return "number of kept lines";
	for (i = 0; i < a->nlines; i++)
		if (a->lines[i].object != b->lines[i].object ||
		    a->lines[i].addr != b->lines[i].addr ||
		    a->lines[i].line != b->lines[i].line ||
		    !same_str(a->line_files[a->lines[i].file],
		    b->line_files[b->lines[i].file]))
			return "kept line";
	if (a->slice_ns != b->slice_ns || a->nslices != b->nslices ||
	    a->ntimeline != b->ntimeline || (a->ntimeline > 0 &&
	    memcmp(a->timeline, b->timeline, a->ntimeline *
	    sizeof *a->timeline) != 0))
		return "timeline";
	/* a stacks record without stacks is none: its frames are not kept */
	if (a->nstacks != b->nstacks)
		return "number of stacks";
	if (a->nstacks == 0)
		return NULL;
	if (a->nframes != b->nframes || memcmp(a->frames, b->frames,
	    a->nframes * sizeof *a->frames) != 0)
		return "frames";
	for (i = 0; i < a->nstacks; i++) {
		const struct profil_stack *x = &a->stacks[i], *y = &b->stacks[i];

		if (x->pid != y->pid || x->tid != y->tid || x->count != y->count ||
		    x->off_ns != y->off_ns || x->sampled_ns != y->sampled_ns ||
		    x->observations != y->observations ||
		    x->depth != y->depth || memcmp(x->frames, y->frames,
		    x->depth * sizeof *x->frames) != 0)
			return "stack";
	}
	return NULL;
}

/* Which field of a and b differs, or NULL when the profiles are equal. */
static const char *
profile_difference(const struct profil_profile *a,
    const struct profil_profile *b)
{
	size_t i;

	if (a->interval_ns != b->interval_ns || a->bucket_bytes != b->bucket_bytes ||
	    a->start_ns != b->start_ns || a->duration_ns != b->duration_ns ||
	    a->cpu_ns != b->cpu_ns || a->samples != b->samples ||
	    a->kernel != b->kernel || a->unknown != b->unknown ||
	    a->lost != b->lost || !same_str(a->engine, b->engine))
		return "header";
	if ((a->wall == NULL) != (b->wall == NULL) || (a->wall != NULL &&
	    memcmp(a->wall, b->wall, sizeof *a->wall) != 0))
		return "wall record";
	if (a->refused != b->refused)
		return "refused record";
	if (a->argc != b->argc)
		return "argc";
	for (i = 0; i < (size_t)a->argc; i++)
		if (!same_str(a->argv[i], b->argv[i]))
			return "argv";
	if (a->nobjects != b->nobjects)
		return "number of objects";
	for (i = 0; i < a->nobjects; i++) {
		const struct profil_object *x = &a->objects[i], *y = &b->objects[i];

		if (!same_str(x->path, y->path) || x->build_id_len != y->build_id_len ||
		    memcmp(x->build_id, y->build_id, x->build_id_len) != 0 ||
		    x->lowpc != y->lowpc || x->highpc != y->highpc ||
		    x->bucket_bytes != y->bucket_bytes || x->samples != y->samples)
			return "object";
		if (x->nbuckets != y->nbuckets || (x->nbuckets > 0 &&
		    memcmp(x->buckets, y->buckets, x->nbuckets * sizeof *x->buckets)))
			return "buckets";
	}
	if (a->nthreads != b->nthreads)
		return "number of threads";
	for (i = 0; i < a->nthreads; i++)
		if (a->threads[i].pid != b->threads[i].pid ||
		    a->threads[i].tid != b->threads[i].tid ||
		    a->threads[i].samples != b->threads[i].samples ||
		    !same_str(a->threads[i].name, b->threads[i].name))
			return "thread";
	if (a->nprocesses != b->nprocesses)
		return "number of processes";
	for (i = 0; i < a->nprocesses; i++)
		if (a->processes[i].pid != b->processes[i].pid ||
		    a->processes[i].ppid != b->processes[i].ppid ||
		    a->processes[i].exit_status != b->processes[i].exit_status ||
		    a->processes[i].samples != b->processes[i].samples ||
		    !same_str(a->processes[i].command, b->processes[i].command))
			return "process";
	return optional_difference(a, b);
}

/* Buckets sorted by address, non-empty, inside [lowpc, highpc). */
static void
check_buckets(const struct profil_object *o)
{
	for (size_t i = 0; i < o->nbuckets; i++) {
		const struct profil_bucket *b = &o->buckets[i];

		if (b->count == 0 || b->addr < o->lowpc || b->addr >= o->highpc ||
		    (i > 0 && b->addr <= o->buckets[i - 1].addr))
			fuzz_fail("%s: bucket %zu (%#llx) out of order or range",
			    o->path, i, (unsigned long long)b->addr);
	}
}

/*
 * Kept names sorted by object and start without overlaps, each of an
 * object of the profile; frames sorted, each once; stacks 1 to
 * PRF_MAX_DEPTH frames deep, of real frames, a cut only last and never
 * the leaf, their counts adding up to the samples (kernel and unknown
 * ones and each object's).
 */
static void
check_model(const struct profil_profile *p)
{
	unsigned __int128 total = 0, kernel = 0, unknown = 0;
	unsigned __int128 *leaves = calloc(p->nobjects + 1, sizeof *leaves);

	if (leaves == NULL)
		abort();
	for (size_t i = 0; i < p->nsymbols; i++) {
		const struct profil_symbol *sy = &p->symbols[i];

		if (sy->start >= sy->end || (sy->object != PROFIL_SYMBOL_KERNEL &&
		    sy->object >= p->nobjects) || (i > 0 &&
		    (sy[-1].object > sy->object || (sy[-1].object == sy->object &&
		    sy[-1].end > sy->start))))
			fuzz_fail("kept name %zu (%s) out of order or range", i,
			    sy->name);
	}
	for (size_t i = 0; i < p->nlines; i++) {
		const struct profil_line *l = &p->lines[i];

		if (l->object >= p->nobjects || l->file >= p->nline_files ||
		    l->line == 0 || (i > 0 && (l[-1].object > l->object ||
		    (l[-1].object == l->object && l[-1].addr >= l->addr))))
			fuzz_fail("kept line %zu out of order or range", i);
	}
	for (size_t i = 1; i < p->nframes; i++)
		if (p->frames[i - 1].object > p->frames[i].object ||
		    (p->frames[i - 1].object == p->frames[i].object &&
		    p->frames[i - 1].addr >= p->frames[i].addr))
			fuzz_fail("frame %zu out of order", i);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		uint32_t leaf;

		/* samples, or (a wall profile's) time off the CPU: one of them */
		if (st->depth == 0 || st->depth > PRF_MAX_DEPTH ||
		    (st->count == 0) == (st->off_ns == 0) ||
		    (st->off_ns > 0 && p->wall == NULL) ||
		    st->sampled_ns > st->off_ns)
			fuzz_fail("stack %zu: %zu frames, %llu samples, %llu ns off "
			    "the CPU (%llu sampled)", i, st->depth,
			    (unsigned long long)st->count,
			    (unsigned long long)st->off_ns,
			    (unsigned long long)st->sampled_ns);
		for (size_t d = 0; d < st->depth; d++)
			if (st->frames[d] >= p->nframes ||
			    (p->frames[st->frames[d]].object == PROFIL_FRAME_CUT &&
			    d + 1 != st->depth) ||
			    (p->frames[st->frames[d]].object == PROFIL_FRAME_OFFCPU &&
			    d != 0))
				fuzz_fail("stack %zu: frame %zu bad, cut or off-CPU",
				    i, d);
		leaf = p->frames[st->frames[0]].object;
		if ((leaf == PROFIL_FRAME_OFFCPU) != (st->off_ns > 0))
			fuzz_fail("stack %zu: off-CPU time not at an off-CPU leaf",
			    i);
		if (st->off_ns > 0)
			continue;
		total += st->count;
		if (leaf == PROFIL_FRAME_KERNEL)
			kernel += st->count;
		else if (leaf == PROFIL_FRAME_UNKNOWN)
			unknown += st->count;
		else if (leaf < p->nobjects)
			leaves[leaf] += st->count;
		else
			fuzz_fail("stack %zu has no sampled leaf", i);
	}
	if (p->nstacks > 0) {
		if (total != p->samples || kernel != p->kernel ||
		    unknown != p->unknown)
			fuzz_fail("stacks do not add up to the header's counts");
		for (size_t i = 0; i < p->nobjects; i++)
			if (leaves[i] != p->objects[i].samples)
				fuzz_fail("stacks do not add up to %s's samples",
				    p->objects[i].path);
	}
	free(leaves);
}

/*
 * The timeline: present only with stacks, its slices 1 to 2^24 and not
 * past 2^64 ns; entries sorted by stack then slice, each (stack, slice)
 * once, in range, not empty, and each stack's adding up to its count (or
 * off_ns).
 */
static void
check_timeline(const struct profil_profile *p)
{
	unsigned __int128 *sum;

	if (p->slice_ns == 0) {
		if (p->nslices != 0 || p->ntimeline != 0)
			fuzz_fail("a timeline of no slices");
		return;
	}
	if (p->nstacks == 0 || p->nslices == 0 || p->nslices > 1u << 24 ||
	    (unsigned __int128)p->slice_ns * p->nslices > UINT64_MAX)
		fuzz_fail("a timeline of %llu slices of %llu ns, %zu stacks",
		    (unsigned long long)p->nslices,
		    (unsigned long long)p->slice_ns, p->nstacks);
	if ((sum = calloc(p->nstacks, sizeof *sum)) == NULL)
		abort();
	for (size_t i = 0; i < p->ntimeline; i++) {
		const struct profil_timeline_entry *e = &p->timeline[i];

		if (e->stack >= p->nstacks || e->slice >= p->nslices ||
		    e->value == 0 || (i > 0 && (e[-1].stack > e->stack ||
		    (e[-1].stack == e->stack && e[-1].slice >= e->slice))))
			fuzz_fail("timeline entry %zu (%u, %u) out of order or "
			    "range, or empty", i, e->stack, e->slice);
		sum[e->stack] += e->value;
	}
	for (size_t i = 0; i < p->nstacks; i++)
		if (sum[i] != p->stacks[i].count + p->stacks[i].off_ns)
			fuzz_fail("stack %zu's slices do not add up to it", i);
	free(sum);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static void
check_input(const uint8_t *data, size_t size)
{
	struct profil_profile *p, *q;
	void *first, *second;
	size_t first_size, second_size;
	const char *diff;
	char cause[256] = "";

	p = profil_profile_parse(data, size, cause, sizeof cause);
	if (p == NULL) {
		if (cause[0] == '\0')
			fuzz_fail("refused without a cause");
		return;
	}
	for (size_t i = 0; i < p->nobjects; i++)
		check_buckets(&p->objects[i]);
	if (p->kernel_code != NULL)
		check_buckets(&p->kernel_code->code);
	check_model(p);
	check_timeline(p);
	if (profil_profile_encode(p, &first, &first_size) < 0)
		fuzz_fail("an accepted profile does not encode");
	q = profil_profile_parse(first, first_size, cause, sizeof cause);
	if (q == NULL)
		fuzz_fail("an accepted profile, encoded, is refused: %s", cause);
	if ((diff = profile_difference(p, q)) != NULL)
		fuzz_fail("read back different: %s", diff);
	if (profil_profile_encode(q, &second, &second_size) < 0)
		fuzz_fail("a profile read back does not encode");
	if (second_size != first_size || memcmp(first, second, first_size) != 0)
		fuzz_fail("encoding is not stable: %zu bytes, then %zu",
		    first_size, second_size);
	free(first);
	free(second);
	profil_profile_free(p);
	profil_profile_free(q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed = fuzz_fix_checksum(data, size);

	check_input(data, size);
	if (fixed != NULL)
		check_input(fixed, size);
	free(fixed);
	return 0;
}

const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	static char why[320];
	char cause[256] = "";
	struct profil_profile *p = profil_profile_parse(data, size, cause,
	    sizeof cause);
	int accepted = p != NULL;

	profil_profile_free(p);
	if (strncmp(name, "ok-", 3) == 0 && !accepted) {
		snprintf(why, sizeof why, "a valid profile is refused: %s", cause);
		return why;
	}
	if (strncmp(name, "bad-", 4) == 0 && accepted)
		return "a malformed profile is accepted";
	return NULL;
}
