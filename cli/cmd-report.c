/*
 * cmd-report.c - `profil report`: reads a profile, picks a view
 * (report.h) and the way to print it.  Text fits the terminal and is
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
#include "report/caption.h"
#include "report/report.h"
#include "report/table.h"
#include "symbols/find.h"

enum { VIEW_FLAT, VIEW_OBJECTS, VIEW_THREADS, VIEW_PROCESSES, VIEW_HISTOGRAM,
    VIEW_ANNOTATE, VIEW_CALLERS, VIEW_CALLEES, VIEW_TREE };

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

static int
report_exec(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "objects", no_argument, NULL, 'O' },
		{ "threads", no_argument, NULL, 'T' },
		{ "pid", no_argument, NULL, 'P' },
		{ "processes", no_argument, NULL, 'P' },
		{ "histogram", optional_argument, NULL, 'H' },
		{ "annotate", required_argument, NULL, 'a' },
		{ "callers", required_argument, NULL, 'r' },
		{ "callees", required_argument, NULL, 'e' },
		{ "tree", no_argument, NULL, 't' },
		{ "html", required_argument, NULL, 'w' },
		{ "min-percent", required_argument, NULL, 'm' },
		{ "limit", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "color", required_argument, NULL, 'c' },
		{ "colour", required_argument, NULL, 'c' },
		{ "wide", no_argument, NULL, 'W' },
		{ "inline", no_argument, NULL, 'I' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "cpu", no_argument, NULL, 'C' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_options o = { FORMAT_TEXT, SORT_SAMPLES, -1, -1, NULL,
	    { 80, 0, NULL }, NULL };
	const char *file = NULL, *html = NULL, *colour = "auto";
	const char *symfs = NULL, *debug_dirs = NULL;
	struct cli_choice chosen = { NULL, NULL };	/* the view's option */
	char *newest = NULL;
	int view = VIEW_FLAT, wide = 0, inlines = 0, c, at = 0, cpu_only = 0;
	struct profil_profile *p, *wp;
	struct funcs f = { 0 };
	struct stacks s = { 0 };
	char cause[512], caption[2048];

	while ((c = cli_getopt(argc, argv, "f:n:h", options, &at)) != -1) {
		switch (c) {
		case 'f':
			if ((o.format = table_parse_format(optarg)) < 0)
				cli_die(EXIT_USAGE, TABLE_FORMAT_REFUSED, optarg);
			break;
		case 'O':
			view = VIEW_OBJECTS;
			cli_choose(&chosen, options[at].name, NULL, "view");
			break;
		case 'T':
			view = VIEW_THREADS;
			cli_choose(&chosen, options[at].name, NULL, "view");
			break;
		case 'P':
			view = VIEW_PROCESSES;
			cli_choose(&chosen, options[at].name, NULL, "view");
			break;
		case 'H':
			view = VIEW_HISTOGRAM;
			o.target = optarg;
			/* "--histogram six prof.prf": a bare one takes a target too */
			if (optarg == NULL && optind < argc && argv[optind][0] != '-' &&
			    !looks_like_profile(argv[optind]))
				o.target = argv[optind++];
			cli_choose(&chosen, options[at].name, o.target, "view");
			break;
		case 'a':
			view = VIEW_ANNOTATE;
			o.target = optarg;
			cli_choose(&chosen, options[at].name, optarg, "view");
			break;
		case 'w':
			html = optarg;
			cli_choose(&chosen, options[at].name, optarg, "view");
			break;
		case 'r':
		case 'e':
			view = c == 'r' ? VIEW_CALLERS : VIEW_CALLEES;
			o.target = optarg;
			cli_choose(&chosen, options[at].name, optarg, "view");
			break;
		case 't':
			view = VIEW_TREE;
			cli_choose(&chosen, options[at].name, NULL, "view");
			break;
		case 'm':
			if (cli_parse_percent(optarg, &o.min_percent) < 0)
				cli_die(EXIT_USAGE, "--min-percent: '%s' is not a "
				    "percentage from 0 to 100", optarg);
			break;
		case 'n':
			o.limit = cli_option_limit(optarg);
			break;
		case 's':
			if (strcmp(optarg, "samples") == 0)
				o.sort = SORT_SAMPLES;
			else if (strcmp(optarg, "function") == 0)
				o.sort = SORT_FUNCTION;
			else if (strcmp(optarg, "object") == 0)
				o.sort = SORT_OBJECT;
			else if (strcmp(optarg, "inclusive") == 0)
				o.sort = SORT_INCLUSIVE;
			else
				cli_die(EXIT_USAGE, "--sort: unknown key '%s' "
				    "(samples, inclusive, function or object)", optarg);
			break;
		case 'c':
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "always") != 0 &&
			    strcmp(optarg, "never") != 0)
				cli_die(EXIT_USAGE, "--color: '%s' is not auto, always "
				    "or never", optarg);
			colour = optarg;
			break;
		case 'W':
			wide = 1;
			break;
		case 'I':
			inlines = 1;
			break;
		case 'S':
			symfs = optarg;
			break;
		case 'C':
			cpu_only = 1;
			break;
		case 'D':
			debug_dirs = optarg;
			break;
		case 'h':
			return cli_help(&cmd_report, options);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc)
		cli_die(EXIT_USAGE, "one profile at a time ('%s' is extra)",
		    argv[optind]);
	if (inlines && chosen.option != NULL &&
	    strcmp(chosen.option, "callers") != 0 &&
	    strcmp(chosen.option, "callees") != 0 &&
	    strcmp(chosen.option, "tree") != 0 &&
	    strcmp(chosen.option, "html") != 0)
		cli_die(EXIT_USAGE, "--inline and --%s: --inline goes with the flat "
		    "view, the call views and --html (the others need each "
		    "function's addresses)", chosen.option);
	find_search_set(symfs, debug_dirs);
	if (file == NULL && (file = newest = newest_profile()) == NULL)
		cli_die(1, "no profile named and no .prf file here (give one: "
		    "profil report FILE)");
	p = profil_profile_read(file, cause, sizeof cause);
	if (p == NULL)
		cli_die(1, "%s: %s", file, cause);
	/* a wall profile: its views count time off the CPU too, or not */
	if (wall_view(p, cpu_only, &wp, cause, sizeof cause) < 0)
		cli_die(1, "%s: %s", file, cause);
	if (wp == NULL && cpu_only)
		cli_die(EXIT_USAGE, WALL_VIEW_CPU_REFUSED, file);
	caption_make(caption, sizeof caption, p, wp != NULL ? wp : p, cpu_only,
	    funcs_base_name(file));
	if (wp != NULL) {
		profil_profile_free(p);
		p = wp;
	}
	if (report_weighted(p))
		o.style.count_title = "counts";
	o.caption = caption;
	o.style.columns = wide ? 0 : text_columns();
	o.style.colour = want_colour(colour);

	if (inlines)
		funcs_build_inline(&f, p, cli_warn_line);
	else if (html != NULL || view == VIEW_FLAT || view == VIEW_HISTOGRAM ||
	    view == VIEW_ANNOTATE || view >= VIEW_CALLERS)
		funcs_build(&f, p, cli_warn_line);
	/*
	 * Stacks by function: the flat view's inclusive column and the call
	 * views, inlined functions frames of their own with --inline only, as
	 * in the flat view: finding them reads every object's DWARF, which
	 * for a libc with its debug file installed means inflating its
	 * compressed sections (130 ms of CPU of the 190 a call tree of
	 * bench/gen-big.py's program took).
	 */
	if (html != NULL || view >= VIEW_CALLERS ||
	    (view == VIEW_FLAT && p->nstacks > 0))
		stacks_name(&s, p, &f, (inlines ? STACKS_INLINES : 0) |
		    STACKS_NO_LINES);
	c = 0;
	if (html != NULL) {
		c = report_html(p, &f, &s, html, cause, sizeof cause);
	} else if (view == VIEW_FLAT) {
		report_flat(p, &f, p->nstacks > 0 ? &s : NULL, &o);
	} else if (view == VIEW_CALLERS || view == VIEW_CALLEES) {
		c = report_calls(p, &s, &o, view == VIEW_CALLEES, cause,
		    sizeof cause);
	} else if (view == VIEW_TREE) {
		c = report_tree(p, &s, &o, cause, sizeof cause);
	} else if (view == VIEW_OBJECTS) {
		report_objects(p, &o);
	} else if (view == VIEW_THREADS) {
		report_threads(p, &o);
	} else if (view == VIEW_PROCESSES) {
		report_processes(p, &o);
	} else if (view == VIEW_HISTOGRAM) {
		c = report_histogram(p, &f, &o, cause, sizeof cause);
	} else {
		c = report_annotate(p, &f, &o, cause, sizeof cause);
	}
	if (c < 0)
		cli_error("%s", cause);
	c = cli_finish_stdout(c < 0 ? 1 : 0);
	stacks_free(&s);
	funcs_free(&f);
	profil_profile_free(p);
	free(newest);
	return c;
}

