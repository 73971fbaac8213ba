/*
 * cmd-diff.c - `profil diff BEFORE AFTER`: each function's share of all
 * samples before and after, the change in points with its 95% error bar,
 * most significant change first.  The statistics are report/diff.h's;
 * here, the options and the tables.  Shares are of all samples (lost ones
 * aside), as in the flat report, so the two columns of percentages read
 * like two flat reports side by side.
 *
 * Two wall profiles (record --wall) are compared as report shows them:
 * shares of wall time, time off the CPU counted in sampling intervals
 * at [off-cpu: read], ... (profile/wall-view.h), or their CPU parts with
 * --cpu.  A wall profile and a CPU one: their CPU parts, said on stderr.
 *
 * --time cuts both profiles to a window of their runs (window.h),
 * --time-before and --time-after each side to its own, so that two
 * windows of one profile compare "what changed when it slowed down";
 * each side is then named with its window.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "profile/wall-view.h"
#include "profile/window.h"
#include "report/diff.h"
#include "report/report.h"
#include "report/table.h"
#include "symbols/find.h"
#include "model/funcs.h"
#include "model/stacks.h"

/*
 * Machine formats show the first 20 columns: the documented 10, q after
 * them, then the inclusive ones (empty, or null, without stacks): columns
 * never move.  Text shows the self columns, and with stacks a second
 * table of the inclusive ones; it adds the mark and leaves z out to fit
 * 80 columns: change and its bar say as much, q says more.
 */
static const struct col diff_cols[] = {
	{ "function", "function", COL_STR },
	{ "object", "object", COL_STR },
	{ "before_samples", "before", COL_INT },
	{ "after_samples", "after", COL_INT },
	{ "before_percent", "before%", COL_PCT },
	{ "after_percent", "after%", COL_PCT },
	{ "change", "change", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "z", "z", COL_PCT },
	{ "significant", "significant", COL_INT },
	{ "q", "q", COL_PROB },
	{ "incl_before_samples", "before", COL_INT },
	{ "incl_after_samples", "after", COL_INT },
	{ "incl_before_percent", "before%", COL_PCT },
	{ "incl_after_percent", "after%", COL_PCT },
	{ "incl_change", "change", COL_PCT },
	{ "incl_error95", "95%", COL_ERR },
	{ "incl_z", "z", COL_PCT },
	{ "incl_significant", "significant", COL_INT },
	{ "incl_q", "q", COL_PROB },
	{ "mark", "", COL_STR },
};
#define DIFF_MACHINE_COLS 20
static const int diff_text[] = { 4, 5, 6, 7, 10, 20, 0, 1, -1 };
static const int diff_text_incl[] = { 13, 14, 15, 16, 19, 20, 0, 1, -1 };

struct diff_options {
	int format;
	long limit;		/* -1: all */
	double min_change;	/* in points */
	struct table_style style;	/* text: 80 columns, no colour */
};

/* c's cells from column first on: 9 of them, empty when c is not there. */
static void
change_cells(union cell *c, const struct diff_change *d, int there)
{
	c[0].i = there ? (int64_t)d->before : TABLE_NO_INT;
	c[1].i = there ? (int64_t)d->after : TABLE_NO_INT;
	c[2].d = there ? d->before_percent : NAN;
	c[3].d = there ? d->after_percent : NAN;
	c[4].d = there ? d->change : NAN;
	c[5].d = there ? d->error95 : NAN;
	c[6].d = there ? d->z : NAN;
	/* time off the CPU is not tested: no q, no verdict */
	c[7].i = there && !d->offcpu ? d->q <= DIFF_FDR : TABLE_NO_INT;
	c[8].d = there && !d->offcpu ? d->q : NAN;
}

/*
 * The rows (in their order) as a table: all of them in machine formats,
 * where --min-change keeps a row when either of its changes reaches it;
 * for text, the shares of one kind (inclusive when incl_text) of the
 * functions that have such samples.
 */
static void
print_diff(const struct diff_row *const *rows, size_t n, int incl,
    int incl_text, const struct diff_options *o, const char *caption)
{
	int text = o->format == FORMAT_TEXT;
	struct table t;

	table_init(&t, diff_cols, text ? 21 : DIFF_MACHINE_COLS);
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *d = rows[i];
		const struct diff_change *shown = incl_text ? &d->incl :
		    &d->self;
		union cell *c;

		/* in text, a table shows the functions its family tested,
		   and those with time off the CPU */
		if (text && !shown->tested && !shown->offcpu)
			continue;
		if (text ? fabs(shown->change) < o->min_change :
		    fabs(d->self.change) < o->min_change &&
		    (!incl || fabs(d->incl.change) < o->min_change))
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = d->function;
		c[1].s = d->object;
		change_cells(c + 2, &d->self, 1);
		change_cells(c + 11, &d->incl, incl);
		if (text)
			c[20].s = shown->q <= DIFF_FDR ? "*" : "";
	}
	table_print(&t, o->format, incl_text ? diff_text_incl : diff_text,
	    caption, &o->style);
	table_free(&t);
}

