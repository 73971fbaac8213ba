/*
 * cmd-report.c - `profil report`: reads a profile, picks a view from
 * the table of views (report/views.h) and the way to print it, builds
 * what the view reads and shows it.  Text fits the terminal and is
 * coloured only on one; CSV and JSON keep the documented columns.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "model/funcs.h"
#include "profile/wall-view.h"
#include "profile/window.h"
#include "report/caption.h"
#include "report/report.h"
#include "report/table.h"
#include "report/views.h"
#include "symbols/find.h"

/* The width to fit text to: the terminal's, $COLUMNS, else 80. */
static int
text_columns(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	unsigned long v;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col >= 40)
		return ws.ws_col;
	if (env != NULL && cli_parse_ulong(env, 40, 1000, &v) == 0)
		return (int)v;
	return 80;
}

/* --color=auto follows the terminal and the NO_COLOR convention. */
static int
want_colour(const char *when)
{
	const char *term = getenv("TERM");

	if (strcmp(when, "always") == 0)
		return 1;
	if (strcmp(when, "never") == 0)
		return 0;
	return isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL &&
	    term != NULL && strcmp(term, "dumb") != 0;
}

static int
looks_like_profile(const char *arg)
{
	struct stat st;
	size_t n = strlen(arg);

	return (n > 4 && strcmp(arg + n - 4, ".prf") == 0) ||
	    (stat(arg, &st) == 0 && S_ISREG(st.st_mode));
}

/*
 * The profile to read when none is named: what `profil record` wrote
 * last here, i.e. the newest regular *.prf file in the current directory.
 * malloc'd, or NULL when there is none.
 */
static char *
newest_profile(void)
{
	DIR *d = opendir(".");
	struct dirent *e;
	struct timespec best = { 0, 0 };
	char *name = NULL;
	struct stat st;

	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".prf") != 0 ||
		    stat(e->d_name, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (name == NULL || st.st_mtim.tv_sec > best.tv_sec ||
		    (st.st_mtim.tv_sec == best.tv_sec &&
		    st.st_mtim.tv_nsec > best.tv_nsec)) {
			free(name);
			name = xstrdup(e->d_name);
			best = st.st_mtim;
		}
	}
	closedir(d);
	return name;
}

/* --time's key: no character, so that it is no view's (views.h) */
#define OPT_TIME	0x100

/* What report was asked for. */
struct report_args {
	struct report_options o;
	const struct report_view *view;
	struct cli_choice chosen;	/* the view's option, as given */
	const char *file, *colour, *symfs, *debug_dirs;
	int wide, inlines, cpu_only;
	struct window_spec window;	/* --time; text NULL: the whole run */
};

/* An option other than a view's into a; -1 if it is none of report's. */
static int
take_option(struct report_args *a, int c)
{
	char cause[256];

	switch (c) {
	case 'f':
		if ((a->o.format = table_parse_format(optarg)) < 0)
			cli_die(EXIT_USAGE, TABLE_FORMAT_REFUSED, optarg);
		break;
	case 'm':
		if (cli_parse_percent(optarg, &a->o.min_percent) < 0)
			cli_die(EXIT_USAGE, "--min-percent: '%s' is not a "
			    "percentage from 0 to 100", optarg);
		break;
	case 'n':
		a->o.limit = cli_option_limit(optarg);
		break;
	case 's':
		if (strcmp(optarg, "samples") == 0)
			a->o.sort = SORT_SAMPLES;
		else if (strcmp(optarg, "function") == 0)
			a->o.sort = SORT_FUNCTION;
		else if (strcmp(optarg, "object") == 0)
			a->o.sort = SORT_OBJECT;
		else if (strcmp(optarg, "inclusive") == 0)
			a->o.sort = SORT_INCLUSIVE;
		else
			cli_die(EXIT_USAGE, "--sort: unknown key '%s' "
			    "(samples, inclusive, function or object)", optarg);
		break;
	case 'c':
		if (strcmp(optarg, "auto") != 0 &&
		    strcmp(optarg, "always") != 0 &&
		    strcmp(optarg, "never") != 0)
			cli_die(EXIT_USAGE, "--color: '%s' is not auto, always "
			    "or never", optarg);
		a->colour = optarg;
		break;
	case 'W':
		a->wide = 1;
		break;
	case 'I':
		a->inlines = 1;
		break;
	case 'S':
		a->symfs = optarg;
		break;
	case 'C':
		a->cpu_only = 1;
		break;
	case 'D':
		a->debug_dirs = optarg;
		break;
	case OPT_TIME:
		if (window_parse(optarg, &a->window, cause, sizeof cause) < 0)
			cli_die(EXIT_USAGE, "--time '%s': %s", optarg, cause);
		break;
	default:
		return -1;
	}
	return 0;
}

