/*
 * test-merge.c - cli/profile/merge.c on profiles made here (bucket arithmetic,
 * matching rules, refusals), then `profil merge` and `profil diff` end
 * to end on real recordings of tests/programs/workload.c.  Sums are checked
 * exactly against the inputs' flat reports; diff's statistics are
 * recomputed here from the sample counts it prints, and its verdicts
 * checked on a split that did not change (6:3:1 twice), on many pairs of
 * profiles of one program (drawn here, and recorded), where the false
 * discovery rate must hold, and on one that did change (6:3:1, then 3:6:1).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"

/*
 * Tests link with libprofil only, and merge.c is the command's: compile
 * it in, with util.c for the allocation helpers it uses.
 */
#include "../../cli/profile/merge.c"
#include "../../cli/profile/merge-stacks.c"
#include "../../cli/profile/merge-jit.c"
#include "../../cli/profile/merge-lines.c"
#include "../../cli/util.c"

/* ---- merge_profiles() on profiles made here ------------------------------ */

/* An object: path, build-id byte (0: none), range, bucket size, buckets. */

/* record_with's rate, for the commands written out here (e2e.h) */
static char *
rate(void)
{
	return getenv("PROFIL_TEST_SANITIZED") ?
	    (char *)e2e_rate_when_sanitized : "5000";
}

static void
add_object(struct profil_profile *p, const char *path, unsigned char id,
    uint64_t lowpc, uint64_t highpc, unsigned bucket_bytes,
    const struct profil_bucket *buckets, size_t nbuckets)
{
	struct profil_object *o;

	p->objects = xrealloc(p->objects, (p->nobjects + 1) * sizeof *o);
	o = &p->objects[p->nobjects++];
	memset(o, 0, sizeof *o);
	o->path = xstrdup(path);
	if (id != 0) {
		memset(o->build_id, id, 20);
		o->build_id_len = 20;
	}
	o->lowpc = lowpc;
	o->highpc = highpc;
	o->bucket_bytes = bucket_bytes;
	o->buckets = xcalloc(nbuckets, sizeof *o->buckets);
	memcpy(o->buckets, buckets, nbuckets * sizeof *buckets);
	o->nbuckets = nbuckets;
	for (size_t i = 0; i < nbuckets; i++)
		o->samples += buckets[i].count;
	p->samples += o->samples;
}

/* A profile with no objects yet: 1 kHz, the perf engine, one process. */
static struct profil_profile *
new_profile(unsigned bucket_bytes)
{
	struct profil_profile *p = xcalloc(1, sizeof *p);

	p->interval_ns = 1000000;
	p->bucket_bytes = bucket_bytes;
	p->engine = xstrdup("perf");
	p->argc = 1;
	p->argv = xcalloc(2, sizeof *p->argv);
	p->argv[0] = xstrdup("app");
	return p;
}

/* Give the samples so far to one thread and one process, pid. */
static void
add_run(struct profil_profile *p, uint32_t pid, int with_thread)
{
	p->processes = xcalloc(1, sizeof *p->processes);
	p->processes[0] = (struct profil_process){ pid, 1, xstrdup("app"), 0,
	    p->samples };
	p->nprocesses = 1;
	if (with_thread) {
		p->threads = xcalloc(1, sizeof *p->threads);
		p->threads[0] = (struct profil_thread){ pid, pid, xstrdup("app"),
		    p->samples };
		p->nthreads = 1;
	}
}

/*
 * merge_profiles of a and b, which must succeed; the result must encode
 * and read back (the reader checks every total).
 */
static struct profil_profile *
merged(struct profil_profile *a, struct profil_profile *b)
{
	struct profil_profile *in[2] = { a, b }, *m, *back;
	const char *names[2] = { "a.prf", "b.prf" };
	char cause[512] = "";
	void *data;
	size_t size;

	if (merge_profiles(in, names, 2, &m, cli_warn_line, cause,
	    sizeof cause) < 0)
		fail_msg("merge refused: %s", cause);
	assert_int_equal(profil_profile_encode(m, &data, &size), 0);
	back = profil_profile_parse(data, size, cause, sizeof cause);
	if (back == NULL)
		fail_msg("the merged profile does not read back: %s", cause);
	profil_profile_free(back);
	free(data);
	return m;
}

/* merge_profiles of a and b, which must refuse with a cause holding want. */
static void
refused(struct profil_profile *a, struct profil_profile *b, const char *want)
{
	struct profil_profile *in[2] = { a, b }, *m = NULL;
	const char *names[2] = { "a.prf", "b.prf" };
	char cause[512] = "";

	assert_int_equal(merge_profiles(in, names, 2, &m, cli_warn_line, cause,
	    sizeof cause), -1);
	assert_null(m);
	if (strstr(cause, want) == NULL || strchr(cause, '\n') != NULL)
		fail_msg("cause [%s] does not say '%s' in one line", cause, want);
}

/*
 * 4-byte and 16-byte buckets of one object, summed at 16:
 *   a: 0x1000:1 0x1004:2 0x1010:5 0x1024:1      (4 bytes)
 *   b: 0x1000:10 0x1020:3 0x1030:7              (16 bytes)
 *   =  0x1000:13 0x1010:5 0x1020:4 0x1030:7
 * The range is the union; samples, kernel and the rest add up.
 */
static void
test_unit_rebucket(void **state)
{
	static const struct profil_bucket fine[] = { { 0x1000, 1 }, { 0x1004, 2 },
	    { 0x1010, 5 }, { 0x1024, 1 } };
	static const struct profil_bucket coarse[] = { { 0x1000, 10 },
	    { 0x1020, 3 }, { 0x1030, 7 } };
	static const struct profil_bucket want[] = { { 0x1000, 13 },
	    { 0x1010, 5 }, { 0x1020, 4 }, { 0x1030, 7 } };
	struct profil_profile *a = new_profile(4), *b = new_profile(16), *m;

	(void)state;
	add_object(a, "/bin/app", 1, 0x1000, 0x1030, 4, fine, 4);
	add_object(b, "/bin/app", 1, 0x0ff0, 0x1040, 16, coarse, 3);
	a->kernel = 3, a->samples += 3;
	b->lost = 2;
	add_run(a, 10, 1);
	add_run(b, 20, 1);
	m = merged(a, b);
	assert_int_equal(m->bucket_bytes, 16);
	assert_int_equal(m->nobjects, 1);
	assert_int_equal(m->objects[0].bucket_bytes, 16);
	assert_int_equal(m->objects[0].lowpc, 0x0ff0);
	assert_int_equal(m->objects[0].highpc, 0x1040);
	assert_int_equal(m->objects[0].samples, 29);
	assert_int_equal(m->objects[0].nbuckets, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(m->objects[0].buckets[i].addr, want[i].addr);
		assert_int_equal(m->objects[0].buckets[i].count, want[i].count);
	}
	assert_int_equal(m->samples, 32);
	assert_int_equal(m->kernel, 3);
	assert_int_equal(m->lost, 2);
	assert_int_equal(m->nthreads, 2);
	assert_int_equal(m->nprocesses, 2);
	assert_int_equal(m->processes[1].pid, 20);
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
}

/*
 * Objects match by build-id whatever their path, by path when one has
 * no build-id, never when build-ids differ; and an object of an input
 * never absorbs another of the same input (merging a profile with
 * itself keeps its objects).
 */
static void
test_unit_matching(void **state)
{
	static const struct profil_bucket one[] = { { 0x10, 1 } };
	struct profil_profile *a = new_profile(1), *b = new_profile(1), *m;

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, one, 1);
	add_object(a, "/lib/plain.so", 0, 0, 0x100, 1, one, 1);
	add_object(a, "/lib/x.so", 3, 0, 0x100, 1, one, 1);
	add_object(a, "/usr/lib/x.so", 3, 0, 0x100, 1, one, 1);
	add_object(b, "/moved/app", 1, 0, 0x100, 1, one, 1);
	add_object(b, "/lib/plain.so", 7, 0, 0x100, 1, one, 1);
	add_object(b, "/lib/x.so", 4, 0, 0x100, 1, one, 1);
	m = merged(a, b);
	assert_int_equal(m->nobjects, 5);
	assert_string_equal(m->objects[0].path, "/bin/app");
	assert_int_equal(m->objects[0].samples, 2);
	assert_string_equal(m->objects[1].path, "/lib/plain.so");
	assert_int_equal(m->objects[1].samples, 2);
	assert_int_equal(m->objects[1].build_id_len, 20);	/* learnt from b */
	assert_string_equal(m->objects[2].path, "/lib/x.so");
	assert_int_equal(m->objects[2].samples, 1);
	assert_string_equal(m->objects[3].path, "/usr/lib/x.so");
	assert_int_equal(m->objects[3].samples, 1);
	assert_int_equal(m->objects[4].build_id[0], 4);
	profil_profile_free(m);

	m = merged(a, a);
	assert_int_equal(m->nobjects, a->nobjects);
	for (size_t i = 0; i < a->nobjects; i++) {
		assert_string_equal(m->objects[i].path, a->objects[i].path);
		assert_int_equal(m->objects[i].samples, 2 * a->objects[i].samples);
	}
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
}

/* Threads of an input that has none cannot add up: the sum has none. */
static void
test_unit_threads_kept_only_when_all_have_them(void **state)
{
	static const struct profil_bucket one[] = { { 0x10, 5 } };
	struct profil_profile *a = new_profile(1), *b = new_profile(1), *m;

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, one, 1);
	add_object(b, "/bin/app", 1, 0, 0x100, 1, one, 1);
	add_run(a, 10, 1);
	add_run(b, 20, 0);
	m = merged(a, b);
	assert_int_equal(m->nthreads, 0);
	assert_int_equal(m->nprocesses, 2);
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
}

/*
 * The weights record: taken and squared weights summed, an input without
 * one counting each sample once; none when no input has one.
 */
static void
test_unit_weights_summed(void **state)
{
	static const struct profil_bucket one[] = { { 0x10, 40 } };
	struct profil_profile *a = new_profile(1), *b = new_profile(1), *m;

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, one, 1);
	add_object(b, "/bin/app", 1, 0, 0x100, 1, one, 1);
	m = merged(a, b);
	assert_true(m->taken == 0 && m->weight_sq == 0);
	profil_profile_free(m);
	/* a: 10 samples of weight 4 under a budget; b: 40 of weight 1 */
	a->taken = 10;
	a->weight_sq = 160;
	a->budget = 1000;
	a->slowest_ns = 4 * a->interval_ns;
	m = merged(a, b);
	assert_int_equal(m->samples, 80);
	assert_int_equal(m->taken, 50);
	assert_int_equal(m->weight_sq, 200);
	assert_int_equal(m->budget, 1000);
	assert_int_equal(m->slowest_ns, 4 * a->interval_ns);
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
}

static void
test_unit_refusals(void **state)
{
	static const struct profil_bucket one[] = { { 0x10, 1 } };
	struct profil_profile *a = new_profile(4), *b = new_profile(4);

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 4, one, 1);
	add_object(b, "/bin/app", 1, 0, 0x100, 4, one, 1);
	b->interval_ns = 500000;
	refused(a, b, "a.prf was sampled every 1000000 ns (1000 Hz), b.prf "
	    "every 500000 ns (2000 Hz)");
	b->interval_ns = a->interval_ns;
	free(b->engine);
	b->engine = xstrdup("timer");
	refused(a, b, "by the timer engine");
	free(b->engine);
	b->engine = xstrdup("perf");
	b->objects[0].build_id[0] = 2;
	refused(a, b, "different programs: /bin/app (build-id 0101010101010101) "
	    "and /bin/app (build-id 0201010101010101)");
	b->objects[0].build_id[0] = 1;
	b->objects[0].bucket_bytes = 3;
	refused(a, b, "3-byte buckets");
	b->objects[0].bucket_bytes = 4;
	b->samples = b->unknown = UINT64_MAX;	/* a has 1 more */
	refused(a, b, "64 bits");
	profil_profile_free(a);
	profil_profile_free(b);
}

