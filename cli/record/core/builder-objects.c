/*
 * builder-objects.c - the builder's objects (builder-internal.h): a mapped
 * file, its executable PT_LOAD segments and build-id read with libelf,
 * and the segments' mapping of a file offset to the link-time address
 * symbol tables use (so ASLR and PIE do not matter).  A file whose
 * build-id differs from the one mapped is not what was mapped: its
 * segments are not used.  Invariant: one object a file, whatever the
 * paths it was mapped by (hard links, copies of one build: aliases).
 */
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* Whether an object asked for with build_id may be o (none: any). */
static int
same_build(const unsigned char *id, unsigned id_len,
    const unsigned char *build_id, unsigned build_id_len)
{
	return build_id_len == 0 || (id_len == build_id_len &&
	    memcmp(id, build_id, build_id_len) == 0);
}

/*
 * The object o's file already is, under another path: the same device
 * and inode (a hard link: /usr/bin/git is /usr/lib/git-core/git), or the
 * same build-id with the same executable segments (a copy of the same
 * build).  -1 if none.  Two rows of one file's functions would each hold
 * part of its time.
 */
static int
same_file(const struct builder *b, const struct bobject *o)
{
	for (size_t i = 0; i < b->nobjects; i++) {
		const struct bobject *k = &b->objects[i];

		if (k->path[0] != '/' || k->build_id_len != o->build_id_len ||
		    memcmp(k->build_id, o->build_id, o->build_id_len) != 0)
			continue;
		if (o->has_inode && k->has_inode && k->dev == o->dev &&
		    k->ino == o->ino)
			return (int)i;
		if (o->build_id_len > 0 && k->nsegs == o->nsegs &&
		    memcmp(k->segs, o->segs, (size_t)o->nsegs *
		    sizeof *o->segs) == 0)
			return (int)i;
	}
	return -1;
}

int
builder_object(struct builder *b, const char *path,
    const unsigned char *build_id, unsigned build_id_len)
{
	struct bobject o;
	struct balias *a;
	size_t i;
	int same;

	if (build_id_len > sizeof o.build_id)
		build_id_len = 0;
	for (i = 0; i < b->nobjects; i++)
		if (strcmp(b->objects[i].path, path) == 0 &&
		    same_build(b->objects[i].build_id, b->objects[i].build_id_len,
		    build_id, build_id_len))
			return (int)i;
	for (i = 0; i < b->naliases; i++)
		if (strcmp(b->aliases[i].path, path) == 0 &&
		    same_build(b->aliases[i].build_id, b->aliases[i].build_id_len,
		    build_id, build_id_len))
			return b->aliases[i].obj;
	memset(&o, 0, sizeof o);
	o.seen_lo = UINT64_MAX;
	if (build_id_len > 0) {
		memcpy(o.build_id, build_id, build_id_len);
		o.build_id_len = build_id_len;
	}
	if (strcmp(path, "[vdso]") == 0) {
		read_vdso(&o);
	} else if (path[0] == '/') {
		Elf *elf = elfcache_open(path);
		struct stat st;

		if (elf != NULL) {
			struct bobject probe = o;

			/* A file whose build-id differs is not what was mapped. */
			probe.build_id_len = 0;
			read_elf(&probe, elf);
			if (o.build_id_len == 0 ||
			    (probe.build_id_len == o.build_id_len &&
			    memcmp(probe.build_id, o.build_id, o.build_id_len) == 0))
				o = probe;
			elf_end(elf);
			/* its inode, if the file read is the one mapped */
			if (o.nsegs > 0 && stat(path, &st) == 0) {
				o.dev = st.st_dev;
				o.ino = st.st_ino;
				o.has_inode = 1;
			}
		}
		if ((same = same_file(b, &o)) >= 0) {
			b->aliases = xrealloc(b->aliases, (b->naliases + 1) *
			    sizeof *b->aliases);
			a = &b->aliases[b->naliases++];
			memset(a, 0, sizeof *a);
			a->path = xstrdup(path);
			if (build_id_len > 0)	/* (none: build_id may be NULL) */
				memcpy(a->build_id, build_id, build_id_len);
			a->build_id_len = build_id_len;
			a->obj = same;
			return same;
		}
	}
	o.path = xstrdup(path);
	hmap_init(&o.hist);
	hmap_init(&o.frames);
	b->objects = xrealloc(b->objects, (b->nobjects + 1) * sizeof *b->objects);
	b->objects[b->nobjects] = o;
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
