/*
 * scopes.h - the inlined subroutines around an address, found through an
 * index of each compile unit's top-level scopes instead of a walk of the
 * whole unit per address (dwarf_getscopes): a unit of 6,000 functions
 * made naming 3,000 stack frames take seconds.
 */
#ifndef PROFIL_SYMBOLS_SCOPES_H
#define PROFIL_SYMBOLS_SCOPES_H

#include <elfutils/libdw.h>
#include <stddef.h>

struct scope_index;

/* An empty index (units are indexed at their first lookup). */
struct scope_index *scopes_new(void);
void scopes_free(struct scope_index *x);

/*
 * The DW_TAG_inlined_subroutine entries whose ranges hold pc in unit cu
 * (cu's own addresses, without bias), innermost first, into out (at most
 * max); returns how many (0: pc is in no inlined code, or cu has no
 * scope there).  The scopes searched are dwarf_getscopes' (units
 * imported into cu included), each level's first that holds pc.
 */
size_t scopes_inlined(struct scope_index *x, Dwarf_Die *cu, Dwarf_Addr pc,
    Dwarf_Die *out, size_t max);

#endif
