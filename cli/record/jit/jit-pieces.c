/*
 * jit-pieces.c - a process's generated code as pieces (jit-internal.h),
 * the floor of the jit room: the files' readers (jit-read.c) add pieces,
 * the samples kept back (jit-pending.c) and the lookups (jit.c) find
 * them.
 *
 * A process's code is kept as every piece its runtime announced, in
 * order, with an index by 4 KiB page: each page lists the pieces over it,
 * newest first, so that the code at a pc is the newest piece holding it,
 * found in a few steps however many pieces there are (a Node.js service
 * announces tens of thousands, which a sorted table rebuilt on each
 * arrival, as addr_space is, would not bear).
 *
 * Invariant: a page's list holds every piece over the page, newest first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "jit-internal.h"
#include "jit-names.h"

const struct piece *
jit_piece_at(const struct jit_code *c, uint64_t pc)
{
	for (uint64_t r = hmap_get(&c->pages, pc >> PAGE_SHIFT); r != 0;
	    r = c->refs[r - 1].next) {
		const struct piece *p = &c->pieces[c->refs[r - 1].piece];

		if (pc >= p->start && pc < p->end)
			return p;
	}
	return NULL;
}

const struct piece *
jit_piece_then(const struct jit_code *c, uint64_t pc, uint64_t kept_ns)
{
	const struct piece *after = NULL;

	/* newest first: the first known before kept_ns is the one */
	for (uint64_t r = hmap_get(&c->pages, pc >> PAGE_SHIFT); r != 0;
	    r = c->refs[r - 1].next) {
		const struct piece *p = &c->pieces[c->refs[r - 1].piece];

		if (pc < p->start || pc >= p->end)
			continue;
		if (p->since <= kept_ns)
			return p;
		if (after == NULL || p->since < after->since)
			after = p;
	}
	return after;
}

/* Older pieces with tables the unwinder has, under [start, end): gone. */
static void
cover_wanted(struct jit_code *c, uint64_t start, uint64_t end)
{
	for (uint64_t pg = start >> PAGE_SHIFT; pg <= (end - 1) >> PAGE_SHIFT;
	    pg++)
		for (uint64_t r = hmap_get(&c->pages, pg); r != 0;
		    r = c->refs[r - 1].next) {
			struct piece *p = &c->pieces[c->refs[r - 1].piece];

			if (p->wanted && !p->gone && p->start < end &&
			    start < p->end) {
				p->gone = 1;
				c->unwind_generation++;
			}
		}
}

size_t
jit_add_piece(struct jit_code *c, uint64_t start, uint64_t size, const char *name,
    size_t len, const size_t *sym, uint32_t table, uint64_t since)
{
	const struct piece *there;
	struct piece *p;
	size_t range;
	uint64_t pages;

	if (size == 0 || size > PIECE_MAX || start + size < start) {
		c->refused++;
		return SIZE_MAX;
	}
	there = jit_piece_at(c, start);
	if (there != NULL && there->start == start &&
	    there->end == start + size && (sym != NULL ? there->sym == *sym :
	    jit_names_same(there->sym, name, len)))
		return SIZE_MAX;	/* a file read again: nothing new */
	pages = ((start + size - 1) >> PAGE_SHIFT) - (start >> PAGE_SHIFT) + 1;
	if (c->npieces >= PIECES_MAX || c->nrefs + pages > REFS_MAX ||
	    (range = sym != NULL ? *sym :
	    jit_names_range(size, name, len)) == SIZE_MAX) {
		c->over++;
		return SIZE_MAX;
	}
	if (c->nwanted > 0)
		cover_wanted(c, start, start + size);
	if (c->npieces == c->pieces_cap) {
		c->pieces_cap = c->pieces_cap ? 2 * c->pieces_cap : 64;
		c->pieces = xrealloc(c->pieces, c->pieces_cap * sizeof *c->pieces);
	}
	p = &c->pieces[c->npieces];
	memset(p, 0, sizeof *p);
	p->start = start;
	p->end = start + size;
	p->since = since;
	p->sym = range;
	p->table = table;
	for (uint64_t pg = start >> PAGE_SHIFT; pg <= (p->end - 1) >> PAGE_SHIFT;
	    pg++) {
		uint64_t head = hmap_get(&c->pages, pg);

		if (c->nrefs == c->refs_cap) {
			c->refs_cap = c->refs_cap ? 2 * c->refs_cap : 256;
			c->refs = xrealloc(c->refs, c->refs_cap * sizeof *c->refs);
		}
		c->refs[c->nrefs++] = (struct page_ref){ (uint32_t)c->npieces,
		    (uint32_t)head };
		/* the page's head, now this ref (hmap adds: the difference) */
		hmap_add(&c->pages, pg, (uint64_t)c->nrefs - head);
	}
	return c->pieces[c->npieces++].sym;
}
