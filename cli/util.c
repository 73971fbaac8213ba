/*
 * util.c - error messages, allocation and number parsing for the command.
 */
#include <errno.h>
#include <limits.h>
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

int
cli_symbol_order(const void *a, const void *b)
{
	const struct profil_symbol *x = a, *y = b;

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}