/* ---- stacks and kept names ------------------------------------------------ */

#define KERNEL PROFIL_FRAME_KERNEL

/*
 * A stack of p (frames leaf first as (object, addr) pairs), its frames
 * added to p's sorted frames where new (numbers of the stacks so far
 * moved up past them), and its count given to the flat profile at its
 * leaf: the object's bucket at the leaf address, or the kernel.
 */
static void
add_stack(struct profil_profile *p, uint32_t pid, uint32_t tid, uint64_t count,
    size_t depth, const struct profil_frame *frames)
{
	struct profil_stack *st;

	p->stacks = xrealloc(p->stacks, (p->nstacks + 1) * sizeof *st);
	st = &p->stacks[p->nstacks++];
	*st = (struct profil_stack){ .pid = pid, .tid = tid, .count = count,
	    .depth = depth, .frames = xcalloc(depth, sizeof *st->frames) };
	for (size_t d = 0; d < depth; d++) {
		const struct profil_frame *f = &frames[d];
		size_t at = 0;

		while (at < p->nframes && (p->frames[at].object < f->object ||
		    (p->frames[at].object == f->object &&
		    p->frames[at].addr < f->addr)))
			at++;
		if (at == p->nframes || p->frames[at].object != f->object ||
		    p->frames[at].addr != f->addr) {
			p->frames = xrealloc(p->frames, (p->nframes + 1) *
			    sizeof *p->frames);
			memmove(&p->frames[at + 1], &p->frames[at],
			    (p->nframes - at) * sizeof *p->frames);
			p->frames[at] = *f;
			p->nframes++;
			for (size_t s = 0; s < p->nstacks; s++)
				for (size_t k = 0; k < (s + 1 == p->nstacks ? d :
				    p->stacks[s].depth); k++)
					if (p->stacks[s].frames[k] >= at)
						p->stacks[s].frames[k]++;
		}
		st->frames[d] = (uint32_t)at;
	}
	if (frames[0].object == PROFIL_FRAME_OFFCPU) {	/* count: off_ns */
		st->count = 0;
		st->off_ns = count;
		return;
	}
	p->samples += count;
	if (frames[0].object == KERNEL) {
		p->kernel += count;
		if (p->kernel_code != NULL) {
			struct profil_object *k = &p->kernel_code->code;

			k->buckets = xrealloc(k->buckets, (k->nbuckets + 1) *
			    sizeof *k->buckets);
			k->buckets[k->nbuckets++] = (struct profil_bucket){
			    frames[0].addr, count };
			k->samples += count;
			k->lowpc = k->buckets[0].addr;
			k->highpc = frames[0].addr + 1;
		}
	} else {
		struct profil_object *o = &p->objects[frames[0].object];
		size_t b = 0;

		while (b < o->nbuckets && o->buckets[b].addr < frames[0].addr)
			b++;
		if (b == o->nbuckets || o->buckets[b].addr != frames[0].addr) {
			o->buckets = xrealloc(o->buckets, (o->nbuckets + 1) *
			    sizeof *o->buckets);
			memmove(&o->buckets[b + 1], &o->buckets[b],
			    (o->nbuckets - b) * sizeof *o->buckets);
			o->buckets[b] = (struct profil_bucket){ frames[0].addr, 0 };
			o->nbuckets++;
		}
		o->buckets[b].count += count;
		o->samples += count;
	}
}

/* The count of p's stack (pid, tid, frames leaf first), 0 if none. */
static uint64_t
stack_count(const struct profil_profile *p, uint32_t pid, uint32_t tid,
    size_t depth, const struct profil_frame *frames)
{
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct profil_stack *st = &p->stacks[s];
		size_t d = 0;

		if (st->pid != pid || st->tid != tid || st->depth != depth)
			continue;
		for (; d < depth; d++) {
			const struct profil_frame *f = &p->frames[st->frames[d]];

			if (f->object != frames[d].object || f->addr != frames[d].addr)
				break;
		}
		if (d == depth)
			return st->count;
	}
	return 0;
}

/* A kernel record: build-id byte id, boot byte boot, _text at text. */
static void
add_kernel(struct profil_profile *p, unsigned char id, unsigned char boot,
    uint64_t text)
{
	struct profil_kernel *k = xcalloc(1, sizeof *k);

	k->code.path = xstrdup("[kernel.kallsyms]");
	memset(k->code.build_id, id, 20);
	k->code.build_id_len = 20;
	k->code.bucket_bytes = 1;
	k->code.lowpc = 0;
	k->code.highpc = 1;
	k->code.buckets = xcalloc(1, sizeof *k->code.buckets);
	k->release = xstrdup("6.1.0");
	memset(k->boot_id, boot, 16);
	k->text_addr = text;
	p->kernel_code = k;
}

/* A kept source line (the file added to p's files), after p's others. */
static void
add_line(struct profil_profile *p, uint32_t object, uint64_t addr,
    const char *file, uint32_t line)
{
	p->line_files = xrealloc(p->line_files, (p->nline_files + 1) *
	    sizeof *p->line_files);
	p->line_files[p->nline_files] = xstrdup(file);
	p->lines = xrealloc(p->lines, (p->nlines + 1) * sizeof *p->lines);
	p->lines[p->nlines++] = (struct profil_line){ object,
	    (uint32_t)p->nline_files++, addr, line };
}

static void
add_symbol(struct profil_profile *p, uint32_t object, uint64_t start,
    uint64_t end, const char *name)
{
	p->symbols = xrealloc(p->symbols, (p->nsymbols + 1) * sizeof *p->symbols);
	p->symbols[p->nsymbols++] = (struct profil_symbol){ object, start, end,
	    xstrdup(name) };
}

/*
 * a: app, x.so;  b: app, y.so, x.so (x is object 1 in a, 2 in b).
 * Stacks equal in frames and thread are summed whichever input they come
 * from; x's frames of both land on the result's x; another thread's
 * stack stays apart; kernel frames without kernel records become one
 * frame without an address.
 */
static void
test_unit_stacks_summed(void **state)
{
	static const struct profil_bucket none[] = { { 0, 0 } };
	const struct profil_frame main_f = { 0, 0x50 }, calls_x = { 0, 0x60 };
	const struct profil_frame s1[] = { { 0, 0x10 }, main_f };
	const struct profil_frame s2[] = { { 0, 0x20 }, main_f };
	const struct profil_frame ax[] = { { 1, 0x30 }, calls_x, main_f };
	const struct profil_frame bx[] = { { 2, 0x30 }, calls_x, main_f };
	const struct profil_frame mx[] = { { 1, 0x30 }, calls_x, main_f };
	const struct profil_frame ka[] = { { KERNEL, 0xffffffff81000010 },
	    { KERNEL, 0xffffffff81000200 }, main_f };
	const struct profil_frame kb[] = { { KERNEL, 0xffffffff82000010 },
	    main_f };
	const struct profil_frame kernel_nowhere[] = { { KERNEL, 0 }, main_f };
	const struct profil_frame cut[] = { { 0, 0x10 },
	    { PROFIL_FRAME_CUT, PROFIL_CUT_NO_UNWIND } };
	struct profil_profile *a = new_profile(1), *b = new_profile(1), *m;

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_object(a, "/lib/x.so", 3, 0, 0x100, 1, none, 0);
	add_object(b, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_object(b, "/lib/y.so", 4, 0, 0x100, 1, none, 0);
	add_object(b, "/lib/x.so", 3, 0, 0x100, 1, none, 0);
	add_stack(a, 10, 10, 3, 2, s1);
	add_stack(a, 10, 10, 2, 2, s2);
	add_stack(a, 10, 10, 4, 3, ax);
	add_stack(a, 10, 10, 1, 3, ka);
	add_stack(a, 10, 10, 6, 2, cut);
	add_stack(b, 10, 10, 1, 2, s1);
	add_stack(b, 20, 20, 2, 3, bx);
	add_stack(b, 10, 10, 5, 3, bx);
	add_stack(b, 10, 10, 7, 2, kb);
	m = merged(a, b);
	assert_int_equal(m->nobjects, 3);
	assert_string_equal(m->objects[1].path, "/lib/x.so");
	assert_int_equal(stack_count(m, 10, 10, 2, s1), 4);
	assert_int_equal(stack_count(m, 10, 10, 2, s2), 2);
	assert_int_equal(stack_count(m, 10, 10, 3, mx), 9);
	assert_int_equal(stack_count(m, 20, 20, 3, mx), 2);
	assert_int_equal(stack_count(m, 10, 10, 2, cut), 6);
	/* no kernel record: the kernel's part of a stack is one [kernel] */
	assert_int_equal(stack_count(m, 10, 10, 2, kernel_nowhere), 8);
	assert_int_equal(m->nstacks, 6);
	assert_int_equal(m->kernel, 8);
	profil_profile_free(m);

	/* with itself: every stack twice its count, and no more stacks */
	m = merged(a, a);
	assert_int_equal(m->nstacks, 5);
	assert_int_equal(stack_count(m, 10, 10, 3, ax), 8);
	assert_int_equal(stack_count(m, 10, 10, 2, kernel_nowhere), 2);
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
}

/* p's stack (pid, tid, frames leaf first), or NULL. */
static const struct profil_stack *
stack_of(const struct profil_profile *p, uint32_t pid, uint32_t tid,
    size_t depth, const struct profil_frame *frames)
{
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct profil_stack *st = &p->stacks[s];
		size_t d = 0;

		if (st->pid != pid || st->tid != tid || st->depth != depth)
			continue;
		for (; d < depth; d++) {
			const struct profil_frame *f = &p->frames[st->frames[d]];

			if (f->object != frames[d].object || f->addr != frames[d].addr)
				break;
		}
		if (d == depth)
			return st;
	}
	return NULL;
}

/* Make p a wall profile with this wall record. */
static void
make_wall(struct profil_profile *p, uint64_t poll_ns, uint64_t switches,
    uint64_t reads, uint64_t unread_ns)
{
	p->wall = xcalloc(1, sizeof *p->wall);
	*p->wall = (struct profil_wall){ poll_ns, switches, reads, unread_ns };
}

/*
 * Wall profiles merged stay wall: off-CPU stacks equal in frames, pid
 * and tid summed (off_ns, sampled_ns, observations), the others kept,
 * CPU stacks as ever; the wall record's switches, reads, unread time
 * summed, poll_ns the largest.  With a CPU profile: refused, the cause
 * naming the CPU one whichever side it is on.
 */
