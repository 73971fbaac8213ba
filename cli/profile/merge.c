/*
 * merge.c - sums profiles of one program (contract in merge.h; the
 * objects' histograms are merge-objects.c's, the kernel and the kept
 * names merge-kernel.c's, the stacks merge-stacks.c's and their
 * timelines merge-timeline.c's).  Every check is made before anything is built,
 * so a refusal costs nothing.
 * Invariant: the result adds up as its inputs did (samples = objects +
 * kernel + unknown, = threads, = processes, = the stacks' leaves; each
 * stack = its timeline's entries), so profil_profile_save and every
 * reader accept it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge.h"
#include "merge-internal.h"
#include "merge-jit.h"
#include "merge-lines.h"
#include "merge-stacks.h"
#include "merge-timeline.h"

__attribute__((format(printf, 3, 4))) static int
refuse(char *cause, size_t cause_size, const char *fmt, ...)
{
	va_list ap;

	if (cause != NULL && cause_size > 0) {
		va_start(ap, fmt);
		vsnprintf(cause, cause_size, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* "PATH (build-id 0123456789abcdef)", its first 8 bytes, in buf. */
static const char *
describe(char *buf, size_t size, const struct profil_object *o)
{
	char hex[17] = "";

	for (unsigned i = 0; i < o->build_id_len && i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", o->build_id[i]);
	if (o->build_id_len > 0)
		snprintf(buf, size, "%s (build-id %s)", o->path, hex);
	else
		snprintf(buf, size, "%s (no build-id)", o->path);
	return buf;
}

static int
power_of_two(unsigned v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/* Is the program of p the program of first?  0, or -1 with a cause. */
static int
check_program(const struct profil_profile *first, const char *first_name,
    const struct profil_profile *p, const char *name, char *cause,
    size_t cause_size)
{
	char a[512], b[512];

	if (p->interval_ns != first->interval_ns)
		return refuse(cause, cause_size, "%s was sampled every %llu ns "
		    "(%.0f Hz), %s every %llu ns (%.0f Hz): a sample does not "
		    "stand for the same CPU time", first_name,
		    (unsigned long long)first->interval_ns,
		    first->interval_ns ? 1e9 / (double)first->interval_ns : 0.0,
		    name, (unsigned long long)p->interval_ns,
		    p->interval_ns ? 1e9 / (double)p->interval_ns : 0.0);
	if ((p->wall == NULL) != (first->wall == NULL))
		return refuse(cause, cause_size, "%s is a CPU profile, %s a wall "
		    "profile: record both with or without --wall",
		    p->wall == NULL ? name : first_name,
		    p->wall == NULL ? first_name : name);
	if (strcmp(p->engine, first->engine) != 0)
		return refuse(cause, cause_size, "%s was recorded by the %s "
		    "engine, %s by the %s engine: they do not count the same "
		    "time (only perf charges system calls to the kernel)",
		    first_name, first->engine, name, p->engine);
	if (first->nobjects == 0 || p->nobjects == 0)
		return refuse(cause, cause_size, "%s has no objects: cannot tell "
		    "which program it profiled", first->nobjects == 0 ?
		    first_name : name);
	if (!merge_same_file(&first->objects[0], &p->objects[0]))
		return refuse(cause, cause_size, "%s and %s profile different "
		    "programs: %s and %s", first_name, name,
		    describe(a, sizeof a, &first->objects[0]),
		    describe(b, sizeof b, &p->objects[0]));
	return 0;
}

/*
 * The bucket size of the result: the one size all inputs use, or the
 * coarsest when all are powers of two.  0, or -1 with a cause.
 */
static int
target_bucket(struct profil_profile *const *in, const char *const *names,
    size_t n, unsigned *target, char *cause, size_t cause_size)
{
	unsigned max = 0, odd_size = 0;
	int all_equal = 1, all_pow2 = 1;
	size_t odd = 0;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j <= in[i]->nobjects; j++) {
			unsigned size = j < in[i]->nobjects ?
			    in[i]->objects[j].bucket_bytes : in[i]->bucket_bytes;

			if (max != 0 && size != max)
				all_equal = 0;
			if (!power_of_two(size) && all_pow2) {
				all_pow2 = 0;
				odd = i;
				odd_size = size;
			}
			if (size > max)
				max = size;
		}
	}
	if (!all_equal && !all_pow2)
		return refuse(cause, cause_size, "%s counts %u-byte buckets, "
		    "another input a different size: sizes must be equal, or "
		    "powers of two (summed at the coarsest)", names[odd],
		    odd_size);
	*target = max;
	return 0;
}

/* *sum += v; -1 if that overflows. */
static int
add(uint64_t *sum, uint64_t v)
{
	return __builtin_add_overflow(*sum, v, sum) ? -1 : 0;
}

/* The header totals of every input summed into out.  0, or -1 on overflow. */
/*
 * The weights record's figures: summed, an input without one counting
 * as that many samples of weight 1 (what readers take it for); written
 * only if some input has one.
 */
static int
sum_weights(struct profil_profile *const *in, size_t n,
    struct profil_profile *out)
{
	int bad = 0, any = 0;

	for (size_t i = 0; i < n; i++) {
		int has = in[i]->taken > 0 || in[i]->weight_sq > 0;

		any |= has;
		bad |= add(&out->taken, has ? in[i]->taken : in[i]->samples);
		bad |= add(&out->weight_sq, has ? in[i]->weight_sq :
		    in[i]->samples);
		bad |= add(&out->budget, in[i]->budget);
		if (in[i]->slowest_ns > out->slowest_ns)
			out->slowest_ns = in[i]->slowest_ns;
	}
	if (!any)
		out->taken = out->weight_sq = out->budget = out->slowest_ns = 0;
	return bad;
}

