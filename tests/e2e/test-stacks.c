/*
 * test-stacks.c - call stacks end to end: programs built without frame
 * pointers (tests/programs/workload.c, cxx-workload.cc) recorded with the
 * perf engine, read back through `profil report --callers/--tree/--sort
 * inclusive` and `profil export --format folded`: paths in known
 * proportions, C++ exceptions in flight, deep recursion, the loader's
 * entry outermost, signal handlers, coroutines, threads, children static
 * and stripped.  Shares are checked with margins from the sample counts
 * (4 standard errors); totals exactly.  The programs take CPU seconds, and
 * each run is as long as the samples its checks need (record_for,
 * e2e_longer): too few fail, never pass.
 */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

/*
 * Samples of the folded stacks that hold every one of the frames needles
 * (";"-separated names, matched whole), and of all stacks.  Stacks the
 * recorder left unwound to catch up ("recorder behind": a loaded machine,
 * not a wrong unwind) count in neither.
 */
static double
stacks_with(const char *text, const char *const *needles, double *all)
{
	double with = 0;

	*all = 0;
	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n'), *sp;
		char stack[16384];
		double n;
		int every = 1;

		if (nl == NULL)
			nl = line + strlen(line);
		sp = nl;
		while (sp > line && sp[-1] != ' ')
			sp--;
		n = atof(sp);
		snprintf(stack, sizeof stack, ";%.*s;", (int)(sp - line - 1), line);
		if (strstr(stack, "[stack cut: recorder behind]") != NULL) {
			line = *nl ? nl + 1 : nl;
			continue;
		}
		for (int i = 0; needles[i] != NULL; i++) {
			char want[512];

			snprintf(want, sizeof want, ";%s;", needles[i]);
			every &= strstr(stack, want) != NULL;
		}
		*all += n;
		if (every)
			with += n;
		line = *nl ? nl + 1 : nl;
	}
	return with;
}

/*
 * The share checks here ask whether whole stacks carry the shares that a
 * program's calls have: 5 points for leaf()'s 5:3:2 callers (half the 10
 * between the closest shares, so that no caller is taken for another),
 * 3 for six's 6:3:1 share under whole stacks (as test-record holds the
 * flat split, and as these checks were before they were sized).  A run
 * is sized for its check (share_need) and fails, never passes, short of
 * it.
 */
#define CALLER_POINTS	5.0
#define SPLIT_POINTS	3.0

/* The samples a share of p needs for 4 standard errors of points. */
static double
share_need(double p, double points)
{
	return e2e_samples_for_share(p, 4, points / 100);
}

/*
 * share of n in total is want, within 4 standard errors (1 point at
 * least) and a point more: the split is of work, and equal work is not
 * quite equal CPU time on a loaded machine (split's six() had 57.0% of
 * 4,982 samples with three builds beside it, 3 points from its 60%).
 */
static void
assert_share(const char *what, double n, double total, double scale,
    double want, double points)
{
	/* of the samples the counts are worth (scale: the profile's) */
	double margin = harness_margin(want, total / (scale > 1 ? scale : 1),
	    4, 0.01);

	if (margin > points / 100)
		fail_msg("%s: %.0f samples, %.0f needed for a %.0f-point check",
		    what, total, share_need(want, points), points);
	margin += 0.01;
	if (fabs(n / total - want) > margin)
		fail_msg("%s: %.0f of %.0f (%.1f%%), want %.0f%% +- %.1f", what, n,
		    total, 100 * n / total, 100 * want, 100 * margin);
}

/*
 * What a check that at least 90% of some samples' stacks are whole needs
 * of them: 90% is then 4 standard errors below the 98% seen at the least
 * (55 of 56 signal handler samples went on past the signal frame), so a
 * run does not fail by chance, and a stack wrong one time in ten shows.
 */
static double
most_need(void)
{
	return e2e_samples_for_share(0.98, 4, 0.08);
}

/*
 * The profile that the counts below read: record_for hands its count
 * function the flat profile only, and these count stacks.
 */
static const char *counting;

/* Samples of counting's stacks holding every one of needles (see above). */
static double
counted_with(const char *const *needles)
{
	static struct run r;
	double all;

	e2e_folded(counting, &r);
	return stacks_with(r.out, needles, &all);
}

