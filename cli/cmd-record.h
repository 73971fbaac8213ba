/*
 * cmd-record.h - what cmd-record.c offers besides its command (cli.h's
 * cmd_record): its options parsed alone, for the options' fuzz target.
 */
#ifndef PROFIL_CMD_RECORD_H
#define PROFIL_CMD_RECORD_H

#include <sys/types.h>

#include "record/core/record.h"

/*
 * The options of `profil record` (argv as main gets it, argv[0] the
 * command's name).  Returns -1 when the command should go on (o->argv is
 * then set by the caller from optind), or the exit status to end with
 * (after --help, or a one-line message about a bad option).
 */
int record_parse(int argc, char **argv, struct record_opts *o,
    const char **output, pid_t *attach);

#endif