/*
 * The wall record of wall profiles (all are, or none: check_program):
 * looked at as often as the slowest did, switches, reads and unread time
 * summed.  Their stacks' off-CPU time must fit once summed, as the
 * reader adds it up.
 */
static int
sum_wall(struct profil_profile *const *in, size_t n,
    struct profil_profile *out)
{
	uint64_t off = 0;
	int bad = 0;

	if (in[0]->wall == NULL)
		return 0;
	out->wall = xcalloc(1, sizeof *out->wall);
	for (size_t i = 0; i < n; i++) {
		const struct profil_wall *w = in[i]->wall;

		if (w->poll_ns > out->wall->poll_ns)
			out->wall->poll_ns = w->poll_ns;
		bad |= add(&out->wall->switches, w->switches);
		bad |= add(&out->wall->reads, w->reads);
		bad |= add(&out->wall->unread_ns, w->unread_ns);
		for (size_t k = 0; k < in[i]->nstacks; k++)
			bad |= add(&off, in[i]->stacks[k].off_ns);
	}
	return bad;
}

static int
sum_totals(struct profil_profile *const *in, size_t n,
    struct profil_profile *out)
{
	int bad = sum_weights(in, n, out) | sum_wall(in, n, out);

	for (size_t i = 0; i < n; i++) {
		bad |= add(&out->samples, in[i]->samples);
		bad |= add(&out->kernel, in[i]->kernel);
		bad |= add(&out->unknown, in[i]->unknown);
		bad |= add(&out->lost, in[i]->lost);
		bad |= add(&out->refused, in[i]->refused);
		bad |= add(&out->cpu_ns, in[i]->cpu_ns);
		bad |= add(&out->duration_ns, in[i]->duration_ns);
		if (in[i]->start_ns < out->start_ns || i == 0)
			out->start_ns = in[i]->start_ns;
	}
	return bad ? -1 : 0;
}

/* Threads and processes of every input, if every input with samples has them. */
static void
keep_runs(struct profil_profile *const *in, size_t n,
    struct profil_profile *out)
{
	size_t nthreads = 0, nprocesses = 0;
	int threads_ok = 1, processes_ok = 1;

	for (size_t i = 0; i < n; i++) {
		nthreads += in[i]->nthreads;
		nprocesses += in[i]->nprocesses;
		if (in[i]->samples > 0 && in[i]->nthreads == 0)
			threads_ok = 0;
		if (in[i]->samples > 0 && in[i]->nprocesses == 0)
			processes_ok = 0;
	}
	if (threads_ok && nthreads > 0) {
		out->threads = xcalloc(nthreads, sizeof *out->threads);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < in[i]->nthreads; j++) {
				struct profil_thread t = in[i]->threads[j];

				t.name = xstrdup(t.name);
				out->threads[out->nthreads++] = t;
			}
	}
	if (processes_ok && nprocesses > 0) {
		out->processes = xcalloc(nprocesses, sizeof *out->processes);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < in[i]->nprocesses; j++) {
				struct profil_process pr = in[i]->processes[j];

				pr.command = xstrdup(pr.command);
				out->processes[out->nprocesses++] = pr;
			}
	}
}

int
merge_profiles(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile **out, cli_warn_fn *warn, char *cause,
    size_t cause_size)
{
	struct profil_profile *m;
	struct merge_kplace *kp;
	size_t **where;
	uint32_t **stack_at;
	unsigned target = 0;

	*out = NULL;
	if (n == 0)
		return refuse(cause, cause_size, "no profile to merge");
	for (size_t i = 1; i < n; i++)
		if (check_program(in[0], names[0], in[i], names[i], cause,
		    cause_size) < 0)
			return -1;
	if (target_bucket(in, names, n, &target, cause, cause_size) < 0)
		return -1;
	merge_jit_apart(in, n);
	m = xcalloc(1, sizeof *m);
	if (sum_totals(in, n, m) < 0) {
		profil_profile_free(m);
		return refuse(cause, cause_size, "the summed counts do not fit "
		    "in 64 bits");
	}
	m->interval_ns = in[0]->interval_ns;
	m->bucket_bytes = target;
	m->engine = xstrdup(in[0]->engine);
	m->argc = in[0]->argc;
	m->argv = xcalloc((size_t)m->argc + 1, sizeof *m->argv);
	for (int a = 0; a < m->argc; a++)
		m->argv[a] = xstrdup(in[0]->argv[a]);

	where = xcalloc(n, sizeof *where);
	for (size_t i = 0; i < n; i++)
		where[i] = xcalloc(in[i]->nobjects, sizeof *where[i]);
	merge_objects(in, n, target, m, where);
	keep_runs(in, n, m);
	kp = xcalloc(n, sizeof *kp);
	merge_kernel(in, names, n, m, kp, warn);
	merge_symbols(in, n, m, where, kp);
	merge_lines(in, n, m, where);
	stack_at = xcalloc(n, sizeof *stack_at);
	for (size_t i = 0; i < n; i++)
		stack_at[i] = xcalloc(in[i]->nstacks, sizeof *stack_at[i]);
	merge_stacks(in, names, n, m, where, kp, stack_at, warn);
	merge_timeline(in, names, n, m, stack_at, warn);
	for (size_t i = 0; i < n; i++) {
		free(where[i]);
		free(stack_at[i]);
	}
	free(where);
	free(stack_at);
	free(kp);
	*out = m;
	return 0;
}
