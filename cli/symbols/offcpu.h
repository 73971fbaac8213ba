/*
 * offcpu.h - the names of a wall profile's off-CPU frames
 * (PROFIL_FRAME_OFFCPU): what a thread waited in ("read", "futex",
 * "page fault", "runnable"), the frame as the views show it ("[off-cpu:
 * read]"), and the kind of waiting it is, for the descendants of
 * PROFIL's "I/O system and DOS" counters (report --objects).
 */
#ifndef PROFIL_SYMBOLS_OFFCPU_H
#define PROFIL_SYMBOLS_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

/* What code (a PROFIL_OFFCPU_* or system call number) waited in; static. */
const char *offcpu_what(uint64_t code);
/* "[off-cpu: WHAT]" into buf; returns buf. */
const char *offcpu_frame_name(uint64_t code, char *buf, size_t size);

/* The kinds of waiting, in the order the views list them. */
enum { OFFCPU_IO, OFFCPU_POLL, OFFCPU_LOCK, OFFCPU_SLEEP, OFFCPU_CHILD,
	OFFCPU_FAULT, OFFCPU_RUNNABLE, OFFCPU_OTHER, OFFCPU_NKINDS };
int offcpu_kind(uint64_t code);
/* "I/O", "polling", "locks", "sleep", ... */
const char *offcpu_kind_name(int kind);

#endif
