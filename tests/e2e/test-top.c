/*
 * test-top.c - `profil top` (issue 27, 5) in a real terminal: tmux runs
 * it on a program with known phases (tests/programs/phases.c, which
 * times them by its own clock) at 80x24 and 120x40, and the test reads
 * the screen: the function leading a window in which the program ran
 * only a() is a(), and at the end, in a window of b() alone, b(); the
 * threads' strips and the error bars are there; s sorts, w narrows the
 * window, q ends it, exit 0, the terminal given back as it was.  -p
 * attaches to a program nobody runs, as nobody (and as root), and q
 * detaches, the program running on.  In a pipe: blocks of plain text,
 * no escape, each with the functions the program ran in its window, a()
 * all of a window where only a() ran, to within its error bar, and
 * with --wall the read() a thread waited in.  Refusals in one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"
#include "top-checks.h"

static char phases[PATH_MAX];
static int no_tmux;

/* The terminal tests need tmux: CI installs it, and must not skip them. */
#define NEED_TMUX() do { if (no_tmux) { \
	if (getenv("PROFIL_REQUIRE_TMUX") != NULL) \
		fail_msg("PROFIL_REQUIRE_TMUX is set but there is no tmux"); \
	SKIP("no tmux to run a terminal in (apt-get install tmux)"); } \
	} while (0)

/* The program's own times of its phases, seconds after the run's start. */
struct truth {
	double a0, a1, read0, read1, b0, b1, c0, c1;
};

/* A table with function arg in it, in a window ending before *(double *). */
static int
shows_early(const struct frame *f, const char *text, const void *arg)
{
	const double *before = arg;

	(void)text;
	return f->header && frame_row(f, "a") != NULL && f->s1 < *before;
}

/* The program's "phase NAME START END", seconds after start_ns. */
static void
phase(const char *err, const char *name, int64_t start_ns, double *t0,
    double *t1)
{
	char key[32];
	const char *at;
	unsigned long long a, b;

	snprintf(key, sizeof key, "phase %s ", name);
	if ((at = strstr(err, key)) == NULL ||
	    sscanf(at + strlen(key), "%llu %llu", &a, &b) != 2)
		fail_msg("the program did not say its phase %s: %s", name, err);
	*t0 = ((double)a - (double)start_ns) / 1e9;
	*t1 = ((double)b - (double)start_ns) / 1e9;
}

/*
 * The run's start from the profile top -o wrote (the last window, which
 * starts s0 into the run, as its last frame said), and the phases the
 * program said against it.
 */
static void
truth_of(const char *prf, double s0, const char *err, struct truth *t)
{
	char cause[512];
	struct profil_profile *p = profil_profile_read(prf, cause,
	    sizeof cause);
	int64_t start;

	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	start = p->start_ns - (int64_t)llround(s0 * 1e9);
	profil_profile_free(p);
	phase(err, "a", start, &t->a0, &t->a1);
	phase(err, "read", start, &t->read0, &t->read1);
	phase(err, "b", start, &t->b0, &t->b1);
	phase(err, "c", start, &t->c0, &t->c1);
}

static double
overlap(double x0, double x1, double y0, double y1)
{
	double lo = x0 > y0 ? x0 : y0, hi = x1 < y1 ? x1 : y1;

	return hi > lo ? hi - lo : 0;
}

/*
 * Which function the program's own times say must lead window [s0, s1]
 * (the header's, to 5 ms): the one that ran in it, when the other two
 * did not (10 ms either way: a period's end and the header's rounding);
 * NULL when the window holds more than one.
 */
static const char *
must_lead(const struct truth *t, double s0, double s1)
{
	double a = overlap(s0 - 0.01, s1 + 0.01, t->a0, t->a1);
	double b = overlap(s0 - 0.01, s1 + 0.01, t->b0, t->b1);
	double c = overlap(s0 - 0.01, s1 + 0.01, t->c0, t->c1);

	if (a > 0 && b == 0 && c == 0)
		return "a";
	if (b > 0 && a == 0 && c == 0)
		return "b";
	if (c > 0 && a == 0 && b == 0)
		return "c";
	return NULL;
}

