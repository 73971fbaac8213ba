/*
 * jit.c - generated code, named from the runtime's perf map and jitdump
 * files (jit.h).
 *
 * A process's code is kept as every piece its runtime announced, in
 * order, with an index by 4 KiB page: each page lists the pieces over it,
 * newest first, so that the code at a pc is the newest piece holding it,
 * found in a few steps however many pieces there are (a Node.js service
 * announces tens of thousands, which a sorted table rebuilt on each
 * arrival, as addr_space is, would not bear).
 * Their names are jit-names.c's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "addrspace.h"
#include "cli.h"
#include "fpmarks.h"
#include "hmap.h"
#include "jit-names.h"
#include "jit-tables.h"
#include "jit.h"
#include "jitdump.h"
#include "perfmap.h"
#include "profil.h"

#define PAGE_SHIFT	12
/* A piece bigger than this is refused (a bad size would index 2^40 pages). */
#define PIECE_MAX	((uint64_t)64 << 20)
#define DUMPS_MAX	8		/* jitdump files followed per process */

struct piece {
	uint64_t start, end;		/* where the runtime put it */
	size_t sym;			/* its name and [jit] range */
	uint32_t table;			/* its unwind tables (jit-tables.h) */
	uint8_t wanted;			/* the unwinder was told of them */
	uint8_t gone;			/* newer code lies over part of it */
};

struct page_ref {
	uint32_t piece, next;		/* next: 1 + the older ref, or 0 */
};

struct jit_code {
	pid_t pid;
	char map_path[64];
	struct perfmap_file *map;
	struct stat map_seen;		/* the map file as last judged */
	int map_judged, map_ok;
	struct jitdump_file *dumps[DUMPS_MAX];
	char *dump_paths[DUMPS_MAX];
	size_t ndumps;
	struct piece *pieces;
	size_t npieces, pieces_cap;
	struct page_ref *refs;
	size_t nrefs, refs_cap;
	struct hmap pages;		/* page -> 1 + its newest ref */
	uint64_t read_ns;		/* the files were last read then */
	unsigned long refused;		/* pieces too big or wrapping */
	/* samples waiting for the files (jit_code_defer): frames in pframes */
	struct pending {
		size_t first, n;
		uint64_t weight;
		pid_t pid, tid;
		int flat;
	} *pending;
	size_t npending, pending_cap;
	struct bframe *pframes;
	size_t npframes, pframes_cap;
	/* the last DEBUG_INFO, for the CODE_LOAD at its address after it */
	uint64_t debug_addr;
	struct jitdump_line *debug;
	size_t ndebug;
	char *debug_files;		/* their file names, one after another */
	/* the last UNWINDING_INFO's tables, for the CODE_LOAD after it */
	uint32_t next_table;
	struct jit_tables tables;
	/* the pieces with tables that were sampled (jit_code_unwind) */
	struct wanted {
		uint32_t piece;
		unsigned serial;	/* its name to the unwinder */
	} *wanted;
	size_t nwanted, wanted_cap;
	unsigned unwind_generation;
};

/* Each piece with tables the unwinder was told of: a name of its own. */
static unsigned unwind_serial;

static void
mapped(struct jit_code *c, const char *path)
{
	if (jit_dump_path(path))
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
	snprintf(c->map_path, sizeof c->map_path, "/tmp/perf-%d.map", (int)pid);
	hmap_init(&c->pages);
	space->jit = c;
	space->jit_ops = &space_ops;
}

static void flush_pending(struct jit_code *c);
static void forget_debug(struct jit_code *c);

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

void
jit_code_free(struct jit_code *c)
{
	unsigned long bad;

	if (c == NULL)
		return;
	flush_pending(c);
	if (c->map != NULL && (bad = perfmap_bad(c->map)) > 0)
		jit_say("%s: %lu malformed line%s skipped", c->map_path, bad,
		    bad == 1 ? "" : "s");
	if (c->refused > 0)
		jit_say("process %d: %lu piece%s of generated code refused (over "
		    "64 MiB, or past the end of memory)", (int)c->pid,
		    c->refused, c->refused == 1 ? "" : "s");
	if (c->tables.dropped > 0)
		jit_say("process %d: the unwind tables of %lu piece%s of "
		    "generated code not kept (over 64 MiB of them)", (int)c->pid,
		    c->tables.dropped, c->tables.dropped == 1 ? "" : "s");
	for (size_t i = 0; i < c->ndumps; i++) {
		const char *why = jitdump_problem(c->dumps[i]);

		if (why != NULL)
			jit_say("%s: %s", c->dump_paths[i], why);
		else if ((bad = jitdump_bad(c->dumps[i])) > 0)
			jit_say("%s: %lu malformed record%s skipped",
			    c->dump_paths[i], bad, bad == 1 ? "" : "s");
		jitdump_close(c->dumps[i]);
		free(c->dump_paths[i]);
	}
	perfmap_close(c->map);
	forget_code(c);
	hmap_free(&c->pages);
	free(c->pending);
	free(c->pframes);
	forget_debug(c);
	free(c);
}

