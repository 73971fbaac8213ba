/*
 * perf.h - the perf engine as `profil record` runs it (perf-engine.h
 * tells the engine): whether it can run here, a program run under it
 * (perf.c), a running process attached to (perf-attach.c).  Each run
 * returns 0, or -1 with a one-line cause in cause[] ("cannot start ls:
 * ..."): it prints nothing, cmd-record.c says it.
 */
#ifndef PROFIL_RECORD_PERF_H
#define PROFIL_RECORD_PERF_H

#include <stddef.h>
#include <sys/types.h>

#include "record/core/record.h"

/* perf_event_paranoid, or 3 if unreadable. */
int perf_paranoid(void);
/* 0 if the perf engine can run here; -1 with a reason in why[]. */
int record_perf_check(char *why, size_t why_size);
/* Run o->argv to its end (with --wait-all, all it leaves behind), into r. */
int record_perf(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size);
/* Attach to process pid until it exits or we are told to stop, into r. */
int record_perf_attach(const struct record_opts *o, pid_t pid,
    struct record_result *r, char *cause, size_t cause_size);
/*
 * The command line of running process pid as a NULL-terminated vector of
 * malloc'd strings (its name where it has none: a kernel thread, a
 * zombie): what an attached profile's argv says.
 */
char **record_attach_argv(pid_t pid);

#endif
