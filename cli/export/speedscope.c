/*
 * speedscope.c - a profile as a speedscope file (speedscope.h).
 * Invariant: a thread's weights are its stacks' weights (samples times
 * the interval, or time off the CPU), each given once, and the empty
 * samples that place them in time: a stack's timeline entries sum to its
 * count (or off_ns), so the totals speedscope computes are report's
 * whether or not there is a timeline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "intern.h"
#include "json.h"
#include "outfile.h"
#include "funcdef.h"
#include "speedscope.h"

/* A stack's part of one slice (or all of it) in a thread. */
struct piece {
	size_t thread;		/* into the threads' keys */
	uint64_t slice;		/* 0 for all without a timeline */
	uint32_t stack;		/* into p->stacks */
	uint64_t ns;		/* its weight */
};

struct thread_key {
	uint32_t pid, tid;
};

/* A sample as written: a stack's text, or none (a gap), and its weight. */
#define GAP SIZE_MAX
struct sample {
	size_t text;		/* into the stacks' texts, or GAP */
	uint64_t ns;
};

static int
by_thread_key(const void *a, const void *b)
{
	const struct thread_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Pieces in thread, slice, stack order. */
static int
by_time(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/*
 * The ns of n of stack st (samples, or ns off the CPU) into *ns; -1 with
 * errno EOVERFLOW past 2^64 - 1.
 */
static int
weight(const struct profil_profile *p, const struct profil_stack *st,
    uint64_t n, uint64_t *ns)
{
	if (st->off_ns > 0) {
		*ns = n;
		return 0;
	}
	if (__builtin_mul_overflow(n, p->interval_ns, ns)) {
		errno = EOVERFLOW;
		return -1;
	}
	return 0;
}

/* The distinct threads of p's stacks, in pid, tid order; their number. */
static size_t
thread_keys(const struct profil_profile *p, struct thread_key **keys)
{
	struct thread_key *k = xcalloc(p->nstacks + 1, sizeof *k);
	size_t n = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		k[i] = (struct thread_key){ p->stacks[i].pid, p->stacks[i].tid };
	qsort(k, p->nstacks, sizeof *k, by_thread_key);
	for (size_t i = 0; i < p->nstacks; i++)
		if (n == 0 || by_thread_key(&k[n - 1], &k[i]) != 0)
			k[n++] = k[i];
	*keys = k;
	return n;
}

/*
 * The pieces of p's stacks with weight, in time order: its timeline's
 * entries, or one per stack.  Their number, or -1 with errno EOVERFLOW.
 */
static ssize_t
stack_pieces(const struct profil_profile *p, const struct thread_key *keys,
    size_t nkeys, struct piece **pieces)
{
	size_t total = p->ntimeline > 0 ? p->ntimeline : p->nstacks, n = 0;
	struct piece *v = xcalloc(total + 1, sizeof *v);

	for (size_t i = 0; i < total; i++) {
		const struct profil_timeline_entry *e = p->ntimeline > 0 ?
		    &p->timeline[i] : NULL;
		const struct profil_stack *st = &p->stacks[e ? e->stack : i];
		struct thread_key k = { st->pid, st->tid };
		uint64_t ns;

		if (weight(p, st, e ? e->value : st->off_ns > 0 ? st->off_ns :
		    st->count, &ns) < 0) {
			free(v);
			return -1;
		}
		if (ns == 0)
			continue;
		v[n++] = (struct piece){ (size_t)((const struct thread_key *)
		    bsearch(&k, keys, nkeys, sizeof k, by_thread_key) - keys),
		    e ? e->slice : 0, e ? e->stack : (uint32_t)i, ns };
	}
	qsort(v, n, sizeof *v, by_time);
	*pieces = v;
	return (ssize_t)n;
}

/*
 * Each stack as speedscope's list of frames, outermost first, the same
 * list of functions one text: texts[i] of stack i, into t.
 */
static size_t *
stack_texts(const struct stacks *s, struct intern *t)
{
	const struct profil_profile *p = s->p;
	static uint32_t funcs[STACKS_MAX_DEPTH];
	size_t *ids = xcalloc(p->nstacks + 1, sizeof *ids);
	char *buf = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		size_t depth = stacks_funcs_of(s, &p->stacks[i], funcs,
		    STACKS_MAX_DEPTH), len = 0;

		if (cap < depth * 11 + 3) {
			cap = depth * 11 + 3;	/* "4294967295," a frame */
			buf = xrealloc(buf, cap);
		}
		buf[len++] = '[';
		for (size_t k = depth; k-- > 0;)
			len += (size_t)snprintf(buf + len, cap - len, "%s%u",
			    k + 1 == depth ? "" : ",", funcs[k]);
		buf[len++] = ']';
		buf[len] = '\0';
		ids[i] = intern_add(t, buf, NULL);
	}
	free(buf);
	return ids;
}

/*
 * One thread's samples from its pieces pc[0 .. n), the consecutive
 * pieces of one text merged.  A piece is drawn right after the one
 * before, unless that leaves it a whole slice or more behind the slice
 * it is of (slice_ns 0: never): then a gap brings it to its slice's
 * start.  Into out (room for 2n); returns how many.
 *
 *   slices  |   k   |  k+1  |  k+2  |  k+3  |
 *   pieces   aaaaaa  aaaabb           cc         (slice k+2: none)
 *   drawn   |aaaaaaaaaabb|    gap    |cc
 *
 * A slice's pieces need not fill it (samples count whole intervals):
 * a gap at each shortfall would cut a busy thread into slivers.
 */
static size_t
thread_samples(const struct piece *pc, size_t n, const size_t *texts,
    uint64_t slice_ns, struct sample *out)
{
	uint64_t at = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t from = pc[i].slice * slice_ns;	/* below the run's end */

		if (slice_ns > 0 && from >= slice_ns && at <= from - slice_ns) {
			out[k++] = (struct sample){ GAP, from - at };
			at = from;
		}
		if (k > 0 && out[k - 1].text == texts[pc[i].stack])
			out[k - 1].ns += pc[i].ns;
		else
			out[k++] = (struct sample){ texts[pc[i].stack], pc[i].ns };
		at = at > UINT64_MAX - pc[i].ns ? UINT64_MAX : at + pc[i].ns;
	}
	return k;
}

