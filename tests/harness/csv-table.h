/*
 * csv-table.h - what the tests of a share's error read the views with
 * (csv-table.c): `profil report --format csv` parsed into a table whose
 * cells are found by row and column name, and figures compared at the
 * CSV's precision.
 */
#ifndef PROFIL_TEST_CSV_TABLE_H
#define PROFIL_TEST_CSV_TABLE_H

/* A CSV table: its columns' names, its cells row by row. */
struct csv {
	int ncols, nrows;
	char *name[48];
	char **cell;		/* nrows * ncols */
};

/* A CSV text (a header line, then rows) parsed into t (malloc'd). */
void csv_parse(struct csv *t, const char *text);

/* What csv_parse gave t, freed. */
void csv_free(struct csv *t);

/* The index of the column of that name; fails the test if none. */
int column(const struct csv *t, const char *name);

/* The cell of a row in the named column. */
const char *text_at(const struct csv *t, int row, const char *name);

/* The same as a number. */
double num(const struct csv *t, int row, const char *name);

/* The first row whose column key is value (trimmed of indentation). */
int row_of(const struct csv *t, const char *key, const char *value);

/* `profil report --format csv` with the options given (NULL-ended), parsed. */
void csv_of(struct csv *t, const char *prf, ...);

/* got is want to the CSV's four decimals, or the test fails saying what. */
void assert_near(double got, double want, const char *what);

#endif
