/*
 * vdso.h - the kernel's vDSO is not a file: its image is read from our
 * own mapping, which is the one every process on this kernel gets.
 */
#ifndef PROFIL_VDSO_H
#define PROFIL_VDSO_H

#include <stddef.h>

/* Our vDSO's ELF image and its size, or NULL if there is none. */
const void *vdso_image(size_t *size);

#endif
