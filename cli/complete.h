/*
 * complete.h - bash's completion of the profil command, written from the
 * tables its --help is printed from (struct cli_opt, cli.h): an option
 * added to a table is completed with no other change.
 */
#ifndef PROFIL_COMPLETE_H
#define PROFIL_COMPLETE_H

#include <stdio.h>

#include "cli.h"

/*
 * The bash completion script of profil onto out: the n subcommands cmds
 * (their names, options, what each option's argument is, what their
 * operands are) and top, the options of profil itself.  0, or -1 with a
 * one-line cause when a table has a name or a word that would need
 * quoting in the script (none does: names are [a-z0-9-]).
 */
int complete_bash(FILE *out, const struct cmd *const *cmds, size_t n,
    const struct cli_opt *top, char *cause, size_t cause_size);

#endif
