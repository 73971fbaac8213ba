/*
 * profiles.h - profiles made in memory, every count known (profiles.c):
 * what merge's and diff's tests give the code under test where a
 * recording could not say what each count should be.
 */
#ifndef PROFIL_TEST_PROFILES_H
#define PROFIL_TEST_PROFILES_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#define KERNEL PROFIL_FRAME_KERNEL

/* A profile with no objects yet: 1 kHz, the perf engine, one process. */
struct profil_profile *new_profile(unsigned bucket_bytes);

/*
 * An object of p: path, build-id byte (0: none), range, bucket size,
 * buckets; its samples added to p's.
 */
void add_object(struct profil_profile *p, const char *path, unsigned char id,
    uint64_t lowpc, uint64_t highpc, unsigned bucket_bytes,
    const struct profil_bucket *buckets, size_t nbuckets);

/*
 * A stack of p (frames leaf first as (object, addr) pairs), its frames
 * added to p's sorted frames where new (numbers of the stacks so far
 * moved up past them), and its count given to the flat profile at its
 * leaf: the object's bucket at the leaf address, or the kernel.
 */
void add_stack(struct profil_profile *p, uint32_t pid, uint32_t tid,
    uint64_t count, size_t depth, const struct profil_frame *frames);

/* Make p a wall profile with this wall record. */
void make_wall(struct profil_profile *p, uint64_t poll_ns, uint64_t switches,
    uint64_t reads, uint64_t unread_ns);

/*
 * p encoded and read back, or the test fails saying why (the reader
 * checks every total): a profile made by the code under test (what,
 * "the merged profile") is as sound as a file.
 */
void assert_reads_back(const struct profil_profile *p, const char *what);

/* p's stack (pid, tid, frames leaf first, as p's frames say), or NULL. */
const struct profil_stack *stack_of(const struct profil_profile *p,
    uint32_t pid, uint32_t tid, size_t depth,
    const struct profil_frame *frames);

#endif
