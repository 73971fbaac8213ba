/*
 * cmd-check.c - `profil check FILE...`: read each profile with the
 * library's checking reader and say whether it is sound.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <profil.h>

#include "cli.h"

static int
check_exec(int argc, char **argv)
{
	static const struct option options[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, quiet = 0, status = 0;

	while ((c = cli_getopt(argc, argv, "qh", options, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			return cli_help(&cmd_check, options);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		cli_error("no file given (see 'profil check --help')");
		return EXIT_USAGE;
	}
	for (; optind < argc; optind++) {
		char cause[256] = "";
		struct profil_profile *p = profil_profile_read(argv[optind], cause,
		    sizeof cause);

		if (p == NULL) {
			cli_error("%s: %s", argv[optind], cause);
			status = 1;
			continue;
		}
		if (!quiet && p->taken > 0)
			printf("%s: ok: %llu samples in %zu objects (+%llu kernel, "
			    "%llu unknown, %llu lost), %zu threads, %zu processes; "
			    "%llu taken, squared weights %llu%s\n",
			    argv[optind], (unsigned long long)p->samples,
			    p->nobjects, (unsigned long long)p->kernel,
			    (unsigned long long)p->unknown,
			    (unsigned long long)p->lost, p->nthreads, p->nprocesses,
			    (unsigned long long)p->taken,
			    (unsigned long long)p->weight_sq,
			    p->budget ? " (a budget)" : "");
		else if (!quiet)
			printf("%s: ok: %llu samples in %zu objects (+%llu kernel, "
			    "%llu unknown, %llu lost), %zu threads, %zu processes\n",
			    argv[optind], (unsigned long long)p->samples,
			    p->nobjects, (unsigned long long)p->kernel,
			    (unsigned long long)p->unknown,
			    (unsigned long long)p->lost, p->nthreads, p->nprocesses);
		profil_profile_free(p);
	}
	return cli_finish_stdout(status);
}

const struct cmd cmd_check = {
	"check", "[-q] FILE...", "check that profile files are sound",
	check_exec,
	"  -q, --quiet  no line for a sound file, only errors\n"
	"  -h, --help   this help\n"
	"Exit 0 when every file is sound, 1 otherwise.\n",
};
