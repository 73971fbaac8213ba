/*
 * test-table.c - cli/report/table.c's text fitted to 80 columns: rows of
 * code without symbols ("object+0xOFFSET") stay told apart when their
 * names are cut, the objects view's names are never cut, and a caption
 * longer than the line is folded between phrases at any width, every
 * word kept, never between a figure and what follows it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cli/report/table.c"
#include "../../cli/json.c"
#include "../../cli/util.c"

/* How the tests print text: set by each test (table.h). */
static struct table_style style;

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
	table_print(&t, FORMAT_TEXT, order, NULL, &style);
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
	style = (struct table_style){ 80, 0, NULL };
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
	table_print(&t, FORMAT_TEXT, tree_order, NULL, &style);
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
	style = (struct table_style){ 80, 0, NULL };
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
	table_print(&t, FORMAT_TEXT, order, arg, &style);
	table_free(&t);
}

/* A caption longer than the line: folded at spaces, no word lost. */
static void
test_caption_folded(void **state)
{
	char *out, *words = strdup(caption), *save = NULL;

	(void)state;
	style = (struct table_style){ 80, 0, NULL };
	out = printed(print_with_caption, caption);
	assert_lines_fit(out, 80);
	for (char *w = strtok_r(words, " ", &save); w != NULL;
	    w = strtok_r(NULL, " ", &save))
		if (strstr(out, w) == NULL)
			fail_msg("the caption lost \"%s\":\n%s", w, out);
	/*
	 * two lines, folded after the phrase "callers above callees;" (the
	 * next one fits a line whole), then the blank line before the table
	 */
	assert_non_null(strstr(out, "call tree, callers above callees;\n71 calls "
	    "under 1% of the samples left out (--min-percent 0 shows them)\n\n"));
	free(words);
	free(out);
}

/*
 * Captions as report writes them (a wall profile's, its note, a
 * weighted profile's, a function's callers'), one paragraph a line.
 */
static const char *const captions[] = {
	"s1.prf: wall profile, 1.00 s of threads' time: 0.00 s on the CPU, "
	"1.00 s off it (100%); 1000 Hz (perf); \u00b1 = 95% error of what was "
	"sampled (what was measured has none)\nnote: time off the CPU is "
	"measured from context switches; 94% of it is placed by sampling "
	"(blocks shorter than 10 ms, and preemptions)",
	"worth.prf: 1831 samples, 0.67 s CPU (perf), 0 lost\nsampled at 10000 "
	"Hz down to 156 Hz; counts in 100 us intervals\n\u00b1 = 95% error, as "
	"of 280 samples of equal weight\nnote: the samples stand for 0.40 s "
	"of the 0.67 s of CPU time (60%); the rest went unsampled: threads "
	"or processes shorter than a sampling period, or kernel time where "
	"only user mode may be sampled (profil(1), CAVEATS)",
	"clock_nanosleep (libc.so.6): 1.000 s with it on the stack (0 CPU "
	"samples), 100.00%\x1f" "\u00b1\x1f" "0.00\x1f" "of\x1f" "all; 0.000 s in "
	"itself\ncallers of clock_nanosleep, as shares of its time:",
};

/* A figure: a word without a letter ("1.00", "95%", "\u00b1", "="). */
static int
figure(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= 'A' && w[i] <= 'Z'))
			return 0;
	return 1;
}

/*
 * The words of a paragraph, and for each whether a phrase ends after it
 * (it ends in , ; or : outside parentheses), and the columns of the
 * phrase each is in.
 */
struct words {
	size_t n;
	const char *at[128];
	size_t len[128];
	int ends[128];
	size_t phrase[128];
};

