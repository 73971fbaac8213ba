/*
 * ksyms.h - names for the kernel addresses of a profile, from this
 * machine's /proc/kallsyms when the profile was recorded on this kernel
 * (same build-id), moved by the difference of _text when it was another
 * boot.  /proc/kallsyms takes some 200 ms to read, so its text symbols
 * are kept in a per-user cache file by kernel build-id and boot.
 */
#ifndef PROFIL_SYMBOLS_KSYMS_H
#define PROFIL_SYMBOLS_KSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <profil.h>

struct ksyms;

/*
 * The kernel symbols for k.  Never NULL: when they cannot be had (another
 * kernel, addresses hidden by kptr_restrict, another boot whose _text was
 * hidden) the table is empty and *problem says why in a few words.
 */
struct ksyms *ksyms_open(const struct profil_kernel *k, const char **problem);
void ksyms_close(struct ksyms *t);

/*
 * p's kernel symbols: this machine's (ksyms_open) or, where they cannot
 * be had, the names the profile keeps (profil archive).
 */
struct ksyms *ksyms_open_profile(const struct profil_profile *p,
    const char **problem);

/*
 * The function holding addr (an address of the profile's boot): its
 * name ("name [module]" for a module's) and [start, end) in the same
 * addresses; NULL if none.  Names live as long as the table.
 */
const char *ksyms_lookup(struct ksyms *t, uint64_t addr, uint64_t *start,
    uint64_t *end);

/*
 * The name of a kernel frame: as ksyms_lookup, with t NULL (no table
 * opened: NULL but for the below), and the kernel's time counted, not
 * sampled (PROFIL_KERNEL_UNSAMPLED: no place in its code) named
 * KSYMS_UNSAMPLED, [start, end) its one address.
 */
#define KSYMS_UNSAMPLED "[kernel: not sampled]"
const char *ksyms_name(struct ksyms *t, uint64_t addr, uint64_t *start,
    uint64_t *end);
/*
 * Whether p's kernel code has places to name: not if all its kernel
 * time was counted, not sampled (then no table needs opening).
 */
int ksyms_wanted(const struct profil_profile *p);

/*
 * The parsers ksyms_open uses, for the fuzz target: a table of the text
 * symbols of a kallsyms file f (never NULL; empty, with *problem, when
 * it shows no addresses), or of a cache file's size bytes at data
 * (borrowed: they must outlive the table; NULL if not sound for boot_id).
 * Module symbols apply in both.
 */
struct ksyms *ksyms_from_kallsyms(FILE *f, const char **problem);
struct ksyms *ksyms_from_cache(const void *data, size_t size,
    const unsigned char boot_id[16]);

/* The directory of profil's caches: $PROFIL_CACHE_DIR, else
 * $XDG_CACHE_HOME/profil, else ~/.cache/profil; malloc'd, NULL if none. */
char *ksyms_cache_dir(void);

#endif
