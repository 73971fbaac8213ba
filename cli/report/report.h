/*
 * report.h - the views of `profil report` (views.h lists them, with
 * the option that picks each).  cmd-report.c parses the options and
 * reads the profile; each view prints one table or picture
 * of it to stdout (text, CSV or JSON) and returns 0, or prints nothing
 * and returns -1 with a one-line cause (the command turns it into the
 * error message).
 */
#ifndef PROFIL_REPORT_H
#define PROFIL_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <profil.h>

#include "model/funcs.h"
#include "model/stacks.h"
#include "table.h"

enum { SORT_SAMPLES, SORT_FUNCTION, SORT_OBJECT, SORT_INCLUSIVE };

struct report_options {
	int format;		/* FORMAT_TEXT, _CSV, _JSON (table.h) */
	int sort;		/* SORT_* for the flat view */
	double min_percent;	/* rows below it are left out; -1: not given */
	long limit;		/* at most this many rows; -1: all */
	/*
	 * the view's argument (views.h): --histogram FUNCTION|OBJECT,
	 * --annotate, --callers, --callees FUNCTION, --html PAGE
	 */
	const char *target;
	struct table_style style;	/* how text is printed */
	const char *caption;	/* first line of text output */
};

/* Percent of k in n (0 when n is 0). */
double report_percent(uint64_t k, uint64_t n);

/*
 * " (N%)", the share of part_s seconds in whole_s, into buf; "" when the
 * whole shows as nothing ("0.00 s": under 5 ms), for a share of what
 * reads as zero is no figure, neither 0% nor 100%.  The one rule of the
 * lines that give seconds and their share (record's and report's).
 * Returns buf.
 */
const char *report_share_of(double part_s, double whole_s, char *buf,
    size_t size);
#define REPORT_SHOWN_ZERO_S	0.005

/*
 * How much wider than the counts say the errors of p's shares are: its
 * samples weigh their intervals (record --samples, CPU timers above the
 * tick rate), and a share of n counts is as precise as one of n / scale
 * unweighted samples, scale = weight_sq / samples (Kish's effective
 * sample size).  1 without a weights record.
 */
double report_error_scale(const struct profil_profile *p);

/*
 * Whether p's samples weigh differently (a budget, or weights that widen
 * the errors by more than rounding): the captions then say how many were
 * taken and what they are worth.
 */
int report_weighted(const struct profil_profile *p);

/*
 * The rates p was sampled at, into buf: "10000 Hz down to 156 Hz", or
 * "1000 Hz" when it stayed at one.  Returns buf.
 */
const char *report_rates(const struct profil_profile *p, char *buf,
    size_t size);

/*
 * The CPU time the samples (kept and lost) stand for, in *seen_ns: about
 * the program's CPU time (0.97-1.01 of it in the tests' recordings).  1
 * when it is under 80% of it on a run of 50 periods or more: time the
 * clocks never saw (threads or processes shorter than a period, kernel
 * time where perf may sample user mode only); else 0.
 */
int report_unsampled(const struct profil_profile *p, double *seen_ns);

/*
 * The time stack st of p stands for, in ns: its samples' CPU time
 * (count x interval: weighted counts are in intervals), or for a wall
 * profile's stack off the CPU its time there (off_ns; also in a wall
 * view, whose off-CPU stacks count intervals as well).  What a cut
 * stack's share is counted in (report_cut_share).
 */
double report_stack_ns(const struct profil_profile *p,
    const struct profil_stack *st);

/* 1 if st ends in a cut (its reason, PROFIL_CUT_*, in *reason), else 0. */
int report_stack_cut(const struct profil_profile *p,
    const struct profil_stack *st, uint64_t *reason);

/*
 * The share of p's time whose call stack was cut for reason
 * (PROFIL_CUT_*, or REPORT_CUT_ANY), each stack counted by the time it
 * stands for (report_stack_ns): of a CPU profile, the share of its
 * samples; of a wall profile, of its threads' time, on the CPU and off
 * it.  0 without stacks.  The one figure record, report and check give
 * (profil(1), check), always of the profile as recorded, not of a view
 * (report --cpu's leaves the time off the CPU out).  From REPORT_CUT_NOTE
 * on, record and report say so for the cuts past the stack copied
 * (PROFIL_CUT_STACK, naming --stack-size) and at a page the kernel did
 * not copy (PROFIL_CUT_UNREAD, naming the timer engine): the callers of
 * so much time are missing from every inclusive figure, and check alone
 * said it (a program with a 16 KiB buffer on its stack had every stack
 * cut, and the views said nothing).
 */
