/*
 * test-stacks.c - call stacks end to end: programs built without frame
 * pointers (tests/workload.c, cxx-workload.cc) recorded with the perf
 * engine, read back through `profil report --callers/--tree/--sort
 * inclusive` and `profil export --format folded`.  Shares are checked
 * with margins from the sample counts (4 standard errors); totals exactly.
 * The programs take CPU seconds, and each run is as long as the samples
 * its checks need (record_for, e2e_longer): too few fail, never pass.
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

static char cxx[PATH_MAX];

/* The folded stacks of prf (export --format folded -o -). */
static void
folded(const char *prf, struct run *r)
{
	char *argv[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    (char *)prf, NULL };

	run(r, argv);
	if (r->status != 0)
		fail_msg("export folded exited %d: %s", r->status, r->err);
}

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

/* share of n in total is want, within 4 standard errors (1 point at least) */
static void
assert_share(const char *what, double n, double total, double want,
    double points)
{
	double margin = harness_margin(want, total, 4, 0.01);

	if (margin > points / 100)
		fail_msg("%s: %.0f samples, %.0f needed for a %.0f-point check",
		    what, total, share_need(want, points), points);
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

	folded(counting, &r);
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

	folded(prf, &r);
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
	folded(prf, &r);
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
		assert_share(engines[e], samples_of(&c, "via_a", NULL), total, 0.5,
		    CALLER_POINTS);
		assert_share(engines[e], samples_of(&c, "via_b", NULL), total, 0.3,
		    CALLER_POINTS);
		assert_share(engines[e], samples_of(&c, "cmp_leaf", NULL), total,
		    0.2, CALLER_POINTS);
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
	char *prog[] = { cxx, "throw", E2E_CPU, NULL };
	static struct run r;
	struct shares s;
	double all, through, most;

	(void)state;
	counting = prf;
	record_for(&s, &r, "auto", prf, prog, 1,
	    e2e_samples_for_share(0.5, 4, 0.1), unwound);
	folded(prf, &r);
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

	folded(prf, &r);
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
		folded(prf, &r);
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
	folded(small, &r);
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
	/* its handler's share comes at 5 kHz (0 samples at 1 kHz, ASan) */
	e2e_rate_when_sanitized = "5000";
	counting = prf;
	record_for(&s, &r, "auto", prf, prog, 0.05, most_need(), in_handler_of);
	e2e_rate_when_sanitized = "1000";
	folded(prf, &r);
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
		folded(prf, &r);
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

/*
 * The stack memo (cli/record/unwind/stackmemo.h) answers most samples of a
 * program that spends its time in a few loops, and every answer is the
 * stack libdwfl gives: with PROFIL_UNWIND_VERIFY=1 the recorder unwinds
 * each answered sample again, and fails the run on any difference.  On
 * programs whose stacks vary (qsort's recursion, C++ exceptions in
 * flight through the unwinder, a signal handler, threads, recursion)
 * and with both engines.
 */
static void
memo_run(const char *engine, char **prog, double *answered, double *all)
{
	static struct run r;
	const char *at;
	unsigned long long hits, misses, wrong;

	setenv("PROFIL_UNWIND_VERIFY", "1", 1);
	record_run(&r, engine, tmp("memo.prf"), prog);
	unsetenv("PROFIL_UNWIND_VERIFY");
	at = strstr(r.err, "unwind memo: ");
	if (at == NULL || sscanf(at, "unwind memo: %llu answered, %llu "
	    "unwound, %llu wrong", &hits, &misses, &wrong) != 3)
		fail_msg("%s %s: no memo counts: %s", engine, prog[1], r.err);
	if (wrong != 0)
		fail_msg("%s %s: %llu memo answers wrong", engine, prog[1], wrong);
	*answered = (double)hits;
	*all = (double)(hits + misses);
}

/*
 * A loop under the same callers: answered but for the first few stacks
 * (5 to 42 here, the loader's and start-up's among them), so most of
 * 200 samples at the least; the run is sized for them.
 */
static void
assert_memo_answers_split(const char *engine)
{
	const double need = 200;
	double cpu = atof(e2e_cpu_for(need, 1)), answered, all;
	char secs[32];
	char *split[] = { workload, "split", secs, NULL };
	int runs = 0;

	for (;;) {
		snprintf(secs, sizeof secs, "%.3f", cpu);
		memo_run(engine, split, &answered, &all);
		if (all >= need)
			break;
		cpu = e2e_longer(cpu, all, need, &runs);
	}
	if (answered < 0.5 * all)
		fail_msg("split, %s engine: %.0f of %.0f samples answered by the "
		    "memo", engine, answered, all);
}

static void
test_memo_answers_as_unwinding_would(void **state)
{
	char *paths[] = { workload, "paths", "0.111", NULL };
	char *threads[] = { workload, "threads", "3", "0.055", NULL };
	char *sig[] = { workload, "signal", "0.11", NULL };
	char *throws[] = { cxx, "throw", "0.39", NULL };
	char *deep[] = { workload, "deep", "60", "0.15", NULL };
	char **progs[] = { paths, threads, sig, throws, deep, NULL };
	double answered, all;

	(void)state;
	assert_memo_answers_split("perf");
	assert_memo_answers_split("timer");
	for (int i = 0; progs[i] != NULL; i++)
		memo_run("perf", progs[i], &answered, &all);
	memo_run("timer", throws, &answered, &all);
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
	folded(prf, &r);
	threads = stacks_with(r.out, (const char *[]){ "thread_main", "split",
	    "six", NULL }, &all);
	assert_share("thread_main;split;six", threads, all, 0.6, SPLIT_POINTS);
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
	folded(fe, &r);
	both = stacks_with(r.out, (const char *[]){ "main", "split", "six",
	    NULL }, &all);
	assert_share("main;split;six in both processes", both, all, 0.6,
	    SPLIT_POINTS);
	assert_reaches(fe, (const char *[]){ "main", NULL });

	record_ok(st, stat);
	assert_reaches(st, (const char *[]){ "main", NULL });
	assert_totals_agree(st);

	/* the debug file beside it, found by its .gnu_debuglink */
	snprintf(cmd, sizeof cmd, "cp %s %s && objcopy --only-keep-debug %s "
	    "%s.debug && strip --strip-all %s && objcopy "
	    "--add-gnu-debuglink=%s.debug %s", workload, bin, bin, bin, bin, bin,
	    bin);
	assert_int_equal(system(cmd), 0);
	counting = dl;
	record_for(&s, &r, "auto", dl, stripped, 1, share_need(0.6, SPLIT_POINTS), unwound);
	assert_reaches(dl, (const char *[]){ "main", NULL });
	folded(dl, &r);
	both = stacks_with(r.out, (const char *[]){ "main", "split", "six",
	    NULL }, &all);
	assert_share("main;split;six, named from the debug file", both, all, 0.6,
	    SPLIT_POINTS);
}

/*
 * A stripped program with no debug file: its functions are named by
 * their call-frame entries, OBJECT+0xSTART, one name per function, so a
 * name in its stacks inside an entry's range (as binutils' readelf lists
 * them) is that entry's start.  A name per row of the CFI table (from
 * one push or pop to the next) split a caller's time over several names
 * (xz's encoder loop: 40% of the samples under one, its 69% under ten).
 * Code no entry covers (crtstuff's, built without) is a guess, not held
 * to this.
 */
static void
test_stripped_functions_named_by_their_entry(void **state)
{
	const char *bin = tmp("wl-bare"), *prf = tmp("bare.prf");
	char *prog[] = { (char *)bin, "paths", "0.167", NULL };
	char cmd[3 * PATH_MAX], line[512];
	uint64_t starts[4096], ends[4096];
	size_t nstarts = 0;
	int names = 0, callers = 0;
	struct run r;
	FILE *f;

	(void)state;
	snprintf(cmd, sizeof cmd, "cp %s %s && strip --strip-all %s",
	    workload, bin, bin);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "readelf --debug-dump=frames %s", bin);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL && nstarts < 4096) {
		const char *pc = strstr(line, " FDE ");

		if (pc != NULL && (pc = strstr(pc, "pc=")) != NULL &&
		    strstr(pc, "..") != NULL) {
			starts[nstarts] = strtoull(pc + 3, NULL, 16);
			ends[nstarts++] = strtoull(strstr(pc, "..") + 2, NULL, 16);
		}
	}
	assert_int_equal(pclose(f), 0);
	assert_true(nstarts > 10);
	record_ok(prf, prog);
	folded(prf, &r);
	for (const char *at = r.out; (at = strstr(at, "wl-bare+0x")) != NULL;
	    at++) {
		uint64_t start = strtoull(at + 10, NULL, 16);
		size_t i;

		for (i = 0; i < nstarts && !(starts[i] <= start &&
		    start < ends[i]); i++)
			;
		if (i == nstarts)
			continue;
		if (start != starts[i])
			fail_msg("%.40s: inside the call-frame entry %#llx..%#llx",
			    at, (unsigned long long)starts[i],
			    (unsigned long long)ends[i]);
		names++;
		/* a caller: another frame follows it on the line */
		callers += strchr(at, ';') != NULL &&
		    strchr(at, ';') < strchr(at, '\n');
	}
	/* enough to tell (a sanitized run: 12 names, 9 of them callers) */
	if (names < 5 || callers < 3)
		fail_msg("%d names of the stripped program, %d as callers:\n%s",
		    names, callers, r.out);
}

