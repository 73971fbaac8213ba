/*
 * symtab-lookup.c - addresses to functions (symbols.h): binary searches
 * of the table symtab-read.c made.  Code no symbol covers (a stripped
 * object, a static function of the vDSO) is named after the range of its
 * call-frame information (an .eh_frame FDE is one function), else after
 * the label before it, "OBJECT+0xSTART", added to the table at the first
 * lookup there.
 * Invariant: the table's ranges never overlap; a function made here is
 * clipped to the gap between its neighbours.
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fdes.h"
#include "sorted.h"
#include "symbols.h"
#include "symtab-internal.h"

/* The index of the last function starting at or before addr, plus one. */
static size_t
upper_index(const struct symtab *t, uint64_t addr)
{
	return sorted_upper(t->funcs, t->n, sizeof *t->funcs,
	    offsetof(struct func, start), addr);
}

/*
 * [start, end) of the call-frame information entry (FDE) holding addr,
 * from .eh_frame or .debug_frame (the object's or its debug file's); -1
 * if there is none.  Failing an entry fdes.c can decode, the row libdw
 * finds (a part of the function, but a part of one).
 */
static int
cfi_range(struct symtab *t, uint64_t addr, uint64_t *start,
    uint64_t *end)
{
	Dwarf_CFI *cfis[2];
	Dwarf_Addr bias[2] = { 0, 0 };

	if (!t->fdes_read) {
		Dwarf_Addr eb = 0, db = 0;
		Elf *elf = dwfl_module_getelf(t->mod, &eb), *debug;
		Dwarf *dw = dwfl_module_getdwarf(t->mod, &db);

		t->fdes_read = 1;
		if (elf != NULL)
			fdes_add(&t->fdes, elf, eb);
		if (dw != NULL && (debug = dwarf_getelf(dw)) != NULL &&
		    debug != elf)
			fdes_add(&t->fdes, debug, db);
	}
	if (fdes_find(&t->fdes, addr, start, end) == 0)
		return 0;
	cfis[0] = dwfl_module_eh_cfi(t->mod, &bias[0]);
	cfis[1] = dwfl_module_dwarf_cfi(t->mod, &bias[1]);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame;
		Dwarf_Addr s, e;
		bool signalp;

		if (cfis[i] == NULL ||
		    dwarf_cfi_addrframe(cfis[i], addr - bias[i], &frame) != 0)
			continue;
		if (dwarf_frame_info(frame, &s, &e, &signalp) < 0) {
			free(frame);
			continue;
		}
		free(frame);
		if (s + bias[i] <= addr && addr < e + bias[i]) {
			*start = s + bias[i];
			*end = e + bias[i];
			return 0;
		}
	}
	return -1;
}

/* The last label at or before addr, or NULL. */
static const struct label *
label_at_or_before(const struct symtab *t, uint64_t addr)
{
	size_t lo = sorted_upper(t->labels, t->nlabels, sizeof *t->labels,
	    offsetof(struct label, at), addr);

	/* the first of those at its address: a name before none (by_at) */
	while (lo > 1 && t->labels[lo - 2].at == t->labels[lo - 1].at)
		lo--;
	return lo > 0 ? &t->labels[lo - 1] : NULL;
}

/* The first label after addr's, or UINT64_MAX. */
static uint64_t
label_after(const struct symtab *t, uint64_t addr)
{
	size_t lo = sorted_upper(t->labels, t->nlabels, sizeof *t->labels,
	    offsetof(struct label, at), addr);

	return lo < t->nlabels ? t->labels[lo].at : UINT64_MAX;
}

/*
 * Code at addr that no function symbol covers, put in the table at
 * index at, clipped to the gap between its neighbours there: a function
 * made from its FDE (named by a label at its start, if one is there),
 * else one starting at the last label before it with no FDE between,
 * named by that label or "OBJECT+0xSTART", else the 256 bytes around
 * it, a guess (binding 3).
 */