const struct cmd cmd_report = {
	"report", "[--objects | --threads | --pid | --histogram[=TARGET] | "
	    "--annotate FUNCTION | --callers FUNCTION | --callees FUNCTION | "
	    "--tree | --html PAGE] [--format text|csv|json] "
	    "[--min-percent P] [--limit N] "
	    "[--sort samples|inclusive|function|object] "
	    "[--inline] [--cpu] [--color auto|always|never] [--wide] [--symfs DIR] "
	    "[--debug-dir DIRS] [FILE]",
	"print where the time went (flat profile, objects, threads, "
	    "histogram, source lines, HTML)",
	report_exec,
	"One view at a time; the default is the flat profile, a row per function.\n"
	"      --objects          the program, each library, the kernel, unknown code\n"
	"                         and lost samples\n"
	"      --threads          a row per thread\n"
	"      --pid, --processes a row per process, with how it ended\n"
	"      --histogram[=TARGET]  bars over the addresses of a function or object\n"
	"                         (default: the object with most samples); --limit\n"
	"                         is the number of bars (default 40)\n"
	"      --annotate FUNCTION  FUNCTION's samples by source line (per\n"
	"                         instruction where it has no line table)\n"
	"      --callers FUNCTION  who called FUNCTION: each caller's share of the\n"
	"                         samples with FUNCTION on the stack ([root]: it\n"
	"                         was outermost)\n"
	"      --callees FUNCTION  whom FUNCTION called, likewise ([self]: in it)\n"
	"      --tree             the call tree, top down, with inclusive and self\n"
	"                         shares (paths under --min-percent, default 1,\n"
	"                         left out)\n"
	"      --html PAGE        every view in one self-contained HTML page, PAGE\n"
	"      --inline           credit inlined code to the function it came from,\n"
	"                         a frame of its own in the call views (default:\n"
	"                         to the symbol it is in)\n"
	"  -f, --format FORMAT    text (default), csv or json (stable columns)\n"
	"      --min-percent P    leave out rows under P percent (default 0)\n"
	"  -n, --limit N          at most N rows (default: all)\n"
	"      --sort KEY         flat view order: samples (default), inclusive (with\n"
	"                         call stacks), function or object\n"
	"      --color WHEN       auto (default: on a terminal, unless NO_COLOR),\n"
	"                         always or never; also --colour\n"
	"      --cpu              of a wall profile (record --wall), only the time\n"
	"                         on the CPU (default: wall time, off-CPU time too)\n"
	"      --wide             never cut names (default: fit the terminal, or\n"
	"                         COLUMNS, else 80 columns)\n"
FIND_HELP
	"  -h, --help             this help\n"
	"FILE defaults to the newest *.prf file in the current directory.\n",
};
