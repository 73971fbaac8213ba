/*
 * profil.h - execution-time profiling by program-counter sampling.
 *
 * The classic profil(2) call with its exact historical semantics, the
 * Tru64 extended form for up to 64 address ranges, glibc's sprofil(),
 * and a small modern API (profil_start/profil_stop/profil_get_status).
 * Link with -lprofil; see profil(3).
 */
#ifndef PROFIL_PUBLIC_H
#define PROFIL_PUBLIC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <unistd.h>	/* glibc declares profil() there; ours matches it */

/*
 * glibc's <sys/profil.h> declares struct prof and sprofil(); use it when
 * it exists so that both headers can be included together.
 */
#if defined(__has_include)
#if __has_include(<sys/profil.h>)
#include <sys/profil.h>
#define PROFIL_HAVE_SYS_PROFIL_H 1
#endif
#endif
#ifndef PROFIL_HAVE_SYS_PROFIL_H
struct prof {
	void *pr_base;			/* buffer base */
	size_t pr_size;			/* buffer size in bytes */
	size_t pr_off;			/* pc offset */
	unsigned long int pr_scale;	/* pc scaling (16.16 fixed point) */
};
enum { PROF_USHORT = 0, PROF_UINT = 1 << 0, PROF_FAST = 1 << 1 };
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The classic call.  Counter index for a sampled pc:
 *     ((pc - offset) / 2) * scale / 65536
 * counted when pc >= offset and the index is below bufsiz / 2.
 * scale 0 or 1, or bufsiz 0, stops; profil(0, 0, 0, 0) stops either form.
 * Returns 0, or -1 with errno EFAULT (buffer not writable) or EINVAL.
 */
int profil(unsigned short *buf, size_t bufsiz, size_t offset,
    unsigned int scale);

/*
 * The Tru64 extended form:
 *     profil((unsigned short *)args, n, PROFIL_EXTENDED, 0);
 * args[0..n-1] are non-overlapping ranges [lowpc, highpc) given in
 * decreasing lowpc order, n <= PROFIL_MAX_RANGES.  Each range counts into
 * unsigned int counters at index ((pc - offset) / 2) * scale / 65536.
 */
struct profil_args {
	unsigned int *buffer;
	void *highpc;
	void *lowpc;
	void *offset;
	unsigned int scale;
};
#define PROFIL_EXTENDED		((size_t)-1)
#define PROFIL_MAX_RANGES	64

/* glibc's multi-range form; see sprofil(3) and profil(3) for differences. */
int sprofil(struct prof *profp, int profcnt, struct timeval *tvp,
    unsigned int flags);

/* ---- The modern API ---------------------------------------------------- */

/* How samples are taken. */
enum profil_mechanism {
	PROFIL_MECH_AUTO = 0,	/* choose at start: see profil(3) */
	PROFIL_MECH_TIMER = 1,	/* per-thread CPU-time POSIX timers */
	PROFIL_MECH_PERF = 2	/* per-thread perf_event task clock */
};

#define PROFIL_MAX_HZ	10000	/* above this, signal-per-sample livelocks */

/* One address range counted into its own buffer. */
struct profil_range {
	uintptr_t lowpc;		/* first address counted */
	uintptr_t highpc;		/* first address past the range */
	void *counters;			/* ceil((highpc - lowpc) / bucket_bytes) */
	unsigned int bucket_bytes;	/* code bytes per counter: power of 2 */
	unsigned int counter_bytes;	/* 2 (uint16_t) or 4 (uint32_t) */
};

struct profil_config {
	unsigned int rate_hz;		/* samples per CPU-second; 0: default
					   (with PROFIL_BUDGET: where
					   sampling starts) */
	int mechanism;			/* enum profil_mechanism */
	const struct profil_range *ranges;	/* any order, no overlaps */
	size_t nranges;			/* 0 counts totals only */
	unsigned int flags;		/* 0, or PROFIL_BUDGET */
	/*
	 * Read only with PROFIL_BUDGET (so a program built before it was
	 * added, whose config ends above, is never read past its end).
	 */
	unsigned long long samples;	/* about how many samples to take */
};

/*
 * A sample budget instead of a fixed rate: start fast (rate_hz, 0: 10
 * kHz) and double the period each time samples / 8 have been taken,
 * down to 10-20 Hz, each sample counting its period in 1 / rate_hz
 * units (a count is still 1 / rate_hz s of CPU time).  See profil(3).
 */
#define PROFIL_BUDGET		0x1

