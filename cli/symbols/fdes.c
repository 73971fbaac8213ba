/*
 * fdes.c - an object's call-frame entries by address range (fdes.h).
 *
 * Each FDE begins with the address its code starts at and the length of
 * that code, in the encoding its CIE's augmentation gives ('R' in a "z"
 * string; none means an absolute address).  Compiled code uses a 4-byte
 * offset from the field itself (pcrel, sdata4) in .eh_frame and absolute
 * addresses in .debug_frame; the other value formats are decoded too,
 * and an encoding relative to anything but the field (text, data,
 * function bases, which need more than the section to resolve) leaves
 * the entry out.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fdes.h"
#include "sorted.h"

struct reader {
	const uint8_t *p, *end;
	int big_endian;
	int ptr_size;		/* of an absolute address */
};

/* An unsigned value of n bytes; -1 past the end. */
static int
read_fixed(struct reader *r, int n, uint64_t *v)
{
	if (r->end - r->p < n)
		return -1;
	*v = 0;
	for (int i = 0; i < n; i++) {
		int at = r->big_endian ? i : n - 1 - i;

		*v = *v << 8 | r->p[at];
	}
	r->p += n;
	return 0;
}

static int
read_leb(struct reader *r, int is_signed, uint64_t *v)
{
	unsigned shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (r->p >= r->end || shift >= 64)
			return -1;
		b = *r->p++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		*v |= ~(uint64_t)0 << shift;
	return 0;
}

/*
 * A value in encoding enc (DW_EH_PE_*) at r, the field at address at;
 * -1 if it is past the end or in an encoding not decoded here.
 */
static int
read_encoded(struct reader *r, uint8_t enc, uint64_t at, uint64_t *v)
{
	static const int size[16] = { [DW_EH_PE_udata2] = 2,
	    [DW_EH_PE_udata4] = 4, [DW_EH_PE_udata8] = 8,
	    [DW_EH_PE_sdata2] = 2, [DW_EH_PE_sdata4] = 4,
	    [DW_EH_PE_sdata8] = 8 };
	int format = enc & 0x0f, rc;

	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect) ||
	    ((enc & 0x70) != DW_EH_PE_absptr && (enc & 0x70) != DW_EH_PE_pcrel))
		return -1;
	if (format == DW_EH_PE_uleb128 || format == DW_EH_PE_sleb128) {
		rc = read_leb(r, format == DW_EH_PE_sleb128, v);
	} else if (format == DW_EH_PE_absptr) {
		rc = read_fixed(r, r->ptr_size, v);
	} else if (size[format] != 0) {
		rc = read_fixed(r, size[format], v);
		if (rc == 0 && (format & DW_EH_PE_signed) && size[format] < 8 &&
		    (*v >> (8 * size[format] - 1) & 1))
			*v |= ~(uint64_t)0 << 8 * size[format];
	} else {
		return -1;
	}
	if (rc == 0 && (enc & 0x70) == DW_EH_PE_pcrel)
		*v += at;
	return rc;
}

/* The encoding of the addresses of a CIE's FDEs; -1 if unknown. */
static int
fde_encoding(const Dwarf_CIE *cie, int eh_frame)
{
	struct reader r = { cie->augmentation_data, cie->augmentation_data +
	    cie->augmentation_data_size, 0, 8 };
	const char *a = cie->augmentation;
	uint64_t skip;

	if (!eh_frame || a[0] == '\0')
		return DW_EH_PE_absptr;
	if (a[0] != 'z' || cie->augmentation_data == NULL)
		return -1;
	for (a++; *a != '\0'; a++) {
		uint8_t enc;

		switch (*a) {
		case 'R':
			return r.p < r.end ? *r.p : -1;
		case 'L':
			r.p++;
			break;
		case 'P':
			if (r.p >= r.end)
				return -1;
			enc = *r.p++;
			/* the personality routine's address: only its size */
			if (read_encoded(&r, enc & 0x0f, 0, &skip) < 0)
				return -1;
			break;
		case 'S': case 'B': case 'G':
			break;
		default:
			return -1;	/* data of a size not known */
		}
	}
	return DW_EH_PE_absptr;
}

struct cie_seen {
	Dwarf_Off offset;
	int enc;
};