/*
 * PLT stubs have no symbol: a program calling labs() in a loop spends a
 * share in "labs@plt", named from the stub's GOT slot and .rela.plt, and
 * called from main.  The stub's share depends on where the machine's
 * interrupts land in a six-instruction loop: 0.4% to 11% of the samples
 * in runs here (13 of 3023 at the least), once 0.06%.  The program loops
 * for the CPU seconds it is given, reading its clock through a pointer
 * (no other stub in it), and is run until 5 stub samples are seen.
 */
static void
test_plt_stubs_named(void **state)
{
	const char *src = tmp("plt.c"), *bin = tmp("plt"), *prf = tmp("plt.prf");
	char *callers[] = { profil_bin, "report", "--callers", "labs@plt",
	    "--format", "csv", (char *)prf, NULL };
	char ms[32];
	char *rec[] = { profil_bin, "record", "-q", "-F", "5000", "-o",
	    (char *)prf, (char *)bin, ms, NULL };
	char cmd[3 * PATH_MAX];
	struct shares s, c;
	double stub = 0, all = 0, here, cpu;
	struct run r;
	FILE *f;

	(void)state;
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
	    "static int (*volatile cpu_clock)(clockid_t, struct timespec *) =\n"
	    "    clock_gettime;\nint main(int argc, char **argv)\n{\n"
	    "\tstruct timespec ts;\n\tlong s = 0, i = 0, ms = 0;\n"
	    "\tfor (const char *d = argv[1]; *d; d++)\n"
	    "\t\tms = ms * 10 + *d - '0';\n\tdo {\n"
	    "\t\tfor (long n = i + 10000000; i < n; i++)\n"
	    "\t\t\ts += labs(i - 5);\n"
	    "\t\tcpu_clock(CLOCK_PROCESS_CPUTIME_ID, &ts);\n"
	    "\t} while (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 < ms);\n"
	    "\tprintf(\"%ld\\n\", s);\n\treturn 0;\n}\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof cmd, "cc -O2 -fno-builtin -fPIE -pie -o %s %s", bin,
	    src);
	assert_int_equal(system(cmd), 0);
	/*
	 * 5 kHz even when sanitized.  Stubs must be named whenever they are
	 * sampled, not sampled often: the first run is sized for 5 at 0.4%,
	 * the next for what is missing at the share seen so far (4 times as
	 * long when none was), 5 runs at most.  The program takes whole
	 * milliseconds, read without a call (no stub of strtod's either).
	 */
	cpu = 1.15 * (5 / 0.004) / 5000;
	for (int tries = 0; tries < 5 && stub < 5; tries++) {
		snprintf(ms, sizeof ms, "%.0f", 1000 * cpu);
		run(&r, rec);
		assert_int_equal(r.status, 0);
		report(&s, prf);
		here = samples_of(&s, "labs@plt", "plt");
		stub += here;
		all += s.total;
		cpu *= stub > 0 ? fmin(4, fmax(1, 1.15 * (5 - stub) * all /
		    stub / 5000 / cpu)) : 4;
		/*
		 * every sample of the program named: the stub's are not left
		 * as an address ("plt+0x1030") or unnamed code, whatever else
		 * a sample happens on (start-up and exit code is rare, but
		 * named: CI once saw a row beside main and the stub)
		 */
		for (const char *row = strchr(s.csv, '\n') + 1; *row;
		    row = strchr(row, '\n') + 1) {
			char fn[512], obj[512];

			if (sscanf(row, "%511[^,],%511[^,],", fn, obj) == 2 &&
			    strcmp(obj, "plt") == 0 && (fn[0] == '[' ||
			    strstr(fn, "+0x") != NULL))
				fail_msg("an unnamed sample of the program: %s\n%s",
				    fn, s.csv);
		}
		if (here == 0)
			continue;
		report_run(&c, callers);
		/* every caller unwound is main (a loaded recorder leaves some) */
		assert_true(samples_of(&c, "main", "plt") == c.total -
		    samples_of(&c, "[stack cut: recorder behind]", NULL));
	}
	if (stub < 5)
		fail_msg("%.0f labs@plt samples of %.0f in 5 runs, 5 needed; the "
		    "last:\n%s", stub, all, s.csv);
}

