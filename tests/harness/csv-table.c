/*
 * csv-table.c - a view's CSV as a table (csv-table.h): parsed whole,
 * cells found by row and column name, a report run and parsed.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csv-table.h"
#include "e2e.h"
#include "harness.h"

void
csv_parse(struct csv *t, const char *text)
{
	const char *line = text;
	char buf[1024];
	int cap = 0;

	memset(t, 0, sizeof *t);
	while (t->ncols < 48 && csv_field(&line, buf, sizeof buf))
		t->name[t->ncols++] = strdup(buf);
	line = strchr(text, '\n');
	assert_non_null(line);
	line++;
	while (*line) {
		if (t->nrows == cap) {
			cap = cap ? 2 * cap : 64;
			t->cell = realloc(t->cell, (size_t)cap * (size_t)t->ncols *
			    sizeof *t->cell);
			assert_non_null(t->cell);
		}
		for (int c = 0; c < t->ncols; c++) {
			if (!csv_field(&line, buf, sizeof buf) && c + 1 < t->ncols)
				fail_msg("a short CSV row near '%.60s'", line);
			t->cell[t->nrows * t->ncols + c] = strdup(buf);
		}
		t->nrows++;
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 :
		    line + strlen(line);
	}
}

void
csv_free(struct csv *t)
{
	for (int c = 0; c < t->ncols; c++)
		free(t->name[c]);
	for (int i = 0; i < t->nrows * t->ncols; i++)
		free(t->cell[i]);
	free(t->cell);
	memset(t, 0, sizeof *t);
}

int
column(const struct csv *t, const char *name)
{
	for (int c = 0; c < t->ncols; c++)
		if (strcmp(t->name[c], name) == 0)
			return c;
	fail_msg("no column %s", name);
	return -1;
}

const char *
text_at(const struct csv *t, int row, const char *name)
{
	return t->cell[row * t->ncols + column(t, name)];
}

double
num(const struct csv *t, int row, const char *name)
{
	return atof(text_at(t, row, name));
}

int
row_of(const struct csv *t, const char *key, const char *value)
{
	for (int i = 0; i < t->nrows; i++) {
		const char *v = text_at(t, i, key);

		v += strspn(v, " ");
		if (strcmp(v, value) == 0)
			return i;
	}
	fail_msg("no row with %s %s", key, value);
	return -1;
}

void
csv_of(struct csv *t, const char *prf, ...)
{
	static struct run r;
	char *argv[16] = { profil_bin, "report", "--format", "csv" };
	int n = 4;
	va_list ap;

	va_start(ap, prf);
	for (char *a; n < 14 && (a = va_arg(ap, char *)) != NULL;)
		argv[n++] = a;
	va_end(ap);
	argv[n++] = (char *)prf;
	argv[n] = NULL;
	run(&r, argv);
	if (r.status != 0)
		fail_msg("report %s: exit %d: %s", argv[4], r.status, r.err);
	csv_parse(t, r.out);
}

void
assert_near(double got, double want, const char *what)
{
	/* the CSV's four decimals */
	if (fabs(got - want) > 0.00051 + 1e-6 * want)
		fail_msg("%s: %.4f, want %.4f", what, got, want);
}