void
jit_code_exec(struct jit_code *c)
{
	if (c != NULL) {
		flush_pending(c);
		forget_code(c);
	}
}

void
jit_code_follow(struct jit_code *c, const char *path)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->ndumps; i++)
		if (strcmp(c->dump_paths[i], path) == 0)
			return;
	if (c->ndumps == DUMPS_MAX)
		return;
	c->dump_paths[c->ndumps] = xstrdup(path);
	c->dumps[c->ndumps++] = jitdump_open(path);
	c->read_ns = 0;		/* look at it at the next miss */
}

/* ---- pieces ------------------------------------------------------------- */

/* The newest piece holding pc, or NULL. */
static const struct piece *
piece_at(const struct jit_code *c, uint64_t pc)
{
	for (uint64_t r = hmap_get(&c->pages, pc >> PAGE_SHIFT); r != 0;
	    r = c->refs[r - 1].next) {
		const struct piece *p = &c->pieces[c->refs[r - 1].piece];

		if (pc >= p->start && pc < p->end)
			return p;
	}
	return NULL;
}

/*
 * Code [start, start + size) at the process's addresses, named name (a
 * new range) or, with sym, the code of that range moved there.  Returns
 * its range, or SIZE_MAX if it was refused or known already.
 */
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

static size_t
add_piece(struct jit_code *c, uint64_t start, uint64_t size, const char *name,
    size_t len, const size_t *sym, uint32_t table)
{
	const struct piece *there;
	struct piece *p;

	if (size == 0 || size > PIECE_MAX || start + size < start ||
	    c->npieces >= UINT32_MAX - 1) {
		c->refused++;
		return SIZE_MAX;
	}
	there = piece_at(c, start);
	if (there != NULL && there->start == start &&
	    there->end == start + size && (sym != NULL ? there->sym == *sym :
	    jit_names_same(there->sym, name, len)))
		return SIZE_MAX;	/* a file read again: nothing new */
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
	p->sym = sym != NULL ? *sym : jit_names_range(size, name, len);
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

/* ---- the files ---------------------------------------------------------- */

static void
map_entry(const struct perfmap_entry *e, void *arg)
{
	(void)add_piece(arg, e->start, e->size, e->name, e->name_len, NULL, 0);
}

static void
forget_debug(struct jit_code *c)
{
	free(c->debug);
	free(c->debug_files);
	c->debug = NULL;
	c->debug_files = NULL;
	c->ndebug = 0;
}

static void
dump_load(const struct jitdump_load *l, void *arg)
{
	struct jit_code *c = arg;
	size_t range = add_piece(c, l->code_addr, l->code_size, l->name,
	    strlen(l->name), NULL, c->next_table);

	/* its lines come before it (perf's jitdump specification) */
	if (range != SIZE_MAX && c->ndebug > 0 && c->debug_addr == l->code_addr)
		jit_names_lines(range, l->code_addr, l->code_size, c->debug,
		    c->ndebug);
	forget_debug(c);
	c->next_table = 0;
}

/* An UNWINDING_INFO: its tables, for the CODE_LOAD after it. */
static void
dump_unwind(const struct jitdump_unwind *u, void *arg)
{
	struct jit_code *c = arg;

	c->next_table = jit_tables_keep(&c->tables, u);
}

/* A DEBUG_INFO: kept (its strings copied) for the CODE_LOAD after it. */
static void
dump_debug(const struct jitdump_debug *d, void *arg)
{
	struct jit_code *c = arg;
	size_t bytes = 0;
	char *at;

	forget_debug(c);
	for (size_t i = 0; i < d->n; i++)
		bytes += strlen(d->lines[i].file) + 1;
	c->debug = xcalloc(d->n + 1, sizeof *c->debug);
	c->debug_files = at = xmalloc(bytes + 1);
	for (size_t i = 0; i < d->n; i++) {
		size_t len = strlen(d->lines[i].file) + 1;

		c->debug[i] = d->lines[i];
		c->debug[i].file = memcpy(at, d->lines[i].file, len);
		at += len;
	}
	c->ndebug = d->n;
	c->debug_addr = d->code_addr;
}

static void
dump_move(const struct jitdump_move *m, void *arg)
{
	struct jit_code *c = arg;
	const struct piece *from = piece_at(c, m->old_code_addr);

	/* the tables are relative to the code: they move with it */
	if (from != NULL && from->start == m->old_code_addr) {
		size_t sym = from->sym;

		(void)add_piece(c, m->new_code_addr, m->code_size, NULL, 0,
		    &sym, from->table);
	}
}

/* The start of process pid, in seconds since the epoch, or 0. */
static double
process_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks = 0, btime = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	p = fgets(buf, sizeof buf, f);
	fclose(f);
	/* after the command's ")": state is field 3, starttime field 22 */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
	    "%*s %*s %*s %*s %*s %*s %*s %llu", &ticks) != 1)
		return 0;
	if ((f = fopen("/proc/stat", "re")) == NULL)
		return 0;
	while (fgets(buf, sizeof buf, f) != NULL)
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	return btime == 0 ? 0 : (double)btime + (double)ticks /
	    (double)sysconf(_SC_CLK_TCK);
}

