/*
 * cmd-export.c - `profil export --format FORMAT [-o OUT] FILE`: the
 * profile in another tool's format, each format an entry of formats[]
 * (its name, output, what it takes and refuses, its function), as the
 * command table has the commands.
 *
 * pprof: one gzipped profile.proto file (export/pprof.c), -o names it,
 * "-" standard output (not a terminal); its samples are the call stacks
 * where the profile has them.
 *
 * gmon: gmon.OBJECT.out files for GNU gprof (export/gmon.c), with call
 * arcs from the stacks; -o names the directory, made (one level, as mkdir
 * does) when it is not there.  A file per object is no stream: "-" is
 * refused.
 *
 * folded: the call stacks as folded lines (export/folded.c), -o names
 * the file, "-" standard output.
 *
 * speedscope: a speedscope file (export/speedscope.c), a profile per
 * thread, its samples in time order where the profile has a timeline;
 * -o names the file, "-" standard output.
 *
 * A wall profile (record --wall) is exported with its time off the CPU
 * where the format has room for it: folded lines count microseconds of
 * wall time, pprof Samples get a wall/nanoseconds value; gmon.out has
 * none, so gprof gets the CPU part, and so does every format with --cpu.
 *
 * Inlined functions are what report makes of them: by default the code
 * is the symbol it was inlined into; --inline makes each a function (a
 * frame, a pprof Line) of its own, as report --inline does.  The exports
 * and the views agree either way: a flame graph drawn from the folded
 * stacks and report --tree of the same profile show the same frames.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "outfile.h"
#include "export/folded.h"
#include "export/gmon.h"
#include "export/pprof.h"
#include "export/speedscope.h"
#include "model/stacks.h"
#include "profile/wall-view.h"
#include "profile/window.h"
#include "symbols/find.h"

/*
 * p (read from file) as the pprof file path, with inlines its inlined
 * functions as frames of their own (pprof's Lines); the exit status.
 */
static int
export_pprof_to(const struct profil_profile *p, const char *file,
    const char *path, int inlines)
{
	char cause[PATH_MAX + 256];
	struct funcs f;
	struct stacks s;
	int status = 0;

	(void)file;
	/* funcs.c's warnings say [OBJECT]; in pprof such code has addresses */
	if (inlines)
		funcs_build_inline(&f, p, NULL);
	else
		funcs_build(&f, p, NULL);
	for (size_t i = 0; i < p->nobjects; i++)
		if (f.problems[i] != NULL)
			cli_warn("%s: %s; its code has no function names (addresses "
			    "only)", p->objects[i].path, f.problems[i]);
	if (f.kproblem != NULL)
		cli_warn("kernel functions are not named: %s; kernel samples "
		    "show as [kernel]", f.kproblem);
	if (p->nstacks > 0)
		stacks_name(&s, p, &f, inlines ? STACKS_INLINES : 0);
	if (export_pprof_save(p, &f, p->nstacks > 0 ? &s : NULL, path, cause,
	    sizeof cause) < 0) {
		cli_error("%s", cause);
		status = 1;
	} else if (strcmp(path, "-") != 0) {
		printf("%s\n", path);
	}
	if (p->nstacks > 0)
		stacks_free(&s);
	funcs_free(&f);
	return status;
}

#define FOLDED_DEFAULT_PATH "profile.folded"

/*
 * p's stacks (read from file) folded, to path ("-": standard output),
 * with inlines its inlined functions frames of their own; the exit
 * status.
 */
static int
export_folded_to(const struct profil_profile *p, const char *file,
    const char *path, int inlines)
{
	int wall = p->wall != NULL;
	struct funcs f;
	struct stacks s;
	struct outfile of;
	char cause[PATH_MAX + 256];
	FILE *out = stdout;
	int rc;

	(void)file;
	if (inlines)
		funcs_build_inline(&f, p, cli_warn_line);
	else
		funcs_build(&f, p, cli_warn_line);
	stacks_name(&s, p, &f, (inlines ? STACKS_INLINES : 0) | STACKS_NO_LINES);
	if (p->nstacks == 0)
		cli_warn("the profile has no call stacks (recorded with "
		    "--no-call-graph, or by an older profil): each function is "
		    "a stack of its own");
	if (strcmp(path, "-") != 0) {
		if (outfile_open(&of, path, OUTFILE_FOLDED, cause, sizeof cause) < 0 ||
		    (out = fdopen(of.file.fd, "w")) == NULL) {
			if (out == NULL)
				outfile_abort(&of, NULL);
			cli_error("%s", out == NULL ? strerror(errno) : cause);
			stacks_free(&s);
			funcs_free(&f);
			return 1;
		}
	}
	rc = wall ? export_folded_wall(&s, &f, out) : export_folded(&s, &f, out);
	stacks_free(&s);
	funcs_free(&f);
	if (out == stdout)
		return rc < 0 ? 1 : 0;
	if (rc < 0) {
		outfile_abort(&of, out);
		cli_error("%s: %s", path, strerror(errno));
		return 1;
	}
	if (outfile_commit(&of, out, cause, sizeof cause) < 0) {
		cli_error("%s", cause);
		return 1;
	}
	printf("%s\n", path);
	return 0;
}

