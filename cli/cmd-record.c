/*
 * cmd-record.c - `profil record [options] [--] PROGRAM [ARGS...]`: run a
 * program under an engine, write its profile, exit with its status.
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
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "cmd-record.h"
#include "record/core/launch.h"
#include "record/core/output.h"
#include "record/jit/jit.h"
#include "record/perf/perf.h"
#include "record/timer/timer.h"
#include "record/unwind/unwind.h"
#include "report/report.h"
#include "sampler/budget.h"
#include "symbols/ksyms.h"

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
#define MAX_STACK_SIZE		65000
#define STR(x)			STR_(x)
#define STR_(x)			#x



static int
exit_status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

int
record_parse(int argc, char **argv, struct record_opts *o,
    const char **output, pid_t *attach)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "freq", required_argument, NULL, 'F' },
		{ "interval", required_argument, NULL, 'i' },
		{ "bucket", required_argument, NULL, 'b' },
		{ "engine", required_argument, NULL, 'e' },
		{ "no-children", no_argument, NULL, 'N' },
		{ "wait-all", no_argument, NULL, 'W' },
		{ "wall", no_argument, NULL, 'w' },
		{ "no-call-graph", no_argument, NULL, 'G' },
		{ "stack-size", required_argument, NULL, 'z' },
		{ "samples", required_argument, NULL, 'B' },
		{ "pid", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	int c, rate_given = 0;

	*o = (struct record_opts){ .period_ns = 1000000000ull / DEFAULT_RATE_HZ,
	    .bucket_bytes = DEFAULT_BUCKET_BYTES, .engine = ENGINE_AUTO,
	    .follow_children = 1, .stack_size = DEFAULT_STACK_SIZE };
	*output = NULL;
	*attach = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:F:i:b:e:p:qhV", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (*optarg == '\0')
				cli_die(EXIT_USAGE, "-o: empty file name");
			*output = optarg;
			break;
		case 'F':
			if (cli_parse_ulong(optarg, 1, MAX_ASK_HZ, &v) < 0)
				cli_die(EXIT_USAGE, "-F: '%s' is not a rate from 1 "
				    "to %d Hz", optarg, MAX_RATE_HZ);
			o->period_ns = 1000000000ull / v;
			rate_given = 1;
			break;
		case 'i':
			if (cli_parse_ulong(optarg, 1, 1000000, &v) < 0)
				cli_die(EXIT_USAGE, "-i: '%s' is not an interval "
				    "from %d to 1000000 microseconds", optarg,
				    1000000 / MAX_RATE_HZ);
			o->period_ns = 1000ull * v;
			rate_given = 1;
			break;
		case 'B':
			if (cli_parse_ulong(optarg, MIN_BUDGET, MAX_BUDGET, &v) < 0)
				cli_die(EXIT_USAGE, "--samples: '%s' is not a number "
				    "of samples from %d to %d", optarg, MIN_BUDGET,
				    MAX_BUDGET);
			o->samples = v;
			break;
		case 'b':
			if (cli_parse_ulong(optarg, 1, 65536, &v) < 0)
				cli_die(EXIT_USAGE, "-b: '%s' is not a bucket size "
				    "from 1 to 65536 bytes", optarg);
			o->bucket_bytes = (unsigned)v;
			break;
		case 'e':
			if (strcmp(optarg, "auto") == 0)
				o->engine = ENGINE_AUTO;
			else if (strcmp(optarg, "perf") == 0)
				o->engine = ENGINE_PERF;
			else if (strcmp(optarg, "timer") == 0)
				o->engine = ENGINE_TIMER;
			else
				cli_die(EXIT_USAGE, "-e: unknown engine '%s' (auto, "
				    "perf or timer)", optarg);
			break;
		case 'p':
			if (cli_parse_ulong(optarg, 1, INT_MAX, &v) < 0)
				cli_die(EXIT_USAGE, "-p: '%s' is not a process id",
				    optarg);
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
			if (cli_parse_ulong(optarg, 64, MAX_STACK_SIZE, &v) < 0 ||
			    v % 8 != 0)
				cli_die(EXIT_USAGE, "--stack-size: '%s' is not a "
				    "multiple of 8 from 64 to %d bytes", optarg,
				    MAX_STACK_SIZE);
			o->stack_size = (unsigned)v;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			return cli_help(&cmd_record, options);
		case 'V':
			printf("profil record 0.1.0\n");
			return cli_finish_stdout(0);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (o->samples && *attach != 0)
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
	return -1;
}

/*
 * When the samples stand for far less than the CPU time (as report's
 * caption notes), say why while the user can still do something about
 * it: kernel time perf may not sample here, or short threads.
 */