/* "comm tid", comm the thread's name, else its process's command. */
static void
thread_name(const struct profil_profile *p, const struct thread_key *k,
    char *buf, size_t size)
{
	const char *comm = NULL;

	for (size_t i = 0; i < p->nthreads && comm == NULL; i++)
		if (p->threads[i].pid == k->pid && p->threads[i].tid == k->tid)
			comm = p->threads[i].name;
	for (size_t i = 0; i < p->nprocesses && comm == NULL; i++)
		if (p->processes[i].pid == k->pid)
			comm = p->processes[i].command;
	snprintf(buf, size, "%s %u", comm && *comm ? funcs_base_name(comm) :
	    "?", k->tid);
}

/* A sampled profile of samples v[0 .. n), texts from t; endValue end. */
static void
write_profile(FILE *out, const char *name, const struct sample *v, size_t n,
    const struct intern *t, uint64_t end)
{
	fputs("{\"type\":\"sampled\",\"name\":", out);
	json_string(out, name, 0);
	fprintf(out, ",\"unit\":\"nanoseconds\",\"startValue\":0,"
	    "\"endValue\":%llu,\n\"samples\":[", (unsigned long long)end);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%s", i ? "," : "", v[i].text == GAP ? "[]" :
		    t->strs[v[i].text]);
	fputs("],\n\"weights\":[", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)v[i].ns);
	fputs("]}", out);
}

/* The file's head, up to its frames' list: what outfile knows it by. */
static void
write_head(FILE *out, const char *name, size_t active)
{
	fputs(OUTFILE_SPEEDSCOPE ",\"exporter\":\"profil\",\"name\":", out);
	json_string(out, name, 0);
	fprintf(out, ",\"activeProfileIndex\":%zu,\n\"shared\":{\"frames\":[",
	    active);
}

static void
write_frame(FILE *out, size_t i, const char *function, const char *file,
    int line)
{
	fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
	json_string(out, function, 0);
	if (file != NULL) {
		fputs(",\"file\":", out);
		json_string(out, file, 0);
		if (line > 0)
			fprintf(out, ",\"line\":%d", line);
	}
	fputc('}', out);
}

