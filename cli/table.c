/*
 * table.c - printing report tables as text, CSV or JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"

void
table_init(struct table *t, const struct col *cols, int ncols)
{
	memset(t, 0, sizeof *t);
	t->cols = cols;
	t->ncols = ncols;
}

void
table_free(struct table *t)
{
	free(t->cells);
	memset(t, 0, sizeof *t);
}

union cell *
table_row(struct table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->cells = xrealloc(t->cells, t->cap * (size_t)t->ncols * sizeof *t->cells);
	}
	return &t->cells[t->nrows++ * (size_t)t->ncols];
}

double
table_error95(uint64_t k, uint64_t n)
{
	const double z = 1.959964;
	double p, half;

	if (n == 0)
		return 0;
	p = (double)k / (double)n;
	half = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) /
	    (1 + z * z / (double)n);
	return 100 * half;
}

static void
format_cell(char *buf, size_t size, const struct col *c, union cell v)
{
	switch (c->type) {
	case COL_STR:
		snprintf(buf, size, "%s", v.s ? v.s : "");
		break;
	case COL_INT:
		snprintf(buf, size, "%lld", (long long)v.i);
		break;
	case COL_PCT:
		snprintf(buf, size, "%.2f", v.d);
		break;
	case COL_ERR:
		snprintf(buf, size, "%.*f", v.d < 9.995 ? 2 : 1, v.d);
		break;
	case COL_SEC:
		snprintf(buf, size, "%.3f", v.d);
		break;
	}
}

static void
csv_string(const char *s)
{
	if (strpbrk(s, ",\"\n") == NULL) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void
json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void
print_machine(const struct table *t, int format)
{
	char buf[64];
	size_t r;
	int c;

	if (format == FORMAT_CSV) {
		for (c = 0; c < t->ncols; c++)
			printf("%s%s", c ? "," : "", t->cols[c].name);
		putchar('\n');
	} else {
		printf("[");
	}
	for (r = 0; r < t->nrows; r++) {
		const union cell *row = &t->cells[r * (size_t)t->ncols];

		if (format == FORMAT_JSON)
			printf("%s\n  {", r ? "," : "");
		for (c = 0; c < t->ncols; c++) {
			const struct col *col = &t->cols[c];

			if (format == FORMAT_JSON) {
				printf("%s", c ? ", " : "");
				json_string(col->name);
				putchar(':');
				putchar(' ');
			} else if (c) {
				putchar(',');
			}
			if (col->type == COL_STR) {
				if (format == FORMAT_CSV)
					csv_string(row[c].s ? row[c].s : "");
				else
					json_string(row[c].s ? row[c].s : "");
			} else if (col->type == COL_INT) {
				printf("%lld", (long long)row[c].i);
			} else {
				snprintf(buf, sizeof buf, "%.4f", row[c].d);
				fputs(buf, stdout);
			}
		}
		if (format == FORMAT_JSON)
			putchar('}');
		else
			putchar('\n');
	}
	if (format == FORMAT_JSON)
		printf("%s]\n", t->nrows ? "\n" : "");
}

static void
print_text(const struct table *t, const int *order, const char *caption)
{
	int width[32] = { 0 }, n = 0, k;
	char buf[512];
	size_t r;

	for (n = 0; order[n] >= 0 && n < 32; n++)
		width[n] = (int)strlen(t->cols[order[n]].title);
	for (r = 0; r < t->nrows; r++)
		for (k = 0; k < n; k++) {
			const union cell *row = &t->cells[r * (size_t)t->ncols];
			int len;

			format_cell(buf, sizeof buf, &t->cols[order[k]], row[order[k]]);
			len = (int)strlen(buf) + (t->cols[order[k]].type == COL_ERR ? 2 : 0);
			if (len > width[k])
				width[k] = len;
		}
	if (caption != NULL)
		printf("%s\n\n", caption);
	for (k = 0; k < n; k++) {
		const struct col *c = &t->cols[order[k]];
		int left = c->type == COL_STR;

		printf("%s%*s", k ? "  " : "", left && k == n - 1 ? 0 :
		    (left ? -width[k] : width[k]), c->title);
	}
	putchar('\n');
	for (r = 0; r < t->nrows; r++) {
		const union cell *row = &t->cells[r * (size_t)t->ncols];

		for (k = 0; k < n; k++) {
			const struct col *c = &t->cols[order[k]];
			int left = c->type == COL_STR;

			format_cell(buf, sizeof buf, c, row[order[k]]);
			if (c->type == COL_ERR) {
				char with[520];

				snprintf(with, sizeof with, "± %s", buf);
				printf("%s%*s", k ? " " : "", width[k] + 1, with);
				continue;
			}
			printf("%s%*s", k ? "  " : "", left && k == n - 1 ? 0 :
			    (left ? -width[k] : width[k]), buf);
		}
		putchar('\n');
	}
}

void
table_print(const struct table *t, int format, const int *text_order,
    const char *caption)
{
	if (format == FORMAT_TEXT)
		print_text(t, text_order, caption);
	else
		print_machine(t, format);
}
