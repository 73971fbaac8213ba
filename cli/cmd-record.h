/*
 * cmd-record.h - what `profil record`'s files share (cmd-record.c, its
 * options and run; cmd-record-end.c, what it says at the end), and its
 * options parsed alone, for the options' fuzz target.
 */
#ifndef PROFIL_CMD_RECORD_H
#define PROFIL_CMD_RECORD_H

#include <sys/types.h>

#include <profil.h>

#include "record/core/record.h"

/* The most --stack-size copies: a perf sample record holds 64 KiB. */
#define RECORD_MAX_STACK_SIZE	65000

/*
 * The options of `profil record` (argv as main gets it, argv[0] the
 * command's name).  Returns -1 when the command should go on (o->argv is
 * then set by the caller from optind), or the exit status to end with
 * (after --help, or a one-line message about a bad option).
 */
int record_parse(int argc, char **argv, struct record_opts *o,
    const char **output, pid_t *attach);

/*
 * After p, the profile of the run r of o, was written to path: its
 * closing line, and a warning for each thing it may not show (attach: a
 * running process was attached to, not a program run).
 */
void record_say_end(const struct profil_profile *p,
    const struct record_opts *o, const struct record_result *r,
    const char *path, pid_t attach);
/*
 * PROFIL_UNWIND_VERIFY=1 (tests): how the stack memo's answers compared
 * with unwinding again, on standard error; a wrong one makes *status 1
 * if it was 0.
 */
void record_verify_memo(int *status);

#endif