/* Every sample of counting whose stack was unwound. */
static double
unwound(const struct shares *s)
{
	(void)s;
	return counted_with((const char *[]){ NULL });
}

/*
 * At least 97% of the samples have main (or a thread's start) below them
 * (less 3 standard errors: a sanitized recorder unwinds few).
 */
static void
assert_reaches(const char *prf, const char *const *roots)
{
	struct run r;
	double all, reached = 0;

	e2e_folded(prf, &r);
	for (int i = 0; roots[i] != NULL; i++) {
		const char *one[] = { roots[i], NULL };

		reached += stacks_with(r.out, one, &all);
	}
	/* 97% at least, less 3 standard errors of that many samples */
	if (reached < 0.97 * all - 3 * sqrt(0.97 * 0.03 * all))
		fail_msg("%s: %.0f of %.0f samples unwound to %s", prf, reached, all,
		    roots[0]);
}

/* The flat profile and the stacks agree: same total, same leaves. */
static void
assert_totals_agree(const char *prf)
{
	struct shares s;
	struct run r;
	double all, leaves = 0;

	report(&s, prf);
	e2e_folded(prf, &r);
	/* every stack, those left unwound to catch up too: its count ends it */
	all = 0;
	for (const char *at = r.out; *at; at = strchr(at, '\n') ?
	    strchr(at, '\n') + 1 : at + strlen(at)) {
		const char *nl = strchr(at, '\n'), *sp = nl ? nl : at + strlen(at);

		while (sp > at && sp[-1] != ' ')
			sp--;
		all += atof(sp);
	}
	if (all != s.total)
		fail_msg("%s: the stacks have %.0f samples, the flat view %.0f", prf,
		    all, s.total);
	/* six's samples as a leaf: lines ending in ";six " */
	for (const char *at = r.out; (at = strstr(at, ";six ")) != NULL; at += 5)
		leaves += atof(at + 5);
	if (leaves != samples_of(&s, "six", NULL))
		fail_msg("%s: six is the leaf of %.0f samples, has %.0f", prf,
		    leaves, samples_of(&s, "six", NULL));
}

/*
 * The samples of leaf() whose caller counting's stacks tell: those the
 * recorder left unwound to catch up have none.
 */
static double
leaf_callers(const struct shares *s)
{
	char *callers[] = { profil_bin, "report", "--callers", "leaf",
	    "--format", "csv", (char *)counting, NULL };
	struct shares c;

	(void)s;
	report_run(&c, callers);
	return c.total - samples_of(&c, "[stack cut: recorder behind]", NULL);
}

/*
 * leaf() is reached three ways, 5:3:2: from via_a(), from via_b(), and
 * from cmp_leaf(), which the C library's qsort() calls; built without
 * frame pointers.  The callers' shares come out 5:3:2, the qsort path
 * goes through libc, and the samples unwind to main.  The run is sized
 * for the share of 0.5, the widest error (leaf() has nearly every
 * sample).
 */
static void
test_paths_in_known_proportions(void **state)
{
	static const char *const engines[] = { "perf", "timer" };
	static struct run r;

	(void)state;
	for (size_t e = 0; e < 2; e++) {
		const char *prf = tmp(e ? "paths-timer.prf" : "paths.prf");
		char *prog[] = { workload, "paths", E2E_CPU, NULL };
		char *callers[] = { profil_bin, "report", "--callers", "leaf",
		    "--format", "csv", (char *)prf, NULL };
		char *via_qsort[] = { profil_bin, "report", "--callers",
		    "cmp_leaf", "--format", "csv", (char *)prf, NULL };
		struct shares s, c;
		double total;

		counting = prf;
		record_for(&s, &r, engines[e], prf, prog, 1, share_need(0.5, CALLER_POINTS),
		    leaf_callers);
		report_run(&c, callers);
		/* of the stacks unwound: those left to catch up have no caller */
		total = c.total - samples_of(&c, "[stack cut: recorder behind]",
		    NULL);
		assert_share(engines[e], samples_of(&c, "via_a", NULL), total,
		    s.scale, 0.5, CALLER_POINTS);
		assert_share(engines[e], samples_of(&c, "via_b", NULL), total,
		    s.scale, 0.3, CALLER_POINTS);
		assert_share(engines[e], samples_of(&c, "cmp_leaf", NULL), total,
		    s.scale, 0.2, CALLER_POINTS);
		/* the comparator's caller is qsort's code, in the C library */
		report_run(&c, via_qsort);
		if (samples_of(&c, NULL, "libc.so.6") < 0.9 * c.total)
			fail_msg("%s: cmp_leaf's callers are not libc's:\n%s",
			    engines[e], c.csv);
		assert_reaches(prf, (const char *[]){ "main", NULL });
		assert_totals_agree(prf);
	}
}