static size_t
columns(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

static void
words_of_paragraph(struct words *w, const char *p, size_t len)
{
	int depth = 0;
	size_t first = 0;

	w->n = 0;
	for (size_t i = 0; i < len;) {
		size_t n = 0;

		while (i < len && p[i] == ' ')
			i++;
		if (i == len)
			break;
		while (i + n < len && p[i + n] != ' ')
			n++;
		for (size_t k = 0; k < n; k++)
			depth += p[i + k] == '(' ? 1 : p[i + k] == ')' ? -1 : 0;
		assert_true(w->n < 128);
		w->at[w->n] = p + i;
		w->len[w->n] = n;
		w->ends[w->n] = depth == 0 && strchr(",;:", p[i + n - 1]) != NULL;
		w->n++;
		i += n;
	}
	for (size_t k = 0; k < w->n; k++)
		if (w->ends[k] || k + 1 == w->n) {
			size_t wide = columns(w->at[first], (size_t)(w->at[k] +
			    w->len[k] - w->at[first]));

			for (size_t j = first; j <= k; j++)
				w->phrase[j] = wide;
			first = k + 1;
		}
}

static void
print_caption_only(const void *arg)
{
	print_caption(arg, &style);
}

/*
 * Every caption at every width from 40 to 130: each line fits; the words
 * come in order, none lost, the glue shown as a space; a line ends where
 * a phrase does, unless that phrase is longer than a line; and never
 * after a figure, so that "1.00 s" and "0.88 \u00b1 0.03" stay whole.
 */
static void
test_captions_fold_between_phrases(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof captions / sizeof captions[0]; c++)
		for (int width = 40; width <= 130; width++) {
			char *out, *line;
			const char *par = captions[c];

			style = (struct table_style){ width, 0, NULL };
			out = printed(print_caption_only, captions[c]);
			assert_lines_fit(out, (size_t)width);
			line = out;
			/* paragraph by paragraph: its lines, then the next */
			while (*par != '\0') {
				size_t plen = strcspn(par, "\n"), k = 0;
				struct words w;
				char glued[1024];

				assert_true(plen < sizeof glued);
				for (size_t i = 0; i < plen; i++)
					glued[i] = par[i] == '\x1f' ? ' ' : par[i];
				glued[plen] = '\0';
				words_of_paragraph(&w, par, plen);
				while (k < w.n) {
					size_t llen = strcspn(line, "\n");
					size_t last;

					/* the line is the next words, glue as spaces */
					for (last = k; last < w.n; last++) {
						size_t off = (size_t)(w.at[last] - par);

						if (off + w.len[last] > (size_t)(w.at[k] -
						    par) + llen)
							break;
					}
					if (last == k || strncmp(line, glued + (w.at[k] -
					    par), llen) != 0)
						fail_msg("width %d: the line '%.*s' is not "
						    "the caption's words '%s'", width,
						    (int)llen, line, glued + (w.at[k] - par));
					last--;
					if (last + 1 < w.n && !w.ends[last] &&
					    w.phrase[last] <= (size_t)width)
						fail_msg("width %d: folded inside a phrase "
						    "that fits: '%.*s'", width, (int)llen,
						    line);
					if (last + 1 < w.n && !w.ends[last] &&
					    figure(w.at[last], w.len[last]))
						fail_msg("width %d: a line ends in a "
						    "figure: '%.*s'", width, (int)llen, line);
					k = last + 1;
					line += llen + (line[llen] == '\n');
				}
				par += plen + (par[plen] == '\n');
			}
			if (strcmp(line, "\n") != 0)
				fail_msg("width %d: after the caption '%s'", width, line);
			free(out);
		}
}

/* as the objects view's: % 95% seconds samples object path */
static const struct col objects_cols[] = {
	{ "object", "object", COL_WORDS },
	{ "path", "path", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
};
static const int object_order[] = { 3, 4, 5, 2, 0, 1, -1 };

static const char *const kinds[] = { "[off-cpu: other waiting]",
    "[off-cpu: page faults]", "[off-cpu: runnable]" };

static void
print_objects(const void *arg)
{
	struct table t;

	(void)arg;
	table_init(&t, objects_cols, 6);
	for (int i = 0; i < 3; i++) {
		union cell *c = table_row(&t);

		c[0].s = kinds[i];
		/* (a long path beside a long name: the path gives way) */
		c[1].s = i == 0 ? "/usr/lib/x86_64-linux-gnu/some/long/path" : "";
		c[2].i = 0;
		c[3].d = 10;
		c[4].d = 1.5;
		c[5].d = 0.25;
	}
	{
		union cell *c = table_row(&t);

		c[0].s = "libLLVM-15.so.1";
		c[1].s = "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1";
		c[2].i = 12345;
		c[3].d = 70;
		c[4].d = 0.5;
		c[5].d = 12.345;
	}
	table_print(&t, FORMAT_TEXT, object_order, NULL, &style);
	table_free(&t);
}

/*
 * The objects view at 80 columns: it fits, the names whole, the path
 * giving way ("[off-cpu: oth..." said nothing); at 60, where nothing
 * can fit, the names are whole all the same.
 */
static void
test_object_names_whole(void **state)
{
	(void)state;
	for (int width = 60; width <= 80; width += 20) {
		char *out;

		style = (struct table_style){ width, 0, NULL };
		out = printed(print_objects, NULL);
		if (width >= 80)
			assert_lines_fit(out, (size_t)width);
		for (int i = 0; i < 3; i++)
			if (strstr(out, kinds[i]) == NULL)
				fail_msg("%d columns: %s cut:\n%s", width, kinds[i],
				    out);
		if (strstr(out, "libLLVM-15.so.1 ") == NULL)
			fail_msg("%d columns: the library's name cut:\n%s", width,
			    out);
		free(out);
	}
}

/* With no width to fit (0), nothing is folded or cut. */
static void
test_no_width_no_cut(void **state)
{
	char *out;

	(void)state;
	style = (struct table_style){ 0, 0, NULL };
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
		cmocka_unit_test(test_captions_fold_between_phrases),
		cmocka_unit_test(test_object_names_whole),
		cmocka_unit_test(test_no_width_no_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
