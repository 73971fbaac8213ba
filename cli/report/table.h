/*
 * table.h - the rows a report view produces, printed as aligned text,
 * CSV or JSON.  Machine formats use the column names as keys, in the
 * order given (documented in profil.1); text may reorder and omit.
 */
#ifndef PROFIL_TABLE_H
#define PROFIL_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum col_type {
	COL_STR,		/* text */
	COL_WORDS,		/* text never cut to fit ("signal 11 (SIGSEGV)") */
	COL_INT,		/* integer */
	COL_PCT,		/* a percentage: 12.3456 */
	COL_ERR,		/* the 95% half-width of a percentage, in points */
	COL_SEC,		/* seconds */
	COL_PROB,		/* a probability (diff's q-value): 0.0123, <0.0001 */
};

struct col {
	const char *name;	/* CSV header / JSON key */
	const char *title;	/* text header */
	enum col_type type;
};

union cell {
	const char *s;
	int64_t i;
	double d;
};

/*
 * A cell with no value (a figure the data cannot give, such as an
 * inclusive share of a profile without stacks): NaN in a number's cell,
 * TABLE_NO_INT in an integer's.  CSV leaves it empty, JSON says null,
 * text leaves it blank.
 */
#define TABLE_NO_INT	INT64_MIN

struct table {
	const struct col *cols;
	int ncols;
	union cell *cells;	/* nrows * ncols */
	size_t nrows, cap;
};

void table_init(struct table *t, const struct col *cols, int ncols);
void table_free(struct table *t);
/* A new row; fill its ncols cells. */
union cell *table_row(struct table *t);

enum { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };

/*
 * FORMAT_* for "text", "csv" or "json"; -1 for anything else, of which a
 * command's --format says TABLE_FORMAT_REFUSED (a printf format of name).
 */
int table_parse_format(const char *name);
#define TABLE_FORMAT_REFUSED \
	"--format: unknown format '%s' (text, csv or json)"

/*
 * How text is printed, set by the command from its options and passed to
 * every view: fitted to columns (0: never cut), coloured (ANSI) or not,
 * and the text title of the columns named "samples" (NULL: their own):
 * "counts" for a profile whose samples weigh their intervals
 * (report_weighted), where a count is an interval of CPU time and not a
 * sample taken (1,831 samples taken showed as 18,100 "samples").  CSV
 * and JSON keep their stable names, and are neither cut nor coloured.
 */
struct table_style {
	int columns;
	int colour;
	const char *count_title;
};

/*
 * Print t.  For text, as style says: text_order lists the columns to
 * show (-1 ends it); a header line (caption) comes first if not NULL.
 */
void table_print(const struct table *t, int format, const int *text_order,
    const char *caption, const struct table_style *style);

/*
 * A caption as table_print prints one: each of its lines folded to
 * style's width between phrases, then a blank line.  For the views that
 * draw text of their own under it (report --timeline).
 */
void table_print_caption(const char *caption,
    const struct table_style *style);

/* The escape that colours a share of percent (hot red, warm yellow), or "". */
const char *table_colour_of(const struct table_style *style, double percent);
/* The escape that ends a colour, or "". */
const char *table_colour_end(const struct table_style *style);

#endif
