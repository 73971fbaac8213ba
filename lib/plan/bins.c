/*
 * bins.c - where a counter range ends.  index(pc) < n exactly when
 * q * scale < n * 65536, i.e. q < m = ceil(n * 65536 / scale), so the last
 * counted pc is offset + m * g - 1 (g = 1 << granule_shift).
 */
#include "plan/bins.h"

int
bins_last_pc(uintptr_t offset, unsigned granule_shift, uint64_t scale,
    uint64_t ncounters, uintptr_t *lastpc)
{
	unsigned __int128 limit, m, last;

	if (ncounters == 0 || scale == 0 || granule_shift > 63)
		return -1;
	limit = (unsigned __int128)ncounters << 16;
	m = (limit + scale - 1) / scale;	/* >= 1 */
	last = (unsigned __int128)offset + (m << granule_shift) - 1;
	if (m >> 64 != 0 || last > UINTPTR_MAX)
		*lastpc = UINTPTR_MAX;
	else
		*lastpc = (uintptr_t)last;
	return 0;
}
