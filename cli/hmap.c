/*
 * hmap.c - open addressing with linear probing, grown at 50% load.
 * Invariant: the table never holds EMPTY as a key; that key's count
 * lives beside it (has_max, max_value).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"

#define EMPTY UINT64_MAX

static size_t
slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

void
hmap_init(struct hmap *m)
{
	memset(m, 0, sizeof *m);
}

void
hmap_free(struct hmap *m)
{
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof *m);
}

static void
grow(struct hmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i;
	uint64_t *keys = xmalloc(cap * sizeof *keys);
	uint64_t *values = xcalloc(cap, sizeof *values);

	memset(keys, 0xff, cap * sizeof *keys);
	for (i = 0; i < m->cap; i++) {
		if (m->keys[i] == EMPTY)
			continue;
		size_t s = slot_of(m->keys[i], cap);
		while (keys[s] != EMPTY)
			s = (s + 1) & (cap - 1);
		keys[s] = m->keys[i];
		values[s] = m->values[i];
	}
	free(m->keys);
	free(m->values);
	m->keys = keys;
	m->values = values;
	m->cap = cap;
}

void
hmap_add(struct hmap *m, uint64_t key, uint64_t v)
{
	size_t s;

	if (key == EMPTY) {	/* (a pc or address a program chose) */
		m->has_max = 1;
		m->max_value += v;
		return;
	}
	if (2 * (m->len + 1) > m->cap)
		grow(m);
	s = slot_of(key, m->cap);
	while (m->keys[s] != EMPTY && m->keys[s] != key)
		s = (s + 1) & (m->cap - 1);
	if (m->keys[s] == EMPTY) {
		m->keys[s] = key;
		m->len++;
	}
	m->values[s] += v;
}

uint64_t
hmap_get(const struct hmap *m, uint64_t key)
{
	size_t s;

	if (key == EMPTY)
		return m->has_max ? m->max_value : 0;
	if (m->cap == 0)
		return 0;
	s = slot_of(key, m->cap);
	while (m->keys[s] != EMPTY) {
		if (m->keys[s] == key)
			return m->values[s];
		s = (s + 1) & (m->cap - 1);
	}
	return 0;
}

static int
by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t *
hmap_sorted_keys(const struct hmap *m, size_t *n)
{
	uint64_t *keys = xmalloc((m->len + 1) * sizeof *keys);
	size_t i, k = 0;

	for (i = 0; i < m->cap; i++)
		if (m->keys[i] != EMPTY)
			keys[k++] = m->keys[i];
	qsort(keys, k, sizeof *keys, by_value);
	if (m->has_max)
		keys[k++] = EMPTY;	/* the largest */
	*n = k;
	return keys;
}