static void
read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Every row of f's table in the order of its column (self or incl). */
static void
check_order(const struct frame *f, int inclusive, const char *text)
{
	for (int i = 1; i < f->nrows; i++) {
		double before = inclusive ? f->rows[i - 1].incl : f->rows[i - 1].self;
		double now = inclusive ? f->rows[i].incl : f->rows[i].self;

		if (now > before)
			fail_msg("by %s, row %d (%.2f) above row %d (%.2f):\n%s",
			    inclusive ? "inclusive" : "self", i, before, i + 1,
			    now, text);
	}
}

/* What every screen shows: the worker's strip, a()'s error bars. */
static void
check_screen(const struct frame *f, const char *text)
{
	const struct row *a = frame_row(f, "a");
	const struct thread_line *worker = NULL;

	/* the main thread, "worker" (the timer engine may name others so) */
	for (int i = 0; i < f->nthreads; i++)
		if ((int)f->threads[i].tid == f->pid)
			worker = &f->threads[i];
	/* a()'s CPU time in it: some block of "▁▂▃▄▅▆▇█" */
	if (worker == NULL || strstr(worker->strip, "\xe2\x96") == NULL ||
	    !(worker->cpu > 0))
		fail_msg("no strip of the worker thread:\n%s", text);
	if (a == NULL || !(a->self_err > 0) || !(a->incl_err > 0) ||
	    strstr(text, "±") == NULL)
		fail_msg("no error bar for a():\n%s", text);
}

/*
 * top -e ENGINE -o PRF -- phases SCALE in a terminal of columns x rows:
 * the leader at a window of a() alone and at the end, keys s, w and q.
 */
static void
screen_test(int columns, int rows, const char *engine)
{
	static char text[65536], err[65536], command[8 * PATH_MAX];
	static struct frame early, end, f;
	char prf[PATH_MAX], errs[PATH_MAX];
	static struct run r;
	const double scale = 5;
	/* c() starts at 1.25 x scale: before, only a() runs */
	double before = 1.25 * scale - 0.5, half = 0.5;
	struct truth t;
	const char *lead;

	NEED_TMUX();
	if (strcmp(engine, "perf") == 0 && !harness_perf_allowed())
		SKIP("perf events are not allowed here");
	scratch(prf, "top-screen.prf");
	scratch(errs, "top-screen.err");
	snprintf(command, sizeof command, "'%s' top -e %s -o '%s' -- '%s' %.0f "
	    "2>'%s'", profil_bin, engine, prf, phases, scale, errs);
	screen_session(columns, rows, command);
	screen_wait(&early, text, sizeof text, shows_early, &before, 30,
	    "a() in a window before c() starts");
	check_screen(&early, text);
	lead = frame_leading(&early);
	if (strcmp(lead, "a") != 0)
		fail_msg("'%s' leads the window %.2f-%.2f s, not a():\n%s",
		    lead, early.s0, early.s1, text);
	/* s: by inclusive time, then by self again */
	screen_keys("s");
	screen_wait(&f, text, sizeof text, screen_sorted_by, "inclusive", 10,
	    "the rows by inclusive time");
	check_order(&f, 1, text);
	screen_keys("s");
	screen_wait(&f, text, sizeof text, screen_sorted_by, "self", 10,
	    "the rows by self time");
	check_order(&f, 0, text);
	/* w thrice: 5 s, 2, 1, 0.5 */
	screen_keys("w");
	screen_keys("w");
	screen_keys("w");
	screen_wait(&f, text, sizeof text, screen_window_of, &half, 10,
	    "a window of 0.5 s");
	/* the program ends: its last frame stays, b() alone in it */
	screen_wait(&end, text, sizeof text, screen_status_has, "q to quit",
	    30 * scale, "the program ended");
	if (strstr(end.status, "ended: exit 0") == NULL)
		fail_msg("the end said '%s'", end.status);
	lead = frame_leading(&end);
	screen_keys("q");
	screen_wait(&f, text, sizeof text, screen_text_has, "(tty)", 30,
	    "top's end");
	if (strstr(text, "EXIT=0") == NULL)
		fail_msg("top did not exit 0:\n%s", text);
	if (strstr(text, "icanon echo") == NULL || strstr(text, "-icanon") ||
	    strstr(text, "-echo"))
		fail_msg("the terminal was not given back as it was:\n%s", text);
	screen_tmux(&r, "display-message", "-p", "-t", "top", "#{alternate_on}",
	    NULL);
	if (strncmp(r.out, "0", 1) != 0)
		fail_msg("the alternate screen is still up (%s)", r.out);
	/* against the program's own times */
	read_file(errs, err, sizeof err);
	truth_of(prf, end.s0, err, &t);
	print_message("%s, %dx%d: a() %.2f-%.2f s, b() %.2f-%.2f s, c() %.2f-%.2f "
	    "s; windows %.2f-%.2f s (a() %.1f%% ± %.1f) and %.2f-%.2f s\n",
	    engine, columns, rows, t.a0, t.a1, t.b0, t.b1, t.c0, t.c1, early.s0,
	    early.s1, frame_row(&early, "a")->self, frame_row(&early, "a")->self_err,
	    end.s0, end.s1);
	if (must_lead(&t, early.s0, early.s1) == NULL ||
	    strcmp(must_lead(&t, early.s0, early.s1), "a") != 0)
		fail_msg("the window %.2f-%.2f s is not of a() alone (a() "
		    "%.2f-%.2f s, c() from %.2f s)", early.s0, early.s1, t.a0,
		    t.a1, t.c0);
	if (must_lead(&t, end.s0, end.s1) == NULL ||
	    strcmp(must_lead(&t, end.s0, end.s1), "b") != 0)
		fail_msg("the last window %.2f-%.2f s is not of b() alone (b() "
		    "%.2f-%.2f s, c() to %.2f s)", end.s0, end.s1, t.b0, t.b1,
		    t.c1);
	if (strcmp(lead, "b") != 0)
		fail_msg("'%s' leads the last window %.2f-%.2f s, of b() alone",
		    lead, end.s0, end.s1);
}

