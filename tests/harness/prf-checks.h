/*
 * prf-checks.h - what the tests of the .prf codec share (prf-checks.c):
 * profiles of known contents to write and read back, the check that a
 * malformed file is refused with a cause naming what is wrong, and the
 * records of an encoded file found and edited.
 */
#ifndef PROFIL_TEST_PRF_CHECKS_H
#define PROFIL_TEST_PRF_CHECKS_H

#include <stddef.h>
#include <stdint.h>

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

/*
 * A wall profile (record --wall; prf-checks.c says what it holds), in p
 * and the wall_* arrays below, which a test may change before encoding.
 */
extern struct profil_bucket wall_bucket;
extern struct profil_object wall_app;
extern struct profil_frame wall_frames[7];
extern struct profil_stack wall_stacks[4];
extern struct profil_wall wall_stats;
extern struct profil_thread wall_threads[2];
void wall_profile(struct profil_profile *p);

/* p encoded (which must succeed): malloc'd, its size in *size. */
void *encoded(const struct profil_profile *p, size_t *size);

/* data refused by the reader (EINVAL) with a cause holding words. */
void expect_refusal(const void *data, size_t size, const char *words);

/* The byte offset of the first record of tag in data, or 0. */
size_t record_at(const uint8_t *data, size_t size, unsigned tag);

/* The size of the record at byte at, its frame (8 bytes) included. */
size_t record_size(const uint8_t *data, size_t at);

/* The end record's checksum made right after an edit (CRC-32, zlib's). */
void fix_checksum(uint8_t *data, size_t size);

#endif
