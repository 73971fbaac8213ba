/*
 * jit-pending.c - samples waiting for code named late (jit.h,
 * jit_code_defer), and what stayed unnamed.  A runtime may write its
 * files after running the code (V8 buffers its jitdump file; a JVM writes
 * its map at exit, or when told), so a sample with frames in generated
 * code not yet named waits until its process's image goes, for its files
 * read whole.  Invariant: samples with the same frames, process and
 * thread, kept back close together, are one entry (weights added), so
 * what is kept grows with the distinct stacks, not with the run's length,
 * and stays under JIT_PENDING_MAX entries and PENDING_FRAMES_MAX frames.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jit-internal.h"
#include "jit-names.h"
#include "jit.h"
#include "record/core/addrspace.h"
#include "record/core/clock.h"
#include "record/core/fpmarks.h"

/* Whether pc is in generated code: executable memory that is no file's. */
static int
in_generated(const struct jit_code *c, uint64_t pc)
{
	const struct addr_map *m = addr_space_find(c->space, pc);

	return m != NULL && m->obj < 0;
}

/* The sample's leaf in the process's own code: past a kernel frame. */
static size_t
user_leaf(const struct bframe *frames, size_t n)
{
	size_t k = 0;

	while (k + 1 < n && frames[k].obj == BFRAME_KERNEL)
		k++;
	return k;
}

static uint64_t
key_of(const struct bframe *frames, size_t n, pid_t pid, pid_t tid, int flat)
{
	uint64_t h = jit_names_hash(JIT_HASH_SEED, &pid, sizeof pid);

	h = jit_names_hash(h, &tid, sizeof tid);
	h = jit_names_hash(h, &flat, sizeof flat);
	for (size_t i = 0; i < n; i++) {
		h = jit_names_hash(h, &frames[i].obj, sizeof frames[i].obj);
		h = jit_names_hash(h, &frames[i].value, sizeof frames[i].value);
	}
	return h == UINT64_MAX ? 0 : h;		/* hmap's reserved key */
}

static int
same_sample(const struct jit_code *c, const struct pending *w,
    const struct bframe *frames, size_t n, pid_t pid, pid_t tid, int flat)
{
	if (w->n != n || w->pid != pid || w->tid != tid || w->flat != flat)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (c->pframes[w->first + i].obj != frames[i].obj ||
		    c->pframes[w->first + i].value != frames[i].value)
			return 0;
	return 1;
}

/* The runtime that made c's code, from the files the image maps. */
static enum jit_runtime
runtime_of(const struct addr_space *s)
{
	static const struct {
		const char *name;
		int whole;		/* the whole name, not its start */
		enum jit_runtime runtime;
	} known[] = {
		{ "libjvm.so", 0, RUNTIME_JVM }, { "libnode.so", 0, RUNTIME_NODE },
		{ "node", 1, RUNTIME_NODE }, { "nodejs", 1, RUNTIME_NODE },
		{ "libluajit", 0, RUNTIME_LUAJIT }, { "luajit", 0, RUNTIME_LUAJIT },
		{ "libpython3.", 0, RUNTIME_PYTHON },
		{ "python3.", 0, RUNTIME_PYTHON },
		{ "libcoreclr.so", 0, RUNTIME_DOTNET },
	};

	for (size_t i = 0; i < s->n; i++) {
		const char *base = s->maps[i].path != NULL ?
		    strrchr(s->maps[i].path, '/') : NULL;

		if (base == NULL)
			continue;
		base++;
		for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
			if (known[k].whole ? strcmp(base, known[k].name) == 0 :
			    strncmp(base, known[k].name,
			    strlen(known[k].name)) == 0)
				return known[k].runtime;
	}
	return RUNTIME_NONE;
}