static void
warn_unsampled(const struct profil_profile *p, const struct record_result *r)
{
	double seen, cpu = (double)p->cpu_ns;

	if (!report_unsampled(p, &seen))
		return;
	if (strcmp(p->engine, "perf") != 0)
		cli_warn("the samples stand for %.2f s of the %.2f s of CPU time: "
		    "threads or processes shorter than a sampling period went "
		    "unsampled", seen / 1e9, cpu / 1e9);
	else if (!r->kernel_sampled)
		cli_warn("the samples stand for %.2f s of the %.2f s of CPU time: "
		    "time in the kernel is not sampled here "
		    "(perf_event_paranoid %d; 1 or less, or CAP_PERFMON, allows "
		    "it)", seen / 1e9, cpu / 1e9, perf_paranoid());
	else if (r->throttled > 0)
		cli_warn("the samples stand for %.2f s of the %.2f s of CPU time: "
		    "the kernel throttled sampling %llu times (interrupts took "
		    "too long for -F; see /proc/sys/kernel/"
		    "perf_event_max_sample_rate)", seen / 1e9, cpu / 1e9,
		    (unsigned long long)r->throttled);
	else
		cli_warn("the samples stand for %.2f s of the %.2f s of CPU time: "
		    "threads or processes shorter than a sampling period went "
		    "unsampled", seen / 1e9, cpu / 1e9);
}

/*
 * Whether a wall profile's threads spent nine tenths of their time off
 * the CPU, measured: then few samples of the little time on it are no
 * reason to doubt the profile, nor to raise the rate.
 */
static int
wall_mostly_off(const struct profil_profile *p)
{
	double off = 0, on = (double)p->samples * (double)p->interval_ns;

	for (size_t i = 0; i < p->nstacks; i++)
		off += (double)p->stacks[i].off_ns;
	return off >= 9 * on;
}

/*
 * The processes whose CPU time the engine could not see (the timer
 * engine's, started without its library): a line each, which and why,
 * the three that ran most; the rest in one.
 */
static void
warn_unseen(const struct record_result *r)
{
	uint64_t rest = 0;

	for (size_t i = 0; i < r->nunseen; i++) {
		const struct record_unseen *u = &r->unseen[i];

		if (i < 3)
			cli_warn("pid %d (%s) ran %.2f s of CPU unsampled: %s",
			    (int)u->pid, u->comm, (double)u->cpu_ns / 1e9, u->why);
		else
			rest += u->cpu_ns;
	}
	if (r->nunseen > 3)
		cli_warn("and %zu more processes ran %.2f s of CPU unsampled",
		    r->nunseen - 3, (double)rest / 1e9);
}

/*
 * A wall profile's closing line: where the threads' time went, on the
 * CPU and off it, so that a run that waited says so at once.
 */
static void
wall_summary(const struct profil_profile *p)
{
	double off = 0, on = (double)p->samples * (double)p->interval_ns / 1e9;
	char share[32];

	for (size_t i = 0; i < p->nstacks; i++)
		off += (double)p->stacks[i].off_ns / 1e9;
	/* the share as report's caption gives it: none of what shows as 0 */
	fprintf(stderr, "profil: wall: %.2f s of threads' time, %.2f s on the "
	    "CPU and %.2f s off it%s; profil report shows where\n",
	    on + off, on, off, report_share_of(off, on + off, share,
	    sizeof share));
}

/*
 * Many stacks cut at the end of the copy of the stack: their callers are
 * missing from the inclusive figures.  Say what keeps more.
 */
static void
warn_cut(const struct profil_profile *p, unsigned stack_size)
{
	double cut = report_cut_share(p, PROFIL_CUT_STACK);
	double unread = report_cut_share(p, PROFIL_CUT_UNREAD);

	if (cut >= REPORT_CUT_NOTE && stack_size < MAX_STACK_SIZE)
		cli_warn("%.0f%% of the call stacks were cut where the %u bytes of "
		    "stack copied with each sample ended (big local arrays, deep "
		    "calls): --stack-size %u keeps more", 100 * cut, stack_size,
		    MAX_STACK_SIZE);
	else if (cut >= REPORT_CUT_NOTE)
		cli_warn("%.0f%% of the call stacks were cut where the %u bytes of "
		    "stack copied with each sample ended, the most --stack-size "
		    "takes", 100 * cut, stack_size);
	if (unread >= REPORT_CUT_NOTE)
		cli_warn("%.0f%% of the call stacks were cut at a stack page the "
		    "kernel did not copy (one the program never touched: a big "
		    "local array); the timer engine (-e timer, --stack-size "
		    "past it) copies such pages", 100 * unread);
}

