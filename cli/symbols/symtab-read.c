/*
 * symtab-read.c - an object's functions read once into the table of
 * symtab-internal.h: the function symbols of its symbol tables, PLT
 * stubs named "f@plt", and the labels and ELF anchors where code without
 * a symbol is known to start (a lookup there names that code).  Sorted
 * by address, one function per address with the name a programmer calls.
 * Invariant: the table's ranges never overlap; read_functions cuts them.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "symtab-internal.h"

/* name is "f@VERSION": an old version, kept for old programs only */
static int
old_version(const char *name)
{
	const char *at = strchr(name, '@');

	return at != NULL && at[1] != '@';
}

/*
 * Of two symbols at one address, < 0 when x is the name to show, the one
 * a programmer calls: a sized symbol, then the one with the fewest
 * leading underscores (libc's mmap, not its aliases __mmap and
 * __GI___mmap), then one that is not an old version, then a global, then
 * a weak one, then by name (so "f@@VERSION", the default, before "f@V").
 */
static int
name_order(const struct func *x, const struct func *y)
{
	int c;

	if ((c = (y->end > y->start) - (x->end > x->start)) != 0)
		return c;
	if ((c = (int)strspn(x->name, "_") - (int)strspn(y->name, "_")) != 0)
		return c;
	if ((c = old_version(x->name) - old_version(y->name)) != 0)
		return c;
	if (x->binding != y->binding)
		return x->binding - y->binding;
	return strcmp(x->name, y->name);
}

/*
 * funcs[0..n) in order of start: an LSD radix sort, a byte at a time,
 * skipping the bytes in which no two starts differ (an object's link-time
 * addresses differ in their low three or four).  It replaced a qsort that
 * was a third of the time of a report of a 50,000-function program.
 */
static void
sort_by_start(struct func *funcs, size_t n)
{
	struct func *from = funcs, *to, *buffer, *swap;
	uint64_t all = UINT64_MAX, any = 0;

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		all &= funcs[i].start;
		any |= funcs[i].start;
	}
	to = buffer = xmalloc(n * sizeof *funcs);
	for (unsigned shift = 0; shift < 64; shift += 8) {
		size_t at[256] = { 0 }, sum = 0;

		if ((((all ^ any) >> shift) & 0xff) == 0)
			continue;	/* every start has this byte */
		for (size_t i = 0; i < n; i++)
			at[(from[i].start >> shift) & 0xff]++;
		for (size_t d = 0; d < 256; d++) {
			size_t count = at[d];

			at[d] = sum;
			sum += count;
		}
		for (size_t i = 0; i < n; i++)
			to[at[(from[i].start >> shift) & 0xff]++] = from[i];
		swap = from;	/* sorted by this byte now: to */
		from = to;
		to = swap;
	}
	if (from != funcs)
		memcpy(funcs, from, n * sizeof *funcs);
	free(buffer);
}