static void
test_unit_wall_summed(void **state)
{
	static const struct profil_bucket none[] = { { 0, 0 } };
	const struct profil_frame main_f = { 0, 0x50 };
	const struct profil_frame cpu[] = { { 0, 0x10 }, main_f };
	const struct profil_frame rd[] = { { PROFIL_FRAME_OFFCPU, 0 },
	    { 0, 0x60 }, main_f };
	const struct profil_frame sl[] = { { PROFIL_FRAME_OFFCPU, 230 },
	    main_f };
	struct profil_profile *a = new_profile(1), *b = new_profile(1);
	struct profil_profile *c = new_profile(1), *m;
	const struct profil_stack *st;

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_object(b, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_object(c, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_stack(a, 10, 10, 3, 2, cpu);
	add_stack(a, 10, 10, 1000, 3, rd);
	a->stacks[a->nstacks - 1].sampled_ns = 400;
	a->stacks[a->nstacks - 1].observations = 2;
	add_stack(b, 10, 10, 2, 2, cpu);
	add_stack(b, 10, 10, 500, 3, rd);
	b->stacks[b->nstacks - 1].sampled_ns = 100;
	b->stacks[b->nstacks - 1].observations = 1;
	add_stack(b, 10, 11, 7000, 2, sl);
	add_stack(c, 10, 10, 4, 2, cpu);
	make_wall(a, 5000000, 10, 4, 100);
	make_wall(b, 10000000, 20, 6, 50);

	m = merged(a, b);
	assert_non_null(m->wall);
	assert_int_equal(m->wall->poll_ns, 10000000);
	assert_int_equal(m->wall->switches, 30);
	assert_int_equal(m->wall->reads, 10);
	assert_int_equal(m->wall->unread_ns, 150);
	assert_int_equal(m->samples, 5);
	assert_int_equal(stack_count(m, 10, 10, 2, cpu), 5);
	st = stack_of(m, 10, 10, 3, rd);
	assert_non_null(st);
	assert_int_equal(st->count, 0);
	assert_int_equal(st->off_ns, 1500);
	assert_int_equal(st->sampled_ns, 500);
	assert_int_equal(st->observations, 3);
	st = stack_of(m, 10, 11, 2, sl);
	assert_non_null(st);
	assert_int_equal(st->off_ns, 7000);
	assert_int_equal(m->nstacks, 3);
	profil_profile_free(m);

	m = merged(a, a);
	st = stack_of(m, 10, 10, 3, rd);
	assert_non_null(st);
	assert_int_equal(st->off_ns, 2000);
	assert_int_equal(m->wall->poll_ns, 5000000);
	profil_profile_free(m);

	refused(a, c, "b.prf is a CPU profile, a.prf a wall profile");
	refused(c, a, "a.prf is a CPU profile, b.prf a wall profile");
	profil_profile_free(a);
	profil_profile_free(b);
	profil_profile_free(c);
}

/*
 * Two boots of one kernel (_text at 0xffffffff81000000, then 0x...82000000):
 * b's kernel frames and kept kernel names move by the difference to a's
 * boot, and meet a's.  With another kernel, the result keeps no kernel
 * addresses: each stack's kernel part becomes one address-less frame and
 * the kernel's kept names go (a reader refuses them without a kernel
 * record).
 */
static void
test_unit_stacks_kernel_boots(void **state)
{
	static const struct profil_bucket none[] = { { 0, 0 } };
	const struct profil_frame main_f = { 0, 0x50 };
	const struct profil_frame ka[] = { { KERNEL, 0xffffffff81000010 },
	    { KERNEL, 0xffffffff81000200 }, main_f };
	const struct profil_frame kb[] = { { KERNEL, 0xffffffff82000010 },
	    { KERNEL, 0xffffffff82000200 }, main_f };
	const struct profil_frame kernel_nowhere[] = { { KERNEL, 0 }, main_f };
	struct profil_profile *a = new_profile(1), *b = new_profile(1), *m;

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_object(b, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_kernel(a, 9, 1, 0xffffffff81000000);
	add_kernel(b, 9, 2, 0xffffffff82000000);
	add_stack(a, 10, 10, 3, 3, ka);
	add_stack(b, 10, 10, 4, 3, kb);
	add_stack(b, 10, 10, 1, 1, &main_f);
	add_symbol(a, PROFIL_SYMBOL_KERNEL, 0xffffffff81000000,
	    0xffffffff81000100, "entry");
	add_symbol(b, PROFIL_SYMBOL_KERNEL, 0xffffffff82000000,
	    0xffffffff82000100, "entry");
	add_symbol(b, PROFIL_SYMBOL_KERNEL, 0xffffffff82000200,
	    0xffffffff82000300, "syscall");
	m = merged(a, b);
	assert_non_null(m->kernel_code);
	assert_int_equal(stack_count(m, 10, 10, 3, ka), 7);
	assert_int_equal(m->nstacks, 2);
	assert_int_equal(m->nframes, 3);
	assert_int_equal(m->nsymbols, 2);
	assert_int_equal(m->symbols[0].start, 0xffffffff81000000);
	assert_string_equal(m->symbols[1].name, "syscall");
	assert_int_equal(m->symbols[1].start, 0xffffffff81000200);
	assert_int_equal(m->symbols[1].end, 0xffffffff81000300);
	profil_profile_free(m);

	/* another kernel */
	memset(b->kernel_code->code.build_id, 8, 20);
	m = merged(a, b);
	assert_null(m->kernel_code);
	assert_int_equal(m->nsymbols, 0);
	assert_int_equal(stack_count(m, 10, 10, 2, kernel_nowhere), 7);
	assert_int_equal(m->nstacks, 2);
	assert_int_equal(m->kernel, 7);
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
}

/*
 * Kept names: the union, once each, for the result's objects; of two
 * that overlap in one object (two builds matched by path), the first.
 */
static void
test_unit_symbols_union(void **state)
{
	static const struct profil_bucket one[] = { { 0x10, 1 } };
	struct profil_profile *a = new_profile(1), *b = new_profile(1), *m;

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, one, 1);
	add_object(a, "/lib/x.so", 0, 0, 0x100, 1, one, 1);
	add_object(b, "/bin/app", 1, 0, 0x100, 1, one, 1);
	add_object(b, "/lib/y.so", 0, 0, 0x100, 1, one, 1);
	add_object(b, "/lib/x.so", 0, 0, 0x100, 1, one, 1);
	add_symbol(a, 0, 0x10, 0x20, "f");
	add_symbol(a, 0, 0x50, 0x70, "main");
	add_symbol(a, 1, 0x00, 0x08, "x_start");
	add_symbol(b, 0, 0x10, 0x20, "f");
	add_symbol(b, 0, 0x18, 0x30, "g");
	add_symbol(b, 1, 0x10, 0x20, "y_f");
	add_symbol(b, 2, 0x10, 0x20, "x_f");
	m = merged(a, b);
	assert_int_equal(m->nsymbols, 5);
	assert_string_equal(m->symbols[0].name, "f");
	assert_string_equal(m->symbols[1].name, "main");
	assert_int_equal(m->symbols[2].object, 1);	/* x.so */
	assert_string_equal(m->symbols[2].name, "x_start");
	assert_string_equal(m->symbols[3].name, "x_f");
	assert_int_equal(m->symbols[4].object, 2);	/* y.so */
	assert_string_equal(m->symbols[4].name, "y_f");
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
}

/*
 * Two runs' generated code ([jit]): each recording made its addresses up
 * from the same start, so a's hotA and b's other_fn are both at 0x10000.
 * Merged, each sample keeps the name it had: b's [jit] moves past a's,
 * its buckets, frames and names together.
 */
static void
test_unit_jit_kept_apart(void **state)
{
	static const struct profil_bucket none[] = { { 0, 0 } };
	const struct profil_frame main_f = { 0, 0x50 };
	const struct profil_frame in_a[] = { { 1, 0x10010 }, main_f };
	const struct profil_frame in_b[] = { { 1, 0x10020 }, { 1, 0x11008 },
	    main_f };
	struct profil_profile *a = new_profile(1), *b = new_profile(1), *m;
	const char *names[3] = { NULL, NULL, NULL };
	uint64_t counts[3] = { 0, 0, 0 };

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_object(a, PROFIL_JIT_OBJECT, 0, 0x10000, 0x12000, 1, none, 0);
	add_object(b, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_object(b, PROFIL_JIT_OBJECT, 0, 0x10000, 0x12000, 1, none, 0);
	add_symbol(a, 1, 0x10000, 0x11000, "JS:*hotA a.js:1");
	add_symbol(b, 1, 0x10000, 0x11000, "JS:*other_fn b.js:9");
	add_symbol(b, 1, 0x11000, 0x12000, "JS:*caller b.js:2");
	add_stack(a, 10, 10, 5, 2, in_a);
	add_stack(b, 20, 20, 7, 3, in_b);
	/* each leaf's caller found by frame pointer (frames by object, addr) */
	a->fp_frames = xcalloc(1, sizeof *a->fp_frames);
	a->fp_frames[0] = 1;			/* { 1, 0x10010 } */
	a->nfp_frames = 1;
	b->fp_frames = xcalloc(1, sizeof *b->fp_frames);
	b->fp_frames[0] = 1;			/* { 1, 0x10020 } */
	b->nfp_frames = 1;
	assert_true(a->frames[1].addr == 0x10010 && b->frames[1].addr == 0x10020);
	add_run(a, 10, 1);
	add_run(b, 20, 1);
	/* a source line each, at the same made-up address */
	add_line(a, 1, 0x10000, "a.js", 3);
	add_line(b, 1, 0x10000, "b.js", 9);
	m = merged(a, b);
	/* both kept, b's moved with its code: each names its own file */
	assert_int_equal(m->nlines, 2);
	assert_string_equal(m->line_files[m->lines[0].file], "a.js");
	assert_string_equal(m->line_files[m->lines[1].file], "b.js");
	assert_true(m->lines[0].addr == 0x10000);
	for (size_t k = 0; k < m->nsymbols; k++)
		if (m->symbols[k].object == 1 &&
		    strcmp(m->symbols[k].name, "JS:*other_fn b.js:9") == 0)
			assert_true(m->lines[1].addr == m->symbols[k].start);
	/* every [jit] sample and frame, by the name the merged file gives it */
	for (size_t s = 0; s < m->nstacks; s++) {
		const struct profil_stack *st = &m->stacks[s];

		for (size_t d = 0; d < st->depth; d++) {
			const struct profil_frame *f = &m->frames[st->frames[d]];

			if (f->object != 1)
				continue;
			for (size_t k = 0; k < m->nsymbols; k++)
				if (m->symbols[k].object == 1 &&
				    f->addr >= m->symbols[k].start &&
				    f->addr < m->symbols[k].end) {
					names[d] = m->symbols[k].name;
					counts[d] += st->count;
				}
			if (st->pid == 10)
				assert_string_equal(names[d], "JS:*hotA a.js:1");
			else if (d == 0)
				assert_string_equal(names[d],
				    "JS:*other_fn b.js:9");
			else
				assert_string_equal(names[d], "JS:*caller b.js:2");
			names[d] = NULL;
		}
	}
	assert_int_equal(counts[0], 12);	/* each leaf named: 5 + 7 */
	assert_int_equal(counts[1], 7);		/* b's caller named */
	assert_int_equal(m->objects[1].samples, 12);
	/* a's hotA and b's leaf were marked found by frame pointer: so they are */
	assert_int_equal(m->nfp_frames, 2);
	for (size_t k = 0; k < m->nfp_frames; k++) {
		const struct profil_frame *f = &m->frames[m->fp_frames[k]];
		const char *name = NULL;

		assert_int_equal(f->object, 1);
		for (size_t y = 0; y < m->nsymbols; y++)
			if (m->symbols[y].object == 1 &&
			    f->addr >= m->symbols[y].start &&
			    f->addr < m->symbols[y].end)
				name = m->symbols[y].name;
		assert_non_null(name);
		assert_true(strcmp(name, k == 0 ? "JS:*hotA a.js:1" :
		    "JS:*other_fn b.js:9") == 0);
	}
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
}

/*
 * An input with samples and no stacks: the result has none (its samples
 * would have no stack to be in).  Nor when the stacks would be more than
 * a reader takes.
 */
static void
test_unit_stacks_dropped(void **state)
{
	static const struct profil_bucket none[] = { { 0, 0 } };
	static const struct profil_bucket one[] = { { 0x10, 1 } };
	const struct profil_frame s1[] = { { 0, 0x10 }, { 0, 0x50 } };
	const struct profil_frame s2[] = { { 0, 0x10 }, { 0, 0x60 } };
	struct profil_profile *a = new_profile(1), *b = new_profile(1), *m;
	struct profil_profile *c = new_profile(1);

	(void)state;
	add_object(a, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_object(b, "/bin/app", 1, 0, 0x100, 1, one, 1);
	add_object(c, "/bin/app", 1, 0, 0x100, 1, none, 0);
	add_stack(a, 10, 10, 3, 2, s1);
	add_stack(c, 10, 10, 3, 2, s2);
	m = merged(a, b);
	assert_int_equal(m->nstacks, 0);
	assert_int_equal(m->nframes, 0);
	assert_int_equal(m->samples, 4);
	profil_profile_free(m);
	m = merged(a, c);
	assert_int_equal(m->nstacks, 2);
	profil_profile_free(m);
	merge_max_stack_frames = 3;
	m = merged(a, c);
	merge_max_stack_frames = (size_t)1 << 24;
	assert_int_equal(m->nstacks, 0);
	profil_profile_free(m);
	profil_profile_free(a);
	profil_profile_free(b);
	profil_profile_free(c);
}

/* ---- the commands, end to end ------------------------------------------- */

/*
 * Runs are sized by the samples their checks need (e2e.h, record_for):
 * what each check needs is worked out beside it.
 */

/* The samples in the workload's own code. */
static double
in_workload(const struct shares *s)
{
	return samples_of(s, NULL, "workload");
}

/*
 * Samples on each side for a share that goes from p1 to p2 to show a
 * change of z standard errors (diff's z), on average: n of each side's.
 */
static double
samples_for_change(double p1, double p2, double z)
{
	double d = (p2 - p1) / z;

	return (p1 * (1 - p1) + p2 * (1 - p2)) / (d * d);
}

/*
 * `profil record ...` of one's own (argv, writing prf), whose argument
 * E2E_CPU stands for the program's CPU seconds, run until object has
 * need samples (e2e_longer: three runs at most); its flat profile in s.
 */
static void
record_argv_for(struct shares *s, char **argv, const char *prf,
    const char *object, double need)
{
	double cpu = atof(e2e_cpu_for(need, 1));
	char *v[32], arg[32];
	struct run r;
	int i, runs = 0;

	for (;;) {
		snprintf(arg, sizeof arg, "%.3f", cpu);
		for (i = 0; argv[i] != NULL && i < 31; i++)
			v[i] = strcmp(argv[i], E2E_CPU) == 0 ? arg : argv[i];
		v[i] = NULL;
		run(&r, v);
		if (r.status != 0)
			fail_msg("record exited %d: %s", r.status, r.err);
		report(s, prf);
		if (samples_of(s, NULL, object) >= need)
			return;
		cpu = e2e_longer(cpu, samples_of(s, NULL, object), need, &runs);
	}
}

/* One line on stderr, from the named subcommand. */
static void
assert_one_line(const struct run *r, const char *command)
{
	char prefix[64];
	size_t len = strlen(r->err);

	snprintf(prefix, sizeof prefix, "profil: %s: ", command);
	if (strncmp(r->err, prefix, strlen(prefix)) != 0 || len == 0 ||
	    strchr(r->err, '\n') != r->err + len - 1)
		fail_msg("not one '%s' line: [%s]", prefix, r->err);
}

/*
 * NAME in the scratch directory, in buf (PATH_MAX bytes): for paths that
 * must outlive the rotation of tmp()'s buffers.
 */
static char *
scratch(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", tmpdir, name);
	return buf;
}

static int
exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void
merge_ok(const char *out, const char *a, const char *b)
{
	struct run r;
	char *argv[] = { profil_bin, "merge", "-q", "-o", (char *)out, (char *)a,
	    (char *)b, NULL };

	run(&r, argv);
	if (r.status != 0)
		fail_msg("merge exited %d: %s", r.status, r.err);
	assert_string_equal(r.err, "");
}

/* Total samples of prf as `profil check` states them. */
static unsigned long long
checked_samples(const char *prf)
{
	struct run r;
	char *argv[] = { profil_bin, "check", (char *)prf, NULL };
	const char *ok;
	unsigned long long n;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("check %s: %s", prf, r.err);
	ok = strstr(r.out, ": ok: ");
	assert_non_null(ok);
	assert_int_equal(sscanf(ok, ": ok: %llu samples", &n), 1);
	return n;
}

/*
 * Every row (function, object) of the merged flat profile m has exactly
 * ka times a's samples plus kb times b's, and the totals agree, so no row
 * of a or b is missing from m either.
 */
static void
assert_sum(const struct shares *m, const struct shares *a, int ka,
    const struct shares *b, int kb)
{
	const char *line = strchr(m->csv, '\n') + 1;
	int rows = 0;

	for (; *line; rows++) {
		char fn[512], obj[512];
		double n, want;

		assert_int_equal(sscanf(line, "%511[^,],%511[^,],%lf", fn, obj, &n), 3);
		want = ka * samples_of(a, fn, obj) + kb * samples_of(b, fn, obj);
		if (n != want)
			fail_msg("%s in %s: %.0f samples merged, %.0f in the inputs",
			    fn, obj, n, want);
		line = strchr(line, '\n');
		if (line == NULL)
			break;
		line++;
	}
	assert_true(rows >= 3);
	if (m->total != ka * a->total + kb * b->total)
		fail_msg("%.0f samples merged, %.0f and %.0f in the inputs",
		    m->total, a->total, b->total);
}

/* Lines (after the header) of a report view's CSV. */
static int
csv_rows(const char *prf, const char *view)
{
	struct run r;
	char *argv[] = { profil_bin, "report", (char *)view, "--format", "csv",
	    (char *)prf, NULL };
	int n = -1;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report %s: %s", view, r.err);
	for (const char *s = r.out; *s; s++)
		n += *s == '\n';
	return n;
}

static void
test_merge_sums_functions(void **state)
{
	char *prog[] = { workload, "split", "0.44", NULL };
	struct shares a, b, m;

	(void)state;
	record_ok(tmp("a.prf"), prog);
	record_ok(tmp("b.prf"), prog);
	merge_ok(tmp("ab.prf"), tmp("a.prf"), tmp("b.prf"));
	assert_int_equal(checked_samples(tmp("ab.prf")),
	    checked_samples(tmp("a.prf")) + checked_samples(tmp("b.prf")));
	report(&a, tmp("a.prf"));
	report(&b, tmp("b.prf"));
	report(&m, tmp("ab.prf"));
	assert_sum(&m, &a, 1, &b, 1);
	/* the processes of both runs are kept */
	assert_int_equal(csv_rows(tmp("ab.prf"), "--pid"),
	    csv_rows(tmp("a.prf"), "--pid") + csv_rows(tmp("b.prf"), "--pid"));
	/* the output may be an input: a running total */
	merge_ok(tmp("a.prf"), tmp("a.prf"), tmp("b.prf"));
	report(&a, tmp("a.prf"));
	assert_sum(&a, &m, 1, &b, 0);
}

/*
 * A run merged with a copy of itself counts twice (the same file twice is
 * refused: test-cli.c; a copy says it is meant).
 */
static void
test_merge_with_itself_doubles(void **state)
{
	char *prog[] = { workload, "split", "0.22", NULL };
	char cmd[PATH_MAX * 3];
	struct shares a, m;

	(void)state;
	record_ok(tmp("self.prf"), prog);
	snprintf(cmd, sizeof cmd, "cp %s %s", tmp("self.prf"), tmp("copy.prf"));
	assert_int_equal(system(cmd), 0);
	merge_ok(tmp("self2.prf"), tmp("self.prf"), tmp("copy.prf"));
	report(&a, tmp("self.prf"));
	report(&m, tmp("self2.prf"));
	assert_sum(&m, &a, 2, &a, 0);
	assert_int_equal(csv_rows(tmp("self2.prf"), "--objects"),
	    csv_rows(tmp("self.prf"), "--objects"));
}

/*
 * Samples of each object in the objects view (CSV: object,path,samples,
 * ...; path is empty for [kernel] and the like), as "object=samples;".
 */
static void
object_samples(char *out, size_t size, const char *prf)
{
	struct run r;
	char *argv[] = { profil_bin, "report", "--objects", "--format", "csv",
	    (char *)prf, NULL };
	size_t n = 0;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report --objects: %s", r.err);
	out[0] = '\0';
	for (const char *line = strchr(r.out, '\n'); line && line[1]; ) {
		const char *comma = strchr(++line, ','), *path_end;

		assert_non_null(comma);
		path_end = strchr(comma + 1, ',');
		assert_non_null(path_end);
		n += (size_t)snprintf(out + n, size - n, "%.*s=%lld;",
		    (int)(comma - line), line, atoll(path_end + 1));
		assert_true(n < size);
		line = strchr(line, '\n');
	}
}

/* The samples of object in an object_samples() string (0 if absent). */
static long long
samples_in(const char *list, const char *object)
{
	char key[512];
	const char *at;

	snprintf(key, sizeof key, "%s=", object);
	for (at = list; (at = strstr(at, key)) != NULL; at++)
		if (at == list || at[-1] == ';')
			return atoll(at + strlen(key));
	return 0;
}

/* Folded stacks of a profile: each distinct line once, with its count. */
struct folded {
	char *line[4096];
	unsigned long long count[4096];
	int n;
};

static void
folded_of(struct folded *f, const char *prf)
{
	char *argv[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    (char *)prf, NULL };
	struct run r;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("export folded %s: %s", prf, r.err);
	f->n = 0;
	for (char *line = r.out, *end; *line; line = end + 1) {
		char *space;

		end = strchr(line, '\n');
		assert_non_null(end);
		*end = '\0';
		space = strrchr(line, ' ');
		assert_non_null(space);
		assert_true(f->n < 4096);
		*space = '\0';
		f->line[f->n] = xstrdup(line);
		f->count[f->n++] = strtoull(space + 1, NULL, 10);
	}
}

static unsigned long long
folded_count(const struct folded *f, const char *line)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->line[i], line) == 0)
			return f->count[i];
	return 0;
}

static void
folded_free(struct folded *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->line[i]);
	f->n = 0;
}

