/*
 * perf.h - the perf engine as `profil record` runs it (perf-engine.h
 * tells the engine): its entry in the table of engines (record.h), made
 * of whether it can run here (perf-events.c), a program run under it
 * (perf.c) and a running process attached to (perf-attach.c); and what
 * the command says of it.
 */
#ifndef PROFIL_RECORD_PERF_H
#define PROFIL_RECORD_PERF_H

#include <stddef.h>
#include <sys/types.h>

#include "record/core/record.h"

extern const struct record_engine record_engine_perf;

/* Its check, run and attach (record.h). */
int record_perf_check(char *const *argv, char *why, size_t why_size);
int record_perf(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size);
int record_perf_attach(const struct record_opts *o, pid_t pid,
    struct record_result *r, char *cause, size_t cause_size);

/* perf_event_paranoid, or 3 if unreadable. */
int perf_paranoid(void);
/*
 * The command line of running process pid as a NULL-terminated vector of
 * malloc'd strings (its name where it has none: a kernel thread, a
 * zombie): what an attached profile's argv says.
 */
char **record_attach_argv(pid_t pid);

#endif
