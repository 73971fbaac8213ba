/*
 * funcs.c - buckets to function rows.  Buckets are sorted by address, so
 * consecutive ones usually fall in the same function: one symbol lookup
 * each time the address leaves the current function.  Rows of the same
 * function (a function whose buckets were interrupted by an overlapping
 * symbol) are merged after a sort, so a 50,000-function profile costs
 * O(n log n).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "funcs.h"
#include "symbols/demangle.h"
#include "symbols/ksyms.h"

static void
add_row(struct funcs *f, size_t *cap, struct func_row row)
{
	if (f->nrows == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		f->rows = xrealloc(f->rows, *cap * sizeof *f->rows);
	}
	f->rows[f->nrows++] = row;
}

static const char *
own(struct funcs *f, char *s)
{
	f->owned = xrealloc(f->owned, (f->nowned + 1) * sizeof *f->owned);
	f->owned[f->nowned++] = s;
	return s;
}

char *
funcs_display_name(const char *symbol)
{
	const char *at = strchr(symbol, '@');
	char *d = demangle(symbol);

	/* "clock_gettime@@GLIBC_2.17" is clock_gettime to a reader; a PLT
	 * stub keeps its "@plt" */
	if (d == NULL && at != NULL && at > symbol && strcmp(at, "@plt") != 0) {
		d = xstrdup(symbol);
		d[at - symbol] = '\0';
	}
	return d;
}

const char *
funcs_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/*
 * count split over n pieces in proportion to their overlap, as gprof
 * shares a histogram bin between the functions it straddles:
 *
 *   bucket   [addr ..................... addr + bucket_bytes)
 *   b()      [.......)                     24 bytes: 24/64 of count
 *   c()              [.......................) 40 bytes: 40/64
 *
 * in whole samples that add up to count: each gets the floor of its
 * share, and the samples left go to the largest remainders.
 */
void
funcs_apportion(uint64_t count, const struct symtab_piece *pieces, size_t n,
    uint64_t *share)
{
	unsigned __int128 total = 0;
	uint64_t given = 0;

	for (size_t i = 0; i < n; i++)
		total += pieces[i].overlap;
	for (size_t i = 0; i < n; i++) {
		share[i] = (uint64_t)((unsigned __int128)count * pieces[i].overlap /
		    total);
		given += share[i];
	}
	while (given < count) {
		size_t best = 0;
		unsigned __int128 best_rem = 0;

		for (size_t i = 0; i < n; i++) {
			unsigned __int128 want = (unsigned __int128)count *
			    pieces[i].overlap, has = (unsigned __int128)share[i] * total;
			/* one that got its extra sample already is past its share */
			unsigned __int128 rem = want > has ? want - has : 0;

			if (rem > best_rem) {
				best_rem = rem;
				best = i;
			}
		}
		share[best]++;
		given++;
	}
}

static int
by_addr(const void *a, const void *b)
{
	const struct profil_bucket *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Object oi with 1-byte buckets made from the leaves of the call stacks,
 * which keep the exact address of every sample: wide buckets (record -b)
 * need not be shared between functions by guess then.  Its buckets are
 * malloc'd; they add up to the object's samples (the reader checks it).
 */
static struct profil_object
exact_object(const struct profil_profile *p, size_t oi)
{
	struct profil_object o = p->objects[oi];
	size_t n = 0, out = 0;

	o.buckets = xcalloc(p->nstacks + 1, sizeof *o.buckets);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_frame *leaf =
		    &p->frames[p->stacks[i].frames[0]];

		if (leaf->object == oi)
			o.buckets[n++] = (struct profil_bucket){ leaf->addr,
			    p->stacks[i].count };
	}
	qsort(o.buckets, n, sizeof *o.buckets, by_addr);
	for (size_t i = 0; i < n; i++)
		if (out > 0 && o.buckets[out - 1].addr == o.buckets[i].addr)
			o.buckets[out - 1].count += o.buckets[i].count;
		else
			o.buckets[out++] = o.buckets[i];
	o.nbuckets = out;
	o.bucket_bytes = 1;
	return o;
}

/*
 * Rows of object oi.  With inlines, a bucket in code the compiler
 * inlined goes to a row of the innermost function it came from (no
 * address range: its code is spread over its callers).  A bucket wider
 * than a byte that straddles functions is shared between them
 * (funcs_apportion).
 */
