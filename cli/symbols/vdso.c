/*
 * vdso.c - the extent of the vDSO image: program headers and section
 * headers both lie inside it, so the largest end is its size.
 */
#include <elf.h>
#include <string.h>
#include <sys/auxv.h>

#include "vdso.h"

const void *
vdso_image(size_t *size)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	size_t n = 0;

	if (base == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff +
		    (size_t)i * eh->e_phentsize);
		if (ph->p_offset + ph->p_filesz > n)
			n = ph->p_offset + ph->p_filesz;
	}
	if (eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > n)
		n = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	*size = n;
	return base;
}