/*
 * Two profiles of different programs (their first objects, the programs
 * record started, have other names), or by different engines (which
 * count system-call time differently): compared all the same, functions
 * matched by name, but not without a word (merge refuses them).
 */
static void
warn_unlike(struct profil_profile *const p[2], char *const names[2])
{
	const char *a = p[0]->nobjects ? funcs_base_name(p[0]->objects[0].path) :
	    NULL;
	const char *b = p[1]->nobjects ? funcs_base_name(p[1]->objects[0].path) :
	    NULL;

	if (a != NULL && b != NULL && strcmp(a, b) != 0)
		cli_warn("%s profiles %s, %s profiles %s: different programs, "
		    "their functions matched by name", names[0], a, names[1], b);
	if (strcmp(p[0]->engine, p[1]->engine) != 0)
		cli_warn("%s was recorded by the %s engine, %s by the %s engine: "
		    "they count time in system calls differently", names[0],
		    p[0]->engine, names[1], p[1]->engine);
}

/*
 * p[0] and p[1] (files names) as they are compared: wall views of two
 * wall profiles (their CPU parts with cpu_only), the CPU part of one
 * wall profile beside a CPU profile.  Replaced in p; 1 if wall time is
 * compared.
 */
static int
wall_or_cpu(struct profil_profile *p[2], char *const names[2], int cpu_only)
{
	int walls = (p[0]->wall != NULL) + (p[1]->wall != NULL);
	char cause[256];

	if (walls == 0 && cpu_only)
		cli_die(EXIT_USAGE, "--cpu: %s and %s are CPU profiles already "
		    "(record --wall makes wall profiles)", names[0], names[1]);
	if (walls == 1)
		cli_warn("%s is a wall profile, %s a CPU profile: their CPU parts "
		    "compared", names[p[0]->wall != NULL ? 0 : 1],
		    names[p[0]->wall != NULL ? 1 : 0]);
	for (int k = 0; k < 2; k++)
		if (wall_view_replace(&p[k], cpu_only || walls == 1, cause,
		    sizeof cause) < 0)
			cli_die(1, "%s: %s", names[k], cause);
	return walls == 2 && !cpu_only;
}

/*
 * A side's window: --time's, or its own (--time-before, --time-after),
 * which is taken over --time's whatever their order.  option NULL: none.
 */
struct side_window {
	struct window_spec spec;
	const char *option;	/* its name, for messages */
	int own;
};

/*
 * The text of option (its name) into the windows of the sides of to
 * (own: those sides' own); a usage exit if it is no window.
 */
static void
take_window(const char *option, const char *text, struct side_window *to,
    size_t sides, int own)
{
	struct window_spec spec;
	char cause[256];

	if (window_parse(text, &spec, cause, sizeof cause) < 0)
		cli_die(EXIT_USAGE, "--%s '%s': %s", option, text, cause);
	for (size_t k = 0; k < sides; k++)
		if (own || !to[k].own)
			to[k] = (struct side_window){ spec, option, own };
}

/*
 * The command line into o, *cpu_only and the sides' windows (option
 * NULL: none), BEFORE and AFTER at argv[optind] on; -1 to go on, else the
 * status to exit with (--help given, or an option diff does not have).
 */
static int
parse(int argc, char **argv, struct diff_options *o, int *cpu_only,
    struct side_window window[2])
{
	const char *symfs = NULL, *debug_dirs = NULL;
	int c;

