/*
 * profil.c - the `profil` command: finds the subcommand (an unambiguous
 * prefix is enough, as in tmux) and runs it.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define PROFIL_VERSION "0.1.0"

static const struct cmd *const commands[] = {
	&cmd_record, &cmd_top, &cmd_report, &cmd_export, &cmd_check, &cmd_merge,
	&cmd_diff, &cmd_archive,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: profil COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n'profil help COMMAND' (or 'profil COMMAND --help') describes "
	    "each; see profil(1).\n'profil -V' (--version) prints the version.\n");
}

/*
 * The command name is, or is an unambiguous prefix of; exits if none,
 * naming the commands an ambiguous prefix could be.
 */
static const struct cmd *
find_command(const char *name)
{
	const struct cmd *found = NULL;
	char which[128] = "";
	size_t i, len = strlen(name), n = 0;

	for (i = 0; i < NCOMMANDS; i++) {
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
		if (len > 0 && strncmp(commands[i]->name, name, len) == 0) {
			found = commands[i];
			n++;
			snprintf(which + strlen(which), sizeof which - strlen(which),
			    "%s%s", n > 1 ? ", " : "", found->name);
		}
	}
	if (n > 1)
		cli_die(EXIT_USAGE, "ambiguous command '%s': %s", name, which);
	if (found == NULL)
		cli_die(EXIT_USAGE, "unknown command '%s' (try 'profil --help')",
		    name);
	return found;
}

int
main(int argc, char **argv)
{
	const struct cmd *found;

	if (argc < 2)
		cli_die(EXIT_USAGE, "no command given (try 'profil --help')");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage(stdout);
		return cli_finish_stdout(0);
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("profil %s\n", PROFIL_VERSION);
		return cli_finish_stdout(0);
	}
	if (strcmp(argv[1], "help") == 0) {	/* "profil help CMD": CMD --help */
		char *help[] = { NULL, "--help", NULL };

		if (argc > 3)
			cli_die(EXIT_USAGE, "help: one command at a time");
		found = find_command(argv[2]);
		cli_name = found->name;
		help[0] = argv[2];
		return found->exec(2, help);
	}
	found = find_command(argv[1]);
	cli_name = found->name;
	return found->exec(argc - 1, argv + 1);
}
