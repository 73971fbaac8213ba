/*
 * kernel.h - which kernel is running, so that kernel addresses sampled
 * now can be named later, here or elsewhere: its build-id, release, boot
 * and where its text was put at boot.
 */
#ifndef PROFIL_SYMBOLS_KERNEL_H
#define PROFIL_SYMBOLS_KERNEL_H

#include <profil.h>

/*
 * Fill k's identity (not its code histogram): build-id from
 * /sys/kernel/notes, release from uname, /proc/sys/kernel/random/boot_id,
 * and _text from /proc/kallsyms (0 where it is hidden).  Fields that
 * cannot be read stay empty.
 */
void kernel_identify(struct profil_kernel *k);

#endif