/*
 * The stack of a C++ exception in flight unwinds through the runtime:
 * most of the time is the runtime's, under __cxa_throw, most meaning over
 * half by 4 standard errors; the run is sized for those to come to 10
 * points (95% is seen).
 */
static void
test_cxx_exceptions(void **state)
{
	const char *prf = tmp("throw.prf");
	char *prog[] = { cxx_workload, "throw", E2E_CPU, NULL };
	static struct run r;
	struct shares s;
	double all, through, most;

	(void)state;
	counting = prf;
	record_for(&s, &r, "auto", prf, prog, 1,
	    e2e_samples_for_share(0.5, 4, 0.1), unwound);
	e2e_folded(prf, &r);
	through = stacks_with(r.out, (const char *[]){ "main",
	    "geo::catcher(long)", "geo::dive(int)", "__cxa_throw", NULL },
	    &all);
	most = 0.5 + harness_margin(0.5, all, 4, 0);
	if (through < most * all)
		fail_msg("%.0f of %.0f samples under main;catcher;dive;__cxa_throw "
		    "(want over %.0f%%)\n%.2000s", through, all, 100 * most, r.out);
	assert_reaches(prf, (const char *[]){ "main", NULL });
}

/*
 * prf's call tree in 80 columns: no line longer, and the rows of a deep
 * recursion keep their names.  The indentation stops growing at some
 * depth so that names keep their room (it once went on to 40 columns,
 * and every row below the twentieth read "..."); deeper rows say their
 * depth: "[100] deep".
 */
static void
assert_tree_fits(const char *prf)
{
	char *argv[] = { profil_bin, "report", "--tree", (char *)prf, NULL };
	struct run r;

	setenv("COLUMNS", "80", 1);
	run(&r, argv);
	unsetenv("COLUMNS");
	assert_int_equal(r.status, 0);
	for (const char *at = r.out; *at;) {
		size_t len = strcspn(at, "\n"), columns = 0;

		for (size_t i = 0; i < len; i++)
			columns += ((unsigned char)at[i] & 0xc0) != 0x80;
		if (columns > 80)
			fail_msg("%s: a tree line of %zu columns: %.*s", prf, columns,
			    (int)len, at);
		at += len + (at[len] == '\n');
	}
	if (strstr(r.out, "[100] deep") == NULL)
		fail_msg("%s: no row of deep at depth 100:\n%s", prf, r.out);
}

/*
 * --callers' caption: "N in itself" is function's self samples in the
 * flat view, as the leaf at whatever depth (a recursive function's own
 * time below itself was left out: 0 of deep's 357).
 */
static void
assert_self_in_callers_caption(const char *prf, const char *function)
{
	char *callers[] = { profil_bin, "report", "--callers", (char *)function,
	    (char *)prf, NULL };
	const char *at;
	struct shares s;
	struct run r;
	double flat;

	report(&s, prf);
	flat = samples_of(&s, function, NULL);
	run(&r, callers);
	assert_int_equal(r.status, 0);
	/* the caption is wrapped at 80 columns, anywhere between its words */
	for (char *c = r.out; *c; c++)
		if (*c == '\n')
			*c = ' ';
	at = strstr(r.out, "in itself");
	assert_non_null(at);
	while (at > r.out && at[-1] == ' ')
		at--;
	while (at > r.out && at[-1] >= '0' && at[-1] <= '9')
		at--;
	if (atof(at) != flat || flat < 20)
		fail_msg("%s: %.0f in itself by --callers, %.0f in the flat view",
		    function, atof(at), flat);
}

/*
 * Deep recursion: stacks deeper than the unwinder goes are cut and the
 * cut counted, and a stack copy too small for the stack is said so.
 */
