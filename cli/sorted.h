/*
 * sorted.h - where an address falls in a table sorted by address.
 *
 * The symbol tables, FDE ranges, kernel symbols, scopes and gmon's
 * function starts are each an array of structs sorted by a uint64_t
 * they hold (a start address); every lookup in them begins with the
 * same question, answered here once: how many elements start at or
 * before the address.  The element before that index is the last to
 * start at or before it (the candidate that may hold it); the element
 * at that index is the first to start after it.
 */
#ifndef PROFIL_CLI_SORTED_H
#define PROFIL_CLI_SORTED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Of the n elements of size bytes at base, in order of the uint64_t at
 * byte offset off in each (offsetof), how many have it at or below key:
 * the index of the first above key, n if none is.
 */
static inline size_t
sorted_upper(const void *base, size_t n, size_t size, size_t off,
    uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * size + off, sizeof k);
		if (key < k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

#endif
