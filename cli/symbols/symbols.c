/*
 * symbols.c - libdwfl reports the object at its link-time addresses
 * (base 0), then every function symbol is read once into a table sorted
 * by address (symtab-read.c), which lookups search (symtab-lookup.c).
 * Invariant: the table's ranges never overlap.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* The names the profile keeps for object index oi (`profil archive`). */
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

const unsigned char *
symtab_code(struct symtab *t, uint64_t start, uint64_t end, size_t *size)
{
	GElf_Addr bias;
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (!t->usable || end <= start ||
	    (elf = dwfl_module_getelf(t->mod, &bias)) == NULL)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;
		uint64_t lo, hi;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		lo = sh.sh_addr + bias;
		hi = lo + sh.sh_size;
		if (start < lo || start >= hi)
			continue;
		if ((data = elf_getdata(scn, NULL)) == NULL ||
		    data->d_buf == NULL || data->d_size < sh.sh_size)
			return NULL;
		*size = (size_t)((end < hi ? end : hi) - start);
		return (const unsigned char *)data->d_buf + (start - lo);
	}
	return NULL;
}

/* dir/file, interned in t so that it lives as long as the table. */
static const char *
intern_path(struct symtab *t, const char *dir, const char *file)
{
	size_t dl = strlen(dir), fl = strlen(file);
	char *s;

	for (size_t i = 0; i < t->npaths; i++)
		if (strncmp(t->paths[i], dir, dl) == 0 && t->paths[i][dl] == '/' &&
		    strcmp(t->paths[i] + dl + 1, file) == 0)
			return t->paths[i];
	s = xmalloc(dl + fl + 2);
	memcpy(s, dir, dl);
	s[dl] = '/';
	memcpy(s + dl + 1, file, fl + 1);
	t->paths = xrealloc(t->paths, (t->npaths + 1) * sizeof *t->paths);
	t->paths[t->npaths++] = s;
	return s;
}

const char *
symtab_source(struct symtab *t, uint64_t addr, int *line)
{
	Dwfl_Line *l;
	const char *file, *dir;

	if (!t->usable || (l = dwfl_module_getsrc(t->mod, addr)) == NULL)
		return NULL;
	file = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	if (file == NULL || *line <= 0)
		return NULL;
	/* a relative name is relative to where the compiler ran */
	if (file[0] != '/' && (dir = dwfl_line_comp_dir(l)) != NULL && dir[0] == '/')
		return intern_path(t, dir, file);
	return file;
}

/* The name of an inlined subroutine: its abstract origin's. */
static const char *
inline_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) != NULL ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) != NULL) &&
	    (name = dwarf_formstring(&attr)) != NULL)
		return name;
	if (dwarf_attr_integrate(die, DW_AT_name, &attr) != NULL &&
	    (name = dwarf_formstring(&attr)) != NULL)
		return name;
	return "[inlined]";
}

/* Where an inlined subroutine was called from: file and line. */
static const char *
call_site(struct symtab *t, Dwarf_Die *cu, Dwarf_Die *die, int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word index, number;
	size_t nfiles;
	const char *file, *dir;

	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &number) != 0 ||
	    number == 0 || number > INT32_MAX)
		return NULL;
	*line = (int)number;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &index) != 0 ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || index >= nfiles ||
	    (file = dwarf_filesrc(files, index, NULL, NULL)) == NULL)
		return NULL;
	if (file[0] != '/' && (dir = dwarf_formstring(dwarf_attr(cu,
	    DW_AT_comp_dir, &attr))) != NULL && dir[0] == '/')
		return intern_path(t, dir, file);
	return file;
}

size_t
symtab_inlines(struct symtab *t, uint64_t addr, struct symtab_frame *out,
    size_t max)
{
	Dwarf_Die *cu, scopes[16];
	Dwarf_Addr bias;
	size_t n = 0, nscopes;

	if (!t->usable || max < 2 ||
	    (cu = dwfl_module_addrdie(t->mod, addr, &bias)) == NULL)
		return 0;
	if (t->scopes == NULL)
		t->scopes = scopes_new();
	nscopes = scopes_inlined(t->scopes, cu, addr - bias, scopes,
	    sizeof scopes / sizeof scopes[0]);
	for (size_t i = 0; i < nscopes && n + 1 < max; i++) {
		if (n == 0) {
			out[0].file = symtab_source(t, addr, &out[0].line);
			if (out[0].file == NULL)
				out[0].line = 0;
		}
		out[n].name = inline_name(&scopes[i]);
		out[n].decl_file = dwarf_decl_file(&scopes[i]);
		if (out[n].decl_file != NULL && out[n].decl_file[0] != '/') {
			Dwarf_Attribute attr;
			const char *dir = dwarf_formstring(dwarf_attr(cu,
			    DW_AT_comp_dir, &attr));

			out[n].decl_file = dir != NULL && dir[0] == '/' ?
			    intern_path(t, dir, out[n].decl_file) : NULL;
		}
		if (dwarf_decl_line(&scopes[i], &out[n].decl_line) != 0)
			out[n].decl_line = 0;
		/* the next one out runs at this one's call */
		out[n + 1].name = NULL;
		out[n + 1].decl_file = NULL;
		out[n + 1].decl_line = 0;
		out[n + 1].file = call_site(t, cu, &scopes[i], &out[n + 1].line);
		n++;
	}
	return n == 0 ? 0 : n + 1;
}