	while ((c = cli_getopt(argc, argv, &cmd_diff, NULL)) != -1) {
		switch (c) {
		case 'f':
			if ((o->format = table_parse_format(optarg)) < 0)
				cli_die(EXIT_USAGE, TABLE_FORMAT_REFUSED, optarg);
			break;
		case 'n':
			o->limit = cli_option_limit(optarg);
			break;
		case 'm':
			if (cli_parse_percent(optarg, &o->min_change) < 0)
				cli_die(EXIT_USAGE, "--min-change: '%s' is not a number "
				    "of points from 0 to 100", optarg);
			break;
		case 'S':
			symfs = optarg;
			break;
		case 'D':
			debug_dirs = optarg;
			break;
		case 'C':
			*cpu_only = 1;
			break;
		case 'T':
			take_window("time", optarg, window, 2, 0);
			break;
		case 'B':
			take_window("time-before", optarg, &window[0], 1, 1);
			break;
		case 'A':
			take_window("time-after", optarg, &window[1], 1, 1);
			break;
		case 'h':
			return cli_help(&cmd_diff);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	find_search_set(symfs, debug_dirs);
	if (argc - optind != 2)
		cli_die(EXIT_USAGE, "two profiles to compare, before and after "
		    "(see 'profil diff --help')");
	return -1;
}

/*
 * The profile of file, cut to window (option NULL: whole), or NULL
 * (said) if it cannot be read; an exit, said, if the window is not in
 * its run (2 if the option's fault: END before START).
 * What it is called in the tables into shown: the file's name, and its
 * window.
 */
static struct profil_profile *
read_side(const char *file, const struct side_window *window, char *shown,
    size_t size)
{
	struct profil_profile *p;
	char cause[256], label[128];
	int rc;

	if ((p = profil_profile_read(file, cause, sizeof cause)) == NULL) {
		cli_error("%s: %s", file, cause);
		return NULL;
	}
	snprintf(shown, size, "%s", file);
	if (window->option == NULL)
		return p;
	if ((rc = window_replace(&p, &window->spec, label, sizeof label, cause,
	    sizeof cause)) < 0) {
		profil_profile_free(p);
		cli_die(rc == WINDOW_BAD_OPTION ? EXIT_USAGE : 1, "%s: --%s "
		    "'%s': %s", file, window->option, window->spec.text, cause);
	}
	snprintf(shown, size, "%s (%s)", file, label);
	return p;
}

/* What a side is called: its file's name and window, cut to fit. */
#define SHOWN_MAX	(PATH_MAX + 160)

/*
 * The profiles of files files, cut to their windows, into p, as they
 * are compared (wall_or_cpu; *wall 1 if wall time is), and their names
 * with their windows into names; 0, or 1 (said, nothing left to free)
 * if one cannot be read or has no samples.
 */
static int
read_pair(char *const files[2], const struct side_window window[2],
    char *const names[2], struct profil_profile *p[2], int cpu_only,
    int *wall)
{
	for (int k = 0; k < 2; k++)
		if ((p[k] = read_side(files[k], &window[k], names[k],
		    SHOWN_MAX)) == NULL) {
			if (k == 1)
				profil_profile_free(p[0]);
			return 1;
		}
	*wall = wall_or_cpu(p, names, cpu_only);
	for (int k = 0; k < 2; k++)
		if (p[k]->samples == 0) {
			cli_error("%s: no samples: nothing to compare",
			    names[k]);
			profil_profile_free(p[0]);
			profil_profile_free(p[1]);
			return 1;
		}
	warn_unlike(p, names);
	return 0;
}

/*
 * The caption of the first table: the profiles, what a change is, the
 * family tested (tested functions), and what the comparison lacks or
 * counts (no stacks on one side; wall time).
 */
static void
pair_caption(char *caption, size_t size, struct profil_profile *const p[2],
    char *const names[2], size_t tested, int incl, int wall)
{
	char worth_of[2][64] = { "", "" };
	int one_without = !incl && p[0]->nstacks + p[1]->nstacks > 0;

	for (int k = 0; k < 2; k++)
		if (report_weighted(p[k]))
			snprintf(worth_of[k], sizeof worth_of[k], ", as %.0f of "
			    "equal weight", (double)p[k]->samples /
			    report_error_scale(p[k]));
	snprintf(caption, size, "before: %s (%llu samples%s)\n"
	    "after: %s (%llu samples%s)\nchange = after%% - before%% in points, "
	    "+- 95%% error (each function alone)\n* marks a change that is "
	    "significant at q <= 0.05 (a false discovery rate of 5%% over the "
	    "%zu functions compared, Benjamini-Hochberg)%s%s%s%s",
	    names[0], (unsigned long long)p[0]->samples, worth_of[0],
	    names[1], (unsigned long long)p[1]->samples, worth_of[1], tested,
	    one_without ? "\nno inclusive shares: " : "", one_without ?
	    names[p[0]->nstacks == 0 ? 0 : 1] : "", one_without ?
	    " has no call stacks" : "", wall ? "\nwall profiles: shares of "
	    "wall time, on the CPU and off it (--cpu compares the CPU "
	    "parts)\na share with time off the CPU in it is not tested (no "
	    "q): its change is the runs' own, its error that of what of it "
	    "was sampled" : "");
}

/*
 * The rows as tables: one of every row (the self shares; the inclusive
 * ones beside them in machine formats), and for text with inclusive
 * shares a second of the inclusive family, in its own order.
 */
static void
print_tables(struct diff_row *rows, size_t nrows, int incl,
    const struct diff_options *o, const char *caption)
{
	struct diff_row **order = xcalloc(nrows, sizeof *order);
	size_t nincl = 0;
	char incl_caption[512];

	for (size_t i = 0; i < nrows; i++)
		order[i] = &rows[i];
	print_diff((const struct diff_row *const *)order, nrows, incl, 0, o,
	    caption);
	if (incl && o->format == FORMAT_TEXT) {
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].incl.tested)
				order[nincl++] = &rows[i];
		qsort(order, nincl, sizeof *order, diff_by_incl_significance);
		snprintf(incl_caption, sizeof incl_caption, "\ninclusive: the "
		    "share of samples whose call stack holds the function "
		    "(once a stack, of the stacks unwound), +- 95%% error\n* "
		    "marks q <= 0.05 over the %zu functions in the stacks, a "
		    "family of their own (Benjamini-Hochberg)", nincl);
		print_diff((const struct diff_row *const *)order, nincl, incl, 1,
		    o, incl_caption);
	}
	free(order);
}

