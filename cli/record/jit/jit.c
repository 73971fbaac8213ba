/*
 * jit.c - generated code, named from the runtime's perf map and jitdump
 * files (jit.h): a process's code attached to its image, forgotten at
 * its exec, looked up by pc for the samples and the unwinder.  The
 * pieces and their index are jit-pieces.c's, the files' reading
 * jit-read.c's, the samples kept back jit-pending.c's, the names
 * jit-names.c's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "jit-internal.h"
#include "jit-names.h"
#include "jit.h"
#include "profil.h"
#include "record/core/addrspace.h"
#include "record/core/clock.h"
#include "record/core/fpmarks.h"
#include "record/core/procmaps.h"

/* Each piece with tables the unwinder was told of: a name of its own. */
static unsigned unwind_serial;

static void
mapped(struct jit_code *c, const char *path)
{
	if (procmaps_is_jitdump(path))
		jit_code_follow(c, path);
}

static const struct addr_space_jit_ops space_ops = {
	mapped, jit_code_exec, jit_code_free
};

void
jit_attach(struct addr_space *space, pid_t pid)
{
	struct jit_code *c;

	if (space->jit != NULL || jit_names_builder() == NULL)
		return;
	c = xcalloc(1, sizeof *c);
	c->pid = pid;
	c->space = space;
	snprintf(c->map_path, sizeof c->map_path, "/tmp/perf-%d.map", (int)pid);
	hmap_init(&c->pages);
	hmap_init(&c->pending_at);
	/* while it is there to ask: its files are judged by it, maybe later */
	jit_read_identity(c);
	space->jit = c;
	space->jit_ops = &space_ops;
}

static void
forget_code(struct jit_code *c)
{
	free(c->pieces);
	free(c->refs);
	hmap_free(&c->pages);
	hmap_init(&c->pages);
	c->pieces = NULL;
	c->refs = NULL;
	c->npieces = c->pieces_cap = c->nrefs = c->refs_cap = 0;
	jit_tables_free(&c->tables);
	free(c->wanted);
	c->wanted = NULL;
	c->nwanted = c->wanted_cap = 0;
	c->next_table = 0;
	c->unwind_generation++;
}

/* What was wrong with c's files and code, a line each, for jit_end. */
static void
say_problems(struct jit_code *c)
{
	unsigned long bad;

	if (c->map != NULL && (bad = perfmap_bad(c->map)) > 0)
		jit_say("%s: %lu malformed line%s skipped", c->map_path, bad,
		    bad == 1 ? "" : "s");
	if (c->refused > 0)
		jit_say("process %d: %lu piece%s of generated code refused (over "
		    "64 MiB, or past the end of memory)", (int)c->pid,
		    c->refused, c->refused == 1 ? "" : "s");
	if (c->over > 0)
		jit_say("process %d: over %zu pieces of generated code, or 64 "
		    "MiB of names: %lu not kept, its files read no further",
		    (int)c->pid, (size_t)PIECES_MAX, c->over);
	if (c->tables.dropped > 0)
		jit_say("process %d: the unwind tables of %lu piece%s of "
		    "generated code not kept (over 64 MiB of them)", (int)c->pid,
		    c->tables.dropped, c->tables.dropped == 1 ? "" : "s");
	for (size_t i = 0; i < c->ndumps; i++) {
		const char *why = jitdump_problem(c->dumps[i]);

		if (why != NULL && why[0] != '\0')
			jit_say("%s: %s", c->dump_paths[i], why);
		else if (why == NULL && (bad = jitdump_bad(c->dumps[i])) > 0)
			jit_say("%s: %lu malformed record%s skipped",
			    c->dump_paths[i], bad, bad == 1 ? "" : "s");
	}
}

void
jit_code_free(struct jit_code *c)
{
	if (c == NULL)
		return;
	jit_flush_pending(c);
	say_problems(c);
	for (size_t i = 0; i < c->ndumps; i++) {
		jitdump_close(c->dumps[i]);
		free(c->dump_paths[i]);
	}
	perfmap_close(c->map);
	forget_code(c);
	hmap_free(&c->pages);
	jit_pending_free(c);
	jit_forget_debug(c);
	free(c);
}