struct profil_status {
	int active;			/* a profiling session is running */
	int mechanism;			/* PROFIL_MECH_TIMER or _PERF */
	unsigned int rate_hz;		/* asked rate: one count = 1/rate_hz s */
	unsigned int resolution_hz;	/* distinct pcs per CPU-second, at most
					   (with a budget: by now) */
	unsigned int tick_hz;		/* the kernel's scheduler tick rate */
	unsigned int threads;		/* threads being sampled now */
	uint64_t signals;		/* sampling signals handled */
	uint64_t samples;		/* counts taken (signals weighted by
					   timer overruns and, with a
					   budget, by their period) */
	uint64_t outside;		/* samples in no range */
	uint64_t saturated;		/* increments lost to full counters */
	uint64_t faulted;		/* samples lost to unwritable buffers */
	unsigned int ranges_off;	/* ranges turned off by a fault */
	double cpu_seconds;		/* process CPU time since start */
};

/*
 * Start profiling with cfg (NULL: defaults, no ranges), replacing any
 * session of any form.  Returns 0, or -1 with errno: EINVAL (bad config),
 * EFAULT (a buffer not writable, or the ranges not readable: this stops
 * the running session, as profil()'s EFAULT does), ENOTSUP (mechanism not
 * available), or the error of the failing system call.
 */
int profil_start(const struct profil_config *cfg);

/* Stop profiling.  Returns 0 (also when nothing was running). */
int profil_stop(void);

/*
 * Fill *st with the current (or last) session's figures.  Counters run
 * from the last start.  Returns 0, or -1 with EINVAL if st is NULL.
 */
int profil_get_status(struct profil_status *st);

/* "auto", "timer", "perf", or NULL for an unknown value. */
const char *profil_mechanism_name(int mechanism);

/* ---- Profiles: the .prf file (see profil(5)) --------------------------- */

/* Samples at one bucket of an object: [addr, addr + bucket_bytes). */
struct profil_bucket {
	uint64_t addr;		/* link-time address (as in the ELF file) */
	uint64_t count;
};

/* One mapped object: the executable, a shared library, the vdso. */
/*
 * The object of code generated while the program ran (JIT), named by its
 * runtime: no file; its addresses are made up by the recorder, a range
 * per piece of code, named in the profile's symbols.
 */
#define PROFIL_JIT_OBJECT	"[jit]"

struct profil_object {
	char *path;
	unsigned char build_id[64];
	unsigned int build_id_len;	/* 0: unknown */
	uint64_t lowpc, highpc;		/* link-time range of its code */
	unsigned int bucket_bytes;
	uint64_t samples;		/* sum of the bucket counts */
	size_t nbuckets;		/* non-zero buckets only */
	struct profil_bucket *buckets;	/* sorted by addr */
};

/*
 * Where kernel-mode samples were (optional: recorded where the kernel is
 * sampled).  code's addresses are the running kernel's (as sampled, not
 * link-time: the kernel relocates itself at boot); with text_addr, the
 * address _text had then, they can be moved to another boot of the same
 * kernel (build-id).  code.samples equals the profile's kernel count.
 */
struct profil_kernel {
	struct profil_object code;	/* path "[kernel.kallsyms]" */
	char *release;			/* uname -r */
	unsigned char boot_id[16];	/* /proc/sys/kernel/random/boot_id */
	uint64_t text_addr;		/* _text then; 0 if it was hidden */
};

/*
 * A function's name kept in the profile (optional: `profil archive` adds
 * them), so that it can be named where its file is not.  Sorted by
 * object, then start; ranges of one object do not overlap.
 */
struct profil_symbol {
	uint32_t object;		/* into objects, or: */
#define PROFIL_SYMBOL_KERNEL	UINT32_MAX	/* the kernel's code */
	uint64_t start, end;		/* link-time [start, end) (kernel:
					   the addresses of kernel_code) */
	char *name;			/* as in the symbol table (mangled) */
};

/*
 * Call stacks (optional: `profil record` takes them unless told not to).
 * A frame is a place in code; a stack lists frames from the sampled one
 * (the leaf) out to the outermost caller, with how many samples it had
 * in one thread.  The stacks' counts add up to the profile's samples,
 * and their leaves to each object's, the kernel's and unknown samples.
 */
/*
 * A source line kept in the profile, for code whose file is not there to
 * tell (generated code: a jitdump file's DEBUG_INFO): the code of object
 * from addr up to the next kept line's addr in that object, or to the
 * end of the function holding addr, is of line_files[file], line.
 * Sorted by object, then addr, each (object, addr) once.
 */