static int
diff_exec(int argc, char **argv)
{
	struct diff_options o = { FORMAT_TEXT, -1, 0, { 80, 0, NULL } };
	struct profil_profile *p[2];
	struct funcs f[2];
	struct stacks s[2];
	struct diff_row *rows;
	struct side_window window[2] = { { .option = NULL }, { .option = NULL } };
	char caption[1024 + 2 * SHOWN_MAX], shown[2][SHOWN_MAX];
	char *names[2] = { shown[0], shown[1] };
	size_t nrows, tested;
	int rc, incl, cpu_only = 0, wall;

	if ((rc = parse(argc, argv, &o, &cpu_only, window)) >= 0)
		return rc;
	if (read_pair(argv + optind, window, names, p, cpu_only, &wall) != 0)
		return 1;
	incl = p[0]->nstacks > 0 && p[1]->nstacks > 0;
	for (int k = 0; k < 2; k++) {
		funcs_build(&f[k], p[k], cli_warn_line);
		/* inlined code is its caller's here, as in the self rows */
		if (incl)
			stacks_name(&s[k], p[k], &f[k], STACKS_NO_LINES);
	}
	rows = diff_pair_rows(f, s, incl, &nrows, &tested);
	pair_caption(caption, sizeof caption, p, names, tested, incl, wall);
	print_tables(rows, nrows, incl, &o, caption);
	rc = cli_finish_stdout(0);
	free(rows);
	for (int k = 0; incl && k < 2; k++)
		stacks_free(&s[k]);
	funcs_free(&f[0]);
	funcs_free(&f[1]);
	profil_profile_free(p[0]);
	profil_profile_free(p[1]);
	return rc;
}

static const struct cli_opt diff_options[] = {
	{ "format", required_argument, 'f', CLI_SHORT, "text csv json",
	    "  -f, --format FORMAT  text (default), csv or json (stable columns)\n" },
	{ "limit", required_argument, 'n', CLI_SHORT, NULL,
	    "  -n, --limit N        at most N rows (default: all)\n" },
	{ "min-change", required_argument, 'm', 0, NULL,
	    "      --min-change P   leave out changes under P points either way\n"
	    "                       (default 0)\n" },
	{ "cpu", no_argument, 'C', 0, NULL,
	    "      --cpu            wall profiles (record --wall): compare their CPU\n"
	    "                       parts (default: shares of wall time, off-CPU time\n"
	    "                       at [off-cpu: read], ...; a wall profile and a CPU\n"
	    "                       one: their CPU parts)\n" },
	{ "time", required_argument, 'T', 0, NULL,
	    "      --time START..END  both profiles cut to that window of their runs,\n"
	    "                       rounded out to whole slices of their timelines:\n"
	    "                       s, ms, us, ns or % of the run, a bare number\n"
	    "                       seconds, either side empty (1.5s..3s, 90%..)\n" },
	{ "time-before", required_argument, 'B', 0, NULL,
	    "      --time-before START..END, --time-after START..END  BEFORE's,\n"
	    "                       AFTER's own window (over --time's): two windows\n"
	    "                       of one profile show what changed between them\n" },
	{ "time-after", required_argument, 'A', 0, NULL, NULL },
	FIND_OPTIONS,
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help           this help\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

const struct cmd cmd_diff = {
	"diff", "[--format text|csv|json] [--limit N] [--min-change P] "
	    "[--cpu] [--time START..END] [--time-before START..END] "
	    "[--time-after START..END] [--symfs DIR] [--debug-dir DIRS] "
	    "BEFORE AFTER",
	"compare two profiles function by function, with error bars",
	diff_exec, diff_options, CLI_PROFILES, NULL,
};
