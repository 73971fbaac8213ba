/*
 * timer.h - the timer engine as `profil record` runs it (timer.c tells
 * the engine): whether it can profile a program, and a program run under
 * it.  The run returns 0, or -1 with a one-line cause in cause[]: it
 * prints nothing, cmd-record.c says it.
 */
#ifndef PROFIL_RECORD_TIMER_H
#define PROFIL_RECORD_TIMER_H

#include <stddef.h>

#include "record/core/record.h"

/* 0 if the timer engine can profile argv[0]; -1 with a reason in why[]. */
int record_timer_check(char *const *argv, char *why, size_t why_size);
/* Run o->argv to its end (with --wait-all, all it leaves behind), into r. */
int record_timer(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size);

#endif
