/*
 * cmd-record.c - `profil record [options] [--] PROGRAM [ARGS...]`: run a
 * program under an engine, write its profile, exit with its status.  The
 * engines are a table (record/core/record.h), as the commands are
 * cli/profil.c's; what is said at the end is cmd-record-end.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <profil.h>

#include "cli.h"
#include "cmd-record.h"
#include "record/core/clock.h"
#include "record/core/launch.h"
#include "record/core/periods.h"
#include "record/core/prffile.h"
#include "record/jit/jit.h"
#include "record/perf/perf.h"
#include "record/timer/timer.h"
#include "sampler/budget.h"

#define DEFAULT_RATE_HZ		1000
#define DEFAULT_BUCKET_BYTES	1
/*
 * Each sample is a timer interrupt (15-30 us in a VM, see README): above
 * 10 kHz the program would spend more time being sampled than running,
 * and the kernel starts throttling.  The library has the same ceiling.
 */
#define MAX_RATE_HZ		10000
_Static_assert(MAX_RATE_HZ == PROFIL_MAX_HZ, "the library's ceiling");
#define MAX_ASK_HZ		1000000	/* asked above MAX_RATE_HZ: clamped */
/*
 * --samples: fewer than a hundred samples say nothing (the closing
 * message warns below that); a billion at 10 kHz would take a day per
 * doubling, a fixed rate in all but name.
 */
#define MIN_BUDGET		100
#define MAX_BUDGET		1000000000
/*
 * The stack copied with each sample for its call stack.  The test
 * programs' stacks are 0.5-2.5 KiB deep at a sample (median, p99), but C
 * code keeps PATH_MAX buffers on the stack: 8 KiB (perf's default) cut
 * 69% of the stacks of `profil report` itself short of main, 16 KiB
 * 2.4%.  The price is the kernel's copy (a microsecond or two a sample)
 * and rings that fill twice as fast.  A perf sample record holds 64 KiB
 * at most with the rest of the sample.
 */
#define DEFAULT_STACK_SIZE	16384
#define STR(x)			STR_(x)
#define STR_(x)			#x

/* The engines, in the order auto tries them. */
static const struct record_engine *const engines[] = {
	&record_engine_perf,
	&record_engine_timer,
};
#define NENGINES (sizeof engines / sizeof engines[0])

const struct record_engine *
record_engine_named(const char *name)
{
	char known[128] = "auto";
	size_t len = strlen(known);

	if (strcmp(name, "auto") == 0)
		return NULL;
	for (size_t i = 0; i < NENGINES; i++)
		if (strcmp(name, engines[i]->name) == 0)
			return engines[i];
	for (size_t i = 0; i < NENGINES && len < sizeof known; i++)
		len += (size_t)snprintf(known + len, sizeof known - len, "%s%s",
		    i + 1 < NENGINES ? ", " : " or ", engines[i]->name);
	cli_die(EXIT_USAGE, "-e: unknown engine '%s' (%s)", name, known);
}

/* --every's periods (periods.h) */
static struct periods periods;

