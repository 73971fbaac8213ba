/*
 * elfcache.h - each object file opened once for a whole recording, and
 * shared by every process's unwinding session.
 *
 * libdwfl keeps a session per address space (unwind-modules.c), and a
 * session opens the objects it needs CFI from.  Left to itself, each
 * process of a program that forks and execs opened its libc, its loader
 * and its executable again; here the second process of the same file
 * gets the first one's Elf descriptor (libelf counts the references),
 * with the file mapped once and no descriptor kept open.
 */
#ifndef PROFIL_RECORD_ELFCACHE_H
#define PROFIL_RECORD_ELFCACHE_H

#include <libelf.h>

/*
 * The ELF image of the file at path (the same file: device, inode and
 * modification time), a reference for the caller to elf_end; NULL if it
 * cannot be opened or read as ELF.
 */
Elf *elfcache_open(const char *path);

#endif
