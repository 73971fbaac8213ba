/*
 * merge.c - sums profiles of one program (contract in merge.h).  Every
 * check is made before anything is built, so a refusal costs nothing.
 * Invariant: the result adds up as its inputs did (samples = objects +
 * kernel + unknown, = threads, = processes, = the stacks' leaves), so
 * profil_profile_save and every reader accept it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "merge.h"
#include "merge-jit.h"
#include "merge-lines.h"
#include "merge-stacks.h"

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

/* The same file: equal build-ids, or equal paths when either has none. */
static int
same_file(const struct profil_object *a, const struct profil_object *b)
{
	if (a->build_id_len > 0 && b->build_id_len > 0)
		return a->build_id_len == b->build_id_len &&
		    memcmp(a->build_id, b->build_id, a->build_id_len) == 0;
	return strcmp(a->path, b->path) == 0;
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
	if (!same_file(&first->objects[0], &p->objects[0]))
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

/*
 * An input bucket moved to a bucket of the result (target bytes, counted
 * from lowpc, the result's lowpc, aligned to target):
 *
 *   input, 4-byte buckets     |a0 |a1 |a2 |a3 |a4 |
 *   result, 16-byte buckets   |      b0       |      b1 ...
 *                             ^ lowpc
 *   addr' = lowpc + (addr - lowpc) / target * target
 *
 * Sizes are powers of two and recorded buckets start at multiples of their
 * size, so an input bucket lies inside one result bucket: no count is
 * split or guessed.
 */
static uint64_t
rebucket(uint64_t addr, uint64_t lowpc, unsigned target)
{
	return lowpc + (addr - lowpc) / target * target;
}

/*
 * dst (sorted, distinct addresses of the result) plus src's buckets moved
 * to the result's: a new array, sorted with distinct addresses, in *n.
 */
static struct profil_bucket *
merge_buckets(const struct profil_bucket *dst, size_t ndst,
    const struct profil_object *src, uint64_t lowpc, unsigned target,
    size_t *n)
{
	struct profil_bucket *out = xcalloc(ndst + src->nbuckets, sizeof *out);
	size_t i = 0, j = 0, m = 0;

	while (i < ndst || j < src->nbuckets) {
		struct profil_bucket next;

		if (j == src->nbuckets || (i < ndst && dst[i].addr <=
		    rebucket(src->buckets[j].addr, lowpc, target))) {
			next = dst[i++];
		} else {
			next.addr = rebucket(src->buckets[j].addr, lowpc, target);
			next.count = src->buckets[j++].count;
		}
		if (m > 0 && out[m - 1].addr == next.addr)
			out[m - 1].count += next.count;
		else
			out[m++] = next;
	}
	*n = m;
	return out;
}

/*
 * The objects of the result: where[i][j] receives the result object that
 * object j of input i goes to.  Ranges are the union of the matched ones.
 */
static void
match_objects(struct profil_profile *const *in, size_t n, unsigned target,
    struct profil_profile *out, size_t **where)
{
	size_t cap = 0, *last_input = NULL;

	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < in[i]->nobjects; j++) {
			const struct profil_object *o = &in[i]->objects[j];
			struct profil_object *r;
			size_t k;

			for (k = 0; k < out->nobjects; k++)
				if (last_input[k] != i + 1 &&
				    same_file(&out->objects[k], o))
					break;
			if (k == out->nobjects) {
				if (out->nobjects == cap) {
					cap = cap ? 2 * cap : 16;
					out->objects = xrealloc(out->objects,
					    cap * sizeof *out->objects);
					last_input = xrealloc(last_input,
					    cap * sizeof *last_input);
				}
				out->objects[out->nobjects++] = (struct profil_object){
				    .path = xstrdup(o->path), .lowpc = o->lowpc,
				    .highpc = o->highpc, .bucket_bytes = target };
			}
			r = &out->objects[k];
			last_input[k] = i + 1;
			where[i][j] = k;
			if (r->build_id_len == 0 && o->build_id_len > 0) {
				memcpy(r->build_id, o->build_id, o->build_id_len);
				r->build_id_len = o->build_id_len;
			}
			if (o->lowpc < r->lowpc)
				r->lowpc = o->lowpc;
			if (o->highpc > r->highpc)
				r->highpc = o->highpc;
			r->samples += o->samples;
		}
	}
	for (size_t k = 0; k < out->nobjects; k++)
		out->objects[k].lowpc -= out->objects[k].lowpc % target;
	free(last_input);
}

/* Every input's buckets summed into the result's objects. */
static void
sum_buckets(struct profil_profile *const *in, size_t n, unsigned target,
    struct profil_profile *out, size_t *const *where)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < in[i]->nobjects; j++) {
			struct profil_object *r = &out->objects[where[i][j]];
			struct profil_bucket *merged;
			size_t nmerged;

			merged = merge_buckets(r->buckets, r->nbuckets,
			    &in[i]->objects[j], r->lowpc, target, &nmerged);
			free(r->buckets);
			r->buckets = merged;
			r->nbuckets = nmerged;
		}
	}
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

/* Can ki's addresses be moved to first's boot (same kernel, _text known)? */
static int
placeable(const struct profil_kernel *first, const struct profil_kernel *ki)
{
	return same_file(&first->code, &ki->code) &&
	    (memcmp(first->boot_id, ki->boot_id, 16) == 0 ||
	    (first->text_addr != 0 && ki->text_addr != 0));
}