/*
 * p (read from file) as a speedscope file at path ("-": standard
 * output), with inlines its inlined functions frames of their own; the
 * exit status.
 */
static int
export_speedscope_to(const struct profil_profile *p, const char *file,
    const char *path, int inlines)
{
	char cause[PATH_MAX + 256];

	if (export_speedscope_save(p, file, inlines, path, cli_warn_line, cause,
	    sizeof cause) < 0) {
		cli_error("%s", cause);
		return 1;
	}
	if (strcmp(path, "-") != 0)
		printf("%s\n", path);
	return 0;
}

/* p as gmon.OBJECT.out files in directory dir; the exit status. */
static int
export_gmon_to(const struct profil_profile *p, const char *file,
    const char *dir, int inlines)
{
	char cause[PATH_MAX + 256];

	(void)inlines;
	if (export_gmon(p, file, dir, cli_warn_line, cause, sizeof cause) < 0) {
		cli_error("%s", cause);
		return 1;
	}
	return 0;
}

/*
 * A format of export, an entry each, as the command table has the
 * commands (cli/profil.c): a new format is its function and a line in
 * formats[] (and its lines of --help).  What the refusals and the notes
 * say of a format is its own; the rest of a message is export's.
 */
struct export_format {
	const char *name;	/* --format NAME */
	const char *out;	/* -o's default */
	/* why --inline does not go with it; NULL: it does */
	const char *no_inline;
	/*
	 * why -o - does not: a file per object, -o names their directory
	 * (made if missing, one level); NULL: one stream, - standard output
	 */
	const char *to_dir;
	const char *binary;	/* what makes it no output for a terminal */
	int wall;		/* holds a wall profile's time off the CPU
				   (else its CPU part is exported) */
	/*
	 * What a wall profile's export holds, said on stderr (NULL:
	 * nothing): a printf format of the seconds off the CPU, which it
	 * may leave out.
	 */
	const char *wall_note;
	/* p (read from file) into out; the exit status */
	int (*run)(const struct profil_profile *p, const char *file,
	    const char *out, int inlines);
};

/* In the order the usage messages list them. */
static const struct export_format formats[] = {
	{ "gmon", ".", "gprof knows symbols only", "gmon writes a file per "
	    "object (gmon.OBJECT.out), not one stream: -o names their "
	    "directory", NULL, 0, "gmon.out has its CPU time only, the %.2f "
	    "s off the CPU are left out (gprof has no place for them)",
	    export_gmon_to },
	{ "pprof", EXPORT_PPROF_DEFAULT_PATH, NULL, NULL, "pprof's file is "
	    "gzipped binary", 1, NULL, export_pprof_to },
	{ "folded", FOLDED_DEFAULT_PATH, NULL, NULL, NULL, 1, "the counts are "
	    "microseconds of wall time, on the CPU and off it (--cpu: CPU "
	    "samples only)", export_folded_to },
	{ "speedscope", EXPORT_SPEEDSCOPE_DEFAULT_PATH, NULL, NULL, NULL, 1,
	    "the weights are nanoseconds of wall time, each thread's time off "
	    "the CPU frames of their own ([off-cpu: read], ...; --cpu: CPU "
	    "time only)", export_speedscope_to },
};
#define NFORMATS (sizeof formats / sizeof formats[0])

/*
 * The formats' names, "a, b, c"; with inline_only those --inline goes
 * with, "a, b and c".  Into buf; returns buf.
 */
static const char *
names_of(char *buf, size_t size, int inline_only)
{
	size_t len = 0, n = 0, k = 0;

	for (size_t i = 0; i < NFORMATS; i++)
		n += !inline_only || formats[i].no_inline == NULL;
	buf[0] = '\0';
	for (size_t i = 0; i < NFORMATS && len < size; i++) {
		if (inline_only && formats[i].no_inline != NULL)
			continue;
		k++;
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
		    k == 1 ? "" : inline_only && k == n ? " and " : ", ",
		    formats[i].name);
	}
	return buf;
}

