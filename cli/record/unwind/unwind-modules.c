/*
 * unwind-modules.c - an unwind space (unwind.h) and its Dwfl, attached to
 * "its process" with the thread callbacks of unwind.c.  Mapped files are
 * reported to libdwfl as modules at their load addresses, found from each
 * file's ELF layout, as mappings arrive; libdwfl opens each file (or our
 * own copy of the vDSO) the first time it needs its CFI and keeps it
 * while the space lives.
 *
 * Generated code whose runtime gave its unwind tables (jitdump
 * UNWINDING_INFO) is reported too, once sampled: each piece a module
 * "[jit-unwind N]" over the code, whose ELF is an image made of the
 * tables (jit-tables.h), kept here as long as the module is reported.
 *
 * Invariant: what was learnt of the modules (the CFI rules at each pc,
 * the stack memo) is forgotten whenever they are reported again.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hmap.h"
#include "record/core/addrspace.h"
#include "record/core/clock.h"
#include "record/core/elfcache.h"
#include "record/jit/jit.h"
#include "stackmemo.h"
#include "symbols/vdso.h"
#include "unwind-internal.h"
#include "unwind.h"

/* ---- ELF layouts, by path, for where a module loads ---------------------- */

struct layout {
	char *path;
	int ok, dyn;
	uint64_t lo, hi;	/* link-time extent of PT_LOADs */
	size_t nload;
	GElf_Phdr *load;
};

static struct layout *layouts;
static size_t nlayouts;

static const struct layout *
layout_of(const char *path)
{
	struct layout *l;
	size_t n, i;
	Elf *elf = NULL;

	for (i = 0; i < nlayouts; i++)
		if (strcmp(layouts[i].path, path) == 0)
			return &layouts[i];
	layouts = xrealloc(layouts, (nlayouts + 1) * sizeof *layouts);
	l = &layouts[nlayouts++];
	memset(l, 0, sizeof *l);
	l->path = xstrdup(path);
	elf_version(EV_CURRENT);
	if (strcmp(path, "[vdso]") == 0) {
		size_t size;
		const void *image = vdso_image(&size);

		if (image != NULL)
			elf = elf_memory((char *)image, size);
	} else {
		elf = elfcache_open(path);
	}
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF &&
	    elf_getphdrnum(elf, &n) == 0) {
		GElf_Ehdr eh;

		l->dyn = gelf_getehdr(elf, &eh) != NULL && eh.e_type == ET_DYN;
		l->load = xcalloc(n + 1, sizeof *l->load);
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
			    ph.p_type != PT_LOAD)
				continue;
			if (l->nload == 0 || (ph.p_vaddr & -ph.p_align) < l->lo)
				l->lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
			if (ph.p_vaddr + ph.p_memsz > l->hi)
				l->hi = ph.p_vaddr + ph.p_memsz;
			l->load[l->nload++] = ph;
		}
		l->ok = l->nload > 0 && l->lo < l->hi;
	}
	if (elf != NULL)
		elf_end(elf);
	return l;
}

/* ---- generated code's unwind tables, as ELF images ---------------------- */

#define JIT_MODULE	"[jit-unwind "

struct jit_image {
	unsigned char *bytes;
	size_t len;
	int seen;		/* reported this time */
};

/* ---- libdwfl's callbacks ------------------------------------------------- */

static int
find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
    char **file_name, Elf **elfp)
{
	(void)mod;
	(void)base;
	*elfp = NULL;
	if (strncmp(name, JIT_MODULE, strlen(JIT_MODULE)) == 0) {
		const struct jit_image *im = *userdata;

		/* its tables, the code at the module's start (jit-tables.h) */
		if (im != NULL)
			*elfp = elf_memory((char *)im->bytes, im->len);
		return -1;
	}
	if (strcmp(name, "[vdso]") == 0) {
		size_t size;
		const void *image = vdso_image(&size);

		/* the kernel maps the same image into every process */
		*elfp = image ? elf_memory((char *)image, size) : NULL;
		return -1;
	}
	/* the file this recording opened already, if it did */
	if ((*elfp = elfcache_open(name)) != NULL)
		*file_name = xstrdup(name);
	return -1;
}

/* No separate debug files: .eh_frame is in every x86-64 object, and
 * loading debug files (decompressing them) costs more than it finds. */
static int
no_debuginfo(Dwfl_Module *mod, void **userdata, const char *name,
    Dwarf_Addr base, const char *file_name, const char *debuglink,
    GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name;
	(void)debuglink, (void)crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = no_debuginfo,
};

/* An x86-64 ELF that lives as long as we do: libdwfl's architecture. */
static Elf *
arch_elf(void)
{
	static Elf *elf;
	size_t size;
	const void *image;

	if (elf == NULL && (image = vdso_image(&size)) != NULL) {
		elf_version(EV_CURRENT);
		elf = elf_memory((char *)image, size);
	}
	return elf;
}

/* ---- spaces and their mappings ------------------------------------------- */

struct unwind_space *
unwind_space_new(pid_t pid, const struct addr_space *space)
{
	struct unwind_space *s = xcalloc(1, sizeof *s);

	s->pid = pid;
	s->space = space;
	hmap_init(&s->rules_at);
	stack_memo_init(&s->memo);
	return s;
}