/*
 * Every stack of prf cut as too deep holds UNWIND_MAX_DEPTH (128) user
 * frames, whichever engine took it (kernel frames, "_[k]", on top).
 */
static void
assert_cut_at_depth(const char *prf, const char *engine)
{
	static struct run r;
	int stacks = 0;

	e2e_folded(prf, &r);
	for (const char *line = r.out; *line;) {
		const char *nl = strchr(line, '\n'), *at, *count;
		int user = 0;

		if (nl == NULL)
			nl = line + strlen(line);
		for (count = nl; count > line && count[-1] != ' '; count--)
			;
		if ((at = strstr(line, "[stack cut: too deep]")) != NULL &&
		    at < nl && count > line) {
			/* the frames after the cut, up to " COUNT" */
			count--;
			for (const char *f = strchr(at, ';'); f != NULL &&
			    f < count; f = strchr(f + 1, ';')) {
				const char *end = strchr(f + 1, ';');

				if (end == NULL || end > count)
					end = count;
				if (end - f < 5 || strncmp(end - 4, "_[k]", 4) != 0)
					user++;
			}
			stacks++;
			if (user != 128)
				fail_msg("%s: a stack cut as too deep has %d user "
				    "frames: %.*s", engine, user, (int)(nl - line),
				    line);
		}
		line = *nl ? nl + 1 : nl;
	}
	if (stacks == 0)
		fail_msg("%s: no stack cut as too deep", engine);
}

/*
 * The run is sized for what its checks need: most_need() samples in
 * leaf() under deep() (all but a tenth of them cut), and 20 in deep()
 * itself for the caption of --callers to be told from 0 (it has 15% of
 * the samples, leaf() under it 84%).
 */
static void
test_deep_recursion(void **state)
{
	const char *prf = tmp("deep.prf"), *small = tmp("deep-small.prf");
	char secs[32];
	char *prog[] = { workload, "deep", "300", secs, NULL };
	char *rec_small[] = { profil_bin, "record", "-q", "-F", "5000",
	    "--stack-size", "1024", "-o", (char *)small, workload, "deep", "300",
	    secs, NULL };
	static struct run r;
	struct shares s;
	double all, cut, deep_leaf, itself, cpu;
	int runs = 0;

	(void)state;
	cpu = atof(e2e_cpu_for(20 / 0.15, 1));
	for (;;) {
		snprintf(secs, sizeof secs, "%.3f", cpu);
		record_ok(prf, prog);
		e2e_folded(prf, &r);
		deep_leaf = stacks_with(r.out, (const char *[]){ "deep", "leaf",
		    NULL }, &all);
		report(&s, prf);
		itself = samples_of(&s, "deep", NULL);
		if (deep_leaf >= most_need() && itself >= 20)
			break;
		if (runs == 2)
			fail_msg("%.0f samples in leaf under deep (%.0f needed), "
			    "%.0f in deep (20 needed), in the third run", deep_leaf,
			    most_need(), itself);
		cpu = e2e_longer(cpu, fmin(deep_leaf / most_need(), itself / 20),
		    1, &runs);
	}
	cut = stacks_with(r.out, (const char *[]){ "[stack cut: too deep]",
	    NULL }, &all);
	if (cut < 0.9 * deep_leaf)
		fail_msg("%.0f of %.0f samples in leaf under deep are cut as too "
		    "deep", cut, deep_leaf);
	assert_totals_agree(prf);
	assert_tree_fits(prf);
	assert_self_in_callers_caption(prf, "deep");
	assert_cut_at_depth(prf, "perf");
	record_with("timer", prf, prog);
	assert_cut_at_depth(prf, "timer");
	run(&r, rec_small);
	assert_int_equal(r.status, 0);
	e2e_folded(small, &r);
	cut = stacks_with(r.out, (const char *[]){ "[stack cut: past the stack "
	    "copied]", NULL }, &all);
	if (cut < 0.5 * all)
		fail_msg("%.0f of %.0f samples cut at a 1 KiB stack copy", cut, all);
}

