/*
 * hmap.h - an open-addressing hash map from uint64 keys to uint64 counts,
 * for histograms built while samples arrive.  Every key may be used:
 * UINT64_MAX, which marks the table's empty slots, is kept beside it.
 */
#ifndef PROFIL_HMAP_H
#define PROFIL_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap {
	uint64_t *keys, *values;
	size_t cap, len;		/* len: keys in the table */
	int has_max;			/* key UINT64_MAX, outside it: */
	uint64_t max_value;		/*   its count */
};

void hmap_init(struct hmap *m);
void hmap_free(struct hmap *m);
/* Add v to the count of key (creating it at 0). */
void hmap_add(struct hmap *m, uint64_t key, uint64_t v);
/* The count of key, or 0. */
uint64_t hmap_get(const struct hmap *m, uint64_t key);
/* Keys in ascending order, malloc'd; *n receives their number. */
uint64_t *hmap_sorted_keys(const struct hmap *m, size_t *n);

#endif
