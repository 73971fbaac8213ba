/*
 * cmd-check.c - `profil check FILE...`: read each profile with the
 * library's checking reader and say whether it is sound, and, for a
 * profile with call stacks, how many samples' stacks were cut short and
 * why, so that truncation is seen before a caller's share is trusted;
 * and for one with a timeline its slices, which the reader checked to
 * add up to the stacks thread by thread (a damaged one is refused with
 * the thread that does not).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "report/report.h"

#define MOST_REASON	PROFIL_CUT_UNSEEN	/* the last reason named */

/* Why a stack was cut, as check says it (PROFIL_CUT_*; 0: unknown). */
static const char *
cut_reason(uint64_t reason)
{
	switch (reason) {
	case PROFIL_CUT_DEPTH: return "deeper than the unwinder goes";
	case PROFIL_CUT_STACK: return "past the stack copied (record "
	    "--stack-size)";
	case PROFIL_CUT_NO_UNWIND: return "in code without unwind information";
	case PROFIL_CUT_BROKEN: return "no sensible caller";
	case PROFIL_CUT_NOT_TAKEN: return "no stack taken";
	case PROFIL_CUT_BEHIND: return "not unwound, the recorder catching up";
	case PROFIL_CUT_UNSEEN: return "kernel time with no stack seen around it "
	    "(a thread's start or end)";
	case PROFIL_CUT_UNREAD: return "past a stack page the kernel did not copy "
	    "(never touched; -e timer copies it)";
	}
	return "for a reason this profil does not know";
}

/* What the stacks cut for one reason stand for: samples, time. */
struct cut_sum {
	uint64_t samples, off_ns;
	double ns;
};

/*
 * "N samples (S%)", or a wall profile's "N samples and T s off the CPU
 * (S%)": S the share of the time the stacks stand for, as record and
 * report count it (report_cut_share).
 */
static void
print_cut(const struct profil_profile *p, const struct cut_sum *c,
    double all_ns)
{
	printf("%llu samples", (unsigned long long)c->samples);
	if (p->wall != NULL)
		printf(" and %.3f s off the CPU", (double)c->off_ns / 1e9);
	printf(" (%.2f%%%s)", all_ns > 0 ? 100 * c->ns / all_ns : 0.0,
	    p->wall != NULL ? " of the threads' time" : "");
}

/*
 * p's call stacks in a line, then a line per reason stacks were cut
 * short, most time first: "FILE:   N samples (S%): REASON".
 */
static void
print_stacks(const char *file, const struct profil_profile *p)
{
	struct cut_sum cut[MOST_REASON + 1] = { { 0, 0, 0 } }, all = { 0, 0, 0 };
	double all_ns = 0;
	size_t deepest = 0;
	int shown[MOST_REASON + 1] = { 0 };
	uint64_t why;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		double ns = report_stack_ns(p, st);
		struct cut_sum *c;

		all_ns += ns;
		if (st->depth > deepest)
			deepest = st->depth;
		if (!report_stack_cut(p, st, &why))
			continue;
		/* the reader checked the sums of counts: no overflow */
		c = &cut[why <= MOST_REASON ? why : 0];
		c->samples += st->count;
		c->off_ns += st->off_ns;
		c->ns += ns;
		all.samples += st->count;
		all.off_ns += st->off_ns;
		all.ns += ns;
	}
	printf("%s: %zu call stacks (%zu frames, the deepest %zu); cut short: ",
	    file, p->nstacks, p->nframes, deepest);
	if (all.ns == 0 && all.samples == 0) {
		printf("none\n");
		return;
	}
	print_cut(p, &all, all_ns);
	printf("\n");
	for (;;) {
		int most = -1;

		for (int r = 0; r <= MOST_REASON; r++)
			if ((cut[r].ns > 0 || cut[r].samples > 0) && !shown[r] &&
			    (most < 0 || cut[r].ns > cut[most].ns))
				most = r;
		if (most < 0)
			break;
		shown[most] = 1;
		printf("%s:   ", file);
		print_cut(p, &cut[most], all_ns);
		printf(": %s\n", cut_reason((uint64_t)most));
	}
}

/*
 * A wall profile's line: its time off the CPU, the part placed by
 * sampling, and how it was taken.
 */
static void
print_wall(const char *file, const struct profil_profile *p)
{
	uint64_t off = 0, sampled = 0, stacks = 0;

	for (size_t i = 0; i < p->nstacks; i++) {
		off += p->stacks[i].off_ns;
		sampled += p->stacks[i].sampled_ns;
		stacks += p->stacks[i].off_ns > 0;
	}
	printf("%s: wall profile: %.3f s off the CPU in %llu stacks, %.3f s of "
	    "it placed by sampling; %llu switches, %llu stacks of blocked "
	    "threads read, %.3f s unreadable\n", file, (double)off / 1e9,
	    (unsigned long long)stacks, (double)sampled / 1e9,
	    (unsigned long long)p->wall->switches,
	    (unsigned long long)p->wall->reads,
	    (double)p->wall->unread_ns / 1e9);
}