/* Stacks of prf as read by the library (the file must read). */
static size_t
stacks_in(const char *prf)
{
	char cause[256];
	struct profil_profile *p = profil_profile_read(prf, cause, sizeof cause);
	size_t n;

	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	n = p->nstacks;
	profil_profile_free(p);
	return n;
}

/*
 * Two recordings with call stacks merged: each path of functions
 * (folded line) has the samples it had in the two inputs together, and
 * `profil check` takes the result.  Merged with a profile recorded
 * without stacks, the result has none, and merge says so in one line.
 */
static void
test_merge_sums_stacks(void **state)
{
	char *prog[] = { workload, "split", "0.22", NULL };
	char a[PATH_MAX], b[PATH_MAX], ab[PATH_MAX], flat[PATH_MAX], af[PATH_MAX];
	char *no_stacks[] = { profil_bin, "record", "-q", "-F", rate(),
	    "--no-call-graph", "-o", flat, workload, "split", "0.22", NULL };
	char *merge[] = { profil_bin, "merge", "-q", "-o", af, a, flat, NULL };
	struct folded fa, fb, fm;
	unsigned long long total = 0;
	struct run r;

	(void)state;
	if (!harness_perf_allowed())
		SKIP("perf events refused here, and the timer engine takes no stacks");
	scratch(a, "st-a.prf");
	scratch(b, "st-b.prf");
	scratch(ab, "st-ab.prf");
	scratch(flat, "st-flat.prf");
	scratch(af, "st-af.prf");
	record_ok(a, prog);
	record_ok(b, prog);
	assert_true(stacks_in(a) > 0 && stacks_in(b) > 0);
	merge_ok(ab, a, b);
	assert_int_equal(checked_samples(ab),
	    checked_samples(a) + checked_samples(b));
	folded_of(&fa, a);
	folded_of(&fb, b);
	folded_of(&fm, ab);
	for (int i = 0; i < fm.n; i++) {
		unsigned long long want = folded_count(&fa, fm.line[i]) +
		    folded_count(&fb, fm.line[i]);

		if (fm.count[i] != want)
			fail_msg("%s: %llu merged, %llu in the inputs", fm.line[i],
			    fm.count[i], want);
		total += fm.count[i];
	}
	/* and no path of an input is missing from the sum */
	for (int i = 0; i < fa.n; i++)
		assert_true(folded_count(&fm, fa.line[i]) >= fa.count[i]);
	for (int i = 0; i < fb.n; i++)
		assert_true(folded_count(&fm, fb.line[i]) >= fb.count[i]);
	assert_int_equal(total, checked_samples(ab));
	assert_true(folded_count(&fm, "_start;__libc_start_main;"
	    "__libc_start_call_main;main;split;six") > 0);
	folded_free(&fa);
	folded_free(&fb);
	folded_free(&fm);

	run(&r, no_stacks);
	if (r.status != 0)
		fail_msg("record --no-call-graph: %s", r.err);
	run(&r, merge);
	if (r.status != 0)
		fail_msg("merge: %s", r.err);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "st-flat.prf has no call stacks"));
	assert_int_equal(stacks_in(af), 0);
	assert_int_equal(checked_samples(af),
	    checked_samples(a) + checked_samples(flat));
}