int
record_option(int c, struct record_opts *o, const char **output,
    pid_t *attach, int *rate_given)
{
	unsigned long v;

	switch (c) {
	case 'o':
		if (*optarg == '\0')
			cli_die(EXIT_USAGE, "-o: empty file name");
		*output = optarg;
		break;
	case 'F':
		if (cli_parse_ulong(optarg, 1, MAX_ASK_HZ, &v) < 0)
			cli_die(EXIT_USAGE, "-F: '%s' is not a rate from 1 to %d "
			    "Hz", optarg, MAX_RATE_HZ);
		o->period_ns = 1000000000ull / v;
		*rate_given = 1;
		break;
	case 'i':
		if (cli_parse_ulong(optarg, 1, 1000000, &v) < 0)
			cli_die(EXIT_USAGE, "-i: '%s' is not an interval from %d "
			    "to 1000000 microseconds", optarg,
			    1000000 / MAX_RATE_HZ);
		o->period_ns = 1000ull * v;
		*rate_given = 1;
		break;
	case 'B':
		if (cli_parse_ulong(optarg, MIN_BUDGET, MAX_BUDGET, &v) < 0)
			cli_die(EXIT_USAGE, "--samples: '%s' is not a number of "
			    "samples from %d to %d", optarg, MIN_BUDGET,
			    MAX_BUDGET);
		o->samples = v;
		break;
	case 'b':
		if (cli_parse_ulong(optarg, 1, 65536, &v) < 0)
			cli_die(EXIT_USAGE, "-b: '%s' is not a bucket size from 1 "
			    "to 65536 bytes", optarg);
		o->bucket_bytes = (unsigned)v;
		break;
	case 'e':
		o->engine = record_engine_named(optarg);
		break;
	case 'p':
		if (cli_parse_ulong(optarg, 1, INT_MAX, &v) < 0)
			cli_die(EXIT_USAGE, "-p: '%s' is not a process id", optarg);
		*attach = (pid_t)v;
		break;
	case 'N':
		o->follow_children = 0;
		break;
	case 'W':
		o->wait_all = 1;
		break;
	case 'w':
		o->wall = 1;
		break;
	case 'G':
		o->stack_size = 0;
		break;
	case 'z':
		if (cli_parse_ulong(optarg, 64, RECORD_MAX_STACK_SIZE, &v) < 0 ||
		    v % 8 != 0)
			cli_die(EXIT_USAGE, "--stack-size: '%s' is not a multiple "
			    "of 8 from 64 to %d bytes", optarg,
			    RECORD_MAX_STACK_SIZE);
		o->stack_size = (unsigned)v;
		break;
	case 'q':
		o->quiet = 1;
		break;
	case 'E':
		if (periods_parse(optarg, &periods.every_ns) < 0)
			cli_die(EXIT_USAGE, "--every: '%s' is not a period from "
			    "100ms to 11 days (60s, 500ms, 5m, 1h)", optarg);
		o->periods = &periods;
		break;
	case 'T':
		o->no_timeline = 1;
		break;
	case 'K':
		if (cli_parse_ulong(optarg, 1, 100000, &v) < 0)
			cli_die(EXIT_USAGE, "--keep: '%s' is not a number of "
			    "profiles from 1 to 100000", optarg);
		periods.keep = (unsigned)v;
		break;
	default:
		return 0;
	}
	return 1;
}

void
record_settle(struct record_opts *o, pid_t attach, int rate_given)
{
	if (o->samples && attach != 0)
		cli_die(EXIT_USAGE, "--samples: not with -p (a budget's sampling "
		    "events are inherited from the program's start); give -F");
	/* a budget starts fast, unless -F or -i says where */
	if (o->samples && !rate_given)
		o->period_ns = 1000000000ull / BUDGET_START_HZ;
	if (o->wall && o->stack_size == 0)
		cli_die(EXIT_USAGE, "--wall places time off the CPU at the "
		    "stacks threads waited at: not with --no-call-graph");
	if (o->wall && o->samples)
		cli_die(EXIT_USAGE, "--wall: not with --samples (time off the "
		    "CPU is measured, not sampled at a rate a budget slows)");
	if (periods.keep > 0 && o->periods == NULL)
		cli_die(EXIT_USAGE, "--keep: the last N of --every's profiles: "
		    "give --every");
	if (o->wait_all && !o->follow_children)
		cli_die(EXIT_USAGE, "--wait-all follows the processes that "
		    "--no-children leaves out: give one of them");
	if (o->period_ns < 1000000000ull / MAX_RATE_HZ) {
		cli_warn("%.0f Hz asked: at most %d samples per CPU-second (each "
		    "is a timer interrupt, and faster sampling measures the "
		    "profiler); recording at %d Hz", 1e9 / (double)o->period_ns,
		    MAX_RATE_HZ, MAX_RATE_HZ);
		o->period_ns = 1000000000ull / MAX_RATE_HZ;
	}
	o->rate_hz = (unsigned)((1000000000ull + o->period_ns / 2) / o->period_ns);
}

void
record_defaults(struct record_opts *o)
{
	*o = (struct record_opts){ .period_ns = 1000000000ull / DEFAULT_RATE_HZ,
	    .bucket_bytes = DEFAULT_BUCKET_BYTES, .engine = NULL,
	    .follow_children = 1,
	    .stack_size = DEFAULT_STACK_SIZE };
}