/*
 * A process starts in the dynamic loader's entry point, which has no
 * call-frame information and no caller: stacks of the loader's start-up
 * (_dl_start and under) end there whole, not as cut short for want of
 * unwind information (every dynamically linked program's first
 * milliseconds; 4% of a python3 script's samples).  Runs of true give
 * the loader its samples, a fixed amount of work each (about 0.4 ms of
 * CPU here: 666 samples at 5 kHz in 300 runs): as many runs as 20 samples
 * under _dl_start need, more where fewer came.  At 10 kHz, sanitized
 * too: a process's first sample comes a whole period into it (its clock
 * is inherited at fork), so at 1 kHz a run of true had none, and 300 of
 * them 5.  That frame is named
 * by the loader's symbol _start (a label: no type, no size, in its debug
 * file) or by the entry point's address, not by the end of the code
 * before it.
 */
#define LOADER "/lib64/ld-linux-x86-64.so.2"

static void
test_loader_entry_is_outermost(void **state)
{
	const char *prf = tmp("loader.prf"), *path = tmp("loader.folded");
	char loop[128];
	char *rec[] = { profil_bin, "record", "-q", "-F", "10000", "-o",
	    (char *)prf, "/bin/sh", "-c", loop, NULL, NULL, NULL };
	/* many processes' stacks: more than a run's 64 KiB */
	char *export[] = { profil_bin, "export", "--format", "folded", "-o",
	    (char *)path, (char *)prf, NULL };
	double all, start, cut, trues;
	struct run r;
	char *text, line[256], entry[80] = "";
	FILE *f;
	long size;
	unsigned long long e = 0;
	int named = 0, runs = 0;

	(void)state;
	f = popen("readelf -h " LOADER, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, " Entry point address: %llx", &e) == 1)
			snprintf(entry, sizeof entry, "%s+%#llx;",
			    strrchr(LOADER, '/') + 1, e);
	assert_int_equal(pclose(f), 0);
	assert_true(e != 0);
	if (getenv("PROFIL_TEST_SANITIZED") != NULL) {
		/* the stack copied with each sample as record_run's */
		memmove(&rec[9], &rec[7], 3 * sizeof *rec);
		rec[7] = "--stack-size";
		rec[8] = "8192";
	}
	for (trues = ceil(1.15 * 20 / (0.0004 * 10000));;) {
		snprintf(loop, sizeof loop, "i=0; while [ $i -lt %.0f ]; do "
		    "/bin/true; i=$((i+1)); done", trues);
		run(&r, rec);
		if (r.status != 0)
			fail_msg("record exited %d: %s", r.status, r.err);
		run(&r, export);
		assert_int_equal(r.status, 0);
		assert_non_null(f = fopen(path, "r"));
		assert_int_equal(fseek(f, 0, SEEK_END), 0);
		assert_true((size = ftell(f)) > 0);
		rewind(f);
		text = calloc(1, (size_t)size + 1);
		assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
		fclose(f);
		start = stacks_with(text, (const char *[]){ "_dl_start", NULL },
		    &all);
		if (start >= 20)
			break;
		free(text);
		trues = ceil(e2e_longer(trues, start, 20, &runs));
	}
	cut = 0;
	for (const char *at = text; (at = strstr(at,
	    "[stack cut: no unwind information];ld-linux")) != NULL; at++)
		if (at == text || at[-1] == '\n') {
			const char *nl = strchr(at, '\n'), *sp = nl;

			while (sp > at && sp[-1] != ' ')
				sp--;
			cut += atof(sp);
		}
	for (const char *at = text; (at = strstr(at, ";_dl_start;")) != NULL;
	    at++) {
		const char *bol = at;

		while (bol > text && bol[-1] != '\n')
			bol--;
		if (*bol != '[' && strncmp(bol, "_start;", 7) != 0 &&
		    strncmp(bol, entry, strlen(entry)) != 0)
			fail_msg("the loader's entry named otherwise: %.80s "
			    "(its entry is %s)", bol, entry);
		named++;
	}
	free(text);
	if (named == 0)
		fail_msg("no stack of _dl_start under the loader's entry");
	if (cut > 0)
		fail_msg("%.0f samples cut at the loader's entry (%.0f under "
		    "_dl_start)", cut, start);
}

/* Samples of counting in the signal handler. */
static double
in_handler_of(const struct shares *s)
{
	(void)s;
	return counted_with((const char *[]){ "on_sigprof", NULL });
}