/*
 * Bucket sizes that are powers of two are summed at the coarsest.  The
 * sum is checked over more than 1000 samples of the workload's, each
 * run sized for half of them (the rate of record_run, which copes under
 * sanitizers).
 */
static void
test_merge_bucket_sizes(void **state)
{
	struct run r;
	struct shares s;
	char f4[PATH_MAX], f16[PATH_MAX], f3[PATH_MAX], f34[PATH_MAX];
	char *b4[] = { profil_bin, "record", "-q", "-F", rate(), "-b", "4",
	    "-o", f4, workload, "split", E2E_CPU, NULL };
	char *b16[] = { profil_bin, "record", "-q", "-F", rate(), "-b", "16",
	    "-o", f16, workload, "split", E2E_CPU, NULL };
	char *b3[] = { profil_bin, "record", "-q", "-F", rate(), "-b", "3",
	    "-o", f3, workload, "split", "0.022", NULL };
	char *odd[] = { profil_bin, "merge", "-o", f34, f3, f4, NULL };
	char a[4096], b[4096], m[4096], name[512];
	int objects = 0;

	(void)state;
	scratch(f4, "b4.prf");
	scratch(f16, "b16.prf");
	scratch(f3, "b3.prf");
	scratch(f34, "b34.prf");
	record_argv_for(&s, b4, f4, "workload", 501);
	record_argv_for(&s, b16, f16, "workload", 501);
	run(&r, b3);
	assert_int_equal(r.status, 0);
	merge_ok(tmp("b416.prf"), f4, f16);
	assert_int_equal(checked_samples(tmp("b416.prf")),
	    checked_samples(f4) + checked_samples(f16));
	/* functions may share a 16-byte bucket: compare objects, exactly */
	object_samples(a, sizeof a, f4);
	object_samples(b, sizeof b, f16);
	object_samples(m, sizeof m, tmp("b416.prf"));
	for (const char *at = m; sscanf(at, "%511[^=]=", name) == 1; objects++) {
		if (samples_in(m, name) != samples_in(a, name) + samples_in(b, name))
			fail_msg("%s: %lld merged, %lld + %lld in the inputs", name,
			    samples_in(m, name), samples_in(a, name),
			    samples_in(b, name));
		at = strchr(at, ';') + 1;
	}
	assert_true(objects >= 2);
	if (samples_in(m, "workload") <= 1000)
		fail_msg("%lld samples of the workload merged, 1000 wanted",
		    samples_in(m, "workload"));

	run(&r, odd);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "3-byte buckets"));
	assert_false(exists(f34));
}

static void
test_merge_refuses_another_program(void **state)
{
	struct run r;
	char cmd[PATH_MAX * 3];
	char *prog[] = { workload, "split", "0.022", NULL };
	char split[PATH_MAX];
	char *other[] = { split, "2", NULL };
	char exe[PATH_MAX], out[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];
	char c1[PATH_MAX], c2[PATH_MAX];
	char *copy[] = { exe, "split", "0.022", NULL };
	char *rebuilt[] = { exe, "2", NULL };
	char *merge[] = { profil_bin, "merge", "-o", out, p1, p2, NULL };
	char *merge2[] = { profil_bin, "merge", "-o", out, c1, c2, NULL };

	(void)state;
	/* examples/split: a plain program, as workload is (either engine) */
	snprintf(split, sizeof split, "%s/../examples/split", bindir);
	scratch(exe, "prog");
	scratch(out, "mixed.prf");
	scratch(p1, "p1.prf");
	scratch(p2, "p2.prf");
	scratch(c1, "c1.prf");
	scratch(c2, "c2.prf");
	record_ok(p1, prog);
	record_ok(p2, other);
	run(&r, merge);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "different programs"));
	assert_non_null(strstr(r.err, "/examples/split (build-id "));
	assert_false(exists(out));

	/* the same path, rebuilt: another build-id */
	snprintf(cmd, sizeof cmd, "cp %s %s", workload, exe);
	assert_int_equal(system(cmd), 0);
	record_ok(c1, copy);
	snprintf(cmd, sizeof cmd, "cp %s %s", split, exe);
	assert_int_equal(system(cmd), 0);
	record_ok(c2, rebuilt);
	run(&r, merge2);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "build-id"));
	assert_false(exists(out));
}

static void
test_merge_refuses_other_rates(void **state)
{
	struct run r;
	char f1[PATH_MAX], f2[PATH_MAX], out[PATH_MAX];
	char *slow[] = { profil_bin, "record", "-q", "-F", "1000", "-o", f1,
	    workload, "split", "0.022", NULL };
	char *fast[] = { profil_bin, "record", "-q", "-F", "2000", "-o", f2,
	    workload, "split", "0.022", NULL };
	char *merge[] = { profil_bin, "merge", "-o", out, f1, f2, NULL };
	FILE *f;
	char kept[16] = "";

	(void)state;
	scratch(f1, "f1000.prf");
	scratch(f2, "f2000.prf");
	scratch(out, "rates.prf");
	run(&r, slow);
	assert_int_equal(r.status, 0);
	run(&r, fast);
	assert_int_equal(r.status, 0);
	/* a file already at the output stays as it was */
	f = fopen(out, "w");
	assert_non_null(f);
	fputs("previous", f);
	fclose(f);
	run(&r, merge);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "1000 Hz"));
	assert_non_null(strstr(r.err, "2000 Hz"));
	f = fopen(out, "r");
	assert_non_null(f);
	assert_non_null(fgets(kept, sizeof kept, f));
	fclose(f);
	assert_string_equal(kept, "previous");
}

static void
test_merge_bad_usage(void **state)
{
	struct run r;
	char *prog[] = { workload, "split", "0.011", NULL };
	char in[PATH_MAX], out[PATH_MAX], absent[PATH_MAX], bad[PATH_MAX];
	char *one[] = { profil_bin, "merge", in, NULL };
	char *none[] = { profil_bin, "merge", "-o", out, NULL };
	char *option[] = { profil_bin, "merge", "--bogus", in, in, NULL };
	char *missing[] = { profil_bin, "merge", "-o", out, in, absent, NULL };
	char *corrupt[] = { profil_bin, "merge", "-o", out, in, bad, NULL };
	char cmd[PATH_MAX * 3];

	(void)state;
	scratch(in, "u.prf");
	scratch(out, "u2.prf");
	scratch(absent, "nothing-here.prf");
	scratch(bad, "corrupt.prf");
	record_ok(in, prog);
	snprintf(cmd, sizeof cmd, "head -c 200 %s > %s", in, bad);
	assert_int_equal(system(cmd), 0);
	run(&r, one);
	assert_int_equal(r.status, 2);
	assert_one_line(&r, "merge");
	run(&r, none);
	assert_int_equal(r.status, 2);
	run(&r, option);
	assert_int_equal(r.status, 2);
	assert_one_line(&r, "merge");
	run(&r, missing);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "nothing-here.prf"));
	run(&r, corrupt);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "corrupt.prf"));
	assert_false(exists(out));
}

/* ---- diff ------------------------------------------------------------- */

/* One share compared, as diff prints it (self, or inclusive). */
struct share {
	double before, after, before_pct, after_pct, change, error95, z, q;
	int significant;
};

struct diff_row {
	char function[256], object[256];
	double before, after, before_pct, after_pct, change, error95, z, q;
	int significant;
	int has_incl;		/* inclusive columns filled */
	struct share incl;
};

struct diff {
	struct diff_row rows[256];
	int n;
	/* samples of the stacks unwound on each side: the inclusive totals */
	double unwound[2];
};

/*
 * A profile's samples less those of its stacks the recorder did not
 * unwind (behind, or none taken): diff leaves them out of inclusive
 * shares, since how many there are depends on the machine's load.
 */
static double
unwound_samples(const char *prf)
{
	char *argv[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    (char *)prf, NULL };
	static struct run r;
	double all = 0, left = 0;

	run(&r, argv);
	if (r.status != 0)
		return -1;	/* no stacks: no inclusive figures to check */
	for (const char *at = r.out; *at;) {
		const char *nl = strchr(at, '\n'), *sp;

		if (nl == NULL)
			nl = at + strlen(at);
		for (sp = nl; sp > at && sp[-1] != ' '; sp--)
			;
		all += atof(sp);
		if (strncmp(at, "[stack cut: recorder behind]", 28) == 0 ||
		    strncmp(at, "[stack cut: no stack taken]", 27) == 0)
			left += atof(sp);
		at = *nl ? nl + 1 : nl;
	}
	return all - left;
}

/* The self or inclusive figures of x. */
static struct share
share_of(const struct diff_row *x, int incl)
{
	if (incl)
		return x->incl;
	return (struct share){ x->before, x->after, x->before_pct, x->after_pct,
	    x->change, x->error95, x->z, x->q, x->significant };
}

/* `profil diff --format csv` of two files, parsed. */
static void
diff_csv(struct diff *d, const char *before, const char *after)
{
	static const char header[] = "function,object,before_samples,"
	    "after_samples,before_percent,after_percent,change,error95,z,"
	    "significant,q,incl_before_samples,incl_after_samples,"
	    "incl_before_percent,incl_after_percent,incl_change,incl_error95,"
	    "incl_z,incl_significant,incl_q\n";
	char *argv[] = { profil_bin, "diff", "--format", "csv", (char *)before,
	    (char *)after, NULL };
	struct run r;
	const char *line;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("diff exited %d: %s", r.status, r.err);
	if (strncmp(r.out, header, strlen(header)) != 0)
		fail_msg("diff's CSV header: %.400s", r.out);
	d->unwound[0] = unwound_samples(before);
	d->unwound[1] = unwound_samples(after);
	d->n = 0;
	for (line = r.out + strlen(header); *line && d->n < 256; d->n++) {
		struct diff_row *x = &d->rows[d->n];
		struct share *in = &x->incl;
		char f[20][256];
		int k;

		/*
		 * z is empty where a change has no error, significant and q
		 * where it is not tested (time off the CPU in it)
		 */
		for (k = 0; k < 20 && csv_field(&line, f[k], sizeof f[k]); k++)
			;
		if (k < 11 || f[2][0] == '\0')
			fail_msg("bad diff line %d", d->n);
		for (int c = k; c < 20; c++)	/* empty to the line's end */
			f[c][0] = '\0';
		snprintf(x->function, sizeof x->function, "%s", f[0]);
		snprintf(x->object, sizeof x->object, "%s", f[1]);
		x->before = atof(f[2]);
		x->after = atof(f[3]);
		x->before_pct = atof(f[4]);
		x->after_pct = atof(f[5]);
		x->change = atof(f[6]);
		x->error95 = atof(f[7]);
		x->z = f[8][0] ? atof(f[8]) : NAN;
		x->significant = f[9][0] ? atoi(f[9]) : -1;
		x->q = f[10][0] ? atof(f[10]) : NAN;
		x->has_incl = f[11][0] != '\0';
		if (!x->has_incl) {
			for (int c = 11; c < k; c++)
				if (f[c][0] != '\0')
					fail_msg("bad inclusive columns in line %d",
					    d->n);
		} else {
			*in = (struct share){ atof(f[11]), atof(f[12]),
			    atof(f[13]), atof(f[14]), atof(f[15]), atof(f[16]),
			    f[17][0] ? atof(f[17]) : NAN, f[19][0] ? atof(f[19]) :
			    NAN, f[18][0] ? atoi(f[18]) : -1 };
		}
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 :
		    line + strlen(line);
	}
}

