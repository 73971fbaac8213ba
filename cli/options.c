/*
 * options.c - a subcommand's options, from the one table of them (struct
 * cli_opt): getopt_long's tables made of it, one line for an option
 * refused, one option of several chosen, and --help.  What --help says
 * of an option is its row's lines, so it names every option getopt reads
 * (or marks it "(undocumented)").
 */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* getopt_long's tables, on the stack: no command has half as many */
#define CLI_MAX_OPTIONS	64

void
cli_bad_option(int c, int optopt_, const char *arg)
{
	if (c == ':')
		cli_error("option '%s' needs a value (see 'profil %s --help')",
		    arg, cli_name);
	else if (optopt_ != 0)
		cli_error("unknown option '-%c' (see 'profil %s --help')",
		    optopt_, cli_name);
	else
		cli_error("unknown option '%s' (see 'profil %s --help')", arg,
		    cli_name);
}

/*
 * getopt_long's tables made of rows: its long options into longopts (the
 * row of each into row_of), its short ones into shorts; the number of
 * long options.  Exits if the table is longer than CLI_MAX_OPTIONS.
 */
static size_t
getopt_tables(const struct cli_opt *rows, struct option *longopts,
    int *row_of, char *shorts, size_t shorts_size)
{
	size_t n = 0, len = strlen(shorts);

	for (int i = 0; rows[i].name != NULL || rows[i].help != NULL; i++) {
		if (rows[i].name == NULL)
			continue;
		if (n + 1 >= CLI_MAX_OPTIONS || len + 4 > shorts_size)
			cli_die(1, "more than %d options", CLI_MAX_OPTIONS - 1);
		longopts[n] = (struct option){ rows[i].name, rows[i].has_arg,
		    NULL, rows[i].val };
		row_of[n++] = i;
		if (!(rows[i].flags & CLI_SHORT))
			continue;
		shorts[len++] = (char)rows[i].val;
		if (rows[i].has_arg != no_argument)
			shorts[len++] = ':';
		if (rows[i].has_arg == optional_argument)
			shorts[len++] = ':';
		shorts[len] = '\0';
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	return n;
}

const struct cli_opt *
cli_options(const struct cmd *cmd)
{
	return cmd->options != NULL ? cmd->options : cmd->made_options();
}

int
cli_getopt(int argc, char **argv, const struct cmd *cmd, int *row)
{
	struct option longopts[CLI_MAX_OPTIONS];
	int row_of[CLI_MAX_OPTIONS], at = -1, c;
	/*
	 * ':' first: a missing value comes back as ':' for cli_bad_option;
	 * '+' before it for a program's command line, else none: glibc
	 * permutes, leaving the operands at the end
	 */
	char spec[2 * CLI_MAX_OPTIONS + 4];

	snprintf(spec, sizeof spec, "%s:",
	    strcmp(cmd->operands, CLI_PROGRAM) == 0 ? "+" : "");
	getopt_tables(cli_options(cmd), longopts, row_of, spec, sizeof spec);
	opterr = 0;
	c = getopt_long(argc, argv, spec, longopts, &at);
	if (row != NULL && at >= 0)
		*row = row_of[at];
	return c;
}

void
cli_choose(struct cli_choice *chosen, const char *option, const char *value,
    const char *what)
{
	if (chosen->option == NULL) {
		chosen->option = option;
		chosen->value = value;
		return;
	}
	if (strcmp(chosen->option, option) == 0 &&
	    (chosen->value == value || (chosen->value != NULL && value != NULL &&
	    strcmp(chosen->value, value) == 0)))
		return;
	cli_die(EXIT_USAGE, "--%s%s%s and --%s%s%s: one %s at a time",
	    chosen->option, chosen->value ? "=" : "",
	    chosen->value ? chosen->value : "", option, value ? "=" : "",
	    value ? value : "", what);
}

/* Whether help names --name as a whole word ("--pid" is not "--pidfile"). */
static int
names_option(const char *help, const char *name)
{
	size_t len = strlen(name);

	for (const char *at = help; (at = strstr(at, "--")) != NULL; at += 2)
		if (strncmp(at + 2, name, len) == 0 &&
		    (at[2 + len] == '\0' || strchr(" ,=[|\n", at[2 + len]) != NULL))
			return 1;
	return 0;
}

/*
 * The length of text's first word: up to a space outside brackets
 * ("[--sort KEY]" is one word), or up to any space when that is longer
 * than room.
 */
static int
usage_word(const char *text, int room)
{
	int depth = 0, n;

	for (n = 0; text[n] != '\0' && (text[n] != ' ' || depth > 0); n++)
		depth += text[n] == '[' ? 1 : text[n] == ']' ? -1 : 0;
	return n <= room ? n : (int)strcspn(text, " ");
}

void
cli_print_wrapped(const char *first, const char *text, int indent, int width)
{
	int column = (int)strlen(first), fresh = column == 0;

	if (width <= 0)
		width = INT_MAX / 2;
	fputs(first, stdout);
	while (*text != '\0') {
		int word = usage_word(text, width - indent);

		if (!fresh && column + 1 + word > width) {
			printf("\n%*s", indent, "");
			column = indent;
			fresh = 1;
		}
		if (!fresh) {
			putchar(' ');
			column++;
		}
		for (int i = 0; i < word; i++)
			putchar(text[i] == CLI_GLUE[0] ? ' ' : text[i]);
		column += word;
		fresh = 0;
		text += word;
		text += strspn(text, " ");
	}
	putchar('\n');
}

int
cli_help(const struct cmd *cmd)
{
	const struct cli_opt *rows = cli_options(cmd);
	char first[64], *summary, *help;
	size_t size = 1;

	snprintf(first, sizeof first, "usage: profil %s", cmd->name);
	cli_print_wrapped(first, cmd->usage, (int)strlen(first) + 1, 80);
	summary = xmalloc(strlen(cmd->summary) + 2);
	sprintf(summary, "%s.", cmd->summary);
	summary[0] = (char)toupper((unsigned char)summary[0]);
	cli_print_wrapped("", summary, 0, 80);
	free(summary);
	/* the table's lines, together: what names an option is any of them */
	for (int i = 0; rows[i].name != NULL || rows[i].help != NULL; i++)
		size += rows[i].help != NULL ? strlen(rows[i].help) : 0;
	help = xmalloc(size);
	help[0] = '\0';
	for (int i = 0; rows[i].name != NULL || rows[i].help != NULL; i++)
		if (rows[i].help != NULL)
			strcat(help, rows[i].help);
	printf("\n%s", help);
	for (int i = 0; rows[i].name != NULL || rows[i].help != NULL; i++)
		if (rows[i].name != NULL && !names_option(help, rows[i].name))
			printf("  --%s (undocumented)\n", rows[i].name);
	free(help);
	printf("\nSee profil(1).\n");
	return cli_finish_stdout(0);
}
