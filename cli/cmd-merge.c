/*
 * cmd-merge.c - `profil merge [-q] [-o FILE] FILE FILE...`: profiles of one
 * program summed into one (merge.c does the work).  Every input is read
 * before the output is written, so the output may be one of the inputs;
 * a refusal writes nothing.  One file named twice (by two paths, or
 * hard links: same device and inode) is refused: its samples would count
 * twice, and the sum's error bars claim a precision no run gave.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <profil.h>

#include "cli.h"
#include "outfile.h"
#include "codec/prf.h"
#include "profile/merge.h"

#define DEFAULT_OUTPUT "merged.prf"

static void
free_all(struct profil_profile **in, size_t n)
{
	for (size_t i = 0; i < n; i++)
		profil_profile_free(in[i]);
	free(in);
}

/*
 * Refuse (exit 2) when two of the n paths name one file.  A path that
 * cannot be stat'ed is left to the reader to complain about.
 */
static void
refuse_same_file(char *const *paths, size_t n)
{
	struct stat *st = xcalloc(n, sizeof *st);
	int *ok = xcalloc(n, sizeof *ok);
	size_t i, j = 0;

	for (i = 0; i < n; i++) {
		ok[i] = stat(paths[i], &st[i]) == 0;
		for (j = 0; ok[i] && j < i; j++)
			if (ok[j] && st[j].st_dev == st[i].st_dev &&
			    st[j].st_ino == st[i].st_ino)
				break;
		if (ok[i] && j < i)
			break;
	}
	free(ok);
	free(st);
	if (i < n)
		cli_die(EXIT_USAGE, "%s and %s are the same file: merged with "
		    "itself, a run would count twice and its error bars shrink "
		    "with no new samples (copy it if that is what you want)",
		    paths[j], paths[i]);
}

static int
merge_exec(int argc, char **argv)
{
	const char *output = DEFAULT_OUTPUT;
	struct profil_profile **in, *sum;
	char cause[1024];
	size_t n, i;
	int c, quiet = 0;

	while ((c = cli_getopt(argc, argv, &cmd_merge, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (*optarg == '\0')
				cli_die(EXIT_USAGE, "-o: empty file name");
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			return cli_help(&cmd_merge);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (argc - optind < 2)
		cli_die(EXIT_USAGE, "two profiles or more to merge (see 'profil "
		    "merge --help')");
	n = (size_t)(argc - optind);
	refuse_same_file(argv + optind, n);
	in = xcalloc(n, sizeof *in);
	for (i = 0; i < n; i++) {
		in[i] = profil_profile_read(argv[optind + i], cause, sizeof cause);
		if (in[i] == NULL) {
			cli_error("%s: %s", argv[optind + i], cause);
			free_all(in, i);
			return 1;
		}
	}
	if (merge_profiles(in, (const char *const *)argv + optind, n, &sum,
	    cli_warn_line, cause, sizeof cause) < 0) {
		cli_error("%s", cause);
		free_all(in, n);
		return 1;
	}
	free_all(in, n);
	if (outfile_may_replace(output, PRF_MAGIC, cause, sizeof cause) < 0 ||
	    profil_profile_save(sum, output, cause, sizeof cause) < 0) {
		cli_error("cannot write %s: %s (any previous file there is "
		    "unchanged)", output, cause);
		profil_profile_free(sum);
		return 1;
	}
	if (!quiet)
		fprintf(stderr, "profil: merged %zu profiles: %llu samples, "
		    "%.2f s CPU, %llu lost; wrote %s\n", n,
		    (unsigned long long)sum->samples, (double)sum->cpu_ns / 1e9,
		    (unsigned long long)sum->lost, output);
	profil_profile_free(sum);
	return cli_finish_stdout(0);
}

static const struct cli_opt merge_options[] = {
	{ "output", required_argument, 'o', CLI_SHORT, CLI_FILE,
	    "  -o, --output FILE  the summed profile (default " DEFAULT_OUTPUT "); it may be\n"
	    "                     one of the inputs\n" },
	{ "quiet", no_argument, 'q', CLI_SHORT, NULL,
	    "  -q, --quiet        no closing message\n" },
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help         this help\n" },
	{ NULL, 0, 0, 0, NULL,
	    "Inputs must be of the same program (executable), rate and engine.\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

const struct cmd cmd_merge = {
	"merge", "[-q] [-o FILE] FILE FILE...",
	"sum profiles of the same program into one",
	merge_exec, merge_options, CLI_PROFILES, NULL,
};