/* The seconds a wall profile's threads spent off the CPU. */
static double
off_cpu_seconds(const struct profil_profile *p)
{
	double off = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		off += (double)p->stacks[i].off_ns / 1e9;
	return off;
}

/*
 * The profile file (read) as format fmt takes it: a wall profile's CPU
 * part with cpu_only or where fmt has no room for time off the CPU
 * (*p replaced), else as it is, with a line on stderr saying what a
 * wall export holds.
 */
static void
wall_or_cpu(struct profil_profile **p, const char *file, int cpu_only,
    const struct export_format *fmt)
{
	char cause[256], note[256];

	if ((*p)->wall == NULL) {
		if (cpu_only)
			cli_die(EXIT_USAGE, WALL_VIEW_CPU_REFUSED, file);
		return;
	}
	if (!cpu_only && fmt->wall_note != NULL) {
		snprintf(note, sizeof note, fmt->wall_note,
		    off_cpu_seconds(*p));
		cli_warn("%s is a wall profile: %s", file, note);
	}
	if (!cpu_only && fmt->wall)
		return;
	if (wall_view_replace(p, 1, cause, sizeof cause) < 0)
		cli_die(1, "%s: %s", file, cause);
}

/* What export was asked for. */
struct export_args {
	const struct export_format *fmt;
	const char *file, *out, *symfs, *debug_dirs;
	int inlines, cpu_only;
	struct window_spec window;	/* --time; text NULL: the whole run */
};

/*
 * The command line into a, every refusal said before the profile is
 * read; -1 to go on, else the status to exit with (--help given, or an
 * option export does not have).
 */
