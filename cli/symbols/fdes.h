/*
 * fdes.h - the address ranges of an object's call-frame entries (FDEs
 * of .eh_frame and .debug_frame): in compiled code one per function,
 * which is how code no symbol covers is told apart and named.
 *
 * Not libdw's dwarf_cfi_addrframe: the range it gives is of one row of
 * the table (from one push or pop to the next), not of the entry, so a
 * stripped function was named once per row its samples fell in.  libdw
 * reads the sections' framing (dwarf_next_cfi); what it leaves to its
 * caller, the encoding of an entry's addresses that its CIE names, is
 * decoded here.
 */
#ifndef PROFIL_FDES_H
#define PROFIL_FDES_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct fde_range {
	uint64_t start, end;	/* link-time [start, end) */
};

struct fdes {
	struct fde_range *r;	/* sorted by start */
	size_t n;
};

/*
 * Add the entries of elf's .eh_frame and .debug_frame to f (which starts
 * zeroed), adding bias to their addresses, and sort f.  Entries whose
 * addresses are encoded in a way not decoded here are left out: their
 * code falls back on the caller's guess, never on a wrong range.
 */
void fdes_add(struct fdes *f, Elf *elf, uint64_t bias);

/* The entry holding addr: 0 and its range, or -1 if none does. */
int fdes_find(const struct fdes *f, uint64_t addr, uint64_t *start,
    uint64_t *end);

/*
 * Where the entries nearest addr end below it and start above it: *lo
 * the highest end at or below addr (0 if none), *hi the lowest start
 * above it (UINT64_MAX if none).  Code between holds no entry.
 */
void fdes_around(const struct fdes *f, uint64_t addr, uint64_t *lo,
    uint64_t *hi);

void fdes_free(struct fdes *f);

#endif