/*
 * The recorder's program (a child of the recorder at pid, running
 * workload), once it has run `cpu` seconds of CPU: the tests that stop
 * the recorder stop it while its program runs, whatever the machine's
 * load.  Polls /proc; fails after 60 s.
 */
static pid_t
program_running(pid_t recorder, double cpu)
{
	struct timespec ms = { 0, 1000000 };
	pid_t program;

	for (int i = 0; i < 60000; i++) {
		program = e2e_child_of(recorder);
		if (program > 0 && e2e_runs(program, workload) &&
		    e2e_cpu_seconds(program) >= cpu)
			return program;
		nanosleep(&ms, NULL);
	}
	fail_msg("the recorder's program did not run %.2f s of CPU in 60 s",
	    cpu);
	return 0;
}

/*
 * Wait until program has run `cpu` more seconds of CPU than `from` (or
 * has ended); its CPU time then.  While the recorder is stopped, what
 * its rings must hold is what the program ran: its samples follow its
 * CPU time, not the time on the clock.
 */
static double
program_ran(pid_t program, double from, double cpu)
{
	struct timespec ms = { 0, 1000000 };
	double now = from;

	for (int i = 0; i < 60000; i++) {
		double c = e2e_cpu_seconds(program);

		if (c < 0)
			return now;	/* reaped: as far as it got */
		now = c;
		if (now - from >= cpu)
			return now;
		nanosleep(&ms, NULL);
	}
	fail_msg("the program did not run %.2f s of CPU in 60 s", cpu);
	return now;
}

