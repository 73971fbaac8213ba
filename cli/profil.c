/*
 * profil.c - the `profil` command: finds the subcommand (an unambiguous
 * prefix is enough, as in tmux) and runs it, or does what one of its own
 * options asks (help, version, the shell's completion).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "complete.h"

#define PROFIL_VERSION "0.1.0"

static const struct cmd *const commands[] = {
	&cmd_record, &cmd_top, &cmd_report, &cmd_export, &cmd_check, &cmd_merge,
	&cmd_diff, &cmd_archive,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* profil's own options, before any command */
static const struct cli_opt options[] = {
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help         this help\n" },
	{ "version", no_argument, 'V', CLI_SHORT, NULL,
	    "  -V, --version      the version\n" },
	{ "bash-completion", no_argument, 'B', 0, NULL,
	    "      --bash-completion  bash's completion of profil, its commands\n"
	    "                     and their options (make install and the Debian\n"
	    "                     package install it)\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

/* The value of profil's own option arg ("--help", "-h"), or 0. */
static int
own_option(const char *arg)
{
	for (const struct cli_opt *o = options; o->name != NULL; o++)
		if ((arg[0] == '-' && arg[1] == '-' && strcmp(arg + 2, o->name) == 0) ||
		    ((o->flags & CLI_SHORT) && arg[0] == '-' && arg[1] == o->val &&
		    arg[2] == '\0'))
			return o->val;
	return 0;
}

static void
usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: profil COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n'profil help COMMAND' (or 'profil COMMAND --help') describes "
	    "each; see profil(1).\n\noptions:\n");
	for (i = 0; options[i].name != NULL; i++)
		fputs(options[i].help, f);
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
	char cause[256];

	if (argc < 2)
		cli_die(EXIT_USAGE, "no command given (try 'profil --help')");
	switch (own_option(argv[1])) {
	case 'h':
		usage(stdout);
		return cli_finish_stdout(0);
	case 'V':
		printf("profil %s\n", PROFIL_VERSION);
		return cli_finish_stdout(0);
	case 'B':
		if (complete_bash(stdout, commands, NCOMMANDS, options, cause,
		    sizeof cause) < 0)
			cli_die(1, "bash completion: %s", cause);
		return cli_finish_stdout(0);
	}
	if (strcmp(argv[1], "help") == 0 && argc == 2) {
		usage(stdout);
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