static const struct diff_row *
diff_find(const struct diff *d, const char *function)
{
	for (int i = 0; i < d->n; i++)
		if (strcmp(d->rows[i].function, function) == 0)
			return &d->rows[i];
	fail_msg("%s is not in the diff", function);
	return NULL;
}

/*
 * Fisher's exact two-sided p-value of k1 of n1 against k2 of n2, the
 * plain way (every term of the hypergeometric, from lgamma): a second
 * opinion on report/diff.c's walk from the mode.
 */
static double
fisher_plain(double k1, double n1, double k2, double n2)
{
	double k = k1 + k2, lo = k > n1 ? k - n1 : 0, hi = k < n2 ? k : n2;
	double all = lgamma(n1 + n2 + 1) - lgamma(k + 1) - lgamma(n1 + n2 - k + 1);
	double observed = 0, p = 0;

	for (int pass = 0; pass < 2; pass++)
		for (double j = lo; j <= hi; j++) {
			double lp = lgamma(n2 + 1) - lgamma(j + 1) - lgamma(n2 - j + 1) +
			    lgamma(n1 + 1) - lgamma(k - j + 1) -
			    lgamma(n1 - k + j + 1) - all;

			if (pass == 0 && j == k2)
				observed = lp;
			if (pass == 1 && lp <= observed + 1e-7)
				p += exp(lp);
		}
	return p < 1 ? p : 1;
}

static int
by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Each row's figures of one kind (self, or inclusive when incl),
 * recomputed from its sample counts and the totals n1, n2 (the
 * difference of two binomial proportions, its error that of the two
 * shares' Wilson errors together, as every view gives a share's error;
 * Fisher's exact test and
 * Benjamini-Hochberg's q-values over the family: the rows with samples
 * of that kind on either side, profil.1).  Significant exactly when
 * q <= 0.05; a row outside the family has q 1.  Returns the family's size.
 */
static int
assert_family_arithmetic(const struct diff *d, double n1, double n2, int incl)
{
	double p[256], sorted[256], q;
	int m = 0;

	for (int i = 0; i < d->n; i++) {
		struct share x = share_of(&d->rows[i], incl);

		if (x.before + x.after > 0)
			sorted[m++] = p[i] = fisher_plain(x.before, n1, x.after, n2);
	}
	qsort(sorted, (size_t)m, sizeof *sorted, by_double);
	for (int i = 0; i < d->n; i++) {
		struct share x = share_of(&d->rows[i], incl);

		if (x.before + x.after == 0) {
			assert_float_equal(x.q, 1, 0);
			assert_int_equal(x.significant, 0);
			continue;
		}
		/* q of p: the smallest p_(j) m / j over the ranks j at or after p's */
		q = 1;
		for (int j = m; j >= 1; j--) {
			if (sorted[j - 1] * m / j < q)
				q = sorted[j - 1] * m / j;
			if (sorted[j - 1] <= p[i] * (1 + 1e-9))
				break;
		}
		if (fabs(x.q - q) > 1e-5 + 1e-4 * q)
			fail_msg("%s: %sq %.6g, recomputed %.6g", d->rows[i].function,
			    incl ? "inclusive " : "", x.q, q);
		if (fabs(q - 0.05) > 1e-6)
			assert_int_equal(x.significant, q <= 0.05);
	}
	for (int i = 0; i < d->n; i++) {
		struct share x = share_of(&d->rows[i], incl);
		double p1 = x.before / n1, p2 = x.after / n2;
		/* each share's error as the views give it: Wilson's */
		double e1 = e2e_wilson95(x.before, n1, 1);
		double e2 = e2e_wilson95(x.after, n2, 1);
		double se = sqrt(e1 * e1 + e2 * e2) / 1.959964 / 100;

		assert_float_equal(x.before_pct, 100 * p1, 1e-4);
		assert_float_equal(x.after_pct, 100 * p2, 1e-4);
		assert_float_equal(x.change, 100 * (p2 - p1), 1e-4);
		assert_float_equal(x.error95, sqrt(e1 * e1 + e2 * e2), 1e-4);
		if (se > 0)
			assert_float_equal(x.z, (p2 - p1) / se, 1e-3 + 1e-4 * fabs(x.z));
	}
	return m;
}

/*
 * Self figures (and inclusive ones where the rows have them) checked as
 * above; rows sorted by self q, smallest first, those with no self
 * samples (callers, with stacks) after the family.
 */
static void
assert_diff_arithmetic(const struct diff *d, double n1, double n2)
{
	int m = assert_family_arithmetic(d, n1, n2, 0);

	for (int i = 1; i < d->n; i++)
		if (d->rows[i].q < d->rows[i - 1].q - 1e-9)
			fail_msg("row %d (q %.6g) after one with q %.6g", i,
			    d->rows[i].q, d->rows[i - 1].q);
	for (int i = m; i < d->n; i++)
		assert_true(d->rows[i].before + d->rows[i].after == 0);
	if (d->n > 0 && d->rows[0].has_incl) {
		for (int i = 0; i < d->n; i++)
			assert_true(d->rows[i].has_incl);
		/* of the stacks unwound (a profile made here has all) */
		assert_family_arithmetic(d, d->unwound[0] > 0 ? d->unwound[0] : n1,
		    d->unwound[1] > 0 ? d->unwound[1] : n2, 1);
	}
}

static void
test_diff_same_split_twice(void **state)
{
	char *prog[] = { workload, "split", "0.44", NULL };
	struct shares a, b;
	struct diff d;

	(void)state;
	record_ok(tmp("d1.prf"), prog);
	record_ok(tmp("d2.prf"), prog);
	report(&a, tmp("d1.prf"));
	report(&b, tmp("d2.prf"));
	diff_csv(&d, tmp("d1.prf"), tmp("d2.prf"));
	assert_diff_arithmetic(&d, a.total, b.total);
	assert_float_equal(diff_find(&d, "six")->before,
	    samples_of(&a, "six", "workload"), 0);
	assert_float_equal(diff_find(&d, "three")->after,
	    samples_of(&b, "three", "workload"), 0);
	/*
	 * Nothing changed: each z is about normal with mean 0 (less spread,
	 * in fact: periodic sampling of a steady loop varies less than
	 * independent draws).  5 is far out in its tail.  The kernel's
	 * functions are left out, as in test_diff_real_runs_show_nothing:
	 * their time truly moves with the machine's load (pvm_irq_enable by
	 * 3.6 points, z -7.7, under other sessions' builds).  A z is in
	 * standard errors: its bound holds at any count, and the runs are
	 * not sized.
	 */
	for (int i = 0; i < d.n; i++)
		if (fabs(d.rows[i].z) >= 5 &&
		    strcmp(d.rows[i].object, "[kernel]") != 0)
			fail_msg("%s changed by %.2f points (z %.2f) between two "
			    "identical runs", d.rows[i].function, d.rows[i].change,
			    d.rows[i].z);
}

/* xorshift64*: the same draws on every run, whatever the C library. */
static uint64_t
next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1Dull;
}

/*
 * A profile of n samples drawn one by one (a multinomial) from the shares
 * of base's program object (its first) and kernel: what another run of
 * the same program could have recorded, if samples were independent.
 */
static struct profil_profile *
drawn_like(const struct profil_profile *base, uint64_t n, uint64_t *seed)
{
	const struct profil_object *from = &base->objects[0];
	struct profil_profile *p = new_profile(from->bucket_bytes);
	uint64_t total = from->samples + base->kernel;
	uint64_t *counts = xcalloc(from->nbuckets + 1, sizeof *counts);
	struct profil_bucket *buckets = xcalloc(from->nbuckets, sizeof *buckets);
	size_t nbuckets = 0;

	for (uint64_t s = 0; s < n; s++) {
		uint64_t at = next_random(seed) % total;
		size_t lo = 0, hi = from->nbuckets;

		if (at >= from->samples) {
			counts[from->nbuckets]++;	/* the kernel */
			continue;
		}
		/* the bucket whose cumulative range holds at: linear is enough */
		for (lo = 0; lo < hi && at >= from->buckets[lo].count; lo++)
			at -= from->buckets[lo].count;
		counts[lo]++;
	}
	for (size_t i = 0; i < from->nbuckets; i++)
		if (counts[i] > 0)
			buckets[nbuckets++] = (struct profil_bucket){
			    from->buckets[i].addr, counts[i] };
	add_object(p, from->path, 0, from->lowpc, from->highpc,
	    from->bucket_bytes, buckets, nbuckets);
	memcpy(p->objects[0].build_id, from->build_id, sizeof from->build_id);
	p->objects[0].build_id_len = from->build_id_len;
	p->kernel = counts[from->nbuckets];
	p->samples += p->kernel;
	p->cpu_ns = p->samples * p->interval_ns;
	free(buckets);
	free(counts);
	return p;
}

/* Rows marked significant in d (of object only, when not NULL). */
static int
discoveries(const struct diff *d, const char *object)
{
	int n = 0;

	for (int i = 0; i < d->n; i++)
		n += d->rows[i].significant && (object == NULL ||
		    strcmp(d->rows[i].object, object) == 0);
	return n;
}

/*
 * Nothing changed, 200 times: pairs of profiles drawn from the shares of
 * one recording of 32 functions, written by the library and compared by
 * the command.  Marking each change whose 95% bar excludes 0 flags about
 * 1.5 a pair, in most pairs; Benjamini-Hochberg at 5% (here, where every
 * function is unchanged) lets at most 5% of the pairs show any discovery.
 * The margin: 20 of 200 is 3.2 standard deviations of Binomial(200, 5%)
 * above its mean of 10 (drawn here, the rate is 2-4%).  The recording
 * has f7 to f31 at least, 25 rows: f7 holds 8/528 of the workload's
 * samples, and 1320 of them give it 20 on average (none once in 5e8).
 */