/*
 * The bytes of a CPU's ring the recorder may map, as cli/record/perf/perf.c
 * (ring_pages) works them out: 8 MiB, or as root any; else what
 * perf_event_mlock_kb allows a CPU and RLIMIT_MEMLOCK beside, shared by
 * the CPUs, a power of 2 (4 MiB for an ordinary user here).
 */
static double
ring_bytes(void)
{
	double most = 8 << 20, kb = 0;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rlimit rl;
	FILE *f;

	if (geteuid() == 0 || cpus < 1)
		return most;
	f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
	if (f != NULL) {
		if (fscanf(f, "%lf", &kb) != 1)
			kb = 0;
		fclose(f);
	}
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		double each = (kb * 1024 * (double)cpus + (double)rl.rlim_cur) /
		    (double)cpus - 4096, ring = 256 * 1024;

		while (ring * 2 <= each && ring * 2 <= most)
			ring *= 2;
		return ring;
	}
	return most;
}

/*
 * With stacks a sample is some 16 KiB, and the rings must hold what a
 * recorder kept off its CPU misses: 8 MiB a CPU, half a second at 1 kHz
 * (docs/design.md); an ordinary user may lock less (4 MiB here, a
 * quarter second).  The recorder stopped while its program runs 300 ms
 * of CPU loses nothing (a 2 MiB ring lost a third of them), or 60% of
 * what its ring holds where that is less.  The stop is measured in the
 * program's CPU time (its samples follow it), so that a loaded machine,
 * where the program gets less of the CPU, stops the recorder longer, not
 * the test weaker; only a stop that overran (this process woken late)
 * to 90% of what a ring holds excuses a loss.  Sanitized, the recorder
 * drains several times slower and may be behind when it is stopped: it
 * copies 8 KiB of stack, as the other tests there do.
 */
