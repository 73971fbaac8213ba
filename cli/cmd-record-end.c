/*
 * cmd-record-end.c - what `profil record` says once the profile is
 * written (cmd-record.h): the closing line, and each warning about what
 * the profile may not show, said while the user can still do something
 * about it.  It only reads the profile and the run's result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <profil.h>

#include "cli.h"
#include "cmd-record.h"
#include "record/perf/perf.h"
#include "record/unwind/unwind.h"
#include "report/report.h"
#include "symbols/ksyms.h"

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
	/*
	 * Where processes ran unseen (warn_unseen names them), the rest is
	 * the shells and env that started them, whose CPU goes to fork and
	 * exec before any agent runs: under a tenth of a second of it is
	 * no news, and no short thread's (0.05 s of a loaded run's `sh -c`
	 * was blamed on short threads).
	 */
	if (strcmp(p->engine, "perf") != 0 && r->nunseen > 0 &&
	    cpu - seen < 100.0 * (double)p->interval_ns)
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

	if (cut >= REPORT_CUT_NOTE && stack_size < RECORD_MAX_STACK_SIZE)
		cli_warn("%.0f%% of the call stacks were cut where the %u bytes of "
		    "stack copied with each sample ended (big local arrays, deep "
		    "calls): --stack-size %u keeps more", 100 * cut, stack_size,
		    RECORD_MAX_STACK_SIZE);
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
void
record_verify_memo(int *status)
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

/* The closing line: what was taken, how fast, where it went. */
static void
say_taken(const struct profil_profile *p, const struct record_opts *o,
    const struct record_result *r, const char *path)
{
	double cpu = (double)r->cpu_ns / 1e9;
	char rates[64];

	if (o->samples)
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
	if (!r->kernel_sampled && strcmp(p->engine, "perf") == 0)
		fprintf(stderr, "profil: kernel time is not sampled here "
		    "(perf_event_paranoid %d): %.2f s of it counted from "
		    "the threads' switches, as %s under the calls the "
		    "samples around it share (-e timer places it under "
		    "the calls that entered the kernel)\n", perf_paranoid(),
		    (double)r->kernel_counted * (double)p->interval_ns / 1e9,
		    KSYMS_UNSAMPLED);
}

/* Whether the samples are too few to trust, or stand for too little. */
static void
warn_samples(const struct profil_profile *p, const struct record_opts *o,
    const struct record_result *r)
{
	uint64_t taken = o->samples ? p->taken : p->samples;

	/* what the program wrote over is why samples are missing */
	if (p->refused > 0)
		cli_warn("%llu records of the memory %s shares with the "
		    "recorder could not be true (it wrote over them): "
		    "refused, their samples not in the profile",
		    (unsigned long long)p->refused, o->argv[0]);
	else if (r->nunseen > 0) {
		/* more samples would not see those: judge the rest */
		struct profil_profile seen = *p;

		seen.cpu_ns = p->cpu_ns > r->unseen_ns ?
		    p->cpu_ns - r->unseen_ns : 0;
		warn_unsampled(&seen, r);
	} else if (taken < 100 && !(p->wall != NULL &&
	    wall_mostly_off(p)))
		cli_warn("only %llu samples%s: too few to trust; run "
		    "longer or raise %s", (unsigned long long)taken,
		    p->wall != NULL ? " of the CPU (the time off it is "
		    "measured)" : "", o->samples ? "--samples" : "-F");
	else
		warn_unsampled(p, r);
}

void
record_say_end(const struct profil_profile *p, const struct record_opts *o,
    const struct record_result *r, const char *path, pid_t attach)
{
	say_taken(p, o, r, path);
	if (p->wall != NULL)
		wall_summary(p);
	warn_unseen(r);
	warn_samples(p, o, r);
	warn_cut(p, o->stack_size);
	if (r->wall_unreadable != 0)
		cli_warn("--wall: the stacks of process %d's blocked "
		    "threads cannot be read (%s: not dumpable, set-uid, "
		    "or not ours to trace): its time off the CPU is shown "
		    "without them", (int)r->wall_unreadable,
		    strerror(r->wall_unreadable_errno));
	if (attach == 0)
		warn_left_running(p);
	if (attach == 0 && WIFSIGNALED(r->status))
		cli_error("%s died of signal %d (%s)%s", o->argv[0],
		    WTERMSIG(r->status), strsignal(WTERMSIG(r->status)),
		    WCOREDUMP(r->status) ? ", core dumped" : "");
}
