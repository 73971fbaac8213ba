/*
 * builder-internal.h - what the builder's files share; builder.h is their
 * contract with the engines.  Private to cli/record/core/builder*.c.
 *
 *   builder-objects.c  the mapped files: segments, build-id, one object
 *                      a file whatever its paths, and file offsets to
 *                      link-time addresses
 *   builder-samples.c  samples counted per object, kernel, unknown,
 *                      thread and process; names, parents, exits
 *   builder-stacks.c   call stacks: frames, the tree of distinct stacks
 *                      (lib/codec/stacktree.h), their counts, and the profile's
 *   builder.c          a builder made and freed, and the finished profile
 *
 * Each calls only the files above it in this list.
 *
 * Invariant: samples = object samples + kernel + unknown, and the same
 * sum over threads and over processes.
 */
#ifndef PROFIL_RECORD_BUILDER_INTERNAL_H
#define PROFIL_RECORD_BUILDER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <profil.h>

#include "builder.h"
#include "codec/stacktree.h"
#include "hmap.h"

#define MAX_SEGMENTS 16

struct segment {
	uint64_t offset, vaddr, filesz;
};

struct bobject {
	char *path;
	unsigned char build_id[64];
	unsigned build_id_len;
	dev_t dev;			/* the file's, when stat found it */
	ino_t ino;
	int has_inode;
	struct segment segs[MAX_SEGMENTS];
	int nsegs;
	uint64_t lowpc, highpc;		/* from the ELF file, if read */
	uint64_t seen_lo, seen_hi;	/* addresses sampled */
	struct hmap hist;		/* link address / bucket -> count */
	uint64_t samples;
	struct hmap frames;		/* link address -> frame + 1 */
};

struct bthread {
	pid_t pid, tid;
	char *name;
	uint64_t samples;
	uint64_t run_samples;		/* over every period (builder_reset) */
	int asked;			/* builder_thread_unnamed has said 1 */
};

struct bprocess {
	pid_t pid, ppid;
	char *comm;
	int status;
	uint64_t samples;
};

/* Another path of an object's file (a hard link, a copy of its build). */
struct balias {
	char *path;
	unsigned char build_id[64];	/* as it was asked with, if at all */
	unsigned build_id_len;
	int obj;
};

struct builder {
	unsigned bucket_bytes;
	struct bobject *objects;
	size_t nobjects;
	struct balias *aliases;
	size_t naliases;
	struct bthread *threads;
	size_t nthreads;
	struct hmap thread_index;	/* tid -> index + 1 */
	struct bprocess *processes;
	size_t nprocesses;
	struct hmap process_index;	/* pid -> index + 1 */
	uint64_t samples, kernel, unknown, lost;
	struct hmap kernel_hist;		/* kernel address -> count */
	int kernel_ips;			/* every kernel sample had its address */
	struct profil_kernel kernel_id;
	int omit_threads, external_threads;
	/* stacks: frames, a tree of them from the outermost in, and counts */
	int stacks;
	struct bfr { int obj; uint64_t addr; } *frames;	/* link addresses */
	size_t nframes, frames_cap;
	struct hmap special_frames[4];	/* UNKNOWN, KERNEL, CUT, OFFCPU:
					   value -> + 1 */
	struct stacktree tree;		/* of frame numbers */
	struct hmap stack_counts;	/* node << 32 | thread -> count */
	struct hmap fp_frames;		/* frame number -> 1: its callers were
					   found by frame pointer (fpmarks.h) */
	/* wall profiles: node << 32 | thread -> 1 + index in off */
	struct hmap stack_off;
	struct boff { uint64_t off_ns, sampled_ns, observations; } *off;
	size_t noff, off_cap;
	struct profil_wall *wall;
	/* when: keys node << 32 | thread, and BUILDER_TL_OWN | thread */
	struct timeline *tl;
	uint64_t tl_last;		/* the latest time a sample came */
};

/* The thread tid of pid, added on first sight (no samples, no name). */
struct bthread *builder_thread_of(struct builder *b, pid_t pid, pid_t tid);
/* The process pid, added on first sight (its exit status unknown). */
struct bprocess *builder_process_of(struct builder *b, pid_t pid);

/* The sample at link address addr of object obj (not UINT64_MAX). */
void builder_count_at(struct builder *b, int obj, uint64_t addr,
    uint64_t weight, pid_t pid, pid_t tid);

/*
 * The link-time address of file offset in object o (through its
 * executable segments; the offset itself if none holds it), or
 * UINT64_MAX for none a profile can hold: a segment whose addresses would
 * run past 2^64 - 1 (a damaged or hostile file) places nothing, and
 * 2^64 - 1 itself is no address (each lies below its object's highpc).
 */
uint64_t builder_link_address(const struct bobject *o, uint64_t file_offset);

/*
 * p's frames and stacks from the builder's, objects renumbered by map
 * (builder object -> profile object): frames sorted by object and
 * address as the format wants them, each stack leaf first.
 */
void builder_finish_stacks(struct builder *b, struct profil_profile *p,
    const size_t *map);

/*
 * The CPU time no sample stood for (builder_cpu_fill) as a stack of its
 * thread, spread in the timeline as the thread's samples were.
 */
void builder_stack_fill(struct builder *b, const struct bframe *frames,
    size_t n, uint64_t weight, pid_t pid, pid_t tid);

#endif
