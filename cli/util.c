/*
 * util.c - error messages, allocation and number parsing for the command.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
