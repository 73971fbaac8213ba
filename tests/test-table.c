/*
 * test-table.c - cli/report/table.c's text fitted to 80 columns: rows of
 * code without symbols ("object+0xOFFSET") stay told apart when their
 * names are cut, and a caption longer than the line is folded at spaces,
 * every word kept.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli/report/table.c"
#include "../cli/util.c"

/* What print does on standard output, in a malloc'd string. */
static char *
printed(void (*print)(const void *), const void *arg)
{
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO);
	char *out;
	long n;

	assert_non_null(f);
	fflush(stdout);
	assert_true(dup2(fileno(f), STDOUT_FILENO) >= 0);
	print(arg);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	n = ftell(f);
	assert_true(n >= 0);
	out = calloc(1, (size_t)n + 1);
	rewind(f);
	assert_int_equal(fread(out, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return out;
}

/* Every line of text at most width columns (UTF-8: "±" is one). */
static void
assert_lines_fit(const char *text, size_t width)
{
	for (const char *at = text; *at;) {
		size_t len = strcspn(at, "\n"), columns = 0;

		for (size_t i = 0; i < len; i++)
			columns += ((unsigned char)at[i] & 0xc0) != 0x80;
		if (columns > width)
			fail_msg("a line of %zu columns: %.*s", columns, (int)len, at);
		at += len + (at[len] == '\n');
	}
}

static const struct col cols[] = {
	{ "function", "function", COL_STR },
	{ "object", "object", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
	{ "inclusive", "%incl", COL_PCT },
	{ "inclusive_error", "95%", COL_ERR },
};
/* as the flat report's: %self 95% %incl 95% seconds samples function object */
static const int order[] = { 3, 4, 6, 7, 5, 2, 0, 1, -1 };

static const char *const offsets[] = { "+0x1599a", "+0x161cd", "+0x173dd" };

/* A row of the columns above: names, samples, then the five figures. */
static void
fill_row(struct table *t, const char *function, const char *object,
    long samples, double pct, double err, double secs, double incl,
    double incl_err)
{
	union cell *c = table_row(t);

	c[0].s = function;
	c[1].s = object;
	c[2].i = samples;
	c[3].d = pct;
	c[4].d = err;
	c[5].d = secs;
	c[6].d = incl;
	c[7].d = incl_err;
}

static void
print_stripped_rows(const void *arg)
{
	struct table t;

	(void)arg;
	table_init(&t, cols, 8);
	for (int i = 0; i < 3; i++) {
		char *name = malloc(64);

		snprintf(name, 64, "liblzma.so.5.4.1%s", offsets[i]);
		fill_row(&t, name, "liblzma.so.5.4.1", 11409 - 3000 * i,
		    52.6 - 10 * i, 0.66, 11.409, 53.63, 0.66);
	}
	table_print(&t, FORMAT_TEXT, order, NULL);
	for (size_t r = 0; r < t.nrows; r++)
		free((char *)t.cells[r * 8].s);
	table_free(&t);
}

/*
 * A stripped library's rows, each named object+offset: cut to fit, they
 * once all read "liblzma.so.5...." alike.  Each keeps its offset.
 */
static void
test_stripped_names_keep_offsets(void **state)
{
	char *out;

	(void)state;
	table_style(80, 0);
	out = printed(print_stripped_rows, NULL);
	assert_lines_fit(out, 80);
	for (int i = 0; i < 3; i++)
		if (strstr(out, offsets[i]) == NULL)
			fail_msg("no row ends in %s:\n%s", offsets[i], out);
	/* cut they were: the full name does not fit beside its object */
	if (strstr(out, "liblzma.so.5.4.1+0x") != NULL)
		fail_msg("not cut, so not tested:\n%s", out);
	free(out);
}

/* as the tree's: %incl 95% %self incl function object */
static const int tree_order[] = { 6, 7, 3, 2, 0, 1, -1 };

static void
print_long_object(const void *arg)
{
	struct table t;

	(void)arg;
	table_init(&t, cols, 8);
	/* the function the wider; the object alone can give what is needed */
	fill_row(&t, "           _PyRun_AnyFileObject",	/* indented, 31 */
	    "_json.cpython-311-x86_64-li.so",		/* 30 */
	    1859, 0, 0, 0, 79.92, 1.63);
	table_print(&t, FORMAT_TEXT, tree_order, NULL);
	table_free(&t);
}

/*
 * An object's name gives way before a function's, even a wider one (a
 * tree's names carry their indentation): the function is read whole,
 * the object from its first letters.
 */
static void
test_object_gives_way_first(void **state)
{
	char *out;

	(void)state;
	table_style(80, 0);
	out = printed(print_long_object, NULL);
	assert_lines_fit(out, 80);
	if (strstr(out, "_PyRun_AnyFileObject") == NULL ||
	    strstr(out, "_json.cpython") == NULL)
		fail_msg("function cut, or object gone:\n%s", out);
	if (strstr(out, "x86_64-li.so") != NULL)
		fail_msg("nothing was cut, so nothing tested:\n%s", out);
	free(out);
}

static const char caption[] = "call tree, callers above callees; 71 calls "
    "under 1% of the samples left out (--min-percent 0 shows them)";

static void
print_with_caption(const void *arg)
{
	struct table t;

	table_init(&t, cols, 8);
	fill_row(&t, "main", "workload", 1, 100, 0, 0.001, 100, 0);
	table_print(&t, FORMAT_TEXT, order, arg);
	table_free(&t);
}

/* A caption longer than the line: folded at spaces, no word lost. */
static void
test_caption_folded(void **state)
{
	char *out, *words = strdup(caption), *save = NULL;

	(void)state;
	table_style(80, 0);
	out = printed(print_with_caption, caption);
	assert_lines_fit(out, 80);
	for (char *w = strtok_r(words, " ", &save); w != NULL;
	    w = strtok_r(NULL, " ", &save))
		if (strstr(out, w) == NULL)
			fail_msg("the caption lost \"%s\":\n%s", w, out);
	/* and it is two lines, then the blank line before the table */
	assert_non_null(strstr(out, "left out\n(--min-percent 0 shows them)\n\n"));
	free(words);
	free(out);
}

/* With no width to fit (0), nothing is folded or cut. */
static void
test_no_width_no_cut(void **state)
{
	char *out;

	(void)state;
	table_style(0, 0);
	out = printed(print_with_caption, caption);
	assert_non_null(strstr(out, caption));
	free(out);
	out = printed(print_stripped_rows, NULL);
	assert_non_null(strstr(out, "liblzma.so.5.4.1+0x1599a"));
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stripped_names_keep_offsets),
		cmocka_unit_test(test_object_gives_way_first),
		cmocka_unit_test(test_caption_folded),
		cmocka_unit_test(test_no_width_no_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