/*
 * Processes the program started and left running (a daemon, `prog &`):
 * they were profiled until the program ended, and their CPU time after
 * that is in no figure.  Say which.
 */
static void
warn_left_running(const struct profil_profile *p)
{
	char names[256] = "";
	size_t n = 0, len = 0;

	for (size_t i = 0; i < p->nprocesses; i++) {
		const struct profil_process *pr = &p->processes[i];

		if (pr->exit_status != PROFIL_EXIT_RUNNING)
			continue;
		if (n++ < 3 && len < sizeof names)
			len += (size_t)snprintf(names + len, sizeof names - len,
			    "%s%d%s%s", len ? ", " : "", (int)pr->pid,
			    pr->command[0] ? " " : "", pr->command);
	}
	if (n > 0)
		cli_warn("%zu process%s the program started still ran when it "
		    "ended (%s%s): profiled until then; --wait-all follows %s "
		    "to the end", n, n == 1 ? "" : "es", names, n > 3 ? ", ..." : "",
		    n == 1 ? "it" : "them");
}

/*
 * PROFIL_UNWIND_VERIFY=1 (tests): how the stack memo's answers compared
 * with unwinding again, on standard error; a wrong one fails the run.
 */
static void
verify_report(int *status)
{
	const char *v = getenv("PROFIL_UNWIND_VERIFY");
	struct unwind_memo_counts m;

	if (v == NULL || strcmp(v, "1") != 0)
		return;
	unwind_memo_counts(&m);
	if (m.wrong > 0)
		fprintf(stderr, "profil: unwind memo wrong at pc 0x%llx\n",
		    (unsigned long long)m.first_wrong_pc);
	fprintf(stderr, "profil: unwind memo: %llu answered, %llu unwound, "
	    "%llu wrong\n", (unsigned long long)m.hits,
	    (unsigned long long)m.misses, (unsigned long long)m.wrong);
	if (m.wrong > 0 && *status == 0)
		*status = 1;
}

