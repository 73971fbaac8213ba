/*
 * addrspace.c - a process image's executable mappings (addrspace.h).
 *
 * Invariant: maps[0..n) are sorted by start and never overlap, so that a
 * lookup can bisect; a mapping's path is its own copy.
 */
#include <stdlib.h>
#include <string.h>

#include "addrspace.h"
#include "cli.h"

struct addr_space *
addr_space_new(int keep_history)
{
	struct addr_space *s = xcalloc(1, sizeof *s);

	s->keep_history = keep_history;
	return s;
}

static void
free_maps(struct addr_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

void
addr_space_free(struct addr_space *s)
{
	if (s == NULL)
		return;
	free_maps(s->maps, s->n);
	free_maps(s->history, s->nhistory);
	if (s->jit_ops != NULL)
		s->jit_ops->free(s->jit);
	free(s);
}

struct addr_space *
addr_space_copy(const struct addr_space *s)
{
	struct addr_space *c = addr_space_new(s->keep_history);

	c->maps = xcalloc(s->n + 1, sizeof *c->maps);
	c->cap = s->n + 1;
	for (size_t i = 0; i < s->n; i++) {
		c->maps[i] = s->maps[i];
		c->maps[i].path = s->maps[i].path ? xstrdup(s->maps[i].path) :
		    NULL;
	}
	c->n = s->n;
	return c;
}

/* m, replaced: into the history (which takes its path), or freed. */
static void
retire(struct addr_space *s, struct addr_map m)
{
	if (!s->keep_history) {
		free(m.path);
		return;
	}
	if (s->nhistory == s->history_cap) {
		s->history_cap = s->history_cap ? 2 * s->history_cap : 16;
		s->history = xrealloc(s->history, s->history_cap *
		    sizeof *s->history);
	}
	s->history[s->nhistory++] = m;
}

void
addr_space_clear(struct addr_space *s)
{
	for (size_t i = 0; i < s->n; i++)
		retire(s, s->maps[i]);
	s->n = 0;
	s->generation++;
	if (s->jit_ops != NULL)
		s->jit_ops->exec(s->jit);
}

static int
same_map(const struct addr_map *a, uint64_t start, uint64_t end,
    uint64_t pgoff, int obj, const char *path)
{
	return a->start == start && a->end == end && a->pgoff == pgoff &&
	    a->obj == obj && (a->path == NULL ? path == NULL :
	    path != NULL && strcmp(a->path, path) == 0);
}

void
addr_space_map(struct addr_space *s, uint64_t start, uint64_t end,
    uint64_t pgoff, int obj, const char *path)
{
	const struct addr_map *there = addr_space_find(s, start);
	struct addr_map *out, m;
	size_t i, k = 0;

	if (there != NULL && same_map(there, start, end, pgoff, obj, path))
		return;		/* read again from /proc: nothing new */
	if (path != NULL && s->jit_ops != NULL)
		s->jit_ops->mapped(s->jit, path);
	m = (struct addr_map){ start, end, pgoff, obj,
	    path ? xstrdup(path) : NULL };
	out = xmalloc((s->n + 3) * sizeof *out);
	for (i = 0; i < s->n; i++) {
		struct addr_map old = s->maps[i];

		if (old.end <= start || old.start >= end) {
			out[k++] = old;
			continue;
		}
		/* the parts of old that m leaves, each with its own path */
		if (old.start < start) {
			out[k] = old;
			out[k].end = start;
			out[k++].path = old.path ? xstrdup(old.path) : NULL;
		}
		if (old.end > end) {
			out[k] = old;
			out[k].pgoff += end - old.start;
			out[k].start = end;
			out[k++].path = old.path ? xstrdup(old.path) : NULL;
		}
		retire(s, old);
	}
	/* keep it sorted: m in its place */
	for (i = 0; i < k && out[i].start < start; i++)
		;
	memmove(&out[i + 1], &out[i], (k - i) * sizeof *out);
	out[i] = m;
	free(s->maps);
	s->maps = out;
	s->n = k + 1;
	s->cap = k + 3;
	s->generation++;
}

const struct addr_map *
addr_space_find(const struct addr_space *s, uint64_t pc)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < s->maps[mid].start)
			hi = mid;
		else if (pc >= s->maps[mid].end)
			lo = mid + 1;
		else
			return &s->maps[mid];
	}
	return NULL;
}

const struct addr_map *
addr_space_find_ever(const struct addr_space *s, uint64_t pc)
{
	const struct addr_map *found = addr_space_find(s, pc);

	for (size_t i = 0; i < s->nhistory; i++) {
		const struct addr_map *m = &s->history[i];

		if (pc < m->start || pc >= m->end)
			continue;
		if (found != NULL && (found->obj != m->obj ||
		    found->start - found->pgoff != m->start - m->pgoff))
			return NULL;
		found = m;
	}
	return found;
}