int
jit_code_defer(struct jit_code *c, const struct bframe *frames, size_t n,
    uint64_t weight, pid_t pid, pid_t tid, int flat)
{
	size_t k, leaf;
	uint64_t h, at, now;
	struct pending *w;

	if (c == NULL || c->space == NULL)
		return 0;
	for (k = 0; k < n && !(frames[k].obj == BFRAME_UNKNOWN &&
	    in_generated(c, frames[k].value)); k++)
		;
	if (k == n)
		return 0;	/* nothing a runtime's file could name */
	if (c->runtime == RUNTIME_UNKNOWN)
		c->runtime = runtime_of(c->space);
	now = record_now_ns();
	h = key_of(frames, n, pid, tid, flat);
	at = hmap_get(&c->pending_at, h);
	w = at != 0 ? &c->pending[at - 1] : NULL;
	if (w != NULL && same_sample(c, w, frames, n, pid, tid, flat) &&
	    (now - w->kept_ns < PENDING_APART_NS ||
	    c->npending >= JIT_PENDING_MAX / 2)) {
		w->weight += weight;
		return 1;
	}
	if (c->npending >= JIT_PENDING_MAX ||
	    c->npframes + n > PENDING_FRAMES_MAX) {
		c->not_kept += weight;
		return 0;	/* handed over now, unnamed: said at the end */
	}
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
	leaf = user_leaf(frames, n);
	c->pending[c->npending++] = (struct pending){ h, c->npframes, n, weight,
	    now, pid, tid, (uint8_t)flat, (uint8_t)(frames[leaf].obj ==
	    BFRAME_UNKNOWN && in_generated(c, frames[leaf].value)) };
	c->npframes += n;
	/* the newest entry of its key, where the next one looks */
	hmap_add(&c->pending_at, h, (uint64_t)c->npending - at);
	return 1;
}

/* Why c's code stayed unnamed: which of jit-names.h's JIT_WHY_*. */
static int
why_unnamed(const struct jit_code *c)
{
	if (c->files_refused)
		return JIT_WHY_REFUSED;
	if (c->map_read || c->ndumps > 0)
		return JIT_WHY_MISSED;
	return JIT_WHY_NONE;
}

void
jit_flush_pending(struct jit_code *c)
{
	uint64_t unnamed = 0;

	if (c->not_kept > 0)
		jit_say("process %d: %llu samples in generated code not kept "
		    "for names to come (over %d distinct ones kept): unnamed",
		    (int)c->pid, (unsigned long long)c->not_kept,
		    JIT_PENDING_MAX);
	c->not_kept = 0;
	if (c->npending == 0)
		return;
	jit_read_files(c, 1, END_BUDGET);
	for (size_t i = 0; i < c->npending; i++) {
		const struct pending *w = &c->pending[i];
		struct bframe *f = &c->pframes[w->first];

		for (size_t k = 0; k < w->n; k++) {
			const struct piece *p;

			if (f[k].obj == BFRAME_UNKNOWN && (p = jit_piece_then(c,
			    f[k].value, w->kept_ns)) != NULL) {
				int fp = fpmarks_has(&f[k]);

				f[k] = jit_names_frame(p->sym,
				    f[k].value - p->start);
				if (fp)		/* its mark goes with its name */
					fpmarks_add(&f[k]);
			}
		}
		if (w->leaf_generated &&
		    f[user_leaf(f, w->n)].obj == BFRAME_UNKNOWN)
			unnamed += w->weight;
		if (!w->flat)
			/* when it was kept: within a drain of when taken */
			builder_sample_stack(jit_names_builder(), f, w->n,
			    w->weight, w->pid, w->tid, w->kept_ns);
		else if (f[0].obj >= 0)
			builder_sample(jit_names_builder(), f[0].obj, f[0].value,
			    w->weight, w->pid, w->tid);
		else
			builder_unknown(jit_names_builder(), w->weight, w->pid,
			    w->tid);
	}
	if (unnamed > 0)
		jit_names_unnamed(c->pid, (int)c->runtime, why_unnamed(c),
		    unnamed);
	c->npending = c->npframes = 0;
	hmap_free(&c->pending_at);
	hmap_init(&c->pending_at);
}

void
jit_pending_free(struct jit_code *c)
{
	free(c->pending);
	free(c->pframes);
	hmap_free(&c->pending_at);
	c->pending = NULL;
	c->pframes = NULL;
	c->npending = c->npframes = c->pending_cap = c->pframes_cap = 0;
}