static int
record_exec(int argc, char **argv)
{
	struct record_opts o;
	struct record_result r;
	struct profil_profile *p;
	struct outfile out;
	const char *output, *slash;
	struct timespec wall_start;
	char cause[PATH_MAX + 256], *path;
	pid_t attach;
	char **cmdline = NULL;
	int c, status;

	if ((c = record_parse(argc, argv, &o, &output, &attach)) >= 0)
		return c;
	if (attach != 0) {
		if (optind != argc)
			cli_die(EXIT_USAGE, "-p: give a process id or a program, "
			    "not both");
		if (o.engine == ENGINE_TIMER)
			cli_die(EXIT_USAGE, "-p: attaching needs the perf engine");
		if (kill(attach, 0) < 0 && errno == ESRCH)
			cli_die(1, "-p: no process %d", (int)attach);
		cmdline = record_attach_argv(attach);
		o.argv = cmdline;
	} else if (optind == argc) {
		cli_error("no program to run (see 'profil record --help')");
		return EXIT_USAGE;
	} else {
		o.argv = argv + optind;
	}

	/*
	 * Decide where the profile goes now, not at exit: create the file it
	 * will be written to, so that what refuses it is said before the
	 * program runs.  %p changes the name only, not the directory.
	 */
	slash = output != NULL ? strrchr(output, '/') : NULL;
	if (slash != NULL && strstr(output, "%p") != NULL &&
	    strstr(output, "%p") < slash)
		cli_die(EXIT_USAGE, "-o: %%p goes in the file name, not in a "
		    "directory (%s)", output);
	path = output_path(output, o.argv[0], 0);
	launch_hold_signals();	/* before there is a file to leave behind */
	if (output_open(&out, path, cause, sizeof cause) < 0) {
		cli_error("%s", cause);
		free(path);
		return EXIT_USAGE;
	}

	/* auto: perf events when permitted, else the timer engine */
	if (o.engine != ENGINE_TIMER &&
	    record_perf_check(cause, sizeof cause) < 0) {
		if (o.engine == ENGINE_PERF || attach != 0)
			cli_die(1, "%s", cause);
		if (!o.quiet)
			cli_warn("%s: using the timer engine (time in the "
			    "kernel estimated from system time, no kernel "
			    "functions)", cause);
		o.engine = ENGINE_TIMER;
	}
	if (o.engine != ENGINE_TIMER)
		o.engine = ENGINE_PERF;
	if (o.engine == ENGINE_TIMER &&
	    record_timer_check(o.argv, cause, sizeof cause) < 0)
		cli_die(1, "%s", cause);

	memset(&r, 0, sizeof r);
	r.builder = builder_new(o.bucket_bytes);
	if (o.stack_size)
		builder_stacks(r.builder);
	jit_begin(r.builder);
	clock_gettime(CLOCK_REALTIME, &wall_start);
	if ((attach != 0 ?
	    record_perf_attach(&o, attach, &r, cause, sizeof cause) :
	    o.engine == ENGINE_PERF ? record_perf(&o, &r, cause, sizeof cause) :
	    record_timer(&o, &r, cause, sizeof cause)) < 0) {
		cli_error("%s", cause);
		jit_end(NULL, NULL);
		builder_free(r.builder);
		output_remove_pending();
		free(path);
		return 1;
	}
	if (r.exec_errno != 0) {
		jit_end(NULL, NULL);
		builder_free(r.builder);
		output_remove_pending();
		if (r.exec_errno == ENOENT)
			cli_die(127, "%s: command not found", o.argv[0]);
		cli_die(126, "cannot execute %s: %s", o.argv[0],
		    strerror(r.exec_errno));
	}
	/* attached: the process is not ours to wait for; say how we did */
	status = attach != 0 ? 0 : exit_status_of(r.status);

	p = builder_finish(r.builder);
	builder_free(r.builder);
	jit_end(p, cli_warn_line);
	output_header(p, &o, &r, &wall_start);

	free(path);	/* out.path until now */
	path = output_path(output, o.argv[0], r.pid);
	if (output_commit(&out, p, path, cause, sizeof cause) < 0) {
		cli_error("cannot write the profile: %s (any previous file there "
		    "is unchanged)", cause);
		profil_profile_free(p);
		free(path);
		return status ? status : 1;
	}
	verify_report(&status);
	if (!o.quiet) {
		double cpu = (double)r.cpu_ns / 1e9;
		uint64_t taken = o.samples ? p->taken : p->samples;
		char rates[64];

		if (o.samples)
			fprintf(stderr, "profil: %llu samples (%s, %.0f Hz real; "
			    "worth %.0f of equal weight), %.2f s CPU, %llu lost, "
			    "%s engine; wrote %s\n",
			    (unsigned long long)p->taken, report_rates(p, rates,
			    sizeof rates), cpu > 0 ? (double)p->taken / cpu : 0.0,
			    p->weight_sq ? (double)p->samples *
			    (double)p->samples / (double)p->weight_sq : 0.0, cpu,
			    (unsigned long long)p->lost, p->engine, path);
		else
			fprintf(stderr, "profil: %llu samples, %.2f s CPU (%.0f Hz "
			    "real), %llu lost, %s engine; wrote %s\n",
			    (unsigned long long)p->samples, cpu,
			    cpu > 0 ? (double)p->samples / cpu : 0.0,
			    (unsigned long long)p->lost, p->engine, path);
		if (!r.kernel_sampled && strcmp(p->engine, "perf") == 0)
			fprintf(stderr, "profil: kernel time is not sampled here "
			    "(perf_event_paranoid %d): %.2f s of it counted from "
			    "the threads' switches, as %s under the calls the "
			    "samples around it share (-e timer places it under "
			    "the calls that entered the kernel)\n", perf_paranoid(),
			    (double)r.kernel_counted * (double)p->interval_ns / 1e9,
			    KSYMS_UNSAMPLED);
		if (p->wall != NULL)
			wall_summary(p);
		warn_unseen(&r);
		/* what the program wrote over is why samples are missing */
		if (p->refused > 0)
			cli_warn("%llu records of the memory %s shares with the "
			    "recorder could not be true (it wrote over them): "
			    "refused, their samples not in the profile",
			    (unsigned long long)p->refused, o.argv[0]);
		else if (r.nunseen > 0) {
			/* more samples would not see those: judge the rest */
			struct profil_profile seen = *p;

			seen.cpu_ns = p->cpu_ns > r.unseen_ns ?
			    p->cpu_ns - r.unseen_ns : 0;
			warn_unsampled(&seen, &r);
		} else if (taken < 100 && !(p->wall != NULL &&
		    wall_mostly_off(p)))
			cli_warn("only %llu samples%s: too few to trust; run "
			    "longer or raise %s", (unsigned long long)taken,
			    p->wall != NULL ? " of the CPU (the time off it is "
			    "measured)" : "", o.samples ? "--samples" : "-F");
		else
			warn_unsampled(p, &r);
		warn_cut(p, o.stack_size);
		if (r.wall_unreadable != 0)
			cli_warn("--wall: the stacks of process %d's blocked "
			    "threads cannot be read (%s: not dumpable, set-uid, "
			    "or not ours to trace): its time off the CPU is shown "
			    "without them", (int)r.wall_unreadable,
			    strerror(r.wall_unreadable_errno));
		if (attach == 0)
			warn_left_running(p);
		if (attach == 0 && WIFSIGNALED(r.status))
			cli_error("%s died of signal %d (%s)%s", o.argv[0],
			    WTERMSIG(r.status), strsignal(WTERMSIG(r.status)),
			    WCOREDUMP(r.status) ? ", core dumped" : "");
	}
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

const struct cmd cmd_record = {
	"record", "[-o FILE] [-F HZ | -i USEC] [--samples N] [-b BYTES] [-e ENGINE] "
	    "[--no-children | --wait-all] [--no-call-graph | --stack-size BYTES] "
	    "[--wall] "
	    "[-q] [--] PROGRAM [ARGS...] | -p PID",
	"run a program and write its profile",
	record_exec,
	"  -o, --output FILE    the profile (default PROGRAM.prf here; %p in FILE is\n"
	"                       the pid)\n"
	"  -p, --pid PID        attach to a running process until it exits or Ctrl-C\n"
	"                       (perf engine)\n"
	"  -F, --freq HZ        samples per CPU-second (default " STR(DEFAULT_RATE_HZ)
	    "); above " STR(MAX_RATE_HZ) ",\n"
	"                       lowered to " STR(MAX_RATE_HZ) " with a warning\n"
	"  -i, --interval USEC  or the interval between samples, 1 to 1000000 us\n"
	"                       (under 100 is lowered to 100 us likewise)\n"
	"  -b, --bucket BYTES   code bytes per counter, 1 to 65536 (default "
	    STR(DEFAULT_BUCKET_BYTES) ": exact)\n"
	"  -e, --engine ENGINE  auto (default: perf when permitted, else timer),\n"
	"                       perf or timer\n"
	"      --no-children    profile the program only, not processes it starts\n"
	"                       (default: follow them)\n"
	"      --no-call-graph  no call stacks: the flat profile only (default:\n"
	"                       the stack of every sample, unwound as it comes)\n"
	"      --samples N      a sample budget instead of a fixed rate: about N\n"
	"                       samples for a run of a minute, " STR(MIN_BUDGET) " to " STR(MAX_BUDGET) ";\n"
	"                       " STR(BUDGET_START_HZ) " Hz at first (or -F, -i), the interval doubled\n"
	"                       every N/8 samples down to 10-20 Hz, each sample\n"
	"                       counting its interval (not with -p)\n"
	"      --stack-size BYTES  stack copied with each sample to unwind it, 64\n"
	"                       to " STR(MAX_STACK_SIZE) " (default " STR(DEFAULT_STACK_SIZE) "); deeper stacks are\n"
	"                       cut there, and the cut is counted\n"
	"      --wait-all       go on until every process the program started has\n"
	"                       ended, those it left running too (default: stop\n"
	"                       when the program ends, and name what still runs)\n"
	"      --wall           wall-clock time: also where threads waited off the\n"
	"                       CPU (blocked in a system call, a page fault, or\n"
	"                       runnable), measured from context switches and\n"
	"                       placed at the stack they waited at, under\n"
	"                       [off-cpu: WHAT]\n"
	"  -q, --quiet          no closing message\n"
	"  -h, --help           this help\n"
	"  -V, --version        the version\n"
	"Options stop at PROGRAM (or at --): what follows is the program's.\n",
};