/*
 * The command line into a; -1 to go on, else the status to exit with
 * (--help given, or an option report does not have).
 */
static int
parse(int argc, char **argv, struct report_args *a)
{
	const struct cli_opt *options = cli_options(&cmd_report);
	const struct report_view *v;
	int c, at = 0;

	while ((c = cli_getopt(argc, argv, &cmd_report, &at)) != -1) {
		if ((v = report_view_of_key(c)) != NULL) {
			a->view = v;
			a->o.target = optarg;
			/* "--histogram six prof.prf": a bare one takes it */
			if (v->has_arg == optional_argument && optarg == NULL &&
			    optind < argc && argv[optind][0] != '-' &&
			    !looks_like_profile(argv[optind]))
				a->o.target = argv[optind++];
			cli_choose(&a->chosen, options[at].name, a->o.target,
			    "view");
		} else if (c == 'h') {
			return cli_help(&cmd_report);
		} else if (take_option(a, c) < 0) {
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		a->file = argv[optind++];
	if (optind < argc)
		cli_die(EXIT_USAGE, "one profile at a time ('%s' is extra)",
		    argv[optind]);
	if (a->inlines && !(a->view->reads & VIEW_INLINES))
		cli_die(EXIT_USAGE, "--inline and --%s: --inline goes with the flat "
		    "view, the call views and --html (the others need each "
		    "function's addresses)", a->chosen.option);
	return -1;
}

/*
 * The window (window.h's words for it) in the caption, a line of its
 * own under the first, which says what the profile is: every figure
 * after it is the window's.
 */
static void
caption_window(char *caption, size_t size, const char *window)
{
	size_t at = strcspn(caption, "\n");
	char *rest = xstrdup(caption + at);

	snprintf(caption + at, size - at, "\n%s%s", window, rest);
	free(rest);
}

/*
 * The profile a names (or the newest here, its name malloc'd in
 * *newest) as the views count it, and the options that follow from it:
 * its caption, how text is printed.  *read is the profile as read (the
 * page's timeline needs a wall profile's stacks as recorded), the view
 * itself when it is no wall view.
 */
static struct profil_profile *
read_view(struct report_args *a, char **newest, char *caption, size_t size,
    struct profil_profile **read)
{
	struct profil_profile *p, *wp;
	char cause[512], window[128];
	int rc;

	find_search_set(a->symfs, a->debug_dirs);
	if (a->file == NULL && (a->file = *newest = newest_profile()) == NULL)
		cli_die(1, "no profile named and no .prf file here (give one: "
		    "profil report FILE)");
	p = profil_profile_read(a->file, cause, sizeof cause);
	if (p == NULL)
		cli_die(1, "%s: %s", a->file, cause);
	/* the window first, of the profile as recorded: every view is of it */
	if (a->window.text != NULL && (rc = window_replace(&p, &a->window,
	    window, sizeof window, cause, sizeof cause)) < 0)
		cli_die(rc == WINDOW_BAD_OPTION ? EXIT_USAGE : 1, "%s: --time "
		    "'%s': %s", a->file, a->window.text, cause);
	/* a wall profile: its views count time off the CPU too, or not */
	if (wall_view(p, a->cpu_only, &wp, cause, sizeof cause) < 0)
		cli_die(1, "%s: %s", a->file, cause);
	if (wp == NULL && a->cpu_only)
		cli_die(EXIT_USAGE, WALL_VIEW_CPU_REFUSED, a->file);
	caption_make(caption, size, p, wp != NULL ? wp : p, a->cpu_only,
	    funcs_base_name(a->file));
	if (a->window.text != NULL)
		caption_window(caption, size, window);
	*read = p;
	if (wp != NULL)
		p = wp;
	if (report_weighted(p))
		a->o.style.count_title = "counts";
	a->o.caption = caption;
	a->o.style.columns = a->wide ? 0 : text_columns();
	a->o.style.colour = want_colour(a->colour);
	return p;
}

/*
 * a's view of p, with the function rows and named stacks it reads; the
 * exit status.
 */
static int
show(const struct report_args *a, const struct profil_profile *p,
    const struct profil_profile *read)
{
	unsigned reads = a->view->reads;
	struct funcs f = { 0 };
	struct stacks s = { 0 };
	struct report_input in = { p, &f, NULL, read };
	char cause[512];
	int rc;

	if (reads & VIEW_FUNCS) {
		if (a->inlines)
			funcs_build_inline(&f, p, cli_warn_line);
		else
			funcs_build(&f, p, cli_warn_line);
	}
	/*
	 * Stacks by function: the flat view's inclusive column and the call
	 * views, inlined functions frames of their own with --inline only, as
	 * in the flat view: finding them reads every object's DWARF, which
	 * for a libc with its debug file installed means inflating its
	 * compressed sections (130 ms of CPU of the 190 a call tree of
	 * bench/gen-big.py's program took).
	 */
	if ((reads & VIEW_STACKS) || ((reads & VIEW_SOME_STACKS) &&
	    p->nstacks > 0)) {
		stacks_name(&s, p, &f, (a->inlines ? STACKS_INLINES : 0) |
		    STACKS_NO_LINES);
		in.s = &s;
	}
	if ((rc = a->view->show(&in, &a->o, cause, sizeof cause)) < 0)
		cli_error("%s", cause);
	rc = cli_finish_stdout(rc < 0 ? 1 : 0);
	stacks_free(&s);
	funcs_free(&f);
	return rc;
}

static int
report_exec(int argc, char **argv)
{
	struct report_args a = {
		.o = { FORMAT_TEXT, SORT_SAMPLES, -1, -1, NULL, { 80, 0, NULL },
		    NULL },
		.view = &report_views[0], .colour = "auto",
	};
	struct profil_profile *p, *read;
	char *newest = NULL, caption[2048];
	int rc;

	if ((rc = parse(argc, argv, &a)) >= 0)
		return rc;
	p = read_view(&a, &newest, caption, sizeof caption, &read);
	rc = show(&a, p, read);
	if (read != p)
		profil_profile_free(read);
	profil_profile_free(p);
	free(newest);
	return rc;
}

/*
 * The row of a view's option: its lines of --help and what its argument
 * is; whether it takes one and its getopt value are its view's
 * (report/views.c), filled in by report_options.
 */
#define VIEW_OPTION(name, arg, help)	{ name, -1, 0, 0, arg, help }

/* report's options, in the order of its --help */
static const struct cli_opt report_rows[] = {
	{ NULL, 0, 0, 0, NULL,
	    "One view at a time; the default is the flat profile, a row per function.\n" },
	VIEW_OPTION("objects", NULL,
	    "      --objects          the program, each library, the kernel, unknown code\n"
	    "                         and lost samples\n"),
	VIEW_OPTION("threads", NULL,
	    "      --threads          a row per thread\n"),
	VIEW_OPTION("pid", NULL,
	    "      --pid, --processes a row per process, with how it ended\n"),
	VIEW_OPTION("processes", NULL, NULL),
	VIEW_OPTION("histogram", NULL,
	    "      --histogram[=TARGET]  bars over the addresses of a function or object\n"
	    "                         (default: the object with most samples); --limit\n"
	    "                         is the number of bars (default 40)\n"),
	VIEW_OPTION("annotate", NULL,
	    "      --annotate FUNCTION  FUNCTION's samples by source line (per\n"
	    "                         instruction where it has no line table)\n"),
	VIEW_OPTION("callers", NULL,
	    "      --callers FUNCTION  who called FUNCTION: each caller's share of the\n"
	    "                         samples with FUNCTION on the stack ([root]: it\n"
	    "                         was outermost)\n"),
	VIEW_OPTION("callees", NULL,
	    "      --callees FUNCTION  whom FUNCTION called, likewise ([self]: in it)\n"),
	VIEW_OPTION("tree", NULL,
	    "      --tree             the call tree, top down, with inclusive and self\n"
	    "                         shares (paths under --min-percent, default 1,\n"
	    "                         left out)\n"),
	VIEW_OPTION("html", CLI_FILE,
	    "      --html PAGE        every view in one self-contained HTML page, PAGE\n"),
	VIEW_OPTION("timeline", NULL,
	    "      --timeline         when: a strip per thread of its time on the CPU\n"
	    "                         (and what it waited in), then the phases of the\n"
	    "                         run; --limit N shows the N busiest threads\n"),
	{ "inline", no_argument, 'I', 0, NULL,
	    "      --inline           credit inlined code to the function it came from,\n"
	    "                         a frame of its own in the call views (default:\n"
	    "                         to the symbol it is in)\n" },
	{ "format", required_argument, 'f', CLI_SHORT, "text csv json",
	    "  -f, --format FORMAT    text (default), csv or json (stable columns)\n" },
	{ "min-percent", required_argument, 'm', 0, NULL,
	    "      --min-percent P    leave out rows under P percent (default 0)\n" },
	{ "limit", required_argument, 'n', CLI_SHORT, NULL,
	    "  -n, --limit N          at most N rows (default: all)\n" },
	{ "sort", required_argument, 's', 0, "samples inclusive function object",
	    "      --sort KEY         flat view order: samples (default), inclusive (with\n"
	    "                         call stacks), function or object\n" },
	{ "color", required_argument, 'c', 0, "auto always never",
	    "      --color WHEN       auto (default: on a terminal, unless NO_COLOR),\n"
	    "                         always or never; also --colour\n" },
	{ "colour", required_argument, 'c', 0, "auto always never", NULL },
	{ "cpu", no_argument, 'C', 0, NULL,
	    "      --cpu              of a wall profile (record --wall), only the time\n"
	    "                         on the CPU (default: wall time, off-CPU time too)\n" },
	{ "time", required_argument, OPT_TIME, 0, NULL,
	    "      --time START..END  the view of that window of the run, rounded out\n"
	    "                         to whole slices of its timeline: s, ms, us, ns\n"
	    "                         or % of the run, a bare number seconds, either\n"
	    "                         side empty (1.5s..3s, 90%.., ..500ms)\n" },
	{ "wide", no_argument, 'W', 0, NULL,
	    "      --wide             never cut names (default: fit the terminal, or\n"
	    "                         COLUMNS, else 80 columns)\n" },
	FIND_OPTIONS,
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help             this help\n" },
	{ NULL, 0, 0, 0, NULL,
	    "FILE defaults to the newest *.prf file in the current directory.\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};
#define MAX_OPTIONS (sizeof report_rows / sizeof report_rows[0] + 16)

/* Whether rows[0..n) has an option so named. */
static int
has_row(const struct cli_opt *rows, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].name != NULL && strcmp(rows[i].name, name) == 0)
			return 1;
	return 0;
}

/*
 * report's options: its rows, each view's option given its view's
 * has_arg and key, and any option of a view that has no row, which
 * getopt reads and --help marks as undocumented.
 */
static const struct cli_opt *
report_options(void)
{
	static struct cli_opt all[MAX_OPTIONS];
	static size_t n;

	if (n > 0)
		return all;
	for (const struct cli_opt *r = report_rows; r->name || r->help; r++) {
		all[n] = *r;
		if (r->has_arg == -1) {
			for (size_t i = 1; i < report_nviews; i++) {
				const struct report_view *v = &report_views[i];

				if (strcmp(r->name, v->option) == 0 ||
				    (v->alias && strcmp(r->name, v->alias) == 0)) {
					all[n].has_arg = v->has_arg;
					all[n].val = v->key;
				}
			}
			if (all[n].has_arg == -1)
				cli_die(1, "report: --%s is no view's option", r->name);
		}
		n++;
	}
	for (size_t i = 1; i < report_nviews; i++) {
		const struct report_view *v = &report_views[i];
		const char *names[] = { v->option, v->alias };

		for (size_t k = 0; k < 2; k++) {
			if (names[k] == NULL || has_row(all, n, names[k]))
				continue;
			if (n + 1 >= MAX_OPTIONS)
				cli_die(1, "report: %zu views are more than its "
				    "options hold", report_nviews);
			all[n++] = (struct cli_opt){ names[k], v->has_arg, v->key,
			    0, NULL, NULL };
		}
	}
	return all;
}

const struct cmd cmd_report = {
	"report", "[--objects | --threads | --pid | --histogram[=TARGET] | "
	    "--annotate FUNCTION | --callers FUNCTION | --callees FUNCTION | "
	    "--tree | --html PAGE | --timeline] [--format text|csv|json] "
	    "[--min-percent P] [--limit N] "
	    "[--sort samples|inclusive|function|object] "
	    "[--inline] [--cpu] [--time START..END] [--color auto|always|never] "
	    "[--wide] [--symfs DIR] "
	    "[--debug-dir DIRS] [FILE]",
	"print where the time went (flat profile, objects, threads, "
	    "histogram, source lines, HTML)",
	report_exec, NULL, CLI_PROFILES, report_options,
};