/* The section named name of elf, or NULL. */
static Elf_Scn *
section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (gelf_getshdr(scn, sh) != NULL &&
		    (n = elf_strptr(elf, shstrndx, sh->sh_name)) != NULL &&
		    strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* Keep name (malloc'd), made for code without a symbol, to free with t. */
void
keep_made(struct symtab *t, char *name)
{
	/* doubled, not grown by one: a wide bucket makes thousands */
	if (t->nmade == t->made_cap) {
		t->made_cap = t->made_cap ? 2 * t->made_cap : 16;
		t->made = xrealloc(t->made, t->made_cap * sizeof *t->made);
	}
	t->made[t->nmade++] = name;
}

/*
 * The name of the function a PLT entry jumps to, "sin@plt", as objdump
 * shows it: the entry's indirect jump (ff 25 disp32, perhaps after
 * endbr64 and a bnd prefix) reads a GOT slot, which a JUMP_SLOT
 * relocation of .rela.plt names.  No symbol table holds these names.
 */
static void
add_plt_stubs(struct symtab *t, Dwfl_Module *mod, size_t *k)
{
	static const char *const plts[] = { ".plt", ".plt.sec" };
	GElf_Shdr rsh, dsh;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *rscn, *dscn;
	Elf_Data *rdata, *ddata;
	size_t nrela;

	if (elf == NULL || (rscn = section_named(elf, ".rela.plt", &rsh)) == NULL ||
	    rsh.sh_type != SHT_RELA || rsh.sh_entsize == 0 ||
	    (rdata = elf_getdata(rscn, NULL)) == NULL ||
	    (dscn = elf_getscn(elf, rsh.sh_link)) == NULL ||
	    gelf_getshdr(dscn, &dsh) == NULL ||
	    (ddata = elf_getdata(dscn, NULL)) == NULL)
		return;
	nrela = rsh.sh_size / rsh.sh_entsize;
	for (int p = 0; p < 2; p++) {
		GElf_Shdr psh;
		Elf_Scn *pscn = section_named(elf, plts[p], &psh);
		Elf_Data *pdata;

		if (pscn == NULL || psh.sh_type != SHT_PROGBITS ||
		    (pdata = elf_getdata(pscn, NULL)) == NULL ||
		    pdata->d_buf == NULL || pdata->d_size < psh.sh_size)
			continue;
		for (uint64_t at = 0; at + 16 <= psh.sh_size; at += 16) {
			const unsigned char *e = (const unsigned char *)pdata->d_buf + at;
			uint64_t got = 0, entry = psh.sh_addr + at;

			for (int o = 0; o + 6 <= 16; o++)
				if (e[o] == 0xff && e[o + 1] == 0x25) {
					int32_t disp;

					memcpy(&disp, e + o + 2, 4);
					got = entry + (uint64_t)o + 6 + (uint64_t)(int64_t)disp;
					break;
				}
			for (size_t r = 0; got != 0 && r < nrela; r++) {
				GElf_Rela rela;
				GElf_Sym sym;
				const char *name;
				char *made;

				if (gelf_getrela(rdata, (int)r, &rela) == NULL ||
				    rela.r_offset != got ||
				    gelf_getsym(ddata, (int)GELF_R_SYM(rela.r_info),
				    &sym) == NULL ||
				    (name = elf_strptr(elf, dsh.sh_link, sym.st_name)) ==
				    NULL || *name == '\0')
					continue;
				made = xmalloc(strlen(name) + 5);
				sprintf(made, "%s@plt", name);
				keep_made(t, made);
				if (*k == t->cap) {
					t->cap = t->cap ? 2 * t->cap : 16;
					t->funcs = xrealloc(t->funcs, t->cap *
					    sizeof *t->funcs);
				}
				t->funcs[(*k)++] = (struct func){ entry + bias,
				    entry + bias + 16, made, 1 };
				break;
			}
		}
	}
}

static void
push_label(struct symtab *t, uint64_t at, const char *name)
{
	t->labels = xrealloc(t->labels, (t->nlabels + 1) * sizeof *t->labels);
	t->labels[t->nlabels++] = (struct label){ at, name };
}

/*
 * A symbol of no type and no size: a label, if it is in code (not one
 * past a section's end, as _etext is); "$x" mapping symbols and local
 * ".L" labels are not names.
 */
static void
add_label(struct symtab *t, Elf *elf, GElf_Word shndx, uint64_t value,
    uint64_t addr, const char *name)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (elf == NULL || name[0] == '$' || name[0] == '.' ||
	    shndx == SHN_UNDEF || shndx >= SHN_LORESERVE ||
	    (scn = elf_getscn(elf, shndx)) == NULL ||
	    gelf_getshdr(scn, &sh) == NULL || !(sh.sh_flags & SHF_EXECINSTR) ||
	    value < sh.sh_addr || value - sh.sh_addr >= sh.sh_size)
		return;
	push_label(t, addr, name);
}

/* The starts of code that ELF itself gives: entry, DT_INIT, DT_FINI,
   code sections. */
static void
add_anchors(struct symtab *t, Dwfl_Module *mod)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	if (elf == NULL || gelf_getehdr(elf, &eh) == NULL)
		return;
	if (eh.e_entry != 0)
		push_label(t, eh.e_entry + bias, NULL);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_size > 0)
			push_label(t, sh.sh_addr + bias, NULL);
		if (sh.sh_type != SHT_DYNAMIC || sh.sh_entsize == 0 ||
		    (data = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (size_t j = 0; j < sh.sh_size / sh.sh_entsize; j++) {
			GElf_Dyn dyn;

			if (gelf_getdyn(data, (int)j, &dyn) == NULL ||
			    dyn.d_tag == DT_NULL)
				break;
			if ((dyn.d_tag == DT_INIT || dyn.d_tag == DT_FINI) &&
			    dyn.d_un.d_ptr != 0)
				push_label(t, dyn.d_un.d_ptr + bias, NULL);
		}
	}
}

static int
by_at(const void *a, const void *b)
{
	const struct label *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	/* a name before none, so the first at an address is the one shown */
	return (x->name == NULL) - (y->name == NULL);
}

void
read_functions(struct symtab *t, Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod), i;
	size_t k = 0;

	if (n < 0)
		n = 0;
	t->funcs = xcalloc((size_t)n + 1, sizeof *t->funcs);
	t->cap = (size_t)n + 1;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr,
		    &shndx, &elf, NULL);

		if (name != NULL && *name != '\0' && sym.st_size == 0 &&
		    GELF_ST_TYPE(sym.st_info) == STT_NOTYPE)
			add_label(t, elf, shndx, sym.st_value, addr, name);
		if (name == NULL || *name == '\0' || sym.st_shndx == SHN_UNDEF ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		t->funcs[k++] = (struct func){ addr, addr + sym.st_size, name,
		    GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 0 :
		    GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 2 };
	}
	add_plt_stubs(t, mod, &k);
	add_anchors(t, mod);
	if (t->nlabels > 1)
		qsort(t->labels, t->nlabels, sizeof *t->labels, by_at);
	sort_by_start(t->funcs, k);
	/* one entry per address, with the name to show */
	size_t out = 0;
	for (size_t j = 0; j < k; j++) {
		if (out > 0 && t->funcs[out - 1].start == t->funcs[j].start) {
			if (name_order(&t->funcs[j], &t->funcs[out - 1]) < 0)
				t->funcs[out - 1] = t->funcs[j];
			continue;
		}
		t->funcs[out++] = t->funcs[j];
	}
	/*
	 * Ranges never overlap, so that an address has one function and a
	 * function's [start, end) holds only addresses that look up to it: a
	 * symbol reaching into the next one (nested, overlapping) ends where
	 * that one starts; a zero-size one reaches it; a size wrapping past
	 * the top of the address space stops there.
	 *
	 *   outer [--------------)            outer [---)
	 *   inner     [---)          becomes  inner     [---)
	 *   zero             |    [--)        zero             [--)
	 */
	for (size_t j = 0; j < out; j++) {
		struct func *f = &t->funcs[j];
		uint64_t next = j + 1 < out ? t->funcs[j + 1].start : UINT64_MAX;

		if (f->end < f->start)
			f->end = UINT64_MAX;
		if (f->end == f->start)
			f->end = j + 1 < out ? next : f->start + (f->start < UINT64_MAX);
		if (f->end > next)
			f->end = next;
	}
	t->n = out;
}
