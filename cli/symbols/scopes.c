/*
 * scopes.c - inlined subroutines by address (scopes.h).  A unit is
 * indexed once: the address ranges of its top-level entries (functions),
 * sorted; a lookup is a binary search, then a walk down that one
 * function's scopes.  Invariant: a unit's ranges are sorted by start and
 * maxend[i] is the largest end among ranges 0..i, which bounds the walk
 * back over ranges that overlap (valid DWARF has none).
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "scopes.h"
#include "sorted.h"

#define IMPORT_DEPTH 8		/* units importing units, at most */
#define SCOPE_DEPTH 256		/* nested scopes in a function, at most */

struct range {
	Dwarf_Addr lo, hi;
	Dwarf_Addr maxend;
	Dwarf_Off order;	/* the entry's place in the unit */
	Dwarf_Die die;
};

struct unit {
	const void *key;	/* the unit DIE's address in its section */
	struct range *v;
	size_t n, cap;
};

struct scope_index {
	struct unit *units;	/* sorted by key */
	size_t n;
};

struct scope_index *
scopes_new(void)
{
	return xcalloc(1, sizeof(struct scope_index));
}

void
scopes_free(struct scope_index *x)
{
	if (x == NULL)
		return;
	for (size_t i = 0; i < x->n; i++)
		free(x->units[i].v);
	free(x->units);
	free(x);
}

static int
by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* The ranges of parent's children into u; an imported unit's children
   count as parent's, as dwarf_getscopes has them. */
static void
add_children(struct unit *u, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child) != 0)
		return;
	do {
		Dwarf_Attribute attr;
		Dwarf_Die imported;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;

		if (dwarf_tag(&child) == DW_TAG_imported_unit) {
			if (depth < IMPORT_DEPTH && dwarf_formref_die(dwarf_attr(
			    &child, DW_AT_import, &attr), &imported) != NULL)
				add_children(u, &imported, depth + 1);
			continue;
		}
		while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (u->n == u->cap) {
				u->cap = u->cap ? 2 * u->cap : 64;
				u->v = xrealloc(u->v, u->cap * sizeof *u->v);
			}
			u->v[u->n] = (struct range){ lo, hi, 0, u->n, child };
			u->n++;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static struct unit *
unit_of(struct scope_index *x, Dwarf_Die *cu)
{
	size_t lo = 0, hi = x->n;
	struct unit *u;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((const char *)x->units[mid].key < (const char *)cu->addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < x->n && x->units[lo].key == cu->addr)
		return &x->units[lo];
	x->units = xrealloc(x->units, (x->n + 1) * sizeof *x->units);
	memmove(&x->units[lo + 1], &x->units[lo], (x->n - lo) * sizeof *x->units);
	x->n++;
	u = &x->units[lo];
	memset(u, 0, sizeof *u);
	u->key = cu->addr;
	add_children(u, cu, 0);
	if (u->n > 1)		/* a unit without scopes has no array at all */
		qsort(u->v, u->n, sizeof *u->v, by_start);
	for (size_t i = 0; i < u->n; i++)
		u->v[i].maxend = i > 0 && u->v[i - 1].maxend > u->v[i].hi ?
		    u->v[i - 1].maxend : u->v[i].hi;
	return u;
}

/* Tags whose entries may hold scopes (libdw's own list). */
static int
may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
		return 1;
	}
	return 0;
}

size_t
scopes_inlined(struct scope_index *x, Dwarf_Die *cu, Dwarf_Addr pc,
    Dwarf_Die *out, size_t max)
{
	struct unit *u = unit_of(x, cu);
	const struct range *first = NULL;
	Dwarf_Die chain[SCOPE_DEPTH], at, child;
	size_t lo = sorted_upper(u->v, u->n, sizeof *u->v,
	    offsetof(struct range, lo), pc), n = 0;

	/* the last range starting at or before pc, then back over overlaps
	   for the entry that comes first in the unit */
	for (size_t i = lo; i-- > 0 && u->v[i].maxend > pc;)
		if (pc < u->v[i].hi && (first == NULL || u->v[i].order < first->order))
			first = &u->v[i];
	if (first == NULL)
		return 0;
	/* down the scopes that hold pc: at each level the first that does */
	at = first->die;
	for (int depth = 0; depth < SCOPE_DEPTH; depth++) {
		int tag = dwarf_tag(&at);

		if (tag == DW_TAG_inlined_subroutine)
			chain[n++] = at;
		if (!may_have_scopes(tag) || dwarf_child(&at, &child) != 0)
			break;
		while (dwarf_haspc(&child, pc) <= 0)
			if (dwarf_siblingof(&child, &child) != 0)
				goto found;
		at = child;
	}
found:
	for (size_t k = 0; k < n && k < max; k++)
		out[k] = chain[n - 1 - k];
	return n < max ? n : max;
}
