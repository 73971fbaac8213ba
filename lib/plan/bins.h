/*
 * bins.h - pc to counter index arithmetic, exact for every 64-bit pc.
 *
 *   pc:    offset        offset+g      offset+2g              lastpc
 *          |<---- g ---->|<---- g ---->|  ...                 |
 *   q     =  (pc - offset) >> granule_shift      g = 1 << granule_shift
 *   index =  (q * scale) >> 16                   (128-bit product)
 *
 * Classic profil() and sprofil(PROF_USHORT) use g = 2; sprofil(PROF_UINT)
 * uses g = 4.  scale 0x10000 gives one counter per granule, 0x8000 one per
 * two granules, 2 one per 32768 granules.  A pc below offset has no index.
 */
#ifndef PROFIL_BINS_H
#define PROFIL_BINS_H

#include <stdint.h>

#define BINS_NONE UINT64_MAX	/* no counter: pc < offset, or beyond 2^64 */

static inline uint64_t
bins_index(uintptr_t pc, uintptr_t offset, unsigned granule_shift,
    uint64_t scale)
{
	unsigned __int128 product;

	if (pc < offset)
		return BINS_NONE;
	product = (unsigned __int128)((pc - offset) >> granule_shift) * scale;
	product >>= 16;
	return product >= BINS_NONE ? BINS_NONE : (uint64_t)product;
}

/*
 * The largest pc whose index is below ncounters, in *lastpc.  Returns 0,
 * or -1 if no pc has such an index (ncounters or scale is 0).  The result
 * is clamped to UINTPTR_MAX when the range reaches the top of memory.
 */
int bins_last_pc(uintptr_t offset, unsigned granule_shift, uint64_t scale,
    uint64_t ncounters, uintptr_t *lastpc);

#endif