static int
by_thread(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/*
 * A profile's timeline in a line: its slices, their width, its entries,
 * and what the reader checked of it: that each thread's slices add up to
 * its stacks' samples (and a wall profile's time off the CPU).
 */
static void
print_timeline(const char *file, const struct profil_profile *p)
{
	uint64_t *threads = xcalloc(p->nstacks, sizeof *threads);
	uint64_t samples = 0, off = 0;
	size_t nthreads = 0;
	char width[32];

	for (size_t i = 0; i < p->nstacks; i++) {
		/* the reader checked these sums: no overflow */
		samples += p->stacks[i].count;
		off += p->stacks[i].off_ns;
		threads[i] = (uint64_t)p->stacks[i].pid << 32 | p->stacks[i].tid;
	}
	qsort(threads, p->nstacks, sizeof *threads, by_thread);
	for (size_t i = 0; i < p->nstacks; i++)
		nthreads += i == 0 || threads[i] != threads[i - 1];
	free(threads);
	if (p->slice_ns < 1000)
		snprintf(width, sizeof width, "%llu ns",
		    (unsigned long long)p->slice_ns);
	else if (p->slice_ns < 1000000)
		snprintf(width, sizeof width, "%.1f us", (double)p->slice_ns / 1e3);
	else
		snprintf(width, sizeof width, "%.3f ms", (double)p->slice_ns / 1e6);
	printf("%s: timeline: %llu slice%s of %s (%.3f s), %zu entries, adding "
	    "up to the stacks thread by thread (%zu thread%s, %llu samples",
	    file, (unsigned long long)p->nslices, p->nslices == 1 ? "" : "s",
	    width, (double)p->slice_ns * (double)p->nslices / 1e9, p->ntimeline,
	    nthreads, nthreads == 1 ? "" : "s", (unsigned long long)samples);
	if (p->wall != NULL)
		printf(", %.3f s off the CPU", (double)off / 1e9);
	printf(")\n");
}

static int
check_exec(int argc, char **argv)
{
	int c, quiet = 0, status = 0;

	while ((c = cli_getopt(argc, argv, &cmd_check, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			return cli_help(&cmd_check);
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
		if (!quiet) {
			/* a weighted profile's counts are intervals, not samples */
			int weighted = report_weighted(p);
			char tail[160] = "";

			if (weighted)
				snprintf(tail, sizeof tail, "; the counts are of %.0f "
				    "us intervals, from %llu samples taken (squared "
				    "weights %llu%s)", (double)p->interval_ns / 1e3,
				    (unsigned long long)p->taken,
				    (unsigned long long)p->weight_sq,
				    p->budget ? "; a budget" : "");
			else if (p->taken > 0)
				snprintf(tail, sizeof tail, "; %llu taken, squared "
				    "weights %llu%s", (unsigned long long)p->taken,
				    (unsigned long long)p->weight_sq,
				    p->budget ? " (a budget)" : "");
			printf("%s: ok: %llu %s in %zu objects (+%llu kernel, "
			    "%llu unknown, %llu lost), %zu threads, %zu processes"
			    "%s\n", argv[optind], (unsigned long long)p->samples,
			    weighted ? "counts" : "samples", p->nobjects,
			    (unsigned long long)p->kernel,
			    (unsigned long long)p->unknown,
			    (unsigned long long)p->lost, p->nthreads, p->nprocesses,
			    tail);
		}
		if (!quiet && p->refused > 0)
			printf("%s: %llu records refused: the profiled program "
			    "wrote over the memory it shares with the recorder "
			    "(timer engine); what they held is not in the "
			    "profile\n", argv[optind],
			    (unsigned long long)p->refused);
		if (!quiet && p->nstacks > 0)
			print_stacks(argv[optind], p);
		if (!quiet && p->wall != NULL)
			print_wall(argv[optind], p);
		if (!quiet && p->slice_ns > 0)
			print_timeline(argv[optind], p);
		profil_profile_free(p);
	}
	return cli_finish_stdout(status);
}

static const struct cli_opt check_options[] = {
	{ "quiet", no_argument, 'q', CLI_SHORT, NULL,
	    "  -q, --quiet  no line for a sound file, only errors\n" },
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help   this help\n" },
	{ NULL, 0, 0, 0, NULL,
	    "A profile with call stacks gets a line more, and one per reason its\n"
	    "stacks were cut short; a wall profile (record --wall) one with its time\n"
	    "off the CPU; one whose recorder refused what the program wrote over\n"
	    "their shared memory, one saying how much; one with a timeline, one\n"
	    "with its slices, checked to add up to the stacks thread by thread.\n"
	    "Exit 0 when every file is sound, 1 otherwise.\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

const struct cmd cmd_check = {
	"check", "[-q] FILE...", "check that profile files are sound",
	check_exec, check_options, CLI_PROFILES, NULL,
};
