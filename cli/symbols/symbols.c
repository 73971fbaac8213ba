/*
 * symbols.c - an object's symbol table opened and closed (symbols.h):
 * its file found (here, under --symfs, by build-id or from debuginfod;
 * the vdso from this kernel's image), reported by libdwfl at its
 * link-time addresses (base 0) and its functions read (symtab-read.c);
 * failing the file, the names the profile keeps.  Lookups are in
 * symtab-lookup.c; source lines, inlines and code in symtab-lines.c.
 * Invariant: only a file whose build-id is the one recorded is read
 * (usable); any other gives a table of no functions, or of the names
 * the profile keeps, never names of other code.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "fdes.h"
#include "find.h"
#include "scopes.h"
#include "symbols.h"
#include "symtab-internal.h"
#include "vdso.h"

/* debuginfo_path is set at each open: --debug-dir and --symfs join it */
static Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/*
 * The vdso has no file name or debuglink to search by: its debug file can
 * only be found by build-id.  The standard search would then end in
 * libdw's debuginfod client, whose loading (some 30 libraries, ~4 ms)
 * costs more than all the rest of a report.
 */
static const Dwfl_Callbacks vdso_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* A file holding our vdso image, for libdwfl (which wants a file). */
static int
vdso_file(void)
{
	size_t size;
	const void *image = vdso_image(&size);
	int fd;

	if (image == NULL || (fd = memfd_create("vdso", MFD_CLOEXEC)) < 0)
		return -1;
	if (write(fd, image, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

struct symtab *
symtab_open(const struct profil_object *o, const char **problem)
{
	struct symtab *t = xcalloc(1, sizeof *t);
	const char *slash = strrchr(o->path, '/');
	char *file = NULL;
	Dwfl_Module *mod;
	const unsigned char *bits;
	GElf_Addr vaddr;
	int len, fd = -1, debug_only = 0;

	*problem = NULL;
	t->base = slash && slash[1] ? slash + 1 : o->path;
	if (o->path[0] != '/' && strcmp(o->path, "[vdso]") != 0) {
		*problem = "no file to read symbols from";
		return t;
	}
	if (o->path[0] != '/' && (fd = vdso_file()) < 0) {
		*problem = "cannot read this kernel's vdso";
		return t;
	}
	if (o->path[0] == '/') {
		/* here, under --symfs, by build-id, or from debuginfod */
		if ((file = find_object(o, &debug_only, problem)) == NULL)
			return t;
		if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
			*problem = "cannot read the file";
			free(file);
			return t;
		}
		offline_callbacks.debuginfo_path = find_debuginfo_path();
	}
	t->dwfl = dwfl_begin(o->path[0] == '/' ? &offline_callbacks :
	    &vdso_callbacks);
	if (t->dwfl == NULL) {
		*problem = "libdwfl failed";
		if (fd >= 0)
			close(fd);
		free(file);
		return t;
	}
	dwfl_report_begin(t->dwfl);
	mod = dwfl_report_elf(t->dwfl, o->path, file ? file : "/dev/null", fd,
	    0, true);
	dwfl_report_end(t->dwfl, NULL, NULL);
	free(file);
	if (mod == NULL) {
		*problem = "cannot read the file";
		if (fd >= 0)
			close(fd);
		return t;
	}
	t->mod = mod;
	t->debug_only = debug_only;
	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (o->build_id_len > 0 && (len != (int)o->build_id_len ||
	    memcmp(bits, o->build_id, o->build_id_len) != 0)) {
		*problem = o->path[0] == '/' ? "the file on disk is not the one "
		    "profiled (build-id differs)" : "recorded on another kernel "
		    "(build-id differs)";
		return t;
	}
	t->usable = 1;
	read_functions(t, mod);
	return t;
}

/*
 * The names the profile keeps for object index oi (`profil archive`; the
 * recorder's for generated code), with its lines where it keeps some.
 */
static struct symtab *
kept_names(const struct profil_profile *p, size_t oi)
{
	struct symtab *t = xcalloc(1, sizeof *t);
	const char *slash = strrchr(p->objects[oi].path, '/');

	t->base = slash && slash[1] ? slash + 1 : p->objects[oi].path;
	for (size_t i = 0; i < p->nsymbols; i++) {
		const struct profil_symbol *sy = &p->symbols[i];

		if (sy->object != oi)
			continue;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 16;
			t->funcs = xrealloc(t->funcs, t->cap * sizeof *t->funcs);
		}
		/* sorted and apart already: the reader checked */
		t->funcs[t->n++] = (struct func){ sy->start, sy->end, sy->name, 0 };
	}
	/* and its source lines (sorted by object: one run of them) */
	for (size_t i = 0; i < p->nlines; i++)
		if (p->lines[i].object == oi) {
			if (t->lines == NULL)
				t->lines = &p->lines[i];
			t->nlines++;
		}
	t->line_files = p->line_files;
	return t;
}

struct symtab *
symtab_open_profile(const struct profil_profile *p, size_t oi,
    const char **problem)
{
	struct symtab *t = symtab_open(&p->objects[oi], problem), *kept;

	if (*problem == NULL)
		return t;
	kept = kept_names(p, oi);
	if (kept->n == 0) {
		symtab_close(kept);
		return t;
	}
	symtab_close(t);
	*problem = NULL;
	return kept;
}

void
symtab_close(struct symtab *t)
{
	if (t->dwfl != NULL)
		dwfl_end(t->dwfl);
	for (size_t i = 0; i < t->npaths; i++)
		free(t->paths[i]);
	for (size_t i = 0; i < t->nmade; i++)
		free(t->made[i]);
	free(t->paths);
	free(t->made);
	free(t->funcs);
	free(t->labels);
	scopes_free(t->scopes);
	fdes_free(&t->fdes);
	free(t);
}