static int
parse(int argc, char **argv, struct export_args *a)
{
	const char *format = NULL;
	char names[128], cause[256];
	int c;

	while ((c = cli_getopt(argc, argv, &cmd_export, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			a->out = optarg;
			break;
		case 'S':
			a->symfs = optarg;
			break;
		case 'D':
			a->debug_dirs = optarg;
			break;
		case 'I':
			a->inlines = 1;
			break;
		case 'C':
			a->cpu_only = 1;
			break;
		case 'T':
			if (window_parse(optarg, &a->window, cause,
			    sizeof cause) < 0)
				cli_die(EXIT_USAGE, "--time '%s': %s", optarg,
				    cause);
			break;
		case 'h':
			return cli_help(&cmd_export);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	find_search_set(a->symfs, a->debug_dirs);
	for (size_t i = 0; format != NULL && i < NFORMATS; i++)
		if (strcmp(format, formats[i].name) == 0)
			a->fmt = &formats[i];
	if (a->fmt == NULL)
		cli_die(EXIT_USAGE, "--format: %s%s%s (%s)", format ?
		    "unknown format '" : "a format is needed", format ? format : "",
		    format ? "'" : "", names_of(names, sizeof names, 0));
	if (a->inlines && a->fmt->no_inline != NULL)
		cli_die(EXIT_USAGE, "--inline goes with %s (%s)",
		    names_of(names, sizeof names, 1), a->fmt->no_inline);
	if (optind != argc - 1)
		cli_die(EXIT_USAGE, "one profile to export (see 'profil export --help')");
	a->file = argv[optind];
	if (a->out != NULL && *a->out == '\0')
		cli_die(EXIT_USAGE, "-o: an empty name");
	if (a->out == NULL)
		a->out = a->fmt->out;
	/* "-" is standard output for every format that is one stream */
	if (a->fmt->to_dir != NULL && strcmp(a->out, "-") == 0)
		cli_die(EXIT_USAGE, "-o -: %s", a->fmt->to_dir);
	if (a->fmt->binary != NULL && strcmp(a->out, "-") == 0 &&
	    isatty(STDOUT_FILENO))
		cli_die(EXIT_USAGE, "-o -: standard output is a terminal, and "
		    "%s: redirect it, or name a file", a->fmt->binary);
	return -1;
}

static int
export_exec(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct profil_profile *p;
	char cause[PATH_MAX + 256], window[128];
	struct stat st;
	int status, made = 0;

	if ((status = parse(argc, argv, &a)) >= 0)
		return status;
	if (a.fmt->to_dir != NULL && stat(a.out, &st) == 0 &&
	    !S_ISDIR(st.st_mode))
		cli_die(EXIT_USAGE, "-o: %s: not a directory", a.out);
	p = profil_profile_read(a.file, cause, sizeof cause);
	if (p == NULL)
		cli_die(1, "%s: %s", a.file, cause);
	/* the window first, of the profile as recorded: every format has it */
	if (a.window.text != NULL && (status = window_replace(&p, &a.window,
	    window, sizeof window, cause, sizeof cause)) < 0)
		cli_die(status == WINDOW_BAD_OPTION ? EXIT_USAGE : 1, "%s: --time "
		    "'%s': %s", a.file, a.window.text, cause);
	wall_or_cpu(&p, a.file, a.cpu_only, a.fmt);
	/* after reading: a profile that cannot be read makes no directory */
	if (a.fmt->to_dir != NULL && stat(a.out, &st) < 0) {
		if (mkdir(a.out, 0777) < 0) {
			cli_error("-o: cannot make the directory %s: %s", a.out,
			    strerror(errno));
			profil_profile_free(p);
			return 1;
		}
		made = 1;
	}
	status = a.fmt->run(p, a.file, a.out, a.inlines);
	if (made && status != 0)
		rmdir(a.out);	/* only if nothing was written there */
	profil_profile_free(p);
	return cli_finish_stdout(status);
}

static const struct cli_opt export_options[] = {
	{ "format", required_argument, 'f', CLI_SHORT, "pprof gmon folded speedscope",
	    "  -f, --format pprof    one gzipped pprof profile (profile.proto) for pprof,\n"
	    "                        Pyroscope, Parca, Grafana: a sample per call stack\n"
	    "                        (without stacks, per bucket of the flat profile)\n"
	    "  -f, --format gmon     gmon.OBJECT.out files for GNU gprof, one per object\n"
	    "                        with samples: its histogram, and the calls within\n"
	    "                        it from the stacks, counted in samples, not calls\n"
	    "  -f, --format folded   the call stacks, one line each, outermost;...;leaf\n"
	    "                        COUNT: for flamegraph.pl, inferno, speedscope\n"
	    "  -f, --format speedscope  a speedscope file: a profile per thread, its\n"
	    "                        samples in time order, weighted in nanoseconds\n" },
	{ "output", required_argument, 'o', CLI_SHORT, CLI_FILE,
	    "  -o, --output FILE|DIR  pprof: the file (default " EXPORT_PPROF_DEFAULT_PATH ");\n"
	    "                        folded: the file (default " FOLDED_DEFAULT_PATH ");\n"
	    "                        speedscope: the file (default\n"
	    "                        " EXPORT_SPEEDSCOPE_DEFAULT_PATH ");\n"
	    "                        each: - for standard output;\n"
	    "                        gmon: the directory (a file per object: not -),\n"
	    "                        made if missing (its parent must exist; default\n"
	    "                        the current directory)\n" },
	{ "inline", no_argument, 'I', 0, NULL,
	    "      --inline           pprof, folded, speedscope: inlined functions as\n"
	    "                         frames of their own, as report --inline has\n"
	    "                         them (default: the code is the symbol it was\n"
	    "                         inlined into, as report has it)\n" },
	{ "cpu", no_argument, 'C', 0, NULL,
	    "      --cpu              a wall profile (record --wall): its CPU part\n"
	    "                         only, counted in samples as a CPU profile is.\n"
	    "                         Without it, folded counts microseconds of wall\n"
	    "                         time, on and off the CPU (leaves [off-cpu: read],\n"
	    "                         ...); pprof adds wall/nanoseconds, the default\n"
	    "                         type; gmon has the CPU part either way\n" },
	{ "time", required_argument, 'T', 0, NULL,
	    "      --time START..END  that window of the run, rounded out to whole\n"
	    "                         slices of its timeline (pprof: its time and\n"
	    "                         duration the window's), as report --time\n" },
	FIND_OPTIONS,
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help            this help\n" },
	{ NULL, 0, 0, 0, NULL,
	    "There is no default format: --format is needed.\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

const struct cmd cmd_export = {
	"export", "--format pprof|gmon|folded|speedscope [-o FILE|DIR] "
	    "[--inline] [--cpu] [--time START..END] [--symfs DIR] "
	    "[--debug-dir DIRS] PROFILE",
	"write the profile in another tool's format (pprof's profile.proto, "
	    "gprof's gmon.out, folded stacks, speedscope)",
	export_exec, export_options, CLI_PROFILES, NULL,
};
