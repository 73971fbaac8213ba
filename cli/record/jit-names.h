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

#include "builder.h"

/*
 * The made-up range for code of size bytes named name (len bytes): the
 * name's range if it is big enough (a runtime compiles a function again,
 * optimized, and gives the new code the same name: one function to the
 * user), else a new one, the name's from now on.  Returns its index.
 */
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

#endif
