/*
 * gmon.c - a profile as gmon.out files GNU gprof reads, one per object
 * with samples (gmon.OBJECT.out), at link-time addresses: the flat
 * histogram, and call arcs from the sampled stacks.
 *
 * gmon.out: "gmon" version:u32(1) spare[12], then histogram records:
 *   tag:u8(0) low_pc high_pc (address-sized) bins:u32 rate:u32
 *   dimension[15] abbrev:u8, then bins 16-bit counts (host order);
 * then call-graph arc records:
 *   tag:u8(1) from_pc self_pc (address-sized) count:u32 (host order).
 * A count above 65535 continues in further records over the same range,
 * which gprof adds up; so does an arc's above 2^32 - 1, in further records
 * of the same arc.  gprof works in 2-byte units and truncates bin
 * addresses to them, so bins are at least 2 bytes wide.
 *
 * An arc's count is a number of samples, not of calls: the samples whose
 * stack holds that call.  Invariant: a stack counts once for an arc even
 * where recursion puts the call on it several times, judged by gprof's
 * own functions (so gprof, which adds the arcs of one pair of functions,
 * never shows more samples than there are).
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
#include "hmap.h"
#include "outfile.h"
#include "sorted.h"

static void
put(FILE *f, const void *p, size_t n)
{
	fwrite(p, 1, n, f);
}

static int
by_address(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The functions gprof sees in path: the start addresses of the function
 * symbols of its .symtab (gprof reads no other table), sorted, in
 * *starts (malloc'd; a function runs to the next start, as in gprof).
 * Returns how many; NO_SYMTAB for an ELF file without a .symtab (gprof
 * can name nothing in it), NO_FILE when path cannot be read as ELF.
 */
enum { NO_SYMTAB = -1, NO_FILE = -2 };
static long
gprof_functions(const char *path, uint64_t **starts)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	Elf_Scn *scn = NULL;
	long n = NO_FILE;
	Elf *elf;

	*starts = NULL;
	if (fd < 0)
		return NO_FILE;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF)
		n = NO_SYMTAB;
	while (n == NO_SYMTAB && (scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Sym sym;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB ||
		    sh.sh_entsize == 0)
			continue;
		n = 0;
		data = elf_getdata(scn, NULL);
		*starts = xcalloc(sh.sh_size / sh.sh_entsize + 1, sizeof **starts);
		for (size_t i = 0; data != NULL && i < sh.sh_size / sh.sh_entsize;
		    i++) {
			int type;

			if (gelf_getsym(data, (int)i, &sym) == NULL)
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type == STT_FUNC || type == STT_GNU_IFUNC) &&
			    sym.st_shndx != SHN_UNDEF && sym.st_value != 0)
				(*starts)[n++] = sym.st_value;
		}
		qsort(*starts, (size_t)n, sizeof **starts, by_address);
	}
	elf_end(elf);
	close(fd);
	return n;
}

/*
 * The function of gprof's (starts, n of them) holding addr: its index,
 * or -1 below the first.
 */
static long
function_at(const uint64_t *starts, long n, uint64_t addr)
{
	return (long)sorted_upper(starts, (size_t)n, sizeof *starts, 0, addr) - 1;
}

/*
 * The arcs of object oi in p's stacks: arcs[caller frame << 32 | callee
 * frame] = the samples of the stacks that hold that call, each stack
 * counted once per pair of functions (starts, n of them, as gprof has
 * them; n < 0: none known, each frame its own).  A call whose functions
 * gprof cannot find is left out, as gprof would drop it.
 *
 *     stack, leaf first:   g@x  f@c1  g@y  f@c2  main@m
 *     calls:               f->g (c1 -> x), g->f (y -> c1),
 *                          f->g (c2 -> y: the same functions, not again),
 *                          main->f (m -> c2)
 */
