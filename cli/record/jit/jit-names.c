/*
 * jit-names.c - the recording's names of generated code (jit-names.h):
 * the [jit] object, a made-up range per name, and what the files had
 * wrong, until they go into the profile (jit_end).
 *
 * Invariant: the made-up [jit] ranges never overlap, and each is one
 * name's (the pieces of code a runtime gave that name: a function
 * compiled again, code that moved), so the profile's names cannot clash
 * however the runtime reused its addresses.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "jit-names.h"
#include "jit.h"
#include "jitdump.h"
#include "profil.h"

struct sym {
	uint64_t start, end;		/* the made-up range */
	char *name;
};

static struct {
	struct builder *b;
	int obj;			/* the [jit] object, or -1 */
	uint64_t next;			/* the next range's start */
	struct sym *syms;
	size_t nsyms, syms_cap;
	struct hmap by_name;		/* name's hash -> 1 + its range */
	char **said;			/* problems, a line each */
	size_t nsaid;
	/* source lines (jitdump's DEBUG_INFO), by range and offset */
	struct jline {
		size_t range;
		uint64_t offset;
		uint32_t file, line;
	} *lines;
	size_t nlines, lines_cap;
	char **files;			/* interned */
	size_t nfiles;
	struct hmap file_index;		/* name's hash -> 1 + index */
	size_t name_bytes;		/* of syms' names, JIT_NAMES_BYTES at most */
	/* samples in generated code left unnamed, by runtime and why */
	struct unnamed {
		uint64_t weight;
		size_t processes;
		pid_t first;
	} unnamed[RUNTIME_N][JIT_WHY_N];
} jit = { .obj = -1 };

void
jit_say(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	jit.said = xrealloc(jit.said, (jit.nsaid + 1) * sizeof *jit.said);
	jit.said[jit.nsaid++] = xstrdup(line);
}

void
jit_begin(struct builder *b)
{
	jit.b = b;
	jit.obj = -1;
	jit.next = 0x10000;		/* no code at 0: a frame's pc - 1 */
	hmap_init(&jit.by_name);
	hmap_init(&jit.file_index);
}

struct bframe
jit_names_frame(size_t range, uint64_t offset)
{
	if (jit.obj < 0)
		jit.obj = builder_object(jit.b, PROFIL_JIT_OBJECT, NULL, 0);
	return (struct bframe){ jit.obj, jit.syms[range].start + offset };
}