struct profil_line {
	uint32_t object;		/* into objects */
	uint32_t file;			/* into line_files */
	uint64_t addr;			/* as the object's symbols are */
	uint32_t line;			/* 1 or more */
};

struct profil_frame {
	uint32_t object;		/* into objects, or: */
#define PROFIL_FRAME_KERNEL	UINT32_MAX	/* addr as in kernel_code, or: */
#define PROFIL_KERNEL_UNSAMPLED	1	/* kernel time counted, not
					   sampled (only user mode may be
					   sampled): the frames under it
					   are where the kernel was entered */
#define PROFIL_FRAME_UNKNOWN	(UINT32_MAX - 1)	/* code in no object
						   (JIT, unmapped): addr
						   is the pc itself */
#define PROFIL_FRAME_CUT	(UINT32_MAX - 2)	/* the stack ends here
						   short of its start;
						   addr says why: */
#define PROFIL_CUT_DEPTH	1	/* deeper than the unwinder goes */
#define PROFIL_CUT_STACK	2	/* beyond the copy of the stack taken */
#define PROFIL_CUT_NO_UNWIND	3	/* code without unwind information */
#define PROFIL_CUT_BROKEN	4	/* no sensible caller (a loop, a bad
					   return address) */
#define PROFIL_CUT_NOT_TAKEN	5	/* no registers or stack were taken */
#define PROFIL_CUT_BEHIND	6	/* not unwound: the recorder was too
					   far behind the samples */
#define PROFIL_CUT_UNSEEN	8	/* kernel time counted, not sampled,
					   with no user stack seen around
					   it: before a thread's first
					   sample or after its last */
#define PROFIL_CUT_UNREAD	7	/* the kernel's copy of the stack
					   stopped short of what was asked,
					   at a page it could not read (one
					   the program never touched) */
#define PROFIL_FRAME_OFFCPU	(UINT32_MAX - 3)	/* a wall profile's
						   leaf for time off the
						   CPU; addr says where: */
#define PROFIL_OFFCPU_SYSCALL_MAX 0xffffffffull	/* up to it: blocked in
						   that system call (its
						   x86-64 number) */
#define PROFIL_OFFCPU_PAGE_FAULT  0x100000000ull	/* blocked outside any
						   system call: a fault */
#define PROFIL_OFFCPU_RUNNABLE	  0x100000001ull	/* preempted, waiting
						   for a CPU */
#define PROFIL_OFFCPU_STOPPED	  0x100000002ull	/* stopped (a signal,
						   a debugger) */
#define PROFIL_OFFCPU_BLOCKED	  0x100000003ull	/* blocked, in what not
						   known (not looked at
						   in time, or unreadable) */
	uint64_t addr;			/* link-time address: the sampled
					   instruction in the leaf, the call
					   (return address - 1) in callers */
};

struct profil_stack {
	uint32_t pid, tid;
	uint64_t count;
	size_t depth;
	uint32_t *frames;		/* depth indices into frames, leaf
					   first; a cut only last */
	/*
	 * A wall profile's time off the CPU (record --wall): a stack whose
	 * leaf is a PROFIL_FRAME_OFFCPU frame has count 0 and off_ns the
	 * time the thread spent there; every other stack has 0s here.
	 */
	uint64_t off_ns;
	uint64_t sampled_ns;		/* the part of off_ns apportioned by
					   sampling (blocks too short to be
					   looked at), not measured there */
	uint64_t observations;		/* the looks sampled_ns rests on */
};

/*
 * A profile's timeline: when each stack's samples (or, off the CPU, its
 * time) came.  The run is cut into slices of slice_ns from its start
 * (slice k is [k * slice_ns, (k + 1) * slice_ns) after it); an entry is
 * one stack's part of one slice, value its samples there (a CPU stack)
 * or its nanoseconds off the CPU there (a wall profile's off-CPU stack).
 * A stack's entries sum to its count, or to its off_ns.
 */
struct profil_timeline_entry {
	uint32_t stack;			/* index into the profile's stacks */
	uint32_t slice;			/* below the timeline's nslices */
	uint64_t value;
};

/*
 * A wall profile (record --wall): every thread's time off the CPU is in
 * stacks with off_ns; this says how it was taken.
 */
struct profil_wall {
	uint64_t poll_ns;		/* blocked threads looked at this
					   often (their stacks read) */
	uint64_t switches;		/* context switches seen */
	uint64_t reads;			/* stacks of blocked threads read */
	uint64_t unread_ns;		/* off-CPU time whose stack could not
					   be read (in stacks without one) */
};

