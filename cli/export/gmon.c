/*
 * gmon.c - a profile as gmon.out files GNU gprof reads, one per object
 * with samples (gmon.OBJECT.out), at link-time addresses.
 *
 * Only the flat histogram: PC sampling records no call arcs, so gprof's
 * call graph stays empty.
 *
 * gmon.out: "gmon" version:u32(1) spare[12], then histogram records:
 *   tag:u8(0) low_pc high_pc (address-sized) bins:u32 rate:u32
 *   dimension[15] abbrev:u8, then bins 16-bit counts (host order).
 * A count above 65535 continues in further records over the same range,
 * which gprof adds up.  gprof works in 2-byte units and truncates bin
 * addresses to them, so bins are at least 2 bytes wide.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "gmon.h"
#include "outfile.h"

static void
put(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

/*
 * 1 if path is an ELF file without a .symtab: gprof names functions from
 * that table alone (no .dynsym, no debug link), so it can name none.
 */
static int
without_symtab(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), found = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return 0;
	}
	while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		found = gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB;
	}
	elf_end(elf);
	close(fd);
	return !found;
}

/* Write one object's histogram; 0, or -1 with a cause. */
static int
write_gmon(const struct profil_profile *p, const struct profil_object *o,
    const char *path, char *cause, size_t cause_size)
{
	uint64_t width = o->bucket_bytes < 2 ? 2 : o->bucket_bytes;
	uint64_t low = o->lowpc - o->lowpc % width, nbins, *left, more = 1, i;
	char dimen[15] = "seconds";
	uint32_t version = 1, bins32, rate;
	struct outfile of;
	FILE *f;

	nbins = (o->highpc - low + width - 1) / width;
	if (nbins > UINT32_MAX) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(EFBIG));
		return -1;
	}
	left = xcalloc(nbins, sizeof *left);
	for (i = 0; i < o->nbuckets; i++)
		left[(o->buckets[i].addr - low) / width] += o->buckets[i].count;
	if (outfile_open(&of, path, OUTFILE_GMON, cause, cause_size) < 0) {
		free(left);
		return -1;
	}
	if ((f = fdopen(of.fd, "w")) == NULL) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(&of, NULL);
		free(left);
		return -1;
	}
	put(f, "gmon", 4);
	put(f, &version, 4);
	put(f, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	bins32 = (uint32_t)nbins;
	rate = p->interval_ns ? (uint32_t)(1000000000u / p->interval_ns) : 1;
	while (more) {
		uint64_t high = low + nbins * width;

		more = 0;
		fputc(0, f);			/* GMON_TAG_TIME_HIST */
		put(f, &low, sizeof low);
		put(f, &high, sizeof high);
		put(f, &bins32, 4);
		put(f, &rate, 4);
		put(f, dimen, 15);
		fputc('s', f);
		for (i = 0; i < nbins; i++) {
			uint16_t c = left[i] > 65535 ? 65535 : (uint16_t)left[i];

			left[i] -= c;
			more |= left[i];
			put(f, &c, 2);
		}
	}
	free(left);
	return outfile_commit(&of, f, cause, cause_size);
}

int
export_gmon(const struct profil_profile *p, const char *file, const char *dir)
{
	char cause[PATH_MAX + 256];
	char path[PATH_MAX];
	int written = 0;

	for (size_t i = 0; i < p->nobjects; i++) {
		const struct profil_object *o = &p->objects[i];
		const char *slash = strrchr(o->path, '/');

		if (o->samples == 0 || o->path[0] != '/')
			continue;
		snprintf(path, sizeof path, "%s/gmon.%s.out", dir, slash + 1);
		if (write_gmon(p, o, path, cause, sizeof cause) < 0) {
			cli_error("%s", cause);
			return 1;
		}
		printf("%s\t%s\n", path, o->path);
		if (without_symtab(o->path))
			cli_warn("%s: %s has no symbol table (stripped): gprof "
			    "will name none of its functions ('profil report' "
			    "names them from its unwind tables)", path,
			    slash + 1);
		written++;
	}
	if (written == 0)
		cli_warn("%s: no object has samples: nothing to export", file);
	return 0;
}
