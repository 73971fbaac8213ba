/*
 * jit.h - code generated while the program runs (JIT compilers: V8, the
 * JVM, LuaJIT, .NET, CPython's -X perf, PCRE2...), named as its runtime
 * tells profilers: the perf map /tmp/perf-PID.map (perfmap.h) and the
 * jitdump files it maps executable (jitdump.h).
 *
 * Each process image has its JIT code (struct jit_code, owned by its
 * addr_space).  The files are read when a sample's pc is in no file's
 * code and not in the code known so far (at most every JIT_READ_MS), so a
 * program without generated code costs nothing, and a pc is named after
 * the code at that address when its sample is resolved: a map entry
 * stands for the code at an address at the time (a later entry over the
 * same addresses is newer code there; an older one keeps what the newer
 * leaves).  A jitdump CODE_MOVE carries the code's name to its new place.
 * A sample in generated code that nothing names yet waits for its
 * process's end, when the files are read whole (jit_code_defer): a
 * runtime may write them late.  The files are the program's: each is
 * judged as it is opened (jit-read.c, jitfile.h) and read within bounds.
 *
 * The profile keeps the names: all JIT code is one object, "[jit]",
 * whose addresses are made up, one range per piece of code (so that code
 * freed and another put at the same address are two functions, and code
 * that moved is one), and the names of the ranges that were sampled go
 * into its symbols record (jit_name_profile).
 *
 * Frames in generated code have no call-frame information unless the
 * runtime gives its unwind tables (jitdump UNWINDING_INFO: see
 * jit_code_unwind below); JIT runtimes keep frame pointers, and the
 * unwinder may step by them where jit_code_any says the process has
 * generated code (unwind-cfi.c).
 *
 * The recorder is one thread; the naming state is the recording's.
 */
#ifndef PROFIL_RECORD_JIT_H
#define PROFIL_RECORD_JIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <profil.h>

#include "record/core/builder.h"

#define JIT_READ_MS	2		/* files looked at, at most this often */

struct addr_space;
struct jit_code;
struct profil_profile;

/* A recording starts: its generated code will be counted in b. */
void jit_begin(struct builder *b);

/*
 * The recording is over: the names of the [jit] code p's samples and
 * stacks hold go into its symbols record, and what was wrong with the
 * files read is said through warn (one line each).  Everything is freed.
 */
void jit_end(struct profil_profile *p, void (*warn)(const char *line));

/* Give space (the image of process pid) its JIT code, empty. */
void jit_attach(struct addr_space *space, pid_t pid);

/* Free c (addr_space_free calls it), its waiting samples handed over. */
void jit_code_free(struct jit_code *c);

/*
 * The image exec'd another program: its generated code is gone (its
 * waiting samples handed over first).
 */
void jit_code_exec(struct jit_code *c);

/*
 * The process mapped path, a jitdump file (procmaps_is_jitdump): follow
 * it.
 */
void jit_code_follow(struct jit_code *c, const char *path);

/*
 * Whether pc is in generated code the runtime named: then *f is its
 * [jit] frame.  anon: pc is in anonymous executable memory, where
 * generated code lives; a miss there reads what was added to the files
 * since they were last read (no more often than JIT_READ_MS), and so
 * does a hit once they are followed.  A pc in no mapping known (yet) is
 * looked up in what was read, and reads nothing: a process that has no
 * generated code never looks at /tmp for it (a map left there by an
 * earlier process of its pid is not even judged).
 */
int jit_code_locate(struct jit_code *c, uint64_t pc, int anon,
    struct bframe *f);

/*
 * Where pc lies in a process (space, or NULL: not read yet), the one
 * answer every sample and frame gets: its object and file offset, or
 * else code a JIT runtime named (jit_code_locate: looked up only where
 * no object is, anonymous memory or none mapped), into *f, and 1; or
 * unknown code at pc, and 0.  ever: a mapping unmapped since still
 * places it (addr_space_find_ever: maps read late).
 */
int jit_place(const struct addr_space *space, uint64_t pc, int ever,
    struct bframe *f);

/*
 * Whether a sample of process c, frames[0..n) (flat: one frame, no
 * stack), is to wait until c's files are read whole: it has a frame in
 * generated code (executable memory that is no file's) that no name was
 * found for, and a runtime may write its files late (V8 buffers its
 * jitdump file, 2 MiB at a time; a JVM writes its map at exit, or when
 * told).  Then it is kept, and handed to the builder with what the files
 * then say (builder_sample_stack, or builder_sample / builder_unknown
 * when flat) when c is freed or its image exec's: each frame named after
 * the code its runtime says was at its address when the sample was kept
 * (jitdump records carry times), or else the code first named there
 * after it (a perf map line has none: the newest of the first reading
 * that names the address).  0: the caller hands it over now (nothing to
 * wait for, or JIT_PENDING_MAX distinct samples kept already).  Samples
 * still unnamed then are counted, and record says why in one line
 * (jit_end).
 */
#define JIT_PENDING_MAX	65536
int jit_code_defer(struct jit_code *c, const struct bframe *frames, size_t n,
    uint64_t weight, pid_t pid, pid_t tid, int flat);

/*
 * Unwind tables (jitdump UNWINDING_INFO, jit-tables.h): a piece of
 * generated code that has them is handed to the unwinder once a sample
 * is in it (jit_code_locate), up to JIT_UNWIND_MAX pieces a process:
 * libdwfl takes each as a module, and costs in proportion to how many.
 * The generation changes when one is handed over, or newer code lies
 * over one (then jit_code_unwind says it is gone): the unwinder's cue to
 * tell libdwfl again.
 */
#define JIT_UNWIND_MAX	4096
struct jit_unwind {
	uint64_t start, size;		/* the code */
	uint32_t piece;
	unsigned serial;		/* never the same twice in a recording */
};
unsigned jit_code_unwind_generation(const struct jit_code *c);
size_t jit_code_unwind_count(const struct jit_code *c);
/* The i-th piece with tables into *u: 1, or 0 if it is gone. */
int jit_code_unwind(const struct jit_code *c, size_t i, struct jit_unwind *u);
/* The ELF image of u's tables (jit_tables_image; malloc'd, *len bytes). */
unsigned char *jit_code_unwind_image(const struct jit_code *c,
    const struct jit_unwind *u, size_t *len);

/* The [jit] object's index in the recording's builder, or -1 (none yet). */
int jit_object(void);

/* Whether the process has named any generated code. */
int jit_code_any(const struct jit_code *c);

#endif