static void
test_recorder_stopped_loses_nothing(void **state)
{
	const char *prf = tmp("stall.prf");
	int sanitized = getenv("PROFIL_TEST_SANITIZED") != NULL;
	char *rec[] = { profil_bin, "record", "-q", "-e", "perf", "-F", "1000",
	    "-o", (char *)prf, "--stack-size", sanitized ? "8192" : "16384",
	    workload, "split", "1.32", NULL };
	/* a sample: the stack copied, registers, its header; 1 kHz */
	double holds_ms = ring_bytes() / ((sanitized ? 8192 : 16384) + 256);
	double stop_ms = fmin(300, 0.6 * holds_ms), stopped_ms, from;
	char *caption[] = { profil_bin, "report", "--limit", "0", (char *)prf,
	    NULL };
	const char *at;
	struct run r;
	int status;
	pid_t pid, program;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execv(profil_bin, rec);
		_exit(127);
	}
	program = program_running(pid, 0.05);
	kill(pid, SIGSTOP);
	from = e2e_cpu_seconds(program);
	stopped_ms = 1e3 * (program_ran(program, from, stop_ms / 1e3) - from);
	kill(pid, SIGCONT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	run(&r, caption);
	assert_int_equal(r.status, 0);
	at = strstr(r.out, " lost");
	assert_non_null(at);
	while (at > r.out && at[-1] >= '0' && at[-1] <= '9')
		at--;
	if (atoi(at) != 0 && stopped_ms <= 0.9 * holds_ms)
		fail_msg("samples lost while the recorder was stopped for %.0f ms "
		    "of its program's CPU (its rings hold %.0f ms): %s",
		    stopped_ms, holds_ms, r.out);
	if (atoi(at) != 0)
		print_message("the recorder was stopped for %.0f ms of CPU (%.0f "
		    "asked, its rings hold %.0f), and lost samples: not held "
		    "against it\n", stopped_ms, stop_ms, holds_ms);
	/* and the program ran long enough for the stops to count */
	assert_true(stopped_ms >= 0.9 * stop_ms);
	assert_true(strstr(r.out, "samples") != NULL && atoi(strchr(r.out, ' ') +
	    1) >= 600);
}

/*
 * The timer engine's sample travels one way: with its stack capture, or,
 * when the capture failed (its ring of 256 full while the recorder is
 * stopped), counted by pc with no stack.  Either way once: the stacks,
 * cut or not, and the threads' counts add up to the samples, and none is
 * lost.  The recorder stays stopped until its program has run the CPU
 * time of half as many samples again as the ring holds (at the rate the
 * CPU timer reaches: the tick rate at most), so that the ring fills
 * however loaded the machine is.
 */
