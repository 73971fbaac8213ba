/*
 * builder.h - a profile under construction: the recorder's engines feed
 * it samples as (object, file offset) or kernel/unknown/lost, and it folds
 * them into per-object histograms at link-time addresses (so ASLR and PIE
 * do not matter), with per-thread and per-process totals.
 */
#ifndef PROFIL_BUILDER_H
#define PROFIL_BUILDER_H

#include <stdint.h>
#include <sys/types.h>

#include <profil.h>

struct builder;

struct builder *builder_new(unsigned bucket_bytes);
void builder_free(struct builder *b);

/*
 * The object for a mapped file (or "[vdso]", "//anon", ...), added on
 * first sight.  build_id may be NULL (then it is read from the file).
 * Returns its index.
 */
int builder_object(struct builder *b, const char *path,
    const unsigned char *build_id, unsigned build_id_len);

/* The path object obj was added with; lives as long as the builder. */
const char *builder_object_path(const struct builder *b, int obj);

/* One sample (weight samples) at file offset in object obj. */
void builder_sample(struct builder *b, int obj, uint64_t file_offset,
    uint64_t weight, pid_t pid, pid_t tid);
/* A kernel-mode sample at address ip of the running kernel (0: unknown). */
void builder_kernel(struct builder *b, uint64_t ip, uint64_t weight, pid_t pid,
    pid_t tid);
/*
 * Who the running kernel is (symbols/kernel.h: its build-id, release,
 * boot and text address), read now, kept if kernel samples came.
 */
void builder_identify_kernel(struct builder *b);
void builder_unknown(struct builder *b, uint64_t weight, pid_t pid, pid_t tid);
void builder_lost(struct builder *b, uint64_t n);

/*
 * Call stacks.  After builder_stacks(), engines hand every sample over
 * with its stack (builder_sample_stack), and the profile has stacks.
 * A frame is where in which object (a file offset, as for samples), or
 * one of the kinds below with what it carries.
 */
enum { BFRAME_UNKNOWN = -1,	/* value: the pc, in no object */
	BFRAME_KERNEL = -2,	/* value: the kernel address */
	BFRAME_CUT = -3,	/* value: PROFIL_CUT_*, the stack ends short */
	BFRAME_OFFCPU = -4 };	/* value: PROFIL_OFFCPU_* or a system call:
				   a wall profile's leaf off the CPU */
struct bframe {
	int obj;		/* builder object, or BFRAME_* */
	uint64_t value;		/* file offset in obj, or as above */
};
void builder_stacks(struct builder *b);
/*
 * With stacks, the profile keeps a timeline (timeline.h): when each
 * stack's samples came, slice 0 starting at origin (the records' clock,
 * record/core/clock.h).  The timeline is the builder's; keys at and
 * above BUILDER_TL_CALLER, below BUILDER_TL_OWN, are its callers' (the
 * wall time's accounts, whose place is decided late).
 */
#define BUILDER_TL_CALLER	(2ull << 62)
#define BUILDER_TL_OWN		(3ull << 62)
#define BUILDER_TL_NONE		UINT64_MAX	/* no shape: at the time given */
void builder_timeline(struct builder *b, uint64_t origin);
struct timeline *builder_timeline_of(struct builder *b);	/* or NULL */
/* The run ends at end: the timeline's slices reach it. */
void builder_timeline_end(struct builder *b, uint64_t end);
/*
 * One sample with its stack, frames[0] the sampled place (the leaf),
 * frames[n - 1] the outermost caller (or a cut), taken at time (the
 * records' clock): counted in the flat profile at its leaf as
 * builder_sample, builder_kernel or builder_unknown would, and as a
 * stack of its thread.
 */
void builder_sample_stack(struct builder *b, const struct bframe *frames,
    size_t n, uint64_t weight, pid_t pid, pid_t tid, uint64_t time);

/*
 * Wall profiles (record --wall).  Time a thread spent off the CPU at a
 * stack whose leaf, frames[0], is a BFRAME_OFFCPU frame: off_ns in all,
 * sampled_ns of it apportioned by sampling on so many observations
 * (profil.h).  Added up per (stack, thread); not in the flat profile.
 * In the timeline, spread as the caller's key shape was (its intervals'
 * times), or at time at when it has none (BUILDER_TL_NONE).
 */
void builder_offcpu(struct builder *b, const struct bframe *frames, size_t n,
    uint64_t off_ns, uint64_t sampled_ns, uint64_t observations, pid_t pid,
    pid_t tid, uint64_t shape, uint64_t at);
/* The profile is a wall profile, taken as w says. */
void builder_wall(struct builder *b, const struct profil_wall *w);

/*
 * Thread totals come from builder_thread_samples, not from the samples'
 * tids (an engine that counts threads apart from pcs).  If they do not
 * add up to the samples, no thread records are written.
 */
void builder_external_threads(struct builder *b);
void builder_thread_samples(struct builder *b, pid_t pid, pid_t tid,
    uint64_t n);

/* The samples thread tid of pid has so far (in all periods). */
uint64_t builder_thread_count(struct builder *b, pid_t pid, pid_t tid);
/*
 * weight samples of CPU time the kernel counted and no sample stood
 * for (record --wall), at frames as builder_sample_stack takes them, in
 * the thread's count too where threads are counted apart; in the
 * timeline, spread as the thread's samples were.
 */
void builder_cpu_fill(struct builder *b, const struct bframe *frames,
    size_t n, uint64_t weight, pid_t pid, pid_t tid);

/* Threads and processes: names, parents, exit status. */
void builder_comm(struct builder *b, pid_t pid, pid_t tid, const char *comm);
/*
 * For an engine that reads names from /proc (the timer engine): 1 the
 * first time thread tid is asked about if it has no name yet, then 0, so
 * that a thread gone is looked for once; and fn for each thread of pid
 * (a thread renamed since).  A thread never named takes its process's.
 */
int builder_thread_unnamed(struct builder *b, pid_t pid, pid_t tid);
void builder_threads_each(struct builder *b, pid_t pid,
    void (*fn)(struct builder *b, pid_t pid, pid_t tid));
void builder_fork(struct builder *b, pid_t pid, pid_t ppid);
void builder_exit_status(struct builder *b, pid_t pid, int status);
/* The processes whose exit status is unknown so far; malloc'd, *n of them. */
pid_t *builder_unfinished(struct builder *b, size_t *n);
/*
 * The processes heard of since *seen (0 the first time; moved past them)
 * whose exit status is unknown, with their parent where known (else 0);
 * malloc'd, *n of them.
 */
struct builder_process { pid_t pid, ppid; };
struct builder_process *builder_new_processes(struct builder *b, size_t *seen,
    size_t *n);

/*
 * The finished profile (header fields are the caller's to fill).  The
 * builder keeps owning nothing of it; free with profil_profile_free().
 */
struct profil_profile *builder_finish(struct builder *b);

/*
 * A new period (record --every): every count back to 0, the timeline
 * starting again at origin; what the counts were of (objects, frames,
 * threads, processes, the kernel's identity) kept, so that the next
 * builder_finish is the period's profile alone.
 */
void builder_reset(struct builder *b, uint64_t origin);

#endif
