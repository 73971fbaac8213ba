/*
 * util.c - error messages, allocation and number parsing for the command.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"

const char *cli_name;
void (*cli_exit_hook)(int status);

static void
vsay(const char *fmt, va_list ap)
{
	fputs("profil: ", stderr);
	if (cli_name != NULL)
		fprintf(stderr, "%s: ", cli_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void
cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("profil: ", stderr);
	if (cli_name != NULL)
		fprintf(stderr, "%s: ", cli_name);
	fputs("warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void
cli_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
	if (cli_exit_hook != NULL)
		cli_exit_hook(status);
	exit(status);
}

void
cli_say(cli_warn_fn *warn, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int n;

	if (warn == NULL)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	line = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(line, (size_t)n + 1, fmt, ap);
	va_end(ap);
	warn(line);
	free(line);
}

void
cli_warn_line(const char *line)
{
	cli_warn("%s", line);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		cli_die(1, "out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		cli_die(1, "out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		cli_die(1, "out of memory");
	return p;
}

char *
xstrdup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		cli_die(1, "out of memory");
	return d;
}

int
cli_parse_ulong(const char *s, unsigned long min, unsigned long max,
    unsigned long *out)
{
	char *end;
	unsigned long v;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
cli_parse_percent(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end != '\0' || !(v >= 0) || v > 100)
		return -1;
	*out = v;
	return 0;
}

long
cli_option_limit(const char *arg)
{
	unsigned long v;

	if (cli_parse_ulong(arg, 0, 100000000, &v) < 0)
		cli_die(EXIT_USAGE, "--limit: '%s' is not a number of rows", arg);
	return (long)v;
}

int
cli_finish_stdout(int status)
{
	if (cli_exit_hook != NULL) {	/* embedded: stdout is not ours to close */
		fflush(stdout);
		return status;
	}
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
		if (errno != EPIPE)
			cli_error("cannot write output: %s", strerror(errno));
		return status ? status : 1;
	}
	return status;
}

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

int
cli_getopt(int argc, char **argv, const char *shortopts,
    const struct option *longopts, int *longindex)
{
	char spec[64];

	/* ':' first: a missing value comes back as ':' for cli_bad_option;
	 * no '+': glibc permutes, leaving the operands at the end */
	snprintf(spec, sizeof spec, ":%s", shortopts);
	opterr = 0;
	return getopt_long(argc, argv, spec, longopts, longindex);
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
cli_help(const struct cmd *cmd, const struct option *options)
{
	const char *help = cmd->help ? cmd->help : "";
	char first[64], *summary;

	snprintf(first, sizeof first, "usage: profil %s", cmd->name);
	cli_print_wrapped(first, cmd->usage, (int)strlen(first) + 1, 80);
	summary = xmalloc(strlen(cmd->summary) + 2);
	sprintf(summary, "%s.", cmd->summary);
	summary[0] = (char)toupper((unsigned char)summary[0]);
	cli_print_wrapped("", summary, 0, 80);
	free(summary);
	printf("\n%s", help);
	for (; options != NULL && options->name != NULL; options++)
		if (!names_option(help, options->name))
			printf("  --%s (undocumented)\n", options->name);
	printf("\nSee profil(1).\n");
	return cli_finish_stdout(0);
}

int
cli_symbol_order(const void *a, const void *b)
{
	const struct profil_symbol *x = a, *y = b;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}
