/*
 * timer.h - the timer engine as `profil record` runs it (timer.c tells
 * the engine): its entry in the table of engines (record.h), made of
 * whether it can profile a program and a program run under it; it
 * cannot attach.
 */
#ifndef PROFIL_RECORD_TIMER_H
#define PROFIL_RECORD_TIMER_H

#include <stddef.h>

#include "record/core/record.h"

extern const struct record_engine record_engine_timer;

/* Its check and run (record.h). */
int record_timer_check(char *const *argv, char *why, size_t why_size);
int record_timer(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size);

#endif
