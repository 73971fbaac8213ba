/*
 * cmd-record.h - what `profil record`'s files share (cmd-record.c, its
 * options and run; cmd-record-end.c, what it says at the end), its
 * options parsed alone, for the options' fuzz target, and its steps for
 * a command that records as it does (`profil top`: cmd-top.c).
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

/* record's defaults in o, which record_parse starts from. */
void record_defaults(struct record_opts *o);

/*
 * One option of `profil record` but -h and -V (getopt's value c for it,
 * as record's option table has it), its argument optarg, into o,
 * *output, *attach (*rate_given: -F or -i said the rate); 0 if c is none
 * of ours.  A bad value ends the command with a one-line message.
 */
int record_option(int c, struct record_opts *o, const char **output,
    pid_t *attach, int *rate_given);

/* The options together: what cannot go with what, and the rate's bounds. */
void record_settle(struct record_opts *o, pid_t attach, int rate_given);

/* -e NAME: the engine of the table so named, NULL for auto, else exit. */
const struct record_engine *record_engine_named(const char *name);

/*
 * What to profile, after the options (argv[optind..]): the program and
 * its arguments, or the running process attach (its command line then
 * malloc'd into *cmdline).  -1 to go on, else the status to exit with.
 */
int record_target(int argc, char **argv, struct record_opts *o, pid_t attach,
    char ***cmdline);

/*
 * The engine to run: the one -e named, if it can run here; with auto, the
 * first of the table that can (and can attach, with -p), saying why each
 * before it could not.  None: the command ends with the last reason.
 */
const struct record_engine *record_choose_engine(const struct record_opts *o,
    pid_t attach);

/*
 * Run the program under o's engine (or attach to a process) into *r,
 * and finish its profile (with o->periods, the last period's counts, its
 * header the whole run's until periods_last or periods_close: the rest
 * went to the periods' files or sink), *end the recording's end on the
 * records' clock: NULL after saying why the engine failed (a pending
 * file removed).  A program that could not be started ends the command
 * with the shell's status for it.
 */
struct profil_profile *record_run(const struct record_opts *o, pid_t attach,
    struct record_result *r, uint64_t *end);

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
