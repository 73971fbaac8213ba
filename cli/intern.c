/*
 * intern.c - interned strings (intern.h): open addressing with linear
 * probing over the strings' numbers, grown at 50% load.  Invariant: a
 * string is in strs once, and its slot holds its number + 1.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "intern.h"

static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static void
rehash(struct intern *t)
{
	t->nslots = t->nslots ? t->nslots * 2 : 1024;
	free(t->slots);
	t->slots = xcalloc(t->nslots, sizeof *t->slots);
	for (size_t i = 0; i < t->n; i++) {
		size_t k = fnv1a(t->strs[i]) & (t->nslots - 1);

		while (t->slots[k] != 0)
			k = (k + 1) & (t->nslots - 1);
		t->slots[k] = i + 1;
	}
}

/* The slot of s: its own, or the empty one it would take. */
static size_t
slot_of(const struct intern *t, const char *s)
{
	size_t k = fnv1a(s) & (t->nslots - 1);

	while (t->slots[k] != 0 && strcmp(t->strs[t->slots[k] - 1], s) != 0)
		k = (k + 1) & (t->nslots - 1);
	return k;
}

size_t
intern_add(struct intern *t, const char *s, int *added)
{
	size_t k;

	if (2 * (t->n + 1) > t->nslots)
		rehash(t);
	k = slot_of(t, s);
	if (added != NULL)
		*added = t->slots[k] == 0;
	if (t->slots[k] != 0)
		return t->slots[k] - 1;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->strs = xrealloc(t->strs, t->cap * sizeof *t->strs);
	}
	t->strs[t->n] = xstrdup(s);
	t->slots[k] = ++t->n;
	return t->n - 1;
}

long
intern_find(const struct intern *t, const char *s)
{
	size_t k;

	if (t->nslots == 0)
		return -1;
	k = slot_of(t, s);
	return t->slots[k] != 0 ? (long)t->slots[k] - 1 : -1;
}

void
intern_free(struct intern *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	memset(t, 0, sizeof *t);
}
