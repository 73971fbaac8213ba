/*
 * builder-objects.c - the builder's objects (builder-internal.h): a mapped
 * file, its executable PT_LOAD segments and build-id read with libelf,
 * and the segments' mapping of a file offset to the link-time address
 * symbol tables use (so ASLR and PIE do not matter).  A file whose
 * build-id differs from the one mapped is not what was mapped: its
 * segments are not used.
 */
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "builder-internal.h"
#include "cli.h"
#include "elfcache.h"
#include "symbols/vdso.h"

/* Executable segments and build-id of an ELF image. */
static void
read_elf(struct bobject *o, Elf *elf)
{
	size_t n, i;
	const void *id;
	ssize_t idlen;

	if (elf == NULL || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) != 0)
		return;
	for (i = 0; i < n && o->nsegs < MAX_SEGMENTS; i++) {
		GElf_Phdr ph;
		uint64_t end;

		if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
		    ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		o->segs[o->nsegs++] = (struct segment){ ph.p_offset, ph.p_vaddr,
		    ph.p_filesz };
		if (o->nsegs == 1 || ph.p_vaddr < o->lowpc)
			o->lowpc = ph.p_vaddr;
		/* a segment claimed past the top of the address space stops there */
		end = ph.p_memsz > UINT64_MAX - ph.p_vaddr ? UINT64_MAX :
		    ph.p_vaddr + ph.p_memsz;
		if (end > o->highpc)
			o->highpc = end;
	}
	idlen = dwelf_elf_gnu_build_id(elf, &id);
	if (o->build_id_len == 0 && idlen > 0 && (size_t)idlen <= sizeof o->build_id) {
		memcpy(o->build_id, id, (size_t)idlen);
		o->build_id_len = (unsigned)idlen;
	}
}

/* The vdso is not a file: read our own, the same image the kernel maps. */
static void
read_vdso(struct bobject *o)
{
	size_t size;
	const void *image = vdso_image(&size);
	Elf *elf;

	if (image == NULL)
		return;
	elf = elf_memory((char *)image, size);
	read_elf(o, elf);
	elf_end(elf);
}

int
builder_object(struct builder *b, const char *path,
    const unsigned char *build_id, unsigned build_id_len)
{
	struct bobject *o;
	size_t i;

	if (build_id_len > sizeof o->build_id)
		build_id_len = 0;
	for (i = 0; i < b->nobjects; i++) {
		o = &b->objects[i];
		if (strcmp(o->path, path) != 0)
			continue;
		if (build_id_len == 0 || (o->build_id_len == build_id_len &&
		    memcmp(o->build_id, build_id, build_id_len) == 0))
			return (int)i;
	}
	b->objects = xrealloc(b->objects, (b->nobjects + 1) * sizeof *b->objects);
	o = &b->objects[b->nobjects];
	memset(o, 0, sizeof *o);
	o->path = xstrdup(path);
	o->seen_lo = UINT64_MAX;
	if (build_id_len > 0) {
		memcpy(o->build_id, build_id, build_id_len);
		o->build_id_len = build_id_len;
	}
	hmap_init(&o->hist);
	hmap_init(&o->frames);
	if (strcmp(path, "[vdso]") == 0) {
		read_vdso(o);
	} else if (path[0] == '/') {
		Elf *elf = elfcache_open(path);

		if (elf != NULL) {
			struct bobject probe = *o;

			/* A file whose build-id differs is not what was mapped. */
			probe.build_id_len = 0;
			read_elf(&probe, elf);
			if (o->build_id_len == 0 ||
			    (probe.build_id_len == o->build_id_len &&
			    memcmp(probe.build_id, o->build_id, o->build_id_len) == 0))
				*o = probe, o->build_id_len = probe.build_id_len;
			elf_end(elf);
		}
	}
	return (int)b->nobjects++;
}

const char *
builder_object_path(const struct builder *b, int obj)
{
	return obj >= 0 && (size_t)obj < b->nobjects ? b->objects[obj].path : NULL;
}

uint64_t
builder_link_address(const struct bobject *o, uint64_t file_offset)
{
	for (int i = 0; i < o->nsegs; i++) {
		const struct segment *s = &o->segs[i];

		if (file_offset >= s->offset && file_offset - s->offset < s->filesz)
			return file_offset - s->offset < UINT64_MAX - s->vaddr ?
			    file_offset - s->offset + s->vaddr : UINT64_MAX;
	}
	return file_offset;
}
