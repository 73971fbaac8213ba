/*
 * folded.c - folded stacks (folded.h).  Names may hold anything but the
 * two characters the format gives a meaning: ';' between frames and the
 * newline after the count; they become ':' and ' '.  Wall time is summed
 * in nanoseconds and rounded to microseconds once per line, so a line's
 * count is its stacks' total rounded, not a sum of rounded parts.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "folded.h"

struct line {
	char *text;
	uint64_t count;
};

static void
append(char **buf, size_t *len, size_t *cap, const char *s, int kernel)
{
	size_t n = strlen(s) + (kernel ? 4 : 0) + 2;

	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	for (; *s; s++)
		(*buf)[(*len)++] = *s == ';' ? ':' : *s == '\n' ? ' ' : *s;
	if (kernel) {
		memcpy(*buf + *len, "_[k]", 4);
		*len += 4;
	}
	(*buf)[*len] = '\0';
}

static int
by_text(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* a + b, or UINT64_MAX past it (584 years of nanoseconds) */
static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* What a line counts: samples, or (wall) nanoseconds until printed. */
static uint64_t
weight(const struct profil_profile *p, const struct profil_stack *st,
    int wall)
{
	if (!wall)
		return st->count;
	return st->off_ns > 0 ? st->off_ns : mul_sat(st->count, p->interval_ns);
}

/* A line's count as printed: wall nanoseconds rounded to microseconds. */
static uint64_t
shown(uint64_t v, int wall)
{
	return wall ? v / 1000 + (v % 1000 >= 500) : v;
}

static int
fold(const struct stacks *s, const struct funcs *f, FILE *out, int wall)
{
	const struct profil_profile *p = s->p;
	static uint32_t funcs[STACKS_MAX_DEPTH];
	struct line *lines;
	size_t n = 0, kept = 0;
	char *buf = NULL;
	size_t cap = 0;

	if (p->nstacks == 0) {
		/* no stacks: each function is a stack of its own */
		for (size_t i = 0; i < f->nrows; i++) {
			size_t len = 0;
			uint64_t v = shown(wall ? mul_sat(f->rows[i].samples,
			    p->interval_ns) : f->rows[i].samples, wall);

			if (v == 0)
				continue;
			append(&buf, &len, &cap, f->rows[i].function,
			    strcmp(f->rows[i].object, "[kernel]") == 0 &&
			    strcmp(f->rows[i].function, "[kernel]") != 0);
			fprintf(out, "%s %llu\n", buf, (unsigned long long)v);
		}
		free(buf);
		return ferror(out) ? -1 : 0;
	}
	lines = xcalloc(p->nstacks, sizeof *lines);
	for (size_t i = 0; i < p->nstacks; i++) {
		size_t depth = stacks_funcs_of(s, &p->stacks[i], funcs,
		    STACKS_MAX_DEPTH), len = 0;

		for (size_t k = depth; k-- > 0;) {
			const struct stack_func *fn = &s->funcs[funcs[k]];

			append(&buf, &len, &cap, fn->function, fn->kernel);
			if (k > 0)
				buf[len++] = ';', buf[len] = '\0';	/* room: append's + 2 */
		}
		lines[n].text = xstrdup(buf ? buf : "");
		lines[n++].count = weight(p, &p->stacks[i], wall);
	}
	qsort(lines, n, sizeof *lines, by_text);
	for (size_t i = 0; i < n; i++) {
		if (kept > 0 && strcmp(lines[kept - 1].text, lines[i].text) == 0) {
			lines[kept - 1].count = add_sat(lines[kept - 1].count,
			    lines[i].count);
			free(lines[i].text);
			continue;
		}
		lines[kept++] = lines[i];
	}
	for (size_t i = 0; i < kept; i++) {
		uint64_t v = shown(lines[i].count, wall);

		/* a wall profile's off-CPU stacks count no samples */
		if (v > 0)
			fprintf(out, "%s %llu\n", lines[i].text,
			    (unsigned long long)v);
		free(lines[i].text);
	}
	free(lines);
	free(buf);
	return ferror(out) ? -1 : 0;
}

int
export_folded(const struct stacks *s, const struct funcs *f, FILE *out)
{
	return fold(s, f, out, 0);
}

int
export_folded_wall(const struct stacks *s, const struct funcs *f, FILE *out)
{
	return fold(s, f, out, 1);
}