uint64_t
jit_names_hash(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t
name_hash(const char *name, size_t len)
{
	uint64_t h = jit_names_hash(JIT_HASH_SEED, name, len);

	return h == UINT64_MAX ? 0 : h;		/* hmap's reserved key */
}

/* A range is this big at least: V8's next version of a function fits. */
#define SYM_MIN	4096

size_t
jit_names_range(uint64_t size, const char *name, size_t len)
{
	uint64_t h = name_hash(name, len), at = hmap_get(&jit.by_name, h);
	struct sym *s;

	if (at != 0) {
		s = &jit.syms[at - 1];
		if (s->end - s->start >= size && strlen(s->name) == len &&
		    memcmp(s->name, name, len) == 0)
			return (size_t)at - 1;
	}
	if (size < SYM_MIN)
		size = SYM_MIN;
	if (len + 1 > JIT_NAMES_BYTES - jit.name_bytes)
		return SIZE_MAX;	/* a runtime's files are not to fill memory */
	jit.name_bytes += len + 1;

	if (jit.nsyms == jit.syms_cap) {
		jit.syms_cap = jit.syms_cap ? 2 * jit.syms_cap : 256;
		jit.syms = xrealloc(jit.syms, jit.syms_cap * sizeof *jit.syms);
	}
	s = &jit.syms[jit.nsyms];
	s->start = jit.next;
	s->end = jit.next + size;
	s->name = xmalloc(len + 1);
	memcpy(s->name, name, len);
	s->name[len] = '\0';
	/* apart, and 16-aligned as code is */
	jit.next = (s->end + 16) & ~(uint64_t)15;
	/* (a name whose hash another has, kept apart: it is rare) */
	if (at == 0 || strcmp(jit.syms[at - 1].name, s->name) == 0)
		hmap_add(&jit.by_name, h, jit.nsyms + 1 - at);
	return jit.nsyms++;
}

/* The index of file in jit.files, interned. */
static uint32_t
file_of(const char *file)
{
	uint64_t h = name_hash(file, strlen(file));
	uint64_t at = hmap_get(&jit.file_index, h);

	if (at != 0 && strcmp(jit.files[at - 1], file) == 0)
		return (uint32_t)(at - 1);
	for (size_t i = 0; i < jit.nfiles; i++)	/* a hash two names share */
		if (strcmp(jit.files[i], file) == 0)
			return (uint32_t)i;
	jit.files = xrealloc(jit.files, (jit.nfiles + 1) * sizeof *jit.files);
	jit.files[jit.nfiles] = xstrdup(file);
	if (at == 0)
		hmap_add(&jit.file_index, h, jit.nfiles + 1);
	return (uint32_t)jit.nfiles++;
}

void
jit_names_lines(size_t range, uint64_t code_addr, uint64_t code_size,
    const struct jitdump_line *lines, size_t n)
{
	/* a range's first code says its lines: later versions' differ */
	for (size_t i = jit.nlines; i > 0 && jit.lines[i - 1].range >= range;
	    i--)
		if (jit.lines[i - 1].range == range)
			return;
	for (size_t i = 0; i < n; i++) {
		uint64_t off = lines[i].addr - code_addr;

		if (lines[i].addr < code_addr || off >= code_size ||
		    off >= jit.syms[range].end - jit.syms[range].start ||
		    lines[i].line == 0 || lines[i].file[0] == '\0')
			continue;
		if (jit.nlines == jit.lines_cap) {
			jit.lines_cap = jit.lines_cap ? 2 * jit.lines_cap : 256;
			jit.lines = xrealloc(jit.lines, jit.lines_cap *
			    sizeof *jit.lines);
		}
		jit.lines[jit.nlines++] = (struct jline){ range, off,
		    file_of(lines[i].file), lines[i].line };
	}
}

int
jit_names_same(size_t range, const char *name, size_t len)
{
	return strlen(jit.syms[range].name) == len &&
	    memcmp(jit.syms[range].name, name, len) == 0;
}

struct builder *
jit_names_builder(void)
{
	return jit.b;
}

int
jit_object(void)
{
	return jit.obj;
}

void
jit_names_unnamed(pid_t pid, int runtime, int why, uint64_t weight)
{
	struct unnamed *u;

	if (runtime < 0 || runtime >= RUNTIME_N || why < 0 || why >= JIT_WHY_N)
		return;
	u = &jit.unnamed[runtime][why];
	if (u->processes++ == 0)
		u->first = pid;
	u->weight += weight;
}

/* What a runtime needs to name its code (RUNTIME_*). */
static const char *const needs[RUNTIME_N] = {
	[RUNTIME_UNKNOWN] = "its runtime must write /tmp/perf-PID.map or a "
	    "jitdump file, as perf reads them",
	[RUNTIME_JVM] = "a JVM writes its map with -XX:+UnlockDiagnosticVMOptions "
	    "-XX:+DumpPerfMapAtExit, or when told: jcmd PID Compiler.perfmap",
	[RUNTIME_NODE] = "node writes it with --perf-basic-prof (a jitdump "
	    "file with --perf-prof)",
	[RUNTIME_LUAJIT] = "LuaJIT writes none unless built with "
	    "LUAJIT_USE_PERFTOOLS (perf cannot name it either)",
	[RUNTIME_PYTHON] = "Python writes it with -X perf (3.12 and later)",
	[RUNTIME_DOTNET] = ".NET writes it with DOTNET_PerfMapEnabled=1",
	[RUNTIME_NONE] = "its runtime must write /tmp/perf-PID.map or a "
	    "jitdump file, as perf reads them",
};

/* Why it stayed unnamed (JIT_WHY_*). */
static const char *const whys[JIT_WHY_N] = {
	[JIT_WHY_NONE] = "it wrote no perf map and mapped no jitdump file",
	[JIT_WHY_REFUSED] = "its files were not read (above)",
	[JIT_WHY_MISSED] = "its files name none of that code",
};

/* The lines of generated code left unnamed, 1% of p's samples or more. */
static void
say_unnamed(const struct profil_profile *p)
{
	for (int r = 0; r < RUNTIME_N; r++)
		for (int w = 0; w < JIT_WHY_N; w++) {
			const struct unnamed *u = &jit.unnamed[r][w];
			char more[64] = "";

			if (u->weight == 0 || p == NULL || p->samples == 0 ||
			    100 * u->weight < p->samples)
				continue;
			if (u->processes > 1)
				snprintf(more, sizeof more, " and %zu more",
				    u->processes - 1);
			jit_say("%llu of %llu samples (%.0f%%) are in generated "
			    "code left unnamed (process %d%s): %s; %s",
			    (unsigned long long)u->weight,
			    (unsigned long long)p->samples,
			    100.0 * (double)u->weight / (double)p->samples,
			    (int)u->first, more, whys[w], needs[r]);
		}
	memset(jit.unnamed, 0, sizeof jit.unnamed);
}

/* ---- the profile -------------------------------------------------------- */

/* Whether [lo, hi) holds an address the [jit] object's counts or frames do. */
static int
hit(const struct profil_profile *p, uint32_t obj, uint64_t lo, uint64_t hi)
{
	const struct profil_object *o = &p->objects[obj];
	size_t a = 0, b = o->nbuckets;

	/* buckets are sorted by address */
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (o->buckets[m].addr + o->bucket_bytes <= lo)
			a = m + 1;
		else
			b = m;
	}
	if (a < o->nbuckets && o->buckets[a].addr < hi)
		return 1;
	/* frames are sorted by object, then address */
	a = 0, b = p->nframes;
	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (p->frames[m].object < obj || (p->frames[m].object == obj &&
		    p->frames[m].addr < lo))
			a = m + 1;
		else
			b = m;
	}
	return a < p->nframes && p->frames[a].object == obj &&
	    p->frames[a].addr < hi;
}