void
jit_code_exec(struct jit_code *c)
{
	if (c != NULL) {
		jit_flush_pending(c);
		forget_code(c);
		c->runtime = RUNTIME_UNKNOWN;	/* another program now */
		jit_read_identity(c);		/* a set-user-ID one, maybe */
	}
}

/* p was sampled and has tables: the unwinder is to have them. */
static void
want_tables(struct jit_code *c, const struct piece *p)
{
	struct piece *w = &c->pieces[p - c->pieces];

	if (c->nwanted == c->wanted_cap) {
		c->wanted_cap = c->wanted_cap ? 2 * c->wanted_cap : 64;
		c->wanted = xrealloc(c->wanted, c->wanted_cap * sizeof *c->wanted);
	}
	c->wanted[c->nwanted++] = (struct wanted){ (uint32_t)(p - c->pieces),
	    ++unwind_serial };
	w->wanted = 1;
	c->unwind_generation++;
}

unsigned
jit_code_unwind_generation(const struct jit_code *c)
{
	return c != NULL ? c->unwind_generation : 0;
}

size_t
jit_code_unwind_count(const struct jit_code *c)
{
	return c != NULL ? c->nwanted : 0;
}

int
jit_code_unwind(const struct jit_code *c, size_t i, struct jit_unwind *u)
{
	const struct piece *p = &c->pieces[c->wanted[i].piece];

	if (p->gone)
		return 0;
	u->start = p->start;
	u->size = p->end - p->start;
	u->piece = c->wanted[i].piece;
	u->serial = c->wanted[i].serial;
	return 1;
}

unsigned char *
jit_code_unwind_image(const struct jit_code *c, const struct jit_unwind *u,
    size_t *len)
{
	const struct piece *p = &c->pieces[u->piece];

	return jit_tables_image(&c->tables, p->table, p->end - p->start, len);
}

int
jit_code_locate(struct jit_code *c, uint64_t pc, int anon, struct bframe *f)
{
	const struct piece *p;

	if (c == NULL)
		return 0;
	/*
	 * A miss reads what is new; so does a hit once the files are
	 * followed: the code found may be old code whose addresses the
	 * runtime has since given to new code (V8 frees and reuses its code
	 * space: one run in two of bench/js/split.js had a fifth of hotB's
	 * samples named hotA, whose old code had been there).
	 */
	p = jit_piece_at(c, pc);
	if (anon && (p == NULL || c->map_read || c->ndumps > 0)) {
		uint64_t now = record_now_ns();

		if (now - c->read_ns >= JIT_READ_MS * 1000000ull) {
			c->read_ns = now;
			jit_read_files(c, 0, READ_BUDGET);
			p = jit_piece_at(c, pc);
		}
	}
	if (p == NULL)
		return 0;
	if (p->table != 0 && !p->wanted && c->nwanted < JIT_UNWIND_MAX)
		want_tables(c, p);
	*f = jit_names_frame(p->sym, pc - p->start);
	return 1;
}

int
jit_place(const struct addr_space *space, uint64_t pc, int ever,
    struct bframe *f)
{
	const struct addr_map *m = NULL;

	if (space != NULL)
		m = ever ? addr_space_find_ever(space, pc) :
		    addr_space_find(space, pc);
	if ((m == NULL || m->obj < 0) && space != NULL &&
	    jit_code_locate(space->jit, pc, m != NULL, f))
		return 1;	/* generated code its runtime named */
	if (m == NULL || m->obj < 0) {
		*f = (struct bframe){ BFRAME_UNKNOWN, pc };
		return 0;
	}
	*f = (struct bframe){ m->obj, pc - m->start + m->pgoff };
	return 1;
}

int
jit_code_any(const struct jit_code *c)
{
	return c != NULL && c->npieces > 0;
}