double report_cut_share(const struct profil_profile *p, uint64_t reason);
#define REPORT_CUT_ANY	UINT64_MAX
#define REPORT_CUT_NOTE	0.10

/*
 * Every object, then [kernel], [unknown] and [lost], most samples first
 * (zeros included); malloc'd, *count entries.  Paths are "" for the last
 * three.  Shares are of samples + lost.
 */
struct object_share {
	const char *name, *path;
	uint64_t n;
};
struct object_share *report_object_shares(const struct profil_profile *p,
    size_t *count);

/*
 * How a process ended, in words, from its profile's exit_status (a wait(2)
 * status, or one of the two markers below): "exit 3", "signal 11
 * (SIGSEGV)", "signal 6 (SIGABRT), core dumped", "running" (still running
 * when the recording ended), "ended" (its status could not be learnt:
 * cli/record/exits.h), or "unknown (0x...)" for a value no wait status
 * has.  Into buf (40 bytes are enough); returns buf.
 */
#define REPORT_STATUS_UNKNOWN	(-1)
#define REPORT_STATUS_RUNNING	(-2)
const char *report_exit_status(int32_t status, char *buf, size_t size);

/* The flat view; with s (stacks named, or NULL), inclusive columns too. */
void report_flat(const struct profil_profile *p, struct funcs *f,
    const struct stacks *s, const struct report_options *o);
void report_objects(const struct profil_profile *p,
    const struct report_options *o);
void report_threads(const struct profil_profile *p,
    const struct report_options *o);
void report_processes(const struct profil_profile *p,
    const struct report_options *o);

/*
 * PROHIST's picture: bars over address ranges of one function or object
 * (o->target; the busiest object when NULL), labelled with functions.
 */
int report_histogram(const struct profil_profile *p, const struct funcs *f,
    const struct report_options *o, char *cause, size_t cause_size);

/*
 * [lo, hi) of object ob cut into at most nbins bins, each a whole number
 * of buckets wide, with their samples and the function that has the most
 * samples in each (demangled; else the function at the bin's start).
 * *count receives the number of bins; free with report_bins_free.
 */
struct hist_bin {
	uint64_t start, end, samples;
	const char *label;	/* NULL when no function is there */
	uint64_t label_samples;	/* the label's samples in this bin */
	char *demangled;	/* owned copy behind label, if any */
};
struct hist_bin *report_bins(const struct profil_object *ob,
    struct symtab *tab, uint64_t lo, uint64_t hi, size_t nbins,
    size_t *count);
void report_bins_free(struct hist_bin *bins, size_t n);

/* One function's source lines (or addresses) with their samples. */
int report_annotate(const struct profil_profile *p, const struct funcs *f,
    const struct report_options *o, char *cause, size_t cause_size);

/*
 * Callers (callees 0) or callees of function o->target: gprof's entry for
 * it, each caller's (callee's) share of the time with it on the stack;
 * [root] where it is outermost, [self] where it is the leaf.
 */
int report_calls(const struct profil_profile *p, const struct stacks *s,
    const struct report_options *o, int callees, char *cause,
    size_t cause_size);

/*
 * The top-down call tree, from each stack's outermost function in, with
 * inclusive and self shares; paths under o->min_percent (1% when not
 * given) left out.
 */
int report_tree(const struct profil_profile *p, const struct stacks *s,
    const struct report_options *o, char *cause, size_t cause_size);

/*
 * One self-contained HTML page: tables, SVG pictures and the flame graph
 * of s (named on p with f's tables; a line saying it needs stacks when p
 * has none); above it, when rec (the profile p is the view of: p itself,
 * or NULL, when no wall view) has a timeline, a track per thread and
 * windows of the run (html.h).
 */
int report_html(const struct profil_profile *p,
    const struct profil_profile *rec, const struct funcs *f,
    const struct stacks *s, const char *path, char *cause, size_t cause_size);

/*
 * The page's flame graph section (flame.c) on fp: s's stacks merged by
 * function along each path, boxes under 0.1% of the samples left out,
 * as data and the script that draws, zooms and searches it.
 */
void report_flame_html(FILE *fp, const struct profil_profile *p,
    const struct stacks *s);

#endif
