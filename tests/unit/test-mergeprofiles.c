/*
 * test-mergeprofiles.c - merge_profiles() (cli/profile/merge*.c) on
 * profiles made here, every count known: bucket arithmetic, matching
 * rules, threads, weights and refusals; stacks, wall time, the kernel's
 * code, kept names and generated code summed, kept apart or dropped.
 * Every merged profile must encode and read back.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "profiles.h"

/*
 * Tests link with libprofil only, and merge.c is the command's: compile
 * it in, with util.c for the allocation helpers it uses.
 */
#include "../../cli/profile/merge.c"
#include "../../cli/profile/merge-objects.c"
#include "../../cli/profile/merge-kernel.c"
#include "../../cli/profile/merge-stacks.c"
#include "../../cli/profile/merge-timeline.c"
#include "../../cli/profile/merge-jit.c"
#include "../../cli/profile/merge-lines.c"
#include "../../cli/util.c"

/* ---- merge_profiles() on profiles made here ------------------------------ */

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
	struct profil_profile *in[2] = { a, b }, *m;
	const char *names[2] = { "a.prf", "b.prf" };
	char cause[512] = "";

	if (merge_profiles(in, names, 2, &m, cli_warn_line, cause,
	    sizeof cause) < 0)
		fail_msg("merge refused: %s", cause);
	assert_reads_back(m, "the merged profile");
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

/* The count of p's stack (pid, tid, frames leaf first), 0 if none. */
static uint64_t
stack_count(const struct profil_profile *p, uint32_t pid, uint32_t tid,
    size_t depth, const struct profil_frame *frames)
{
	const struct profil_stack *st = stack_of(p, pid, tid, depth, frames);

	return st != NULL ? st->count : 0;
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