/* What was learnt of the modules as they were. */
void
unwind_forget(struct unwind_space *s)
{
	hmap_free(&s->rules_at);
	hmap_init(&s->rules_at);
	s->nrules = 0;
	stack_memo_clear(&s->memo);
}

/* The images of modules not reported this time (libdwfl has let go). */
static void
drop_images(struct unwind_space *s, int all)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nimages; i++) {
		struct jit_image *im = s->images[i];

		if (all || !im->seen) {
			free(im->bytes);
			free(im);
		} else {
			im->seen = 0;
			s->images[k++] = im;
		}
	}
	s->nimages = k;
}

static void
drop_dwfl(struct unwind_space *s)
{
	if (s->dwfl != NULL)
		dwfl_end(s->dwfl);
	s->dwfl = NULL;
	drop_images(s, 1);
	unwind_forget(s);
}

void
unwind_space_free(struct unwind_space *s)
{
	if (s == NULL)
		return;
	drop_dwfl(s);
	free(s->images);
	hmap_free(&s->rules_at);
	free(s->rules);
	stack_memo_free(&s->memo);
	free(s);
}

void
unwind_locate(const struct unwind_space *s, uint64_t pc, struct bframe *f)
{
	jit_place(s->space, pc, 0, f);
}

/* Report one mapped object to libdwfl at the addresses it is loaded at. */
static void
report(struct unwind_space *s, const struct addr_map *m)
{
	const struct layout *l;
	uint64_t bias = 0;

	if (m->path == NULL || (m->path[0] != '/' && strcmp(m->path, "[vdso]")))
		return;
	l = layout_of(m->path);
	if (!l->ok)
		return;
	if (l->dyn) {
		size_t i;

		/* the segment mapped at file offset pgoff puts it at start */
		for (i = 0; i < l->nload; i++)
			if (m->pgoff >= l->load[i].p_offset &&
			    m->pgoff - l->load[i].p_offset < l->load[i].p_filesz)
				break;
		if (i == l->nload)
			return;
		bias = m->start - (l->load[i].p_vaddr + (m->pgoff -
		    l->load[i].p_offset));
	}
	dwfl_report_module(s->dwfl, m->path, bias + l->lo, bias + l->hi);
}

/* The generated code with unwind tables that was sampled, as modules. */
static void
report_jit(struct unwind_space *s)
{
	const struct jit_code *c = s->space->jit;
	size_t n = jit_code_unwind_count(c);

	for (size_t i = 0; i < n; i++) {
		struct jit_unwind u;
		struct jit_image *im;
		Dwfl_Module *mod;
		char name[32];
		void **ud;

		if (!jit_code_unwind(c, i, &u))
			continue;	/* newer code lies over it */
		snprintf(name, sizeof name, JIT_MODULE "%u]", u.serial);
		mod = dwfl_report_module(s->dwfl, name, u.start, u.start + u.size);
		if (mod == NULL ||
		    dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL,
		    NULL) == NULL)
			continue;
		if (*ud == NULL) {	/* new: its image, for find_elf */
			im = xcalloc(1, sizeof *im);
			im->bytes = jit_code_unwind_image(c, &u, &im->len);
			if (s->nimages == s->images_cap) {
				s->images_cap = s->images_cap ? 2 * s->images_cap :
				    16;
				s->images = xrealloc(s->images, s->images_cap *
				    sizeof *s->images);
			}
			s->images[s->nimages++] = im;
			*ud = im;
		}
		((struct jit_image *)*ud)->seen = 1;
	}
}

/* The Dwfl, made and attached at first use, with the mappings reported. */
int
unwind_sync_modules(struct unwind_space *s,
    const Dwfl_Thread_Callbacks *thread)
{
	unsigned jit_gen = jit_code_unwind_generation(s->space->jit);
	uint64_t t0 = 0;

	if (s->dwfl == NULL) {
		Elf *arch = arch_elf();

		s->dwfl = dwfl_begin(&dwfl_callbacks);
		if (s->dwfl == NULL || arch == NULL ||
		    !dwfl_attach_state(s->dwfl, arch, s->pid,
		    thread, s)) {
			drop_dwfl(s);
			return -1;
		}
		s->reported = s->space->generation - 1;
	}
	if (s->reported != s->space->generation || (jit_gen != s->jit_reported &&
	    (t0 = record_now_ns()) >= s->jit_after)) {
		/* all again: a module reported the same comes back with its CFI */
		dwfl_report_begin(s->dwfl);
		for (size_t i = 0; i < s->space->n; i++)
			report(s, &s->space->maps[i]);
		report_jit(s);
		dwfl_report_end(s->dwfl, NULL, NULL);
		drop_images(s, 0);
		s->reported = s->space->generation;
		unwind_forget(s);
		if (jit_gen != s->jit_reported) {
			uint64_t t1 = record_now_ns();

			/* (libdwfl finds each module reported among those before) */
			s->jit_after = t1 + 20 * (t1 - (t0 ? t0 : t1));
			s->jit_reported = jit_gen;
		}
	}
	return 0;
}