static void
add_section(struct fdes *f, const unsigned char *ident, Elf_Data *data,
    uint64_t addr, int eh_frame, uint64_t bias)
{
	struct cie_seen *cies = NULL;
	size_t ncies = 0, cap = f->n;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;

	while (dwarf_next_cfi(ident, data, eh_frame, off, &next, &e) == 0) {
		const uint8_t *base = data->d_buf;
		struct reader r;
		uint64_t start, len;
		int enc = -1;
		size_t i;

		if (dwarf_cfi_cie_p(&e)) {
			cies = xrealloc(cies, (ncies + 1) * sizeof *cies);
			cies[ncies++] = (struct cie_seen){ off,
			    fde_encoding(&e.cie, eh_frame) };
			off = next;
			continue;
		}
		for (i = 0; i < ncies && cies[i].offset != e.fde.CIE_pointer; i++)
			;
		if (i < ncies) {
			enc = cies[i].enc;
		} else {	/* a CIE further on: read it where it is */
			Dwarf_Off skip;
			Dwarf_CFI_Entry c;

			if (dwarf_next_cfi(ident, data, eh_frame,
			    e.fde.CIE_pointer, &skip, &c) == 0 && dwarf_cfi_cie_p(&c))
				enc = fde_encoding(&c.cie, eh_frame);
		}
		r = (struct reader){ e.fde.start, e.fde.end,
		    ident[EI_DATA] == ELFDATA2MSB,
		    ident[EI_CLASS] == ELFCLASS32 ? 4 : 8 };
		if (enc >= 0 &&
		    read_encoded(&r, (uint8_t)enc, addr +
		    (uint64_t)(e.fde.start - base), &start) == 0 &&
		    read_encoded(&r, (uint8_t)(enc & 0x0f), 0, &len) == 0 &&
		    start != 0 && len != 0 && start + len > start) {
			if (f->n == cap) {
				cap = cap ? 2 * cap : 64;
				f->r = xrealloc(f->r, cap * sizeof *f->r);
			}
			f->r[f->n++] = (struct fde_range){ start + bias,
			    start + len + bias };
		}
		off = next;
	}
	free(cies);
}

static int
by_start(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void
fdes_add(struct fdes *f, Elf *elf, uint64_t bias)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf,
	    NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (ident == NULL || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;
		int eh;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS ||
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) == NULL)
			continue;
		eh = strcmp(name, ".eh_frame") == 0;
		if (!eh && strcmp(name, ".debug_frame") != 0)
			continue;
		/* compressed .debug_frame (SHF_COMPRESSED) is read whole */
		if ((sh.sh_flags & SHF_COMPRESSED) &&
		    elf_compress(scn, 0, 0) < 0)
			continue;
		if ((data = elf_getdata(scn, NULL)) == NULL || data->d_buf == NULL)
			continue;
		add_section(f, ident, data, sh.sh_addr, eh, bias);
	}
	if (f->n > 1)
		qsort(f->r, f->n, sizeof *f->r, by_start);
}

int
fdes_find(const struct fdes *f, uint64_t addr, uint64_t *start,
    uint64_t *end)
{
	size_t lo = sorted_upper(f->r, f->n, sizeof *f->r,
	    offsetof(struct fde_range, start), addr);

	/* lo - 1: the last to start at or before addr; the same code may
	   have an entry in each section, of other lengths */
	for (size_t k = lo; k > 0 && lo - k < 4; k--)
		if (addr < f->r[k - 1].end) {
			*start = f->r[k - 1].start;
			*end = f->r[k - 1].end;
			return 0;
		}
	return -1;
}

void
fdes_around(const struct fdes *f, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	size_t a = sorted_upper(f->r, f->n, sizeof *f->r,
	    offsetof(struct fde_range, start), addr);

	*hi = a < f->n ? f->r[a].start : UINT64_MAX;
	*lo = 0;
	for (size_t k = a; k > 0 && a - k < 4; k--)
		if (f->r[k - 1].end <= addr && f->r[k - 1].end > *lo)
			*lo = f->r[k - 1].end;
}

void
fdes_free(struct fdes *f)
{
	free(f->r);
	f->r = NULL;
	f->n = 0;
}