int
record_parse(int argc, char **argv, struct record_opts *o,
    const char **output, pid_t *attach)
{
	int c, rate_given = 0;

	record_defaults(o);
	*output = NULL;
	*attach = 0;

	while ((c = cli_getopt(argc, argv, &cmd_record, NULL)) != -1) {
		if (c == 'h')
			return cli_help(&cmd_record);
		if (c == 'V') {
			printf("profil record 0.1.0\n");
			return cli_finish_stdout(0);
		}
		if (!record_option(c, o, output, attach, &rate_given)) {
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	record_settle(o, *attach, rate_given);
	if (o->periods != NULL) {
		/* a file a period: named apart */
		if (*output == NULL)
			*output = "%c-%t.prf";
		else if (!periods_template_ok(*output))
			cli_die(EXIT_USAGE, "--every writes a profile a period: "
			    "-o needs %%t (its start) or %%n (its number) in "
			    "'%s'", *output);
		periods.tmpl = *output;
	}
	return -1;
}

int
record_target(int argc, char **argv, struct record_opts *o, pid_t attach,
    char ***cmdline)
{
	if (attach != 0) {
		if (optind != argc)
			cli_die(EXIT_USAGE, "-p: give a process id or a program, "
			    "not both");
		if (o->engine != NULL && o->engine->attach == NULL) {
			for (size_t i = 0; i < NENGINES; i++)
				if (engines[i]->attach != NULL)
					cli_die(EXIT_USAGE, "-p: attaching needs "
					    "the %s engine", engines[i]->name);
		}
		if (kill(attach, 0) < 0 && errno == ESRCH)
			cli_die(1, "-p: no process %d", (int)attach);
		*cmdline = record_attach_argv(attach);
		o->argv = *cmdline;
	} else if (optind == argc) {
		cli_error("no program to run (see 'profil record --help')");
		return EXIT_USAGE;
	} else {
		o->argv = argv + optind;
	}
	return -1;
}

const struct record_engine *
record_choose_engine(const struct record_opts *o, pid_t attach)
{
	char why[PATH_MAX + 256];
	int failed = 0;

	if (o->engine != NULL) {
		if (o->engine->check(o->argv, why, sizeof why) < 0)
			cli_die(1, "%s", why);
		return o->engine;
	}
	for (size_t i = 0; i < NENGINES; i++) {
		const struct record_engine *e = engines[i];

		if (attach != 0 && e->attach == NULL)
			continue;
		if (failed && !o->quiet)
			cli_warn("%s: using the %s engine (%s)", why, e->name,
			    e->fallback_note);
		if (e->check(o->argv, why, sizeof why) == 0)
			return e;
		failed = 1;
	}
	cli_die(1, "%s", why);
}

/*
 * Decide where the profile goes now, not at exit: create the file it
 * will be written to, so that what refuses it is said before the
 * program runs.  %p changes the name only, not the directory.  Its path
 * (malloc'd), or NULL after saying why.
 */
static char *
record_open(const char *output, const struct record_opts *o,
    struct outfile *out)
{
	const char *slash = output != NULL ? strrchr(output, '/') : NULL;
	char cause[PATH_MAX + 256], *path;

	if (slash != NULL && strstr(output, "%p") != NULL &&
	    strstr(output, "%p") < slash)
		cli_die(EXIT_USAGE, "-o: %%p goes in the file name, not in a "
		    "directory (%s)", output);
	path = prffile_path(output, o->argv[0], 0);
	launch_hold_signals();	/* before there is a file to leave behind */
	if (prffile_open(out, path, cause, sizeof cause) < 0) {
		cli_error("%s", cause);
		free(path);
		return NULL;
	}
	return path;
}

struct profil_profile *
record_run(const struct record_opts *o, pid_t attach, struct record_result *r,
    uint64_t *end)
{
	struct profil_profile *p;
	struct timespec wall_start;
	char cause[PATH_MAX + 256];
	uint64_t origin;

	memset(r, 0, sizeof *r);
	r->builder = builder_new(o->bucket_bytes);
	if (o->stack_size)
		builder_stacks(r->builder);
	jit_begin(r->builder);
	/* the timeline's slice 0 starts with the header's start_ns */
	origin = record_now_pair(&wall_start);
	if (o->stack_size && !o->no_timeline)
		builder_timeline(r->builder, origin);
	if (o->periods != NULL)
		periods_begin(o->periods, origin, &wall_start);
	if ((attach != 0 ?
	    o->engine->attach(o, attach, r, cause, sizeof cause) :
	    o->engine->run(o, r, cause, sizeof cause)) < 0) {
		cli_error("%s", cause);
		jit_end(NULL, NULL);
		builder_free(r->builder);
		prffile_remove_pending();
		return NULL;
	}
	if (r->exec_errno != 0) {
		jit_end(NULL, NULL);
		builder_free(r->builder);
		prffile_remove_pending();
		if (r->exec_errno == ENOENT)
			cli_die(127, "%s: command not found", o->argv[0]);
		cli_die(126, "cannot execute %s: %s", o->argv[0],
		    strerror(r->exec_errno));
	}
	*end = record_now_ns();
	builder_timeline_end(r->builder, *end);
	p = builder_finish(r->builder);
	builder_free(r->builder);
	jit_end(p, cli_warn_line);
	prffile_header(p, o, r, &wall_start);
	return p;
}

static int
exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

static int
record_exec(int argc, char **argv)
{
	struct record_opts o;
	struct record_result r;
	struct profil_profile *p;
	struct outfile out;
	const char *output;
	char cause[PATH_MAX + 256], *path;
	pid_t attach;
	char **cmdline = NULL;
	uint64_t run_end;
	int c, status;

	if ((c = record_parse(argc, argv, &o, &output, &attach)) >= 0)
		return c;
	if ((c = record_target(argc, argv, &o, attach, &cmdline)) >= 0)
		return c;
	if ((path = record_open(output, &o, &out)) == NULL)
		return EXIT_USAGE;
	o.engine = record_choose_engine(&o, attach);
	if ((p = record_run(&o, attach, &r, &run_end)) == NULL) {
		free(path);
		return 1;
	}
	/* attached: the process is not ours to wait for; say how we did */
	status = attach != 0 ? 0 : exit_status_of(r.status);

	free(path);	/* out.path until now */
	path = o.periods != NULL ? periods_last(o.periods, p, r.pid, run_end) :
	    prffile_path(output, o.argv[0], r.pid);
	if (prffile_commit(&out, p, path, cause, sizeof cause) < 0) {
		cli_error("cannot write the profile: %s (any previous file there "
		    "is unchanged)", cause);
		profil_profile_free(p);
		free(path);
		return status ? status : 1;
	}
	if (o.periods != NULL)
		periods_end(o.periods, path);
	record_verify_memo(&status);
	if (!o.quiet && o.periods != NULL)
		fprintf(stderr, "profil: %u profiles, one every %.3g s, the last "
		    "%s\n", o.periods->n + 1, (double)o.periods->every_ns / 1e9,
		    path);
	else if (!o.quiet)
		record_say_end(p, &o, &r, path, attach);
	profil_profile_free(p);
	free(path);
	free(r.unseen);
	if (cmdline != NULL) {
		for (c = 0; cmdline[c] != NULL; c++)
			free(cmdline[c]);
		free(cmdline);
	}
	return status;
}

static const struct cli_opt record_options[] = {
	{ "output", required_argument, 'o', CLI_SHORT, CLI_FILE,
	    "  -o, --output FILE    the profile (default PROGRAM.prf here; %p in FILE is\n"
	    "                       the pid)\n" },
	{ "pid", required_argument, 'p', CLI_SHORT, CLI_PID,
	    "  -p, --pid PID        attach to a running process until it exits or Ctrl-C\n"
	    "                       (perf engine)\n" },
	{ "every", required_argument, 'E', 0, NULL,
	    "      --every PERIOD   a whole profile every PERIOD (60s, 500ms, 5m, 1h),\n"
	    "                       each its own file, consecutive, as the run goes\n"
	    "                       (perf engine); -o names them with %t (the\n"
	    "                       period's start, UTC), %n (its number), %c (the\n"
	    "                       program); default %c-%t.prf; --split is the same\n" },
	{ "split", required_argument, 'E', 0, NULL, NULL },
	{ "keep", required_argument, 'K', 0, NULL,
	    "      --keep N         with --every: keep the last N profiles only\n" },
	{ "no-timeline", no_argument, 'T', 0, NULL,
	    "      --no-timeline    keep no timeline (when each stack's samples came:\n"
	    "                       report --time, --timeline need it)\n" },
	{ "freq", required_argument, 'F', CLI_SHORT, NULL,
	    "  -F, --freq HZ        samples per CPU-second (default " STR(DEFAULT_RATE_HZ)
	    "); above " STR(MAX_RATE_HZ) ",\n"
	    "                       lowered to " STR(MAX_RATE_HZ) " with a warning\n" },
	{ "interval", required_argument, 'i', CLI_SHORT, NULL,
	    "  -i, --interval USEC  or the interval between samples, 1 to 1000000 us\n"
	    "                       (under 100 is lowered to 100 us likewise)\n" },
	{ "bucket", required_argument, 'b', CLI_SHORT, NULL,
	    "  -b, --bucket BYTES   code bytes per counter, 1 to 65536 (default "
	    STR(DEFAULT_BUCKET_BYTES) ": exact)\n" },
	{ "engine", required_argument, 'e', CLI_SHORT, "auto perf timer",
	    "  -e, --engine ENGINE  auto (default: perf when permitted, else timer),\n"
	    "                       perf or timer\n" },
	{ "no-children", no_argument, 'N', 0, NULL,
	    "      --no-children    profile the program only, not processes it starts\n"
	    "                       (default: follow them)\n" },
	{ "no-call-graph", no_argument, 'G', 0, NULL,
	    "      --no-call-graph  no call stacks: the flat profile only (default:\n"
	    "                       the stack of every sample, unwound as it comes)\n" },
	{ "samples", required_argument, 'B', 0, NULL,
	    "      --samples N      a sample budget instead of a fixed rate: about N\n"
	    "                       samples for a run of a minute, " STR(MIN_BUDGET) " to " STR(MAX_BUDGET) ";\n"
	    "                       " STR(BUDGET_START_HZ) " Hz at first (or -F, -i), the interval doubled\n"
	    "                       every N/8 samples down to 10-20 Hz, each sample\n"
	    "                       counting its interval (not with -p)\n" },
	{ "stack-size", required_argument, 'z', 0, NULL,
	    "      --stack-size BYTES  stack copied with each sample to unwind it, 64\n"
	    "                       to " STR(RECORD_MAX_STACK_SIZE) " (default " STR(DEFAULT_STACK_SIZE) "); deeper stacks are\n"
	    "                       cut there, and the cut is counted\n" },
	{ "wait-all", no_argument, 'W', 0, NULL,
	    "      --wait-all       go on until every process the program started has\n"
	    "                       ended, those it left running too (default: stop\n"
	    "                       when the program ends, and name what still runs)\n" },
	{ "wall", no_argument, 'w', 0, NULL,
	    "      --wall           wall-clock time: also where threads waited off the\n"
	    "                       CPU (blocked in a system call, a page fault, or\n"
	    "                       runnable), measured from context switches and\n"
	    "                       placed at the stack they waited at, under\n"
	    "                       [off-cpu: WHAT]\n" },
	{ "quiet", no_argument, 'q', CLI_SHORT, NULL,
	    "  -q, --quiet          no closing message\n" },
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help           this help\n" },
	{ "version", no_argument, 'V', CLI_SHORT, NULL,
	    "  -V, --version        the version\n" },
	{ NULL, 0, 0, 0, NULL,
	    "Options stop at PROGRAM (or at --): what follows is the program's.\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

const struct cmd cmd_record = {
	"record", "[-o FILE] [-F HZ | -i USEC] [--samples N] [-b BYTES] [-e ENGINE] "
	    "[--no-children | --wait-all] [--no-call-graph | --stack-size BYTES] "
	    "[--wall] [--every PERIOD [--keep N]] [--no-timeline] "
	    "[-q] [--] PROGRAM [ARGS...] | -p PID",
	"run a program and write its profile",
	record_exec, record_options, CLI_PROGRAM, NULL,
};