/*
 * A signal handler's stack goes on past the signal frame to main.  The
 * handler has about 5% of the samples here (fixed work every 2 ms of
 * CPU): the run is sized for most_need() in it as if the program ran a
 * twentieth of a second for each asked, and longer where fewer came.
 */
static void
test_signal_handler(void **state)
{
	const char *prf = tmp("signal.prf");
	char *prog[] = { workload, "signal", E2E_CPU, NULL };
	static struct run r;
	struct shares s;
	double all, in_handler, through;

	(void)state;
#ifdef __SANITIZE_THREAD__
	SKIP("TSan runs a signal handler later, from its own code, not "
	    "where the signal came");
#endif
	/*
	 * Where perf events are refused the timer engine's CPU timer fires
	 * at the tick, as the program's ITIMER_PROF does: its sample is
	 * taken as the tick returns to the program, before the handler
	 * runs, and the handler's work (under a tick) is never where a
	 * tick falls.  Code run only just after ticks is invisible there.
	 */
	if (!harness_perf_allowed())
		SKIP("perf events refused here: the program's own tick timer "
		    "and the timer engine's fire together, so no sample falls "
		    "in its handler");
	/* its handler's share comes at 5 kHz (0 samples at 1 kHz, ASan) */
	e2e_rate_when_sanitized = "5000";
	counting = prf;
	record_for(&s, &r, "auto", prf, prog, 0.05, most_need(), in_handler_of);
	e2e_rate_when_sanitized = "1000";
	e2e_folded(prf, &r);
	in_handler = stacks_with(r.out, (const char *[]){ "on_sigprof", NULL },
	    &all);
	through = stacks_with(r.out, (const char *[]){ "main", "via_a",
	    "__restore_rt", "on_sigprof", NULL }, &all);
	if (through < 0.9 * in_handler)
		fail_msg("%.0f samples in the handler, %.0f of them under "
		    "main;...;__restore_rt", in_handler, through);
}

/*
 * The fewer of counting's samples of leaf() on either side, main's or the
 * coroutine's (each has about half).
 */
static double
fewer_side(const struct shares *s)
{
	double co = counted_with((const char *[]){ "via_b", "leaf", NULL });
	double main_side = counted_with((const char *[]){ "leaf", NULL }) - co;

	(void)s;
	return fmin(main_side, co);
}

/*
 * A coroutine (makecontext) runs on a stack of its own that ends at an
 * unreadable page: its stacks end at the trampoline makecontext put under
 * co_main (glibc's __start_context, whose address is on the stack as if
 * called, after padding that has no CFI: a whole stack, not one cut for
 * want of unwind information), main's reach main, and neither borrows the
 * other's frames.  The timer engine's
 * handler remembered where the last copy stopped and cut every later copy
 * there: once a coroutine's sample had stopped below main's stack, each
 * of main's samples was cut at its leaf ("past the stack copied").  The
 * run is sized for most_need() on either side.
 */
static void
test_coroutine(void **state)
{
	static const char *const engines[] = { "perf", "timer" };
	char *prog[] = { workload, "coroutine", E2E_CPU, NULL };

	(void)state;
	for (int i = 0; i < 2; i++) {
		const char *prf = tmp("coroutine.prf");
		double all, on_main, main_whole, on_co, co_whole, joined, cut;
		static struct run r;
		struct shares s;

		counting = prf;
		record_for(&s, &r, engines[i], prf, prog, 0.5, most_need(),
		    fewer_side);
		e2e_folded(prf, &r);
		/* leaf() on main's side: every leaf not under via_b */
		on_main = stacks_with(r.out, (const char *[]){ "leaf", NULL },
		    &all) - stacks_with(r.out, (const char *[]){ "via_b", "leaf",
		    NULL }, &all);
		main_whole = stacks_with(r.out, (const char *[]){ "main",
		    "coroutine", "via_a", "leaf", NULL }, &all);
		on_co = stacks_with(r.out, (const char *[]){ "via_b", "leaf",
		    NULL }, &all);
		co_whole = stacks_with(r.out, (const char *[]){ "co_main",
		    "via_b", "leaf", NULL }, &all);
		joined = stacks_with(r.out, (const char *[]){ "main", "co_main",
		    NULL }, &all);
		cut = stacks_with(r.out, (const char *[]){ "co_main",
		    "[stack cut: no unwind information]", NULL }, &all);
		if (main_whole < 0.9 * on_main || co_whole < 0.9 * on_co ||
		    joined > 0 || cut > 0)
			fail_msg("%s: %.0f of %.0f main-side stacks reach main, "
			    "%.0f of %.0f coroutine ones co_main, %.0f both, %.0f "
			    "cut above co_main:\n%s", engines[i], main_whole,
			    on_main, co_whole, on_co, joined, cut, r.out);
	}
}

