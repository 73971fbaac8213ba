/*
 * cmd-export.c - `profil export --format FORMAT [-o OUT] FILE`: the
 * profile in another tool's format.
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
#include "profile/wall-view.h"
#include "symbols/find.h"
#include "model/stacks.h"

/*
 * p as the pprof file path, with inlines its inlined functions as frames
 * of their own (pprof's Lines); the exit status.
 */
static int
export_pprof(const struct profil_profile *p, const char *path, int inlines)
{
	char cause[PATH_MAX + 256];
	struct funcs f;
	struct stacks s;
	int status = 0;

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
 * p's stacks folded, to path ("-": standard output), with inlines its
 * inlined functions frames of their own; the exit status.
 */
static int
export_folded_to(const struct profil_profile *p, const char *path,
    int inlines)
{
	int wall = p->wall != NULL;
	struct funcs f;
	struct stacks s;
	struct outfile of;
	char cause[PATH_MAX + 256];
	FILE *out = stdout;
	int rc;

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
 * The profile file (read) as this export takes it: a wall profile's CPU
 * part with cpu_only or for gmon (wall_view; *p replaced), else as it
 * is, with a line on stderr saying what a wall export holds.
 */
static void
wall_or_cpu(struct profil_profile **p, const char *file, int cpu_only,
    int gmon, int folded)
{
	char cause[256];

	if ((*p)->wall == NULL) {
		if (cpu_only)
			cli_die(EXIT_USAGE, WALL_VIEW_CPU_REFUSED, file);
		return;
	}
	if (folded && !cpu_only)
		cli_warn("%s is a wall profile: the counts are microseconds of "
		    "wall time, on the CPU and off it (--cpu: CPU samples only)",
		    file);
	if (!cpu_only && !gmon)
		return;
	if (gmon && !cpu_only)
		cli_warn("%s is a wall profile: gmon.out has its CPU time only, "
		    "the %.2f s off the CPU are left out (gprof has no place for "
		    "them)", file, off_cpu_seconds(*p));
	if (wall_view_replace(p, 1, cause, sizeof cause) < 0)
		cli_die(1, "%s: %s", file, cause);
}

static int
export_exec(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "debug-dir", required_argument, NULL, 'D' },
		{ "inline", no_argument, NULL, 'I' },
		{ "cpu", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *out = NULL, *symfs = NULL, *debug_dirs = NULL;
	struct profil_profile *p;
	char cause[PATH_MAX + 256];
	struct stat st;
	int c, pprof, folded, status = 0, made = 0, inlines = 0, cpu_only = 0;

	while ((c = cli_getopt(argc, argv, "f:o:h", options, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'S':
			symfs = optarg;
			break;
		case 'D':
			debug_dirs = optarg;
			break;
		case 'I':
			inlines = 1;
			break;
		case 'C':
			cpu_only = 1;
			break;
		case 'h':
			return cli_help(&cmd_export, options);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	find_search_set(symfs, debug_dirs);
	if (format == NULL || (strcmp(format, "gmon") != 0 &&
	    strcmp(format, "pprof") != 0 && strcmp(format, "folded") != 0))
		cli_die(EXIT_USAGE, "--format: %s%s%s (gmon, pprof, folded)", format ?
		    "unknown format '" : "a format is needed", format ? format : "",
		    format ? "'" : "");
	pprof = strcmp(format, "pprof") == 0;
	folded = strcmp(format, "folded") == 0;
	if (inlines && !pprof && !folded)
		cli_die(EXIT_USAGE, "--inline goes with pprof and folded (gprof "
		    "knows symbols only)");
	if (optind != argc - 1)
		cli_die(EXIT_USAGE, "one profile to export (see 'profil export --help')");
	if (out != NULL && *out == '\0')
		cli_die(EXIT_USAGE, "-o: an empty name");
	if (out == NULL)
		out = pprof ? EXPORT_PPROF_DEFAULT_PATH : folded ?
		    FOLDED_DEFAULT_PATH : ".";
	/* "-" is standard output for every format that is one stream */
	if (!pprof && !folded && strcmp(out, "-") == 0)
		cli_die(EXIT_USAGE, "-o -: gmon writes a file per object "
		    "(gmon.OBJECT.out), not one stream: -o names their "
		    "directory");
	if (pprof && strcmp(out, "-") == 0 && isatty(STDOUT_FILENO))
		cli_die(EXIT_USAGE, "-o -: standard output is a terminal, and "
		    "pprof's file is gzipped binary: redirect it, or name a file");
	if (folded) {
		p = profil_profile_read(argv[optind], cause, sizeof cause);
		if (p == NULL)
			cli_die(1, "%s: %s", argv[optind], cause);
		wall_or_cpu(&p, argv[optind], cpu_only, 0, 1);
		status = export_folded_to(p, out, inlines);
		profil_profile_free(p);
		return cli_finish_stdout(status);
	}
	if (!pprof && stat(out, &st) == 0 && !S_ISDIR(st.st_mode))
		cli_die(EXIT_USAGE, "-o: %s: not a directory", out);
	p = profil_profile_read(argv[optind], cause, sizeof cause);
	if (p == NULL)
		cli_die(1, "%s: %s", argv[optind], cause);
	wall_or_cpu(&p, argv[optind], cpu_only, !pprof, 0);
	/* after reading: a profile that cannot be read makes no directory */
	if (!pprof && stat(out, &st) < 0) {
		if (mkdir(out, 0777) < 0) {
			cli_error("-o: cannot make the directory %s: %s", out,
			    strerror(errno));
			profil_profile_free(p);
			return 1;
		}
		made = 1;
	}
	if (pprof) {
		status = export_pprof(p, out, inlines);
	} else if (export_gmon(p, argv[optind], out, cli_warn_line, cause,
	    sizeof cause) < 0) {
		cli_error("%s", cause);
		status = 1;
	}
	if (made && status != 0)
		rmdir(out);	/* only if nothing was written there */
	profil_profile_free(p);
	return cli_finish_stdout(status);
}

const struct cmd cmd_export = {
	"export", "--format pprof|gmon|folded [-o FILE|DIR] [--inline] "
	    "[--cpu] [--symfs DIR] [--debug-dir DIRS] PROFILE",
	"write the profile in another tool's format (pprof's profile.proto, "
	    "gprof's gmon.out, folded stacks)",
	export_exec,
	"  -f, --format pprof    one gzipped pprof profile (profile.proto) for pprof,\n"
	"                        Pyroscope, Parca, Grafana: a sample per call stack\n"
	"                        (without stacks, per bucket of the flat profile)\n"
	"  -f, --format gmon     gmon.OBJECT.out files for GNU gprof, one per object\n"
	"                        with samples: its histogram, and the calls within\n"
	"                        it from the stacks, counted in samples, not calls\n"
	"  -f, --format folded   the call stacks, one line each, outermost;...;leaf\n"
	"                        COUNT: for flamegraph.pl, inferno, speedscope\n"
	"  -o, --output FILE|DIR  pprof: the file (default " EXPORT_PPROF_DEFAULT_PATH ");\n"
	"                        folded: the file (default " FOLDED_DEFAULT_PATH ");\n"
	"                        either: - for standard output;\n"
	"                        gmon: the directory (a file per object: not -),\n"
	"                        made if missing (its parent must exist; default\n"
	"                        the current directory)\n"
	"      --inline           pprof, folded: inlined functions as frames of\n"
	"                         their own, as report --inline has them (default:\n"
	"                         the code is the symbol it was inlined into, as\n"
	"                         report has it)\n"
	"      --cpu              a wall profile (record --wall): its CPU part\n"
	"                         only, counted in samples as a CPU profile is.\n"
	"                         Without it, folded counts microseconds of wall\n"
	"                         time, on and off the CPU (leaves [off-cpu: read],\n"
	"                         ...); pprof adds wall/nanoseconds, the default\n"
	"                         type; gmon has the CPU part either way\n"
FIND_HELP
	"  -h, --help            this help\n"
	"There is no default format: --format is needed.\n",
};