static void
object_rows(struct funcs *f, size_t *cap, size_t oi,
    const struct profil_object *o, int inlines)
{
	const char *name = NULL, *base = funcs_base_name(o->path);
	uint64_t start = 1, end = 0, sum = 0, outside = 0;

	for (size_t i = 0; i < o->nbuckets; i++) {
		uint64_t addr = o->buckets[i].addr, count = o->buckets[i].count;
		uint64_t last = addr + (o->bucket_bytes - 1);
		struct symtab_frame frames[16];

		if (name == NULL || addr < start || last >= end || last < addr) {
			/* left the function: its row, and the next one's name */
			if (name != NULL && sum > 0)
				add_row(f, cap, (struct func_row){ name, name, base,
				    oi, start, end, sum });
			sum = 0;
			name = symtab_lookup(f->tabs[oi], addr, &start, &end);
		}
		if (name != NULL && o->bucket_bytes > 1 && (last >= end ||
		    last < addr)) {
			struct symtab_piece *pieces;
			size_t n = symtab_pieces(f->tabs[oi], addr, last < addr ?
			    UINT64_MAX : last + 1, &pieces);
			uint64_t *share = xcalloc(n + 1, sizeof *share);

			funcs_apportion(count, pieces, n, share);
			for (size_t k = 0; k < n; k++)
				if (share[k] > 0)
					add_row(f, cap, (struct func_row){
					    pieces[k].name, pieces[k].name, base, oi,
					    pieces[k].start, pieces[k].end, share[k] });
			if (n == 0)
				outside += count;
			free(share);
			free(pieces);
			name = NULL;
			continue;
		}
		if (name != NULL && inlines && count > 0 &&
		    symtab_inlines(f->tabs[oi], addr, frames, 16) > 0)
			add_row(f, cap, (struct func_row){ frames[0].name,
			    frames[0].name, base, oi, 0, 0, count });
		else if (name != NULL)
			sum += count;
		else
			outside += count;
	}
	if (name != NULL && sum > 0)
		add_row(f, cap, (struct func_row){ name, name, base, oi, start,
		    end, sum });
	if (outside > 0) {
		/* code outside any known function: one row for the object */
		size_t len = strlen(base) + 3;
		char *s = xmalloc(len);

		snprintf(s, len, "[%s]", base);
		own(f, s);
		add_row(f, cap, (struct func_row){ s, s, base, oi, 0, 0, outside });
	}
}

/*
 * The kernel's rows: a row per kernel function where the profile kept
 * kernel addresses and this machine can name them (ksyms.h), else one
 * [kernel] row, and once the reason.
 */
static void
kernel_rows(struct funcs *f, size_t *cap, cli_warn_fn *warn)
{
	const struct profil_profile *p = f->p;
	const struct profil_kernel *k = p->kernel_code;
	const char *name = NULL;
	uint64_t start = 1, end = 0, sum = 0, unnamed = p->kernel;

	if (p->kernel == 0)
		return;
	if (k != NULL) {
		if (ksyms_wanted(p))
			f->ktab = ksyms_open_profile(p, &f->kproblem);
		if (f->kproblem != NULL)
			cli_say(warn, "kernel functions are not named: %s; "
			    "kernel samples show as [kernel]", f->kproblem);
		unnamed = 0;
		for (size_t i = 0; i < k->code.nbuckets; i++) {
			uint64_t addr = k->code.buckets[i].addr;
			uint64_t count = k->code.buckets[i].count;

			if (name == NULL || addr < start || addr >= end) {
				if (name != NULL)
					add_row(f, cap, (struct func_row){ name, name,
					    "[kernel]", FUNC_NO_OBJECT, start, end,
					    sum });
				sum = 0;
				name = ksyms_name(f->ktab, addr, &start, &end);
			}
			if (name != NULL)
				sum += count;
			else
				unnamed += count;
		}
		if (name != NULL)
			add_row(f, cap, (struct func_row){ name, name, "[kernel]",
			    FUNC_NO_OBJECT, start, end, sum });
	}
	if (unnamed > 0)
		add_row(f, cap, (struct func_row){ "[kernel]", "[kernel]",
		    "[kernel]", FUNC_NO_OBJECT, 0, 0, unnamed });
}

static int
by_place(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;

	if (x->object_index != y->object_index)
		return x->object_index < y->object_index ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->symbol, y->symbol);
}

int
funcs_by_samples(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->object, y->object);
}