/*
 * Whether the map file st is the process's own: /tmp is everyone's, and
 * a pid comes back; a map its owner did not write, or last wrote before
 * the process began, belongs to another (said once a file).
 */
static int
map_is_ours(struct jit_code *c, const struct stat *st)
{
	char path[64];
	struct stat proc;
	double start;

	snprintf(path, sizeof path, "/proc/%d", (int)c->pid);
	if (stat(path, &proc) == 0 && proc.st_uid != st->st_uid) {
		jit_say("%s: not written by process %d's user: not read",
		    c->map_path, (int)c->pid);
		return 0;
	}
	start = process_start(c->pid);
	/* a second's slack: file times and the boot time are coarse */
	if (start > 0 && (double)st->st_mtim.tv_sec + 1 < start) {
		jit_say("%s: older than process %d (left by an earlier process "
		    "with its pid): not read", c->map_path, (int)c->pid);
		return 0;
	}
	return 1;
}

static uint64_t
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * What was added to the process's files since they were last read
 * (at_end: the writer is done, a last line without its newline counts).
 */
static void
read_files(struct jit_code *c, int at_end)
{
	static const struct jitdump_ops ops = { dump_load, dump_move,
	    dump_debug, dump_unwind, NULL };
	struct stat st;

	if (stat(c->map_path, &st) == 0) {
		if (!c->map_judged || st.st_ino != c->map_seen.st_ino ||
		    st.st_dev != c->map_seen.st_dev) {
			c->map_judged = 1;
			c->map_seen = st;
			c->map_ok = map_is_ours(c, &st);
		}
		if (c->map_ok) {
			if (c->map == NULL)
				c->map = perfmap_open(c->map_path);
			perfmap_read(c->map, at_end, map_entry, c);
		}
	}
	for (size_t i = 0; i < c->ndumps; i++)
		jitdump_read(c->dumps[i], &ops, c);
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
	p = piece_at(c, pc);
	if (anon && (p == NULL || c->map != NULL || c->ndumps > 0)) {
		uint64_t now = now_ns();

		if (now - c->read_ns >= JIT_READ_MS * 1000000ull) {
			c->read_ns = now;
			read_files(c, 0);
			p = piece_at(c, pc);
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
jit_code_defer(struct jit_code *c, const struct bframe *frames, size_t n,
    uint64_t weight, pid_t pid, pid_t tid, int flat)
{
	size_t k;

	if (c == NULL || (c->map == NULL && c->ndumps == 0) ||
	    c->npending >= JIT_PENDING_MAX)
		return 0;
	for (k = 0; k < n && frames[k].obj != BFRAME_UNKNOWN; k++)
		;
	if (k == n)
		return 0;
	if (c->npending == c->pending_cap) {
		c->pending_cap = c->pending_cap ? 2 * c->pending_cap : 64;
		c->pending = xrealloc(c->pending, c->pending_cap *
		    sizeof *c->pending);
	}
	while (c->npframes + n > c->pframes_cap) {
		c->pframes_cap = c->pframes_cap ? 2 * c->pframes_cap : 1024;
		c->pframes = xrealloc(c->pframes, c->pframes_cap *
		    sizeof *c->pframes);
	}
	memcpy(&c->pframes[c->npframes], frames, n * sizeof *frames);
	c->pending[c->npending++] = (struct pending){ c->npframes, n, weight,
	    pid, tid, flat };
	c->npframes += n;
	return 1;
}

/* The waiting samples, named from the files read whole, to the builder. */
static void
flush_pending(struct jit_code *c)
{
	if (c->npending == 0)
		return;
	read_files(c, 1);
	for (size_t i = 0; i < c->npending; i++) {
		const struct pending *w = &c->pending[i];
		struct bframe *f = &c->pframes[w->first];

		for (size_t k = 0; k < w->n; k++) {
			const struct piece *p;

			if (f[k].obj == BFRAME_UNKNOWN &&
			    (p = piece_at(c, f[k].value)) != NULL) {
				int fp = fpmarks_has(&f[k]);

				f[k] = jit_names_frame(p->sym,
				    f[k].value - p->start);
				if (fp)		/* its mark goes with its name */
					fpmarks_add(&f[k]);
			}
		}
		if (!w->flat)
			builder_sample_stack(jit_names_builder(), f, w->n, w->weight, w->pid,
			    w->tid);
		else if (f[0].obj >= 0)
			builder_sample(jit_names_builder(), f[0].obj, f[0].value, w->weight,
			    w->pid, w->tid);
		else
			builder_unknown(jit_names_builder(), w->weight, w->pid, w->tid);
	}
	c->npending = c->npframes = 0;
}

int
jit_code_any(const struct jit_code *c)
{
	return c != NULL && c->npieces > 0;
}