/* Threads: each thread's stacks end at its start routine. */
static void
test_threads(void **state)
{
	const char *prf = tmp("threads.prf");
	char *prog[] = { workload, "threads", "4", E2E_CPU, NULL };
	static struct run r;
	struct shares s;
	double all, threads;

	(void)state;
	counting = prf;
	record_for(&s, &r, "auto", prf, prog, 4, share_need(0.6, SPLIT_POINTS), unwound);
	e2e_folded(prf, &r);
	threads = stacks_with(r.out, (const char *[]){ "thread_main", "split",
	    "six", NULL }, &all);
	assert_share("thread_main;split;six", threads, all, s.scale, 0.6,
	    SPLIT_POINTS);
	assert_reaches(prf, (const char *[]){ "thread_main", "main", NULL });
	assert_totals_agree(prf);
}

/* A child that execs, a static binary, a stripped one with a debuglink. */
static void
test_children_static_and_stripped(void **state)
{
	const char *fe = tmp("fe.prf"), *st = tmp("static.prf");
	const char *dl = tmp("debuglink.prf"), *bin = tmp("wl-stripped");
	char *forkexec[] = { workload, "forkexec", E2E_CPU, NULL };
	char *stat[] = { workload_static, "split", "0.44", NULL };
	char *stripped[] = { (char *)bin, "split", E2E_CPU, NULL };
	char cmd[4 * PATH_MAX];
	static struct run r;
	struct shares s;
	double all, both;

	(void)state;
	counting = fe;
	record_for(&s, &r, "auto", fe, forkexec, 2, share_need(0.6, SPLIT_POINTS), unwound);
	e2e_folded(fe, &r);
	both = stacks_with(r.out, (const char *[]){ "main", "split", "six",
	    NULL }, &all);
	assert_share("main;split;six in both processes", both, all, s.scale,
	    0.6, SPLIT_POINTS);
	assert_reaches(fe, (const char *[]){ "main", NULL });

	/* a static binary takes perf events: LD_PRELOAD cannot reach it */
	if (harness_perf_allowed()) {
		record_ok(st, stat);
		assert_reaches(st, (const char *[]){ "main", NULL });
		assert_totals_agree(st);
	}

	/* the debug file beside it, found by its .gnu_debuglink */
	snprintf(cmd, sizeof cmd, "cp %s %s && objcopy --only-keep-debug %s "
	    "%s.debug && strip --strip-all %s && objcopy "
	    "--add-gnu-debuglink=%s.debug %s", workload, bin, bin, bin, bin, bin,
	    bin);
	assert_int_equal(system(cmd), 0);
	counting = dl;
	record_for(&s, &r, "auto", dl, stripped, 1, share_need(0.6, SPLIT_POINTS), unwound);
	assert_reaches(dl, (const char *[]){ "main", NULL });
	e2e_folded(dl, &r);
	both = stacks_with(r.out, (const char *[]){ "main", "split", "six",
	    NULL }, &all);
	assert_share("main;split;six, named from the debug file", both, all,
	    s.scale, 0.6, SPLIT_POINTS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_in_known_proportions),
		cmocka_unit_test(test_cxx_exceptions),
		cmocka_unit_test(test_deep_recursion),
		cmocka_unit_test(test_loader_entry_is_outermost),
		cmocka_unit_test(test_signal_handler),
		cmocka_unit_test(test_coroutine),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_children_static_and_stripped),
	};

	/* sanitized, the recorder unwinds 1 kHz of stacks, not 5 (TSan's:
	   50 of 3,062 samples unwound at 5 kHz, all 996 at 1 kHz) */
	e2e_rate_when_sanitized = "1000";
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