struct profil_thread {
	uint32_t pid, tid;
	char *name;
	uint64_t samples;
};

struct profil_process {
	uint32_t pid, ppid;
	char *command;
	int32_t exit_status;		/* wait(2) status, or one of: */
#define PROFIL_EXIT_UNKNOWN	(-1)	/* ended, status not seen */
#define PROFIL_EXIT_RUNNING	(-2)	/* still running when recording
					   ended */
	uint64_t samples;
};

struct profil_profile {
	uint64_t interval_ns;		/* CPU time one sample stands for */
	unsigned int bucket_bytes;	/* default bucket size */
	char *engine;			/* "perf", "timer" */
	int argc;
	char **argv;			/* the profiled command */
	int64_t start_ns;		/* CLOCK_REALTIME at start */
	uint64_t duration_ns;		/* wall time */
	uint64_t cpu_ns;		/* CPU time of the profiled processes */
	/*
	 * samples = sum of object samples + kernel + unknown; lost samples
	 * are not in it (the kernel or a full counter dropped them).
	 */
	uint64_t samples, kernel, unknown, lost;
	size_t nobjects;
	struct profil_object *objects;
	size_t nthreads;
	struct profil_thread *threads;
	size_t nprocesses;
	struct profil_process *processes;
	struct profil_kernel *kernel_code;	/* or NULL */
	size_t nsymbols;
	struct profil_symbol *symbols;		/* names kept, or none */
	size_t nline_files;
	char **line_files;			/* the source files of lines */
	size_t nlines;
	struct profil_line *lines;		/* source lines kept, or none */
	size_t nframes;
	struct profil_frame *frames;		/* sorted by object, addr */
	/*
	 * The frames whose caller, in the stacks, was found by following
	 * the frame pointer, not by unwind tables (generated code and code
	 * without them: a guess the recorder checked), as indices into
	 * frames, ascending; none if every caller was found by the tables.
	 */
	size_t nfp_frames;
	uint32_t *fp_frames;
	size_t nstacks;
	struct profil_stack *stacks;		/* none: no call stacks */
	/*
	 * How the samples were weighted (optional: 0s when not recorded,
	 * and then every sample counted 1).  A sample taken at k intervals
	 * counts k (record --samples slows the rate down as a run goes on;
	 * CPU timers asked above the tick rate fire once a tick), so the
	 * counts above are in intervals; taken is how many samples there
	 * were, and the errors of shares follow weight_sq: a share of n
	 * counts is as precise as one of n * samples / weight_sq samples.
	 */
	uint64_t taken;			/* samples actually taken */
	uint64_t weight_sq;		/* sum of their weights squared */
	uint64_t budget;		/* record --samples N; 0: a fixed rate */
	uint64_t slowest_ns;		/* the longest interval sampled at */
	struct profil_wall *wall;	/* a wall profile's, or NULL */
	/*
	 * Records the recorder refused, unread, because they could not be
	 * true: the timer engine's counts, captures and process slots live
	 * in memory the profiled program can write (0: none, or not known).
	 */
	uint64_t refused;
	/*
	 * When it happened (optional: slice_ns 0 and no entries when not
	 * recorded, or without stacks): the timeline, entries sorted by
	 * stack, then slice, each (stack, slice) once.
	 */
	uint64_t slice_ns;
	uint64_t nslices;
	size_t ntimeline;
	struct profil_timeline_entry *timeline;
};

/*
 * Read and check a profile file (or a buffer).  Returns a profile to free
 * with profil_profile_free(), or NULL with a one-line cause in cause[]
 * ("truncated object record at byte 4096"; none when cause is NULL) and
 * errno set (EINVAL for a malformed file, or the error of open/read).
 */
struct profil_profile *profil_profile_read(const char *path, char *cause,
    size_t cause_size);
struct profil_profile *profil_profile_parse(const void *data, size_t size,
    char *cause, size_t cause_size);

/*
 * Write a profile: to a malloc'd buffer (profil_profile_encode), or to
 * path atomically (a temporary file in the same directory, then rename:
 * a failed write leaves the old file as it was).  0, or -1 with errno and
 * a cause.  The profile must be consistent (totals add up).
 */
int profil_profile_encode(const struct profil_profile *p, void **data,
    size_t *size);
int profil_profile_save(const struct profil_profile *p, const char *path,
    char *cause, size_t cause_size);

void profil_profile_free(struct profil_profile *p);

#ifdef __cplusplus
}
#endif
#endif /* PROFIL_PUBLIC_H */