/* Without stacks: one profile, a sample per function of the flat view. */
static int
write_flat(const struct profil_profile *p, const struct funcs *f,
    const char *name, FILE *out)
{
	uint64_t end = 0, ns;

	write_head(out, name, 0);
	for (size_t i = 0; i < f->nrows; i++) {
		const struct func_row *r = &f->rows[i];
		struct symtab *tab = r->object_index != FUNC_NO_OBJECT ?
		    f->tabs[r->object_index] : NULL;
		const char *file = NULL;
		int line = 0;

		/* where the function starts, as funcdef.h has it */
		if (tab != NULL && r->end > r->start)
			file = symtab_source(tab, r->start, &line);
		write_frame(out, i, r->function, file, file ? line : 0);
	}
	fputs("]},\n\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
	json_string(out, name, 0);
	fputs(",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":", out);
	for (size_t i = 0; i < f->nrows; i++) {
		if (__builtin_mul_overflow(f->rows[i].samples, p->interval_ns,
		    &ns) || __builtin_add_overflow(end, ns, &end)) {
			errno = EOVERFLOW;
			return -1;
		}
	}
	fprintf(out, "%llu,\n\"samples\":[", (unsigned long long)end);
	for (size_t i = 0; i < f->nrows; i++)
		fprintf(out, "%s[%zu]", i ? "," : "", i);
	fputs("],\n\"weights\":[", out);
	for (size_t i = 0; i < f->nrows; i++)
		fprintf(out, "%s%llu", i ? "," : "",
		    (unsigned long long)(f->rows[i].samples * p->interval_ns));
	fputs("]}]}\n", out);
	return ferror(out) ? -1 : 0;
}

/* a + b, or UINT64_MAX past it (584 years of nanoseconds) */
static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int
export_speedscope(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, const char *name, FILE *out)
{
	struct thread_key *keys;
	struct piece *pc;
	struct sample *v;
	struct intern texts = { 0 };
	struct funcdef *defs;
	uint64_t slice_ns = p->ntimeline > 0 ? p->slice_ns : 0, *weight_of;
	uint64_t most = 0;
	size_t nkeys, *ids, active = 0, shown = 0, at = 0;
	ssize_t n;

	if (s == NULL || p->nstacks == 0)
		return write_flat(p, f, name, out);
	nkeys = thread_keys(p, &keys);
	if ((n = stack_pieces(p, keys, nkeys, &pc)) < 0) {
		free(keys);
		return -1;
	}
	/*
	 * A profile per thread with weight, the busiest shown first: its
	 * place among those written.
	 */
	weight_of = xcalloc(nkeys + 1, sizeof *weight_of);
	for (size_t i = 0; i < (size_t)n; i++)
		weight_of[pc[i].thread] = add_sat(weight_of[pc[i].thread],
		    pc[i].ns);
	for (size_t t = 0; t < nkeys; t++) {
		if (weight_of[t] == 0)
			continue;
		if (weight_of[t] > most) {
			most = weight_of[t];
			active = shown;
		}
		shown++;
	}
	write_head(out, name, active);
	defs = funcdef_of_stacks(s, f);
	for (size_t i = 0; i < s->nfuncs; i++)
		write_frame(out, i, s->funcs[i].function, defs[i].file,
		    defs[i].line);
	free(defs);
	fputs("]},\n\"profiles\":[", out);
	ids = stack_texts(s, &texts);
	v = xcalloc(2 * (size_t)n + 1, sizeof *v);
	shown = 0;
	for (size_t t = 0; t < nkeys; t++) {
		size_t from = at, k;
		char tname[512];

		while (at < (size_t)n && pc[at].thread == t)
			at++;
		if (at == from)
			continue;	/* no weight: nothing to show */
		k = thread_samples(pc + from, at - from, ids, slice_ns, v);
		thread_name(p, &keys[t], tname, sizeof tname);
		if (shown++ > 0)
			fputs(",\n", out);
		/* the timeline's end (the codec checked it fits), or the sum */
		write_profile(out, tname, v, k, &texts, slice_ns > 0 ?
		    p->nslices * slice_ns : weight_of[t]);
	}
	fputs("]}\n", out);
	free(v);
	free(ids);
	intern_free(&texts);
	free(weight_of);
	free(pc);
	free(keys);
	return ferror(out) ? -1 : 0;
}

/* p into out, or path (an outfile) when out is NULL; 0, or -1, a cause. */
static int
save_to(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, const char *name, const char *path, char *cause,
    size_t cause_size)
{
	struct outfile of;
	FILE *out;

	if (strcmp(path, "-") == 0) {
		if (export_speedscope(p, f, s, name, stdout) < 0 ||
		    fflush(stdout) != 0) {
			snprintf(cause, cause_size, "standard output: %s",
			    strerror(errno));
			return -1;
		}
		return 0;
	}
	if (outfile_open(&of, path, OUTFILE_SPEEDSCOPE, cause, cause_size) < 0)
		return -1;
	if ((out = fdopen(of.file.fd, "w")) == NULL) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(&of, NULL);
		return -1;
	}
	if (export_speedscope(p, f, s, name, out) < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(&of, out);
		return -1;
	}
	return outfile_commit(&of, out, cause, cause_size);
}

int
export_speedscope_save(const struct profil_profile *p, const char *file,
    int inlines, const char *path, cli_warn_fn *warn, char *cause,
    size_t cause_size)
{
	struct funcs f;
	struct stacks s;
	int rc;

	if (inlines)
		funcs_build_inline(&f, p, warn);
	else
		funcs_build(&f, p, warn);
	if (p->nstacks == 0)
		cli_say(warn, "the profile has no call stacks (recorded with "
		    "--no-call-graph, or by an older profil): one profile of "
		    "every thread, each function a stack of its own");
	else if (p->ntimeline == 0)
		cli_say(warn, "%s has no timeline (recorded by an older "
		    "profil): each thread's stacks come one after another, not "
		    "in time order", file);
	if (p->nstacks > 0)
		stacks_name(&s, p, &f, inlines ? STACKS_INLINES : 0);
	rc = save_to(p, &f, p->nstacks > 0 ? &s : NULL, funcs_base_name(file),
	    path, cause, cause_size);
	if (p->nstacks > 0)
		stacks_free(&s);
	funcs_free(&f);
	return rc;
}
