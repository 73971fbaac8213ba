/*
 * fpmarks.h - the frames of a recording whose callers were found by frame
 * pointer, not by unwind tables (unwind-cfi.c: generated code, code
 * without CFI in a process that has generated code): a guess, checked,
 * that the profile marks so a reader can tell (PROFIL_FRAME_MARK_FP).
 *
 * A frame is as the builder knows it (struct bframe: an object and an
 * offset in it, or code in no object at its pc).  The set is the
 * recording's: the recorder is one thread.
 */
#ifndef PROFIL_RECORD_FPMARKS_H
#define PROFIL_RECORD_FPMARKS_H

#include "builder.h"

/* f's caller was found by its frame pointer (in some stack). */
void fpmarks_add(const struct bframe *f);
/* Whether it ever was. */
int fpmarks_has(const struct bframe *f);
/* Whether any frame's was (a cheap test before fpmarks_has). */
int fpmarks_any(void);
/* Forget all (a recording ends). */
void fpmarks_clear(void);

#endif
