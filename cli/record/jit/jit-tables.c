/*
 * jit-tables.c - generated code's unwind tables, and their ELF images
 * (jit-tables.h).
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cli.h"
#include "jit-tables.h"
#include "jitdump.h"

uint32_t
jit_tables_keep(struct jit_tables *t, const struct jitdump_unwind *u)
{
	size_t size = u->eh_frame_size + u->hdr_size;

	if (u->eh_frame_size == 0 || u->mapped_size == 0)
		return 0;
	if (size > JIT_TABLES_BYTES - t->nbytes || t->n >= UINT32_MAX - 1) {
		t->dropped++;
		return 0;
	}
	if (t->nbytes + size > t->bytes_cap) {
		t->bytes_cap = t->bytes_cap ? 2 * t->bytes_cap : 4096;
		if (t->bytes_cap < t->nbytes + size)
			t->bytes_cap = t->nbytes + size;
		t->bytes = xrealloc(t->bytes, t->bytes_cap);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->t = xrealloc(t->t, t->cap * sizeof *t->t);
	}
	memcpy(t->bytes + t->nbytes, u->eh_frame, u->eh_frame_size);
	memcpy(t->bytes + t->nbytes + u->eh_frame_size, u->eh_frame_hdr,
	    u->hdr_size);
	t->t[t->n] = (struct jit_table){ t->nbytes, u->eh_frame_size,
	    u->hdr_size };
	t->nbytes += size;
	return (uint32_t)++t->n;
}

/*
 * The image: the ELF header, one PT_LOAD, the tables, the section names,
 * then the section headers (none, .eh_frame_hdr if there is one, before
 * .eh_frame as libdw looks for it, .eh_frame, .shstrtab).
 */
static const char shstrtab[] = "\0.eh_frame_hdr\0.eh_frame\0.shstrtab";
enum { NAME_HDR = 1, NAME_EH = 15, NAME_STRTAB = 25 };

unsigned char *
jit_tables_image(const struct jit_tables *t, uint32_t ref, uint64_t code_size,
    size_t *len)
{
	const struct jit_table *tb = &t->t[ref - 1];
	uint64_t base = (code_size + 7) & ~(uint64_t)7;
	size_t off_eh = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);
	size_t off_hdr = off_eh + tb->eh_frame_size;
	size_t off_str = off_hdr + tb->hdr_size;
	size_t off_sh = (off_str + sizeof shstrtab + 7) & ~(size_t)7;
	int has_hdr = tb->hdr_size > 0;
	size_t nsh = has_hdr ? 4 : 3, k = 1;
	unsigned char *im;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Shdr sh[4];

	*len = off_sh + nsh * sizeof(Elf64_Shdr);
	im = xcalloc(1, *len);
	memset(&eh, 0, sizeof eh);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = ARCH_ELF_MACHINE;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof eh;
	eh.e_shoff = off_sh;
	eh.e_ehsize = sizeof eh;
	eh.e_phentsize = sizeof ph;
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (Elf64_Half)nsh;
	eh.e_shstrndx = (Elf64_Half)(nsh - 1);
	memset(&ph, 0, sizeof ph);
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_memsz = base + tb->eh_frame_size + tb->hdr_size;
	ph.p_align = 8;
	memset(sh, 0, sizeof sh);
	if (has_hdr)
		sh[k++] = (Elf64_Shdr){ .sh_name = NAME_HDR, .sh_type =
		    SHT_PROGBITS, .sh_flags = SHF_ALLOC, .sh_addr = base +
		    tb->eh_frame_size, .sh_offset = off_hdr, .sh_size =
		    tb->hdr_size, .sh_addralign = 4 };
	sh[k++] = (Elf64_Shdr){ .sh_name = NAME_EH, .sh_type = SHT_PROGBITS,
	    .sh_flags = SHF_ALLOC, .sh_addr = base, .sh_offset = off_eh,
	    .sh_size = tb->eh_frame_size, .sh_addralign = 8 };
	sh[k++] = (Elf64_Shdr){ .sh_name = NAME_STRTAB, .sh_type = SHT_STRTAB,
	    .sh_offset = off_str, .sh_size = sizeof shstrtab, .sh_addralign =
	    1 };
	memcpy(im, &eh, sizeof eh);
	memcpy(im + sizeof eh, &ph, sizeof ph);
	memcpy(im + off_eh, t->bytes + tb->off, tb->eh_frame_size + tb->hdr_size);
	memcpy(im + off_str, shstrtab, sizeof shstrtab);
	memcpy(im + off_sh, sh, nsh * sizeof *sh);
	return im;
}

void
jit_tables_free(struct jit_tables *t)
{
	free(t->bytes);
	free(t->t);
	memset(t, 0, sizeof *t);
}
