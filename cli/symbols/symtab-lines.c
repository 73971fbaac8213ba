/*
 * symtab-lines.c - what the debug information and the file say about an
 * address beyond its function (symbols.h): its source line and the
 * functions inlined there, from DWARF, and the machine code annotate
 * shows.  Only a usable table (its file the one profiled) answers.
 * Source paths made absolute are interned in the table, so that every
 * string handed out lives as long as it.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stddef.h>
#include <string.h>

#include "cli.h"
#include "scopes.h"
#include "sorted.h"
#include "symbols.h"
#include "symtab-internal.h"

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

/*
 * The line the profile keeps for addr: the last at or before it, in the
 * function that holds addr (a line does not run on into the next).
 */
static const char *
kept_source(struct symtab *t, uint64_t addr, int *line)
{
	size_t a = sorted_upper(t->lines, t->nlines, sizeof *t->lines,
	    offsetof(struct profil_line, addr), addr);
	uint64_t start, end;

	if (a == 0 || symtab_lookup(t, addr, &start, &end) == NULL ||
	    t->lines[a - 1].addr < start)
		return NULL;
	*line = (int)t->lines[a - 1].line;
	return t->line_files[t->lines[a - 1].file];
}

const char *
symtab_source(struct symtab *t, uint64_t addr, int *line)
{
	Dwfl_Line *l;
	const char *file, *dir;

	if (t->nlines > 0)
		return kept_source(t, addr, line);
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