/* The lines record's order: by object, then address. */
static int
by_object_addr(const void *a, const void *b)
{
	const struct profil_line *x = a, *y = b;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The lines of the ranges kept (kept[range]) into p, object obj, with
 * the files they name; each (object, address) once.
 */
static void
keep_lines(struct profil_profile *p, uint32_t obj, const char *kept)
{
	uint32_t *file_at = xcalloc(jit.nfiles + 1, sizeof *file_at);
	size_t n = 0;

	p->lines = xrealloc(p->lines, (p->nlines + jit.nlines + 1) *
	    sizeof *p->lines);
	for (size_t i = 0; i < jit.nlines; i++) {
		const struct jline *l = &jit.lines[i];

		if (!kept[l->range])
			continue;
		if (file_at[l->file] == 0) {
			p->line_files = xrealloc(p->line_files,
			    (p->nline_files + 1) * sizeof *p->line_files);
			p->line_files[p->nline_files] = xstrdup(jit.files[l->file]);
			file_at[l->file] = (uint32_t)++p->nline_files;
		}
		p->lines[p->nlines + n++] = (struct profil_line){ obj,
		    file_at[l->file] - 1, jit.syms[l->range].start + l->offset,
		    l->line };
	}
	free(file_at);
	p->nlines += n;
	qsort(p->lines, p->nlines, sizeof *p->lines, by_object_addr);
	n = 0;
	for (size_t i = 0; i < p->nlines; i++)
		if (n == 0 || p->lines[i].object != p->lines[n - 1].object ||
		    p->lines[i].addr != p->lines[n - 1].addr)
			p->lines[n++] = p->lines[i];
	p->nlines = n;
}

void
jit_end(struct profil_profile *p, void (*warn)(const char *line))
{
	uint32_t obj = UINT32_MAX;
	size_t n = 0;
	char *kept;

	for (size_t i = 0; p != NULL && i < p->nobjects; i++)
		if (strcmp(p->objects[i].path, PROFIL_JIT_OBJECT) == 0)
			obj = (uint32_t)i;
	if (obj != UINT32_MAX) {
		/* made in order: sorted and apart already */
		for (size_t i = 0; i < jit.nsyms; i++)
			n += hit(p, obj, jit.syms[i].start, jit.syms[i].end);
		p->symbols = xrealloc(p->symbols, (p->nsymbols + n + 1) *
		    sizeof *p->symbols);
		kept = xcalloc(jit.nsyms + 1, 1);
		for (size_t i = 0; i < jit.nsyms; i++)
			if (hit(p, obj, jit.syms[i].start, jit.syms[i].end)) {
				p->symbols[p->nsymbols++] = (struct profil_symbol){
				    obj, jit.syms[i].start, jit.syms[i].end,
				    jit.syms[i].name };
				jit.syms[i].name = NULL;
				kept[i] = 1;
			}
		qsort(p->symbols, p->nsymbols, sizeof *p->symbols,
		    cli_symbol_order);
		keep_lines(p, obj, kept);
		free(kept);
	}
	say_unnamed(p);
	for (size_t i = 0; i < jit.nsaid; i++) {
		if (warn != NULL)
			warn(jit.said[i]);
		free(jit.said[i]);
	}
	for (size_t i = 0; i < jit.nsyms; i++)
		free(jit.syms[i].name);
	free(jit.syms);
	free(jit.said);
	hmap_free(&jit.by_name);
	for (size_t i = 0; i < jit.nfiles; i++)
		free(jit.files[i]);
	free(jit.files);
	free(jit.lines);
	hmap_free(&jit.file_index);
	jit.files = NULL;
	jit.lines = NULL;
	jit.nfiles = jit.nlines = jit.lines_cap = 0;
	jit.syms = NULL;
	jit.said = NULL;
	jit.nsyms = jit.syms_cap = jit.nsaid = jit.name_bytes = 0;
	jit.b = NULL;
	jit.obj = -1;
}