static void
test_timer_ring_full_counts_each_sample_once(void **state)
{
	const char *prf = tmp("ringfull.prf");
	struct timespec tick;
	double rate, fill_s;
	char secs[32];
	char *rec[] = { profil_bin, "record", "-q", "-e", "timer", "-F", "1000",
	    "-o", (char *)prf, workload, "split", secs, NULL };
	char *check[] = { profil_bin, "check", (char *)prf, NULL };
	char *threads[] = { profil_bin, "report", "--threads", "--format", "csv",
	    (char *)prf, NULL };
	double samples = 0, lost = -1, untaken = 0, in_threads = 0;
	const char *at;
	struct run r;
	int status;
	pid_t pid, program;

	(void)state;
	/* the CPU timer fires at ticks: HZ a CPU-second at most */
	assert_int_equal(clock_getres(CLOCK_MONOTONIC_COARSE, &tick), 0);
	rate = fmin(1000, 1e9 / (double)(tick.tv_sec * 1000000000L +
	    tick.tv_nsec));
	fill_s = 1.5 * 256 / rate;
	snprintf(secs, sizeof secs, "%.3f", 0.05 + fill_s + 0.3);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execv(profil_bin, rec);
		_exit(127);
	}
	program = program_running(pid, 0.05);
	kill(pid, SIGSTOP);
	program_ran(program, e2e_cpu_seconds(program), fill_s);
	kill(pid, SIGCONT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	run(&r, check);
	assert_int_equal(r.status, 0);
	at = strstr(r.out, ": ok: ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, ": ok: %lf samples", &samples), 1);
	at = strstr(at, " unknown, ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, " unknown, %lf lost", &lost), 1);
	/* "FILE:   N samples (S%...): no stack taken" */
	if ((at = strstr(r.out, "): no stack taken")) != NULL) {
		while (at > r.out && at[-1] != '\n')
			at--;
		at = strstr(at, ":   ");
		assert_non_null(at);
		untaken = atof(at + 4);
	}
	assert_true(samples >= 300);
	assert_true(lost == 0);
	if (untaken == 0)
		fail_msg("the ring never filled in the stop:\n%s", r.out);
	assert_true(untaken < samples);	/* the stacks taken still count */

	run(&r, threads);
	assert_int_equal(r.status, 0);
	for (at = strchr(r.out, '\n'); at != NULL && at[1] != '\0';
	    at = strchr(at + 1, '\n')) {
		double n;

		/* pid,tid,name,samples,... */
		assert_int_equal(sscanf(at + 1, "%*d,%*d,%*[^,],%lf", &n), 1);
		in_threads += n;
	}
	if (in_threads != samples)
		fail_msg("the threads have %.0f samples, the profile %.0f (%.0f "
		    "with no stack taken)", in_threads, samples, untaken);
}

static int
setup(void **state)
{
	if (e2e_setup(state) < 0)
		return -1;
	snprintf(cxx, sizeof cxx, "%s/cxx-workload", bindir);
	return 0;
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
		cmocka_unit_test(test_memo_answers_as_unwinding_would),
		cmocka_unit_test(test_children_static_and_stripped),
		cmocka_unit_test(test_stripped_functions_named_by_their_entry),
		cmocka_unit_test(test_plt_stubs_named),
		cmocka_unit_test(test_recorder_stopped_loses_nothing),
		cmocka_unit_test(test_timer_ring_full_counts_each_sample_once),
	};

	/* sanitized, the recorder unwinds 1 kHz of stacks, not 5 (TSan's:
	   50 of 3,062 samples unwound at 5 kHz, all 996 at 1 kHz) */
	e2e_rate_when_sanitized = "1000";
	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