static void
test_diff_holds_the_false_discovery_rate(void **state)
{
	static struct run r;
	char *prog[] = { workload, "many", E2E_CPU, NULL };
	char base_path[PATH_MAX], a[PATH_MAX], b[PATH_MAX], cause[256];
	struct profil_profile *base;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int pairs = 200, with_any = 0, total = 0;
	struct shares s;
	struct diff d;

	(void)state;
	scratch(base_path, "fdr-base.prf");
	scratch(a, "fdr-a.prf");
	scratch(b, "fdr-b.prf");
	record_for(&s, &r, "auto", base_path, prog, 1, 20 * 528 / 8,
	    in_workload);
	base = profil_profile_read(base_path, cause, sizeof cause);
	if (base == NULL)
		fail_msg("%s: %s", base_path, cause);
	assert_non_null(strstr(base->objects[0].path, "workload"));
	for (int i = 0; i < pairs; i++) {
		struct profil_profile *x = drawn_like(base, 3000, &seed);
		struct profil_profile *y = drawn_like(base, 3000, &seed);

		if (profil_profile_save(x, a, cause, sizeof cause) < 0 ||
		    profil_profile_save(y, b, cause, sizeof cause) < 0)
			fail_msg("save: %s", cause);
		diff_csv(&d, a, b);
		if (d.n < 25)	/* f0..f31 and the kernel, most of them */
			fail_msg("%d rows, of %.0f samples of the workload's",
			    d.n, in_workload(&s));
		assert_diff_arithmetic(&d, (double)x->samples, (double)y->samples);
		with_any += discoveries(&d, NULL) > 0;
		total += discoveries(&d, NULL);
		profil_profile_free(x);
		profil_profile_free(y);
	}
	profil_profile_free(base);
	print_message("%d of %d pairs with a discovery (%d in all)\n", with_any,
	    pairs, total);
	if (with_any > pairs / 10)
		fail_msg("%d of %d pairs of one program's profiles show a "
		    "significant change (%d in all)", with_any, pairs, total);
}

/*
 * The same on real recordings: five pairs of runs of one program (32
 * functions, and the kernel, the loader and libc).  At most two pairs may
 * show a discovery in the program's own functions (three of five, at the
 * 5% a pair the procedure allows: 0.12%; three pairs, one of them allowed,
 * failed 0.7% of the time, as often as CI runs the suite three times);
 * the old marking flagged one or two in most pairs.
 * The kernel's share is left out: it truly moves between runs with the
 * machine's load (4 to 7 points apart under a parallel build, q < 0.001),
 * which the procedure rightly reports.  What is false is a discovery
 * where nothing changed, at any count: the runs are not sized.
 */
static void
test_diff_real_runs_show_nothing(void **state)
{
	char *prog[] = { workload, "many", "0.224", NULL };
	char a[PATH_MAX], b[PATH_MAX];
	struct shares sa, sb;
	struct diff d;
	int with_any = 0;

	(void)state;
	scratch(a, "real-a.prf");
	scratch(b, "real-b.prf");
	for (int i = 0; i < 5; i++) {
		record_ok(a, prog);
		record_ok(b, prog);
		report(&sa, a);
		report(&sb, b);
		diff_csv(&d, a, b);
		assert_diff_arithmetic(&d, sa.total, sb.total);
		for (int k = 0; k < d.n; k++)
			if (d.rows[k].significant)
				print_message("pair %d: %s %+.2f points, q %.4f\n", i,
				    d.rows[k].function, d.rows[k].change, d.rows[k].q);
		with_any += discoveries(&d, "workload") > 0;
	}
	if (with_any > 2)
		fail_msg("%d of 5 pairs of runs of one program show a significant "
		    "change", with_any);
}

/*
 * The samples of each side for six: 60% -> 30% of the three (three:
 * 30% -> 60%), the three holding 90% of all, to come out beyond 5
 * standard errors (diff's z) with 4 more to spare: z 9 on average.  Its
 * 27 points are then beyond 15 by 4 standard errors too.
 */
static double
split_change_need(void)
{
	return samples_for_change(0.9 * 0.6, 0.9 * 0.3, 5 + 4);
}

static void
test_diff_finds_the_changed_split(void **state)
{
	static struct run out;
	char *before[] = { workload, "split", E2E_CPU, NULL };
	char *after[] = { workload, "split2", E2E_CPU, NULL };
	char s1[PATH_MAX], s2[PATH_MAX];
	char *text[] = { profil_bin, "diff", s1, s2, NULL };
	const struct diff_row *six, *three;
	double need = split_change_need();
	struct shares a, b;
	struct diff d;
	struct run r;

	(void)state;
	scratch(s1, "s1.prf");
	scratch(s2, "s2.prf");
	record_for(&a, &out, "auto", s1, before, 1, need, NULL);
	record_for(&b, &out, "auto", s2, after, 1, need, NULL);
	diff_csv(&d, s1, s2);
	assert_diff_arithmetic(&d, a.total, b.total);
	/* six: 60% -> 30% of the three; three: 30% -> 60%; one stays 10% */
	six = diff_find(&d, "six");
	three = diff_find(&d, "three");
	if (!(six->change < -15 && six->z < -5 && six->significant))
		fail_msg("six: %.2f points, z %.2f, of %.0f and %.0f "
		    "samples (%.0f needed)", six->change, six->z, a.total,
		    b.total, need);
	if (!(three->change > 15 && three->z > 5 && three->significant))
		fail_msg("three: %.2f points, z %.2f, of %.0f and %.0f "
		    "samples (%.0f needed)", three->change, three->z, a.total,
		    b.total, need);
	assert_true(d.n >= 2);
	assert_true((d.rows[0].z < 0 && d.rows[1].z > 0) ||
	    (d.rows[0].z > 0 && d.rows[1].z < 0));
	assert_true(strcmp(d.rows[0].function, "six") == 0 ||
	    strcmp(d.rows[0].function, "three") == 0);

	/* text: the two marked, every line in 80 columns */
	run(&r, text);
	assert_int_equal(r.status, 0);
	for (const char *line = r.out; *line; ) {
		const char *end = strchr(line, '\n');
		int width = 0;

		assert_non_null(end);
		for (const char *c = line; c < end; c++)
			width += ((unsigned char)*c & 0xc0) != 0x80;
		/* the caption's lines name the files: as long as their paths */
		if (width > 80 && strncmp(line, "before: ", 8) != 0 &&
		    strncmp(line, "after: ", 7) != 0)
			fail_msg("%d columns: %.*s", width, (int)(end - line), line);
		if (strstr(line, " six ") != NULL || strstr(line, " three ") != NULL)
			assert_non_null(strstr(line, " * "));
		line = end + 1;
	}
}

/*
 * 6:3:1, then 3:6:1, with call stacks: main holds (nearly) every sample
 * before and after, so its inclusive share does not change; six's and
 * three's inclusive shares move as their own do, significantly, in
 * opposite directions.  The inclusive figures are recomputed like the
 * self ones (assert_diff_arithmetic), and each is at least the self one.
 * Without stacks on one side, the inclusive columns are empty.
 */
static void
test_diff_inclusive_shares(void **state)
{
	static struct run out;
	/*
	 * main's change, of two like shares, within 4 standard errors and
	 * half a point, to be at most 3 points: at its 99% or more (99.9%
	 * here), 507 samples a side
	 */
	double need = fmax(split_change_need(),
	    2 * e2e_samples_for_share(0.99, 4, 0.03 - 0.005));
	char *before[] = { workload, "split", E2E_CPU, NULL };
	char *after[] = { workload, "split2", E2E_CPU, NULL };
	char s1[PATH_MAX], s2[PATH_MAX], flat[PATH_MAX];
	char *no_stacks[] = { profil_bin, "record", "-q", "-F", rate(),
	    "--no-call-graph", "-o", flat, workload, "split2",
	    (char *)e2e_cpu_for(need, 1), NULL };
	char *text[] = { profil_bin, "diff", s1, s2, NULL };
	char *json[] = { profil_bin, "diff", "--format", "json", s1, flat, NULL };
	const struct diff_row *six, *three, *main_row;
	double main_margin;
	struct shares a, b;
	struct diff d;
	struct run r;

	(void)state;
	if (!harness_perf_allowed())
		SKIP("perf events refused here, and the timer engine takes no stacks");
	scratch(s1, "i1.prf");
	scratch(s2, "i2.prf");
	scratch(flat, "i3.prf");
	record_for(&a, &out, "auto", s1, before, 1, need, NULL);
	record_for(&b, &out, "auto", s2, after, 1, need, NULL);
	diff_csv(&d, s1, s2);
	assert_true(d.rows[0].has_incl);
	assert_diff_arithmetic(&d, a.total, b.total);
	/* inclusive is of the stacks unwound: above self when all were */
	for (int i = 0; i < d.n && d.unwound[0] == a.total &&
	    d.unwound[1] == b.total; i++)
		if (d.rows[i].incl.before < d.rows[i].before ||
		    d.rows[i].incl.after < d.rows[i].after)
			fail_msg("%s: inclusive %.0f -> %.0f below self %.0f -> %.0f",
			    d.rows[i].function, d.rows[i].incl.before,
			    d.rows[i].incl.after, d.rows[i].before, d.rows[i].after);
	main_row = diff_find(&d, "main");
	six = diff_find(&d, "six");
	three = diff_find(&d, "three");
	/*
	 * main: next to no samples of its own (one in a run of `make check`
	 * landed in its few instructions around the calls), and all but
	 * start-up's in its stacks
	 */
	if (main_row->before + main_row->after > 2 + 0.002 * (a.total + b.total))
		fail_msg("main: %.0f and %.0f samples of its own",
		    main_row->before, main_row->after);
	/*
	 * its inclusive share unchanged: within 4 standard errors of the
	 * change (error95 is 1.96 of them, checked above) and half a point
	 * (start-up's samples differ by a few), which the runs were sized to
	 * bring under the 3 points this test has always allowed
	 */
	main_margin = 4 * main_row->incl.error95 / 1.96 + 0.5;
	if (main_margin > 3)
		fail_msg("too few samples (%.0f and %.0f unwound, %.0f "
		    "wanted) for main's %.2f%% -> %.2f%% to be judged within "
		    "3 points",
		    d.unwound[0], d.unwound[1], need, main_row->incl.before_pct,
		    main_row->incl.after_pct);
	if (!(main_row->incl.before_pct > 90 && main_row->incl.after_pct > 90 &&
	    fabs(main_row->incl.change) <= main_margin &&
	    !main_row->incl.significant))
		fail_msg("main: inclusive %.2f%% -> %.2f%% (+- %.2f, q %.4f)",
		    main_row->incl.before_pct, main_row->incl.after_pct,
		    main_margin, main_row->incl.q);
	if (!(six->incl.change < -15 && six->incl.z < -5 &&
	    six->incl.significant))
		fail_msg("six: inclusive %.2f points, z %.2f, of %.0f and %.0f "
		    "samples (%.0f needed)", six->incl.change, six->incl.z,
		    d.unwound[0], d.unwound[1], need);
	if (!(three->incl.change > 15 && three->incl.z > 5 &&
	    three->incl.significant))
		fail_msg("three: inclusive %.2f points, z %.2f, of %.0f and "
		    "%.0f samples (%.0f needed)", three->incl.change,
		    three->incl.z, d.unwound[0], d.unwound[1], need);

	/* text: a second table, of the inclusive shares, within 80 columns */
	run(&r, text);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\ninclusive: "));
	for (const char *line = strstr(r.out, "\ninclusive: "); *line; ) {
		const char *end = strchr(line + 1, '\n');

		if (end == NULL)
			break;
		assert_true(end - line - 1 <= 80 + 2);	/* ± is 2 bytes */
		line = end;
	}

	run(&r, no_stacks);
	if (r.status != 0)
		fail_msg("record --no-call-graph: %s", r.err);
	diff_csv(&d, s1, flat);
	for (int i = 0; i < d.n; i++)
		assert_false(d.rows[i].has_incl);
	assert_diff_arithmetic(&d, a.total, (double)checked_samples(flat));
	run(&r, json);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, ", \"q\": "));
	assert_non_null(strstr(r.out, ", \"incl_before_samples\": null, "));
	assert_non_null(strstr(r.out, ", \"incl_q\": null}"));
	assert_null(strstr(r.out, "nan"));
}

/*
 * A function in one profile only counts 0 in the other, and f31, in many
 * alone, is a significant change: Fisher's p of 0 against k samples, of
 * sides as large, is about 2^(1 - k), so q, at most p times the family's
 * size (64 rows at most), is under 5% from k = 12.  f31 has 32/528 of
 * many's samples: 576 give it 12 with 4 standard errors to spare, and
 * split's side as many.
 */