static void
build(struct funcs *f, const struct profil_profile *p, cli_warn_fn *warn,
    int inlines)
{
	size_t cap = 0, i, out;

	memset(f, 0, sizeof *f);
	f->p = p;
	f->inlines = inlines;
	f->tabs = xcalloc(p->nobjects, sizeof *f->tabs);
	f->problems = xcalloc(p->nobjects, sizeof *f->problems);
	/*
	 * Objects with samples, and those in call stacks: their names.  In
	 * the stacks, not among the frames: a frame no stack holds is
	 * named by nothing (a wall view's off-CPU frames whose stacks came
	 * to no whole interval: warning that [off-cpu] had no file to read
	 * symbols from, for a profile that spent no time off the CPU).
	 */
	char *needed = xcalloc(p->nobjects + 1, 1);
	for (i = 0; i < p->nstacks; i++)
		for (size_t d = 0; d < p->stacks[i].depth; d++) {
			const struct profil_frame *fr =
			    &p->frames[p->stacks[i].frames[d]];

			if (fr->object < p->nobjects)
				needed[fr->object] = 1;
		}
	for (i = 0; i < p->nobjects; i++) {
		const struct profil_object *o = &p->objects[i];

		if (o->nbuckets == 0 && !needed[i])
			continue;	/* reading its symbols would be wasted */
		f->tabs[i] = symtab_open_profile(p, i, &f->problems[i]);
		if (f->problems[i] != NULL)
			cli_say(warn, "%s: %s; its functions show as [%s]",
			    o->path, f->problems[i], funcs_base_name(o->path));
		if (o->bucket_bytes > 1 && p->nstacks > 0) {
			struct profil_object exact = exact_object(p, i);

			object_rows(f, &cap, i, &exact, inlines);
			free(exact.buckets);
		} else {
			object_rows(f, &cap, i, o, inlines);
		}
	}
	free(needed);
	if (f->nrows > 1)
		qsort(f->rows, f->nrows, sizeof *f->rows, by_place);
	for (i = 0, out = 0; i < f->nrows; i++) {
		struct func_row *prev = out ? &f->rows[out - 1] : NULL;

		if (prev != NULL && prev->object_index == f->rows[i].object_index &&
		    prev->start == f->rows[i].start &&
		    strcmp(prev->symbol, f->rows[i].symbol) == 0)
			prev->samples += f->rows[i].samples;
		else
			f->rows[out++] = f->rows[i];
	}
	f->nrows = out;
	for (i = 0; i < f->nrows; i++) {
		char *d = funcs_display_name(f->rows[i].symbol);

		if (d != NULL)
			f->rows[i].function = own(f, d);
	}
	kernel_rows(f, &cap, warn);
	if (p->unknown > 0)
		add_row(f, &cap, (struct func_row){ "[unknown]", "[unknown]",
		    "[unknown]", FUNC_NO_OBJECT, 0, 0, p->unknown });
	if (f->nrows > 1)
		qsort(f->rows, f->nrows, sizeof *f->rows, funcs_by_samples);
}

void
funcs_build(struct funcs *f, const struct profil_profile *p,
    cli_warn_fn *warn)
{
	build(f, p, warn, 0);
}

void
funcs_build_inline(struct funcs *f, const struct profil_profile *p,
    cli_warn_fn *warn)
{
	build(f, p, warn, 1);
}

void
funcs_free(struct funcs *f)
{
	for (size_t i = 0; f->p != NULL && i < f->p->nobjects; i++)
		if (f->tabs[i] != NULL)
			symtab_close(f->tabs[i]);
	for (size_t i = 0; i < f->nowned; i++)
		free(f->owned[i]);
	free(f->owned);
	if (f->ktab != NULL)
		ksyms_close(f->ktab);
	free(f->tabs);
	free(f->problems);
	free(f->rows);
	memset(f, 0, sizeof *f);
}

int
funcs_name_matches(const char *full, const char *name)
{
	size_t n = strlen(name);

	if (strcmp(full, name) == 0)
		return 1;
	return strncmp(full, name, n) == 0 && full[n] == '(' &&
	    strchr(name, '(') == NULL;
}

const struct func_row *
funcs_find(const struct funcs *f, const char *name)
{
	for (size_t i = 0; i < f->nrows; i++)
		if (funcs_name_matches(f->rows[i].function, name) ||
		    strcmp(f->rows[i].symbol, name) == 0)
			return &f->rows[i];
	return NULL;
}
