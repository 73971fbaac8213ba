/*
 * jit-names.h - the recording's names of generated code (jit.h), inside
 * the record room: jit.c finds code in processes, this names it.  Every
 * name gets a made-up range of the one [jit] object; a name's range
 * stands for each piece of code that has its name, where it fits.
 */
#ifndef PROFIL_RECORD_JIT_NAMES_H
#define PROFIL_RECORD_JIT_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/core/builder.h"

/*
 * The made-up range for code of size bytes named name (len bytes): the
 * name's range if it is big enough (a runtime compiles a function again,
 * optimized, and gives the new code the same name: one function to the
 * user), else a new one, the name's from now on.  Returns its index, or
 * SIZE_MAX when the recording's names hold JIT_NAMES_BYTES already.
 */
#define JIT_NAMES_BYTES	((size_t)64 << 20)
size_t jit_names_range(uint64_t size, const char *name, size_t len);

/*
 * The source lines of range's code, loaded at code_addr, code_size
 * bytes (a jitdump DEBUG_INFO's, lines[0..n) at the process's
 * addresses): kept if range has none yet (its first code's), each with
 * its offset into the range, to go into the profile with its name.
 */
struct jitdump_line;
void jit_names_lines(size_t range, uint64_t code_addr, uint64_t code_size,
    const struct jitdump_line *lines, size_t n);

/* Whether range is name's (len bytes). */
int jit_names_same(size_t range, const char *name, size_t len);

/* The [jit] frame offset bytes into range (the object made at first use). */
struct bframe jit_names_frame(size_t range, uint64_t offset);

/* The recording's builder (jit_begin's), or NULL. */
struct builder *jit_names_builder(void);

/* A problem with the files, a line, for jit_end to say. */
void jit_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* FNV-1a of p[0..len) on from h (JIT_HASH_SEED to begin). */
#define JIT_HASH_SEED	0xcbf29ce484222325ull
uint64_t jit_names_hash(uint64_t h, const void *p, size_t len);

/*
 * Samples in generated code that stayed unnamed, for one line at the end
 * saying why and what the runtime needs: the runtime (what the image had
 * mapped) and why (what its files were).  A line for each (runtime, why)
 * whose samples are 1% of the profile's at least.
 */
enum jit_runtime { RUNTIME_UNKNOWN, RUNTIME_JVM, RUNTIME_NODE,
	RUNTIME_LUAJIT, RUNTIME_PYTHON, RUNTIME_DOTNET, RUNTIME_NONE,
	RUNTIME_N };
enum { JIT_WHY_NONE,		/* no map was there, no jitdump mapped */
	JIT_WHY_REFUSED,	/* a file of its was not read (said) */
	JIT_WHY_MISSED,		/* its files name none of that code */
	JIT_WHY_N };
void jit_names_unnamed(pid_t pid, int runtime, int why, uint64_t weight);

#endif