static void
test_diff_functions_on_one_side(void **state)
{
	static struct run r;
	double need = e2e_samples_for_count(12, 32.0 / 528, 4);
	char *split[] = { workload, "split", E2E_CPU, NULL };
	char *many[] = { workload, "many", E2E_CPU, NULL };
	struct shares a, b;
	struct diff d;
	const struct diff_row *x;

	(void)state;
	record_for(&a, &r, "auto", tmp("o1.prf"), split, 1, need, e2e_split_samples);
	record_for(&b, &r, "auto", tmp("o2.prf"), many, 1, need, in_workload);
	diff_csv(&d, tmp("o1.prf"), tmp("o2.prf"));
	assert_diff_arithmetic(&d, a.total, b.total);
	x = diff_find(&d, "six");
	assert_float_equal(x->after, 0, 0);
	assert_float_equal(x->before, samples_of(&a, "six", "workload"), 0);
	assert_float_equal(x->change, -x->before_pct, 1e-4);
	x = diff_find(&d, "f31");
	assert_float_equal(x->before, 0, 0);
	assert_float_equal(x->after, samples_of(&b, "f31", "workload"), 0);
	if (!x->significant)
		fail_msg("f31: 0 of %.0f -> %.0f of %.0f samples, q %.4g over "
		    "%d rows (%.0f of the workload's wanted)", a.total,
		    x->after, b.total, x->q, d.n, need);
}

/*
 * Profiles of two programs, or of two engines, are compared with a
 * warning (merge refuses them): two runs of one program are not.
 */
static void
test_diff_warns_of_unlike_profiles(void **state)
{
	char *prog[] = { workload, "split", "0.05", NULL };
	char *other[] = { workload_static, "split", "0.05", NULL };
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], t[PATH_MAX];
	char *same[] = { profil_bin, "diff", a, b, NULL };
	char *programs[] = { profil_bin, "diff", a, c, NULL };
	char *engines[] = { profil_bin, "diff", a, t, NULL };
	struct run r;

	(void)state;
	scratch(a, "wa.prf");
	scratch(b, "wb.prf");
	scratch(c, "wc.prf");
	scratch(t, "wt.prf");
	record_with("perf", a, prog);
	record_with("perf", b, prog);
	record_with("perf", c, other);
	record_with("timer", t, prog);
	run(&r, same);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	run(&r, programs);
	assert_int_equal(r.status, 0);
	if (strstr(r.err, "different programs") == NULL ||
	    strstr(r.err, "workload-static") == NULL ||
	    strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
		fail_msg("diff of two programs said: %s", r.err);
	run(&r, engines);
	assert_int_equal(r.status, 0);
	if (strstr(r.err, "timer engine") == NULL ||
	    strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
		fail_msg("diff of two engines said: %s", r.err);
}

/*
 * --min-change 10 keeps six and three (30 points each way), and nothing
 * else: one (10% both sides) within 10 points by 4 standard errors and
 * half a point needs 319 samples a side; a function of the kernel, up to
 * 5% and truly moved by up to 4 points with the machine's load (see
 * test_diff_same_split_twice), 422.
 */
static void
test_diff_options_and_usage(void **state)
{
	static struct run out;
	double need = fmax(2 * e2e_samples_for_share(0.1, 4, 0.1 - 0.005),
	    2 * e2e_samples_for_share(0.05, 4, 0.1 - 0.04));
	char *prog[] = { workload, "split", E2E_CPU, NULL };
	char *prog2[] = { workload, "split2", E2E_CPU, NULL };
	struct shares sh;
	char x1[PATH_MAX], x2[PATH_MAX], absent[PATH_MAX];
	char *limit[] = { profil_bin, "diff", "--format", "csv", "--limit", "2",
	    x1, x2, NULL };
	char *min[] = { profil_bin, "diff", "--format", "json", "--min-change",
	    "10", x1, x2, NULL };
	char *one[] = { profil_bin, "diff", x1, NULL };
	char *missing[] = { profil_bin, "diff", x1, absent, NULL };
	char *format[] = { profil_bin, "diff", "--format", "xml", x1, x2, NULL };
	struct run r;
	int lines = 0, objects = 0;
	const char *split;

	(void)state;
	scratch(x1, "x1.prf");
	scratch(x2, "x2.prf");
	scratch(absent, "none.prf");
	record_for(&sh, &out, "auto", x1, prog, 1, need, NULL);
	record_for(&sh, &out, "auto", x2, prog2, 1, need, NULL);
	run(&r, limit);
	assert_int_equal(r.status, 0);
	for (const char *s = r.out; *s; s++)
		lines += *s == '\n';
	assert_int_equal(lines, 3);
	/*
	 * six and three moved by about 30 points; nothing else by 10 of its
	 * own.  With stacks, split's inclusive share went from all to none
	 * (split2 is inlined into main), which keeps its row too.
	 */
	run(&r, min);
	assert_int_equal(r.status, 0);
	assert_true(r.out[0] == '[');
	for (const char *s = r.out; (s = strstr(s, "{\"function\": ")) != NULL; s++)
		objects++;
	if ((split = strstr(r.out, "{\"function\": \"split\"")) != NULL) {
		double self_change, incl_change;
		const char *at = strstr(split, "\"change\": ");
		const char *incl = strstr(split, "\"incl_change\": ");

		/* kept for its inclusive change alone */
		assert_non_null(at);
		assert_non_null(incl);
		assert_int_equal(sscanf(at, "\"change\": %lf", &self_change), 1);
		assert_int_equal(sscanf(incl, "\"incl_change\": %lf",
		    &incl_change), 1);
		if (!(fabs(self_change) < 10 && incl_change <= -10))
			fail_msg("split kept with a change of %.2f, inclusive %.2f",
			    self_change, incl_change);
		objects--;
	}
	if (objects != 2)
		fail_msg("%d rows moved by 10 points, of %.0f samples a side "
		    "wanted:\n%s", objects, need, r.out);
	assert_non_null(strstr(r.out, "{\"function\": \"six\", \"object\": "
	    "\"workload\", \"before_samples\": "));
	assert_non_null(strstr(r.out, "{\"function\": \"three\""));
	run(&r, one);
	assert_int_equal(r.status, 2);
	assert_one_line(&r, "diff");
	run(&r, missing);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "diff");
	run(&r, format);
	assert_int_equal(r.status, 2);
	assert_one_line(&r, "diff");
}

/*
 * A wall profile saved to path: app's compute (kept name) called from
 * main, 10 samples of 1 ms, and off_ms milliseconds in main;[off-cpu:
 * read]; with off_ms 0, a CPU profile of the same samples.
 */
static void
save_wall(const char *path, uint64_t off_ms)
{
	static const struct profil_bucket none[] = { { 0, 0 } };
	const struct profil_frame main_f = { 0, 0x10 };
	const struct profil_frame cpu[] = { { 0, 0x50 }, main_f };
	const struct profil_frame rd[] = { { PROFIL_FRAME_OFFCPU, 0 }, main_f };
	struct profil_profile *p = new_profile(1);
	char cause[256];

	add_object(p, "/nonexistent/wall/app", 0, 0, 0x100, 1, none, 0);
	add_stack(p, 10, 10, 10, 2, cpu);
	if (off_ms > 0) {
		add_stack(p, 10, 10, off_ms * 1000000, 2, rd);
		make_wall(p, 5000000, 10, 1, 0);
	}
	p->symbols = xcalloc(2, sizeof *p->symbols);
	p->symbols[0] = (struct profil_symbol){ 0, 0, 0x40, xstrdup("main") };
	p->symbols[1] = (struct profil_symbol){ 0, 0x40, 0x80,
	    xstrdup("compute") };
	p->nsymbols = 2;
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
}

/*
 * diff of wall profiles: shares of wall time ([off-cpu: read] 30 of 40
 * intervals, then 10 of 20); --cpu, or a CPU profile on one side: the
 * CPU parts (compute all of them), the latter said in one line.  merge
 * of a wall and a CPU profile: refused in one line, no file written.
 */
static void
test_diff_and_merge_wall(void **state)
{
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], m[PATH_MAX];
	char *cpu_diff[] = { profil_bin, "diff", "--cpu", "--format", "csv",
	    a, b, NULL };
	char *mixed_diff[] = { profil_bin, "diff", "--format", "csv", a, c,
	    NULL };
	char *mixed_merge[] = { profil_bin, "merge", "-q", "-o", m, a, c, NULL };
	static struct diff d;
	const struct diff_row *x;
	struct run r;

	(void)state;
	save_wall(scratch(a, "wall-a.prf"), 30);
	save_wall(scratch(b, "wall-b.prf"), 10);
	save_wall(scratch(c, "cpu-c.prf"), 0);
	scratch(m, "wall-m.prf");
	diff_csv(&d, a, b);
	x = diff_find(&d, "[off-cpu: read]");
	assert_true(x->before == 30 && x->after == 10);
	assert_true(fabs(x->before_pct - 75) < 0.01);
	assert_true(fabs(x->after_pct - 50) < 0.01);
	/* time measured: no error, and no test of it (no q, no verdict) */
	assert_true(x->error95 == 0 && isnan(x->q) && x->significant == -1);
	x = diff_find(&d, "compute");
	assert_true(fabs(x->before_pct - 25) < 0.01);
	assert_true(fabs(x->after_pct - 50) < 0.01);

	run(&r, cpu_diff);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "off-cpu"));
	assert_non_null(strstr(r.out, "compute,app,10,10,100"));
	run(&r, mixed_diff);
	assert_int_equal(r.status, 0);
	assert_one_line(&r, "diff");
	assert_non_null(strstr(r.err, "CPU parts compared"));
	assert_null(strstr(r.out, "off-cpu"));

	run(&r, mixed_merge);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "cpu-c.prf is a CPU profile"));
	assert_false(exists(m));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_rebucket),
		cmocka_unit_test(test_unit_matching),
		cmocka_unit_test(test_unit_threads_kept_only_when_all_have_them),
		cmocka_unit_test(test_unit_weights_summed),
		cmocka_unit_test(test_unit_refusals),
		cmocka_unit_test(test_unit_stacks_summed),
		cmocka_unit_test(test_unit_wall_summed),
		cmocka_unit_test(test_unit_stacks_kernel_boots),
		cmocka_unit_test(test_unit_symbols_union),
		cmocka_unit_test(test_unit_jit_kept_apart),
		cmocka_unit_test(test_unit_stacks_dropped),
		cmocka_unit_test(test_merge_sums_functions),
		cmocka_unit_test(test_merge_with_itself_doubles),
		cmocka_unit_test(test_merge_sums_stacks),
		cmocka_unit_test(test_merge_bucket_sizes),
		cmocka_unit_test(test_merge_refuses_another_program),
		cmocka_unit_test(test_merge_refuses_other_rates),
		cmocka_unit_test(test_merge_bad_usage),
		cmocka_unit_test(test_diff_same_split_twice),
		cmocka_unit_test(test_diff_holds_the_false_discovery_rate),
		cmocka_unit_test(test_diff_real_runs_show_nothing),
		cmocka_unit_test(test_diff_finds_the_changed_split),
		cmocka_unit_test(test_diff_inclusive_shares),
		cmocka_unit_test(test_diff_functions_on_one_side),
		cmocka_unit_test(test_diff_warns_of_unlike_profiles),
		cmocka_unit_test(test_diff_options_and_usage),
		cmocka_unit_test(test_diff_and_merge_wall),
	};
	/* sanitized, stacks at 1 kHz: TSan's recorder leaves most of 5 kHz
	   unwound, and inclusive shares of a few are noise */
	e2e_rate_when_sanitized = "1000";
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