static size_t
make_function(struct symtab *t, uint64_t addr, size_t at)
{
	uint64_t gap_lo = at > 0 ? t->funcs[at - 1].end : 0;
	uint64_t gap_hi = at < t->n ? t->funcs[at].start : UINT64_MAX;
	uint64_t start, end, lo, hi;
	const struct label *l;
	const char *label_name = NULL;
	char *name;
	int len, known = cfi_range(t, addr, &start, &end) == 0;

	if (known) {
		l = label_at_or_before(t, start);
		if (l != NULL && l->at == start)
			label_name = l->name;
	} else {
		/* no FDE between the label and addr, nor in what is made */
		fdes_around(&t->fdes, addr, &lo, &hi);
		if (lo < gap_lo)
			lo = gap_lo;
		if (hi > gap_hi)
			hi = gap_hi;
		l = label_at_or_before(t, addr);
		if (l != NULL && l->at >= lo) {
			start = l->at;
			label_name = l->name;
			end = label_after(t, addr);
			known = 1;
			if (end > hi)
				end = hi;
		} else {
			start = addr & ~(uint64_t)255;
			end = start + 256 > start ? start + 256 : UINT64_MAX;
			if (start < lo)
				start = lo;
			if (end > hi)
				end = hi;
		}
		if (end == UINT64_MAX)
			end = (addr | 255) + 1 > addr ? (addr | 255) + 1 : UINT64_MAX;
	}
	if (start < gap_lo)
		start = gap_lo;
	if (end > gap_hi)
		end = gap_hi;
	if (label_name != NULL) {
		name = xstrdup(label_name);
	} else {
		len = snprintf(NULL, 0, "%s+%#llx", t->base,
		    (unsigned long long)start);
		name = xmalloc((size_t)len + 1);
		snprintf(name, (size_t)len + 1, "%s+%#llx", t->base,
		    (unsigned long long)start);
	}
	keep_made(t, name);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->funcs = xrealloc(t->funcs, t->cap * sizeof *t->funcs);
	}
	memmove(&t->funcs[at + 1], &t->funcs[at], (t->n - at) * sizeof *t->funcs);
	/* binding 3: a made-up range, not known to be one function */
	t->funcs[at] = (struct func){ start, end, name, known ? 2 : 3 };
	t->n++;
	return at;
}

const char *
symtab_lookup(struct symtab *t, uint64_t addr, uint64_t *start,
    uint64_t *end)
{
	size_t i = upper_index(t, addr);

	/* i - 1 is the last function starting at or before addr */
	if (i == 0 || addr >= t->funcs[i - 1].end) {
		if (!t->usable || addr == UINT64_MAX)
			return NULL;
		i = make_function(t, addr, i) + 1;
	}
	*start = t->funcs[i - 1].start;
	*end = t->funcs[i - 1].end;
	return t->funcs[i - 1].name;
}

size_t
symtab_pieces(struct symtab *t, uint64_t lo, uint64_t hi,
    struct symtab_piece **out)
{
	struct symtab_piece *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t at = lo;

	while (at < hi) {
		uint64_t start, end;
		size_t i;
		const char *name = symtab_lookup(t, at, &start, &end);

		if (name == NULL)
			break;		/* an empty table */
		i = upper_index(t, at) - 1;
		if (t->funcs[i].binding == 3) {
			/*
			 * No symbol, no FDE: padding or unknown code.  Step on
			 * to the next known start, probing every 16 bytes
			 * (the usual function alignment) for an FDE.
			 */
			uint64_t next = i + 1 < t->n ? t->funcs[i + 1].start : hi;
			uint64_t step = (at | 15) + 1;

			at = step > at && step < next ? step : next;
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[n++] = (struct symtab_piece){ name, start, end,
		    (end < hi ? end : hi) - (start > lo ? start : lo) };
		if (end <= at)
			break;
		at = end;
	}
	*out = v;
	return n;
}