static void
collect_arcs(const struct profil_profile *p, size_t oi, const uint64_t *starts,
    long n, struct hmap *arcs)
{
	long *fn = xcalloc(p->nframes + 1, sizeof *fn);
	struct hmap seen;	/* function pair -> the last stack (+ 1) with it */

	for (size_t i = 0; i < p->nframes; i++)
		fn[i] = p->frames[i].object != oi ? -1 : n < 0 ? (long)i :
		    function_at(starts, n, p->frames[i].addr);
	hmap_init(&seen);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		uint64_t stamp = i + 1;

		for (size_t k = 0; k + 1 < st->depth; k++) {
			uint32_t callee = st->frames[k], caller = st->frames[k + 1];
			uint64_t pair, last;

			if (fn[callee] < 0 || fn[caller] < 0)
				continue;	/* elsewhere, or no function */
			pair = (uint64_t)fn[caller] << 32 | (uint64_t)fn[callee];
			if ((last = hmap_get(&seen, pair)) == stamp)
				continue;	/* recursion: counted already */
			hmap_add(&seen, pair, stamp - last);	/* now stamp */
			hmap_add(arcs, (uint64_t)caller << 32 | callee, st->count);
		}
	}
	hmap_free(&seen);
	free(fn);
}

/* The arc records of arcs (collect_arcs) on f. */
static void
put_arcs(FILE *f, const struct profil_profile *p, const struct hmap *arcs)
{
	size_t n;
	uint64_t *keys = hmap_sorted_keys(arcs, &n);

	for (size_t i = 0; i < n; i++) {
		uint64_t from = p->frames[keys[i] >> 32].addr;
		uint64_t self = p->frames[keys[i] & UINT32_MAX].addr;
		uint64_t left = hmap_get(arcs, keys[i]);

		while (left > 0) {
			uint32_t count = left > UINT32_MAX ? UINT32_MAX :
			    (uint32_t)left;

			fputc(1, f);		/* GMON_TAG_CG_ARC */
			put(f, &from, sizeof from);
			put(f, &self, sizeof self);
			put(f, &count, 4);
			left -= count;
		}
	}
	free(keys);
}

/*
 * Write object oi's histogram and arcs (from arcs: collect_arcs) to path;
 * 0, or -1 with a cause.
 */
static int
write_gmon(const struct profil_profile *p, size_t oi, const struct hmap *arcs,
    const char *path, char *cause, size_t cause_size)
{
	const struct profil_object *o = &p->objects[oi];
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
	if ((f = fdopen(of.file.fd, "w")) == NULL) {
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
	put_arcs(f, p, arcs);
	return outfile_commit(&of, f, cause, cause_size);
}

int
export_gmon(const struct profil_profile *p, const char *file, const char *dir,
    cli_warn_fn *warn, char *cause, size_t cause_size)
{
	char path[PATH_MAX];
	int written = 0;

	for (size_t i = 0; i < p->nobjects; i++) {
		const struct profil_object *o = &p->objects[i];
		const char *slash = strrchr(o->path, '/');
		struct hmap arcs;
		uint64_t *starts;
		long nstarts;
		int rc;

		if (o->samples == 0 || o->path[0] != '/')
			continue;
		snprintf(path, sizeof path, "%s/gmon.%s.out", dir, slash + 1);
		nstarts = gprof_functions(o->path, &starts);
		hmap_init(&arcs);
		collect_arcs(p, i, starts, nstarts, &arcs);
		rc = write_gmon(p, i, &arcs, path, cause, cause_size);
		hmap_free(&arcs);
		free(starts);
		if (rc < 0)
			return -1;
		printf("%s\t%s\n", path, o->path);
		if (nstarts == NO_SYMTAB)
			cli_say(warn, "%s: %s has no symbol table (stripped): gprof "
			    "will name none of its functions ('profil report' "
			    "names them from its unwind tables)", path,
			    slash + 1);
		written++;
	}
	if (written == 0)
		cli_say(warn, "%s: no object has samples: nothing to export",
		    file);
	return 0;
}
