/*
 * prf-checks.h - what test-prf and test-prfrecords share (prf-checks.c):
 * a profile of known contents to write and read back, and the check that
 * a malformed file is refused with a cause naming what is wrong.
 */
#ifndef PROFIL_TEST_PRF_CHECKS_H
#define PROFIL_TEST_PRF_CHECKS_H

#include <stddef.h>

#include <profil.h>

/* The program's buckets and argv in sample_profile's profile. */
extern struct profil_bucket exe_buckets[4];
extern char *argv_[4];

/*
 * A profile with every field of the flat profile set, in p and the
 * arrays given (nothing allocated): two objects (the program's sparse
 * buckets, libm's dense ones), two threads, one process.
 */
void sample_profile(struct profil_profile *p, struct profil_object o[2],
    struct profil_thread t[2], struct profil_process *pr);

/* p encoded (which must succeed): malloc'd, its size in *size. */
void *encoded(const struct profil_profile *p, size_t *size);

/* data refused by the reader (EINVAL) with a cause holding words. */
void expect_refusal(const void *data, size_t size, const char *words);

#endif