static void
test_screen_80x24_perf(void **state)
{
	(void)state;
	screen_test(80, 24, "perf");
}

static void
test_screen_120x40_timer(void **state)
{
	(void)state;
	screen_test(120, 40, "timer");
}

/*
 * phases SCALE started as nobody (as_user) or root, its stderr to errs;
 * its pid once it runs the program.
 */
static pid_t
start_phases(int as_user, const char *scale)
{
	char *argv[16];
	size_t n = as_user ? e2e_as_nobody(argv) : 0;
	double until = screen_now() + 30;
	pid_t pid;

	argv[n++] = phases;
	argv[n++] = (char *)scale;
	argv[n] = NULL;
	pid = screen_spawn(argv);
	while (!e2e_runs(pid, phases)) {
		if (screen_now() > until)
			fail_msg("the program did not start");
		screen_sleep_ms(10);
	}
	return pid;
}

/* top -p on a running program, as nobody or root: shown, q detaches. */
static void
attach_test(int as_user)
{
	static char text[65536], command[8 * PATH_MAX], who[64];
	static struct frame f;
	char *const probe[] = { profil_bin, NULL };
	double before = 4;
	pid_t pid;
	int status;

	NEED_TMUX();
	if (!harness_perf_allowed())
		SKIP("perf events are not allowed here");
	if (as_user && e2e_as_user(probe) == NULL)
		SKIP("no setpriv to run as an ordinary user");
	pid = start_phases(as_user, "6");
	snprintf(command, sizeof command, "%s'%s' top -p %d",
	    as_user ? "/usr/bin/setpriv --reuid=nobody --regid=nogroup "
	    "--clear-groups " : "", profil_bin, (int)pid);
	screen_session(80, 24, command);
	screen_wait(&f, text, sizeof text, shows_early, &before, 30,
	    "a() from the attached program");
	snprintf(who, sizeof who, "phases (pid %d)", (int)pid);
	if (strstr(text, who) == NULL)
		fail_msg("the screen does not name %s:\n%s", who, text);
	if (strcmp(frame_leading(&f), "a") != 0)
		fail_msg("'%s' leads while the program runs a() alone:\n%s",
		    frame_leading(&f), text);
	screen_keys("q");
	screen_wait(&f, text, sizeof text, screen_text_has, "(tty)", 30,
	    "top's end");
	if (strstr(text, "EXIT=0") == NULL || strstr(text, "icanon echo") ==
	    NULL)
		fail_msg("top did not end well:\n%s", text);
	/* detached: the program runs on, ours to end */
	if (waitpid(pid, &status, WNOHANG) != 0)
		fail_msg("the program ended with top");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

static void
test_attach_root(void **state)
{
	(void)state;
	attach_test(0);
}

static void
test_attach_nobody(void **state)
{
	(void)state;
	attach_test(1);
}

/* The blocks of a pipe's text, each from its "profil top:" line. */
static size_t
blocks_of(char *out, char **blocks, size_t max)
{
	size_t n = 0;

	for (char *at = strstr(out, "profil top:"); at != NULL && n < max;
	    at = strstr(at + 1, "\nprofil top:")) {
		if (*at == '\n')
			*at++ = '\0';
		blocks[n++] = at;
	}
	return n;
}

/*
 * A pipe: top -e ENGINE --window 1 -- phases 2.5 (a() 2.5 s, the other
 * thread asleep until 3.1 s: a block of a() alone), as nobody with
 * as_user, its blocks read against the program's times; with --wall,
 * read() among what the worker waited in.
 */
static void
pipe_test(const char *engine, int wall, int as_user)
{
	static struct run r;
	static struct frame f[64];
	char prf[PATH_MAX], what[64];
	char *argv[] = { profil_bin, "top", "-e", (char *)engine, "--window",
	    "1", "-o", prf, wall ? "--wall" : "--", wall ? "--" : phases,
	    wall ? phases : "2.5", wall ? "2.5" : NULL, NULL };
	char *const *cmd = argv;
	char *blocks[64];
	const char *names[] = { "a", "b", "c" };
	struct truth t;
	size_t n;
	int alone = 0, waited = 0;

	snprintf(what, sizeof what, "%s engine%s%s", engine,
	    wall ? ", --wall" : "", as_user ? ", as nobody" : "");
	if (strcmp(engine, "perf") == 0 && !harness_perf_allowed())
		SKIP("perf events are not allowed here");
	if (as_user && (cmd = e2e_as_user(argv)) == NULL)
		SKIP("no setpriv to run as an ordinary user");
	snprintf(prf, sizeof prf, "%s/top-pipe-%s%s%s.prf", tmpdir, engine,
	    wall ? "-wall" : "", as_user ? "-user" : "");
	run(&r, cmd);
	if (r.status != 0)
		fail_msg("%s: top exited %d: %s", what, r.status, r.err);
	if (strchr(r.out, '\033') != NULL)
		fail_msg("%s: an escape in a pipe:\n%s", what, r.out);
	n = blocks_of(r.out, blocks, 64);
	if (n < 3)
		fail_msg("%s: %zu blocks for a run of 6 s:\n%s", what, n,
		    r.out);
	for (size_t i = 0; i < n; i++) {
		frame_parse(blocks[i], &f[i]);
		if (!f[i].header || f[i].nrows == 0)
			fail_msg("%s: block %zu unread:\n%s", what, i + 1,
			    blocks[i]);
	}
	if (strstr(f[n - 1].status, "ended: exit 0") == NULL)
		fail_msg("%s: the last block does not say the end:\n%s", what,
		    blocks[n - 1]);
	truth_of(prf, f[n - 1].s0, r.err, &t);
	for (size_t i = 0; i < n; i++) {
		const double ran[3][2] = { { t.a0, t.a1 }, { t.b0, t.b1 },
		    { t.c0, t.c1 } };
		const char *lead = must_lead(&t, f[i].s0, f[i].s1);

		for (int k = 0; k < 3; k++) {
			double in = overlap(f[i].s0, f[i].s1, ran[k][0], ran[k][1]);
			const struct row *w = frame_row(&f[i], names[k]);

			/* a phase of 0.3 s in the window: hundreds of samples */
			if (in >= 0.3 && w == NULL)
				fail_msg("%s: %s() ran %.2f s of the window "
				    "%.2f-%.2f s, not in its block:\n%s", what,
				    names[k], in, f[i].s0, f[i].s1, blocks[i]);
			/* and none outside its phase, but at its edges */
			if (overlap(f[i].s0 - 0.05, f[i].s1 + 0.05, ran[k][0],
			    ran[k][1]) == 0 && w != NULL)
				fail_msg("%s: %s() is in the block of %.2f-%.2f s, "
				    "outside its phase %.2f-%.2f s:\n%s",
				    what, names[k], f[i].s0, f[i].s1, ran[k][0],
				    ran[k][1], blocks[i]);
		}
		/*
		 * A window inside a()'s phase, the other thread asleep: all
		 * of the samples under a(), to within the error bar
		 */
		if (!wall && lead != NULL && strcmp(lead, "a") == 0 &&
		    f[i].s0 >= t.a0 && f[i].s1 <= t.a1) {
			const struct row *a = frame_row(&f[i], "a");

			print_message("%s: window %.2f-%.2f s: a() %.2f%% ± %.2f "
			    "of it inclusive\n", what, f[i].s0, f[i].s1, a->incl,
			    a->incl_err);
			if (100 - a->incl > a->incl_err)
				fail_msg("%s: a() %.2f%% ± %.2f of a window of a() "
				    "alone:\n%s", what, a->incl, a->incl_err,
				    blocks[i]);
			alone++;
		}
		/* --wall: what the worker waited in, in the window of read() */
		for (int k = 0; wall && k < f[i].nthreads; k++)
			if ((int)f[i].threads[k].tid == f[i].pid &&
			    overlap(f[i].s0, f[i].s1, t.read0, t.read1) >= 0.3) {
				if (strstr(f[i].threads[k].rest, "read") == NULL ||
				    frame_row(&f[i], "[off-cpu:") == NULL)
					fail_msg("%s: the worker's read() not in the "
					    "block of %.2f-%.2f s:\n%s", what,
					    f[i].s0, f[i].s1, blocks[i]);
				waited++;
			}
	}
	if (!wall && alone == 0)
		fail_msg("%s: no block of a() alone, a() %.2f-%.2f s:\n%s",
		    what, t.a0, t.a1, r.out);
	if (wall && waited == 0)
		fail_msg("%s: no block holds read() %.2f-%.2f s:\n%s", what,
		    t.read0, t.read1, r.out);
}

static void
test_pipe_perf(void **state)
{
	(void)state;
	pipe_test("perf", 0, 0);
}

static void
test_pipe_timer_nobody(void **state)
{
	(void)state;
	pipe_test("timer", 0, 1);
}

static void
test_pipe_wall_perf_nobody(void **state)
{
	(void)state;
	pipe_test("perf", 1, 1);
}

static void
test_pipe_wall_timer(void **state)
{
	(void)state;
	pipe_test("timer", 1, 0);
}

/* What top refuses, each in one line. */
static void
test_refused(void **state)
{
	static struct run r;
	struct {
		const char *a[6];
		int status;
	} cases[] = {
		{ { "--window", "0" }, 2 },
		{ { "--window", "61s" }, 2 },
		{ { "--window", "100ms" }, 2 },
		{ { "--limit", "x" }, 2 },
		{ { "-e", "timer", "-p", "1" }, 2 },
		{ { "-p", "1", "true" }, 2 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *argv[16] = { profil_bin, "top" };
		int k = 2;

		for (int j = 0; j < 6 && cases[i].a[j] != NULL; j++)
			argv[k++] = (char *)cases[i].a[j];
		if (strcmp(cases[i].a[0], "-p") != 0)
			argv[k++] = "true";
		argv[k] = NULL;
		run(&r, argv);
		if (r.status != cases[i].status)
			fail_msg("case %zu: exit %d, not %d: %s", i, r.status,
			    cases[i].status, r.err);
		assert_one_line(&r, "top");
	}
}

static int
setup(void **state)
{
	if (e2e_setup(state) != 0)
		return -1;
	snprintf(phases, sizeof phases, "%s/phases", bindir);
	no_tmux = screen_init() < 0;
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_screen_80x24_perf, screen_down),
		cmocka_unit_test_teardown(test_screen_120x40_timer, screen_down),
		cmocka_unit_test_teardown(test_attach_root, screen_down),
		cmocka_unit_test_teardown(test_attach_nobody, screen_down),
		cmocka_unit_test(test_pipe_perf),
		cmocka_unit_test(test_pipe_timer_nobody),
		cmocka_unit_test(test_pipe_wall_perf_nobody),
		cmocka_unit_test(test_pipe_wall_timer),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