/*
 * The kernel records of the inputs summed, at the addresses of the first
 * input's boot: another boot of the same kernel is moved by the
 * difference of _text.  When an input with kernel samples has no kernel
 * record, or another kernel, or a boot that cannot be placed, the result
 * keeps the kernel counts without addresses, and says so to warn.  kp[i]
 * receives where input i's kernel addresses go.
 */
static void
merge_kernel(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile *out, struct merge_kplace *kp,
    cli_warn_fn *warn)
{
	const struct profil_kernel *first = NULL;
	struct profil_kernel *k;

	memset(kp, 0, n * sizeof *kp);
	for (size_t i = 0; i < n; i++) {
		const struct profil_kernel *ki = in[i]->kernel_code;

		if (in[i]->kernel == 0)
			continue;
		if (ki == NULL)
			return;		/* recorded without kernel addresses */
		if (first == NULL) {
			first = ki;
			continue;
		}
		if (!placeable(first, ki)) {
			cli_say(warn, "%s was recorded on another kernel or boot "
			    "than %s: the merged kernel samples keep no "
			    "addresses", names[i], names[0]);
			return;
		}
	}
	if (first == NULL)
		return;
	/* inputs without kernel samples too: their stacks may pass through it */
	for (size_t i = 0; i < n; i++) {
		const struct profil_kernel *ki = in[i]->kernel_code;

		if (ki == NULL || !placeable(first, ki))
			continue;
		kp[i].placed = 1;
		if (memcmp(first->boot_id, ki->boot_id, 16) != 0)
			kp[i].delta = first->text_addr - ki->text_addr;
	}
	k = out->kernel_code = xcalloc(1, sizeof *k);
	*k = *first;
	k->release = xstrdup(first->release ? first->release : "");
	k->code.path = xstrdup(first->code.path);
	k->code.buckets = NULL;
	k->code.nbuckets = 0;
	k->code.samples = 0;
	for (size_t i = 0; i < n; i++) {
		const struct profil_kernel *ki = in[i]->kernel_code;
		struct profil_object moved;
		struct profil_bucket *merged;
		size_t nmerged;

		if (in[i]->kernel == 0 || ki == NULL)
			continue;
		moved = ki->code;
		moved.buckets = xcalloc(ki->code.nbuckets + 1, sizeof *moved.buckets);
		for (size_t j = 0; j < ki->code.nbuckets; j++) {
			moved.buckets[j] = ki->code.buckets[j];
			moved.buckets[j].addr += kp[i].delta;
		}
		merged = merge_buckets(k->code.buckets, k->code.nbuckets, &moved,
		    0, 1, &nmerged);
		free(moved.buckets);
		free(k->code.buckets);
		k->code.buckets = merged;
		k->code.nbuckets = nmerged;
		k->code.samples += ki->code.samples;
	}
	if (k->code.nbuckets > 0) {
		k->code.lowpc = k->code.buckets[0].addr;
		k->code.highpc = k->code.buckets[k->code.nbuckets - 1].addr + 1;
	}
}

static int
by_symbol(const void *a, const void *b)
{
	const struct profil_symbol *x = a, *y = b;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The kept names of every input, for the result's objects: a name the
 * inputs share is kept once, and of names that overlap in one object (two
 * builds matched by path) the first in address order, so that the result
 * is sorted without overlaps as the format wants.  The kernel's names
 * move as its addresses do, and go where the result keeps none.
 */
static void
merge_symbols(struct profil_profile *const *in, size_t n,
    struct profil_profile *out, size_t *const *where,
    const struct merge_kplace *kp)
{
	struct profil_symbol *all;
	size_t total = 0, m = 0;

	for (size_t i = 0; i < n; i++)
		total += in[i]->nsymbols;
	if (total == 0)
		return;
	all = xcalloc(total, sizeof *all);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < in[i]->nsymbols; j++) {
			struct profil_symbol sy = in[i]->symbols[j];
			uint64_t size = sy.end - sy.start;

			if (sy.object == PROFIL_SYMBOL_KERNEL) {
				if (!kp[i].placed)
					continue;
				sy.start += kp[i].delta;
				if (sy.start > UINT64_MAX - size)
					continue;	/* moved past 2^64 */
				sy.end = sy.start + size;
			} else {
				sy.object = (uint32_t)where[i][sy.object];
			}
			all[m++] = sy;
		}
	qsort(all, m, sizeof *all, by_symbol);
	out->symbols = xcalloc(m, sizeof *out->symbols);
	for (size_t i = 0; i < m; i++) {
		const struct profil_symbol *last = out->nsymbols > 0 ?
		    &out->symbols[out->nsymbols - 1] : NULL;

		if (last != NULL && last->object == all[i].object &&
		    last->end > all[i].start)
			continue;	/* the same name again, or an overlap */
		out->symbols[out->nsymbols] = all[i];
		out->symbols[out->nsymbols++].name = xstrdup(all[i].name);
	}
	free(all);
}

int
merge_profiles(struct profil_profile *const *in, const char *const *names,
    size_t n, struct profil_profile **out, cli_warn_fn *warn, char *cause,
    size_t cause_size)
{
	struct profil_profile *m;
	struct merge_kplace *kp;
	size_t **where;
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
	match_objects(in, n, target, m, where);
	sum_buckets(in, n, target, m, where);
	keep_runs(in, n, m);
	kp = xcalloc(n, sizeof *kp);
	merge_kernel(in, names, n, m, kp, warn);
	merge_symbols(in, n, m, where, kp);
	merge_lines(in, n, m, where);
	merge_stacks(in, names, n, m, where, kp, warn);
	for (size_t i = 0; i < n; i++)
		free(where[i]);
	free(where);
	free(kp);
	*out = m;
	return 0;
}
