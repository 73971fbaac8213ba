/*
 * table.c - printing report tables as text, CSV or JSON.  Invariant: no
 * state of its own: how text is printed comes with each call (struct
 * table_style), so that views never depend on who printed before them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
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

/* Has the cell no value (table.h)?  Text cells always have one. */
static int
missing(const struct col *c, union cell v)
{
	switch (c->type) {
	case COL_STR:
	case COL_WORDS:
		return 0;
	case COL_INT:
		return v.i == TABLE_NO_INT;
	default:
		return isnan(v.d);
	}
}

static void
format_cell(char *buf, size_t size, const struct col *c, union cell v)
{
	if (missing(c, v)) {
		snprintf(buf, size, "%s", "");
		return;
	}
	switch (c->type) {
	case COL_STR:
	case COL_WORDS:
		snprintf(buf, size, "%s", v.s ? v.s : "");
		break;
	case COL_INT:
		snprintf(buf, size, "%lld", (long long)v.i);
		break;
	case COL_PCT:
		/* a change that rounds to nothing is 0.00, not -0.00 */
		snprintf(buf, size, "%.2f", fabs(v.d) < 0.005 ? 0.0 : v.d);
		break;
	case COL_ERR:
		snprintf(buf, size, "%.*f", v.d < 9.995 ? 2 : 1, v.d);
		break;
	case COL_SEC:
		snprintf(buf, size, "%.3f", v.d);
		break;
	case COL_PROB:
		snprintf(buf, size, v.d < 0.00005 ? "<0.0001" : "%.4f", v.d);
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
				json_string(stdout, col->name, 0);
				putchar(':');
				putchar(' ');
			} else if (c) {
				putchar(',');
			}
			if (missing(col, row[c])) {
				if (format == FORMAT_JSON)
					fputs("null", stdout);
			} else if (col->type == COL_STR || col->type == COL_WORDS) {
				if (format == FORMAT_CSV)
					csv_string(row[c].s ? row[c].s : "");
				else
					json_string(stdout, row[c].s ?
					    row[c].s : "", 0);
			} else if (col->type == COL_INT) {
				printf("%lld", (long long)row[c].i);
			} else if (col->type == COL_PROB) {
				/* small ones matter: digits, not places */
				printf("%.6g", row[c].d);
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

const char *
table_colour_of(const struct table_style *style, double percent)
{
	if (!style->colour)
		return "";
	return percent >= 10 ? "\033[1;31m" : percent >= 1 ? "\033[33m" : "";
}

const char *
table_colour_end(const struct table_style *style)
{
	return style->colour ? "\033[0m" : "";
}

/*
 * Copy s into buf cut to width display columns, "..." marking the cut.
 * A name of code without a symbol, "object+0xOFFSET", keeps its offset
 * and loses the middle: the object is in its own column, and the offset
 * is what tells one such row from the next.
 */
static const char *
fit(char *buf, size_t size, const char *s, int width)
{
	const char *tail = strstr(s, "+0x");
	size_t keep;

	if ((int)strlen(s) <= width || width < 4)
		return s;
	if (tail != NULL && strspn(tail + 3, "0123456789abcdef") ==
	    strlen(tail + 3) && (keep = strlen(tail)) + 3 + 4 <= (size_t)width &&
	    (size_t)width < size) {
		size_t head = (size_t)width - 3 - keep;

		memcpy(buf, s, head);
		memcpy(buf + head, "...", 3);
		memcpy(buf + head + 3, tail, keep + 1);
		return buf;
	}
	snprintf(buf, size, "%.*s...", width - 3, s);
	return buf;
}

/*
 * Captions are folded between phrases, never inside one where it fits:
 *
 *   s1.prf: wall profile, | 1.00 s of threads' time: | 0.00 s on the CPU, |
 *   1.00 s off it (100%); | 1000 Hz (perf); | ± = 95% error of what ...
 *
 * A phrase ends at a word that ends in , ; or : outside parentheses
 * (the | above).  A phrase longer than the line is folded between its
 * words, but never after a figure ("1.00", "95%", "±": a word with no
 * letter in it), so that a number keeps its unit and a share its error
 * bar.  CLI_GLUE is a space never folded at.  Widths are in columns:
 * UTF-8 characters, not bytes.
 */
enum { GAP_PHRASE, GAP_WORD, GAP_NEVER };

struct word {
	const char *at;
	int len, columns;
	int gap;		/* what may come after it: GAP_* */
};

/* The columns of n bytes of UTF-8 s. */
static int
columns_of(const char *s, size_t n)
{
	int c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* text's words, with what may come after each; malloc'd, *n of them. */
static struct word *
words_of(const char *text, size_t *n)
{
	struct word *v = xcalloc(strlen(text) / 2 + 2, sizeof *v);
	int depth = 0;

	*n = 0;
	for (;;) {
		struct word *w = &v[*n];
		int letters = 0;

		text += strspn(text, " ");
		if (*text == '\0')
			break;
		w->at = text;
		w->len = (int)strcspn(text, " ");
		w->columns = columns_of(text, (size_t)w->len);
		for (int i = 0; i < w->len; i++) {
			char c = text[i];

			depth += c == '(' ? 1 : c == ')' && depth > 0 ? -1 : 0;
			letters |= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		}
		w->gap = depth == 0 && strchr(",;:", text[w->len - 1]) != NULL ?
		    GAP_PHRASE : letters ? GAP_WORD : GAP_NEVER;
		text += w->len;
		(*n)++;
	}
	return v;
}

/* Print words [from, to) on the line at *column, or on the next. */
static void
put_run(const struct word *from, const struct word *to, int *column,
    int text_columns)
{
	int n = (int)(to[-1].at + to[-1].len - from->at);
	int cols = columns_of(from->at, (size_t)n);

	if (*column > 0 && text_columns > 0 && *column + 1 + cols > text_columns) {
		putchar('\n');
		*column = 0;
	}
	if (*column > 0) {
		putchar(' ');
		(*column)++;
	}
	for (int i = 0; i < n; i++)
		putchar(from->at[i] == CLI_GLUE[0] ? ' ' : from->at[i]);
	*column += cols;
}

/* The end of the run of words from w on whose gaps are all above gap. */
static const struct word *
run_end(const struct word *w, const struct word *end, int gap)
{
	while (w + 1 < end && w->gap > gap)
		w++;
	return w + 1;
}

/* One line of a caption (its paragraph), folded between phrases. */
static void
print_paragraph(const char *text, int text_columns)
{
	size_t n;
	struct word *v = words_of(text, &n);
	const struct word *w = v, *end = v + n;
	int column = 0;

	while (w < end) {
		const struct word *phrase = run_end(w, end, GAP_PHRASE);
		int cols = (int)columns_of(w->at, (size_t)(phrase[-1].at +
		    phrase[-1].len - w->at));

		if (text_columns > 0 && cols > text_columns) {
			/* longer than a line: by words, figures kept whole */
			while (w < phrase) {
				const struct word *unit = run_end(w, phrase, GAP_WORD);

				put_run(w, unit, &column, text_columns);
				w = unit;
			}
		} else {
			put_run(w, phrase, &column, text_columns);
			w = phrase;
		}
	}
	putchar('\n');
	free(v);
}

/* The caption, each of its lines folded to the width, and a blank line. */
static void
print_caption(const char *caption, const struct table_style *style)
{
	for (const char *at = caption;;) {
		size_t len = strcspn(at, "\n");
		char *line = xmalloc(len + 1);

		memcpy(line, at, len);
		line[len] = '\0';
		print_paragraph(line, style->columns);
		free(line);
		if (at[len] == '\0')
			break;
		at += len + 1;
	}
	putchar('\n');
}

void
table_print_caption(const char *caption, const struct table_style *style)
{
	print_caption(caption, style);
}

/* Column c's text title. */
static const char *
title_of(const struct col *c, const struct table_style *style)
{
	return style->count_title != NULL && strcmp(c->name, "samples") == 0 ?
	    style->count_title : c->title;
}

/*
 * Text: each shown column as wide as its widest cell.  When the line
 * would pass the width to fit, the widest text columns (a long C++ name,
 * a long library name) give way, down to 16 columns; cut cells end "...".
 */
static void
print_text(const struct table *t, const int *order, const char *caption,
    const struct table_style *style)
{
	int text_columns = style->columns;
	int width[32] = { 0 }, n = 0, k, total, widest = -1;
	char buf[512], cut[512];
	size_t r;

	for (n = 0; order[n] >= 0 && n < 32; n++)
		width[n] = (int)strlen(title_of(&t->cols[order[n]], style));
	for (r = 0; r < t->nrows; r++)
		for (k = 0; k < n; k++) {
			const union cell *row = &t->cells[r * (size_t)t->ncols];
			int len;

			format_cell(buf, sizeof buf, &t->cols[order[k]], row[order[k]]);
			len = (int)strlen(buf) + (t->cols[order[k]].type == COL_ERR ? 2 : 0);
			if (len > width[k])
				width[k] = len;
		}
	for (k = 0, total = 0; k < n; k++)
		total += width[k] + (k ? 2 : 0);
	/*
	 * The object gives way first: its name is read from its first
	 * letters, a function's whole (and a tree's has its indentation
	 * too); then the widest text column; none below 16 columns.
	 */
	for (k = 0; k < n && text_columns > 0 && total > text_columns; k++)
		if (strcmp(t->cols[order[k]].name, "object") == 0 &&
		    t->cols[order[k]].type == COL_STR && width[k] > 16) {
			int give = total - text_columns < width[k] - 16 ?
			    total - text_columns : width[k] - 16;

			width[k] -= give;
			total -= give;
		}
	while (text_columns > 0 && total > text_columns) {
		widest = -1;
		for (k = 0; k < n; k++)
			if (t->cols[order[k]].type == COL_STR && width[k] > 16 &&
			    (widest < 0 || width[k] > width[widest]))
				widest = k;
		if (widest < 0)
			break;
		int give = total - text_columns < width[widest] - 16 ?
		    total - text_columns : width[widest] - 16;
		width[widest] -= give;
		total -= give;
	}
	if (caption != NULL)
		print_caption(caption, style);
	if (style->colour)
		fputs("\033[1m", stdout);
	for (k = 0; k < n; k++) {
		const struct col *c = &t->cols[order[k]];
		int left = c->type == COL_STR || c->type == COL_WORDS;

		printf("%s%*s", k ? "  " : "", left && k == n - 1 ? 0 :
		    (left ? -width[k] : width[k]), title_of(c, style));
	}
	printf("%s\n", table_colour_end(style));
	for (r = 0; r < t->nrows; r++) {
		const union cell *row = &t->cells[r * (size_t)t->ncols];

		for (k = 0; k < n; k++) {
			const struct col *c = &t->cols[order[k]];
			int left = c->type == COL_STR || c->type == COL_WORDS;
			const char *shown;

			format_cell(buf, sizeof buf, c, row[order[k]]);
			if (c->type == COL_ERR) {
				char with[520];

				snprintf(with, sizeof with, "± %s", buf);
				printf("%s%*s", k ? " " : "", width[k] + 1, with);
				continue;
			}
			shown = c->type == COL_STR ? fit(cut, sizeof cut, buf, width[k]) : buf;
			fputs(k ? "  " : "", stdout);
			if (c->type == COL_PCT && k == 0)
				fputs(table_colour_of(style, row[order[k]].d), stdout);
			printf("%*s", left && k == n - 1 ? 0 :
			    (left ? -width[k] : width[k]), shown);
			if (c->type == COL_PCT && k == 0)
				fputs(table_colour_end(style), stdout);
		}
		putchar('\n');
	}
}

int
table_parse_format(const char *name)
{
	static const char *const names[] = { "text", "csv", "json" };

	for (int i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

void
table_print(const struct table *t, int format, const int *text_order,
    const char *caption, const struct table_style *style)
{
	if (format == FORMAT_TEXT)
		print_text(t, text_order, caption, style);
	else
		print_machine(t, format);
}
