/*
 * test-phases.c - `profil report --timeline` on a program with known
 * phases (tests/programs/phases.c, which times each by its own clock),
 * recorded (--wall) by both engines, as root and as an ordinary user:
 * the phases the view finds are the program's, where it says they were
 * (the perf engine's within a slice; the timer engine's as close as its
 * timeline is, which test-when holds it to).  The view's own checks on
 * profiles whose timelines are known exactly are test-timelineview's.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "csv-table.h"
#include "e2e.h"
#include "harness.h"
#include "timelines.h"

static char phases_bin[PATH_MAX];

/*
 * The program's own time of one of its phases (the harness's reading of
 * its line, e2e_phase_of), in ns after start_ns, as the view's CSV has
 * its phases.
 */
struct truth {
	double t0, t1;
	double late0, late1;	/* how much later either may be: see woken */
};

static struct truth
truth_of(const char *err, const char *name, int64_t start_ns)
{
	struct e2e_phase ph = e2e_phase_of(err, name, start_ns);

	return (struct truth){ ph.t0 * 1e9, ph.t1 * 1e9, 0, 0 };
}

/*
 * A wait of nominal ns that ended by a timer, and the phase after it:
 * the wait itself ended when the timer fired, the program's clock says
 * it ended when the thread next had a CPU (5 ms later as nobody, in CI
 * under load).  That wait for a CPU is no time in the wait; the view
 * may count it to either side, so either end is right.
 */
static void
woken(struct truth *wait, struct truth *next, double ns)
{
	double own = wait->t1;

	if (wait->t1 - wait->t0 > ns)
		wait->t1 = wait->t0 + ns;
	wait->late1 = own - wait->t1;
	next->late0 = next->t0 - wait->t1;
	if (next->late0 < 0)
		next->late0 = 0;
	next->t0 = wait->t1;
}

/* A thread's phase as the view found it. */
struct found {
	char name[64];	/* the function, or the wait off the CPU */
	double t0, t1;
};

/*
 * Thread tid's phases in t, neighbours of one name joined; into f, at
 * most max; how many.
 */
static size_t
found_phases(const struct csv *t, const char *tid, struct found *f,
    size_t max)
{
	size_t n = 0;

	for (int r = 0; r < t->nrows; r++) {
		const char *state, *name;
		double t0 = num(t, r, "start_ns"), t1 = num(t, r, "end_ns");

		if (strcmp(text_at(t, r, "row"), "phase") != 0 ||
		    strcmp(text_at(t, r, "tid"), tid) != 0)
			continue;
		state = text_at(t, r, "state");
		name = strcmp(state, "off") == 0 ? text_at(t, r, "wait") :
		    strcmp(state, "on") == 0 ? text_at(t, r, "function") :
		    "(none)";
		if (n > 0 && strcmp(f[n - 1].name, name) == 0) {
			f[n - 1].t1 = t1;
			continue;
		}
		if (n == max)
			fail_msg("more than %zu phases of thread %s", max, tid);
		snprintf(f[n].name, sizeof f[n].name, "%s", name);
		f[n].t0 = t0;
		f[n++].t1 = t1;
	}
	return n;
}

/* x lies within tol of t, or of anywhere up to late after it. */
static int
near(double x, double t, double late, double tol)
{
	return x >= t - tol && x <= t + late + tol;
}

/*
 * The phase of f named name: it begins within tol of want's start (or
 * before it, with from_start: the thread's first, from its birth) and
 * ends within tol of its end (or after it, with to_end).
 */
static void
assert_found(const struct found *f, size_t n, const char *name,
    struct truth want, double tol, int from_start, int to_end,
    const char *what)
{
	char all[1024];
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(f[i].name, name) != 0)
			continue;
		if ((from_start ? f[i].t0 <= want.t0 + want.late0 + tol :
		    near(f[i].t0, want.t0, want.late0, tol)) &&
		    (to_end ? f[i].t1 >= want.t1 - tol :
		    near(f[i].t1, want.t1, want.late1, tol)))
			return;
	}
	for (size_t i = 0; i < n && len < sizeof all; i++)
		len += (size_t)snprintf(all + len, sizeof all - len,
		    " [%.4f-%.4f %s]", f[i].t0 / 1e9, f[i].t1 / 1e9, f[i].name);
	fail_msg("%s: no phase %s from %.4f to %.4f s (within %.4f): %s",
	    what, name, want.t0 / 1e9, want.t1 / 1e9, tol / 1e9, all);
}

/*
 * The phases of f named name cover at least share of want's span (the
 * timer engine's check: see recorded).
 */
static void
assert_covered(const struct found *f, size_t n, const char *name,
    struct truth want, double share, const char *what)
{
	char all[1024];
	size_t len = 0;
	double in = 0;

	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			in += fmax(0, fmin(f[i].t1, want.t1) -
			    fmax(f[i].t0, want.t0));
	if (in >= share * (want.t1 - want.t0))
		return;
	for (size_t i = 0; i < n && len < sizeof all; i++)
		len += (size_t)snprintf(all + len, sizeof all - len,
		    " [%.4f-%.4f %s]", f[i].t0 / 1e9, f[i].t1 / 1e9, f[i].name);
	fail_msg("%s: phases %s cover %.0f%% of %.4f-%.4f s, not %.0f%%: %s",
	    what, name, 100 * in / (want.t1 - want.t0), want.t0 / 1e9,
	    want.t1 / 1e9, 100 * share, all);
}

/* The program's phases, as its own clock timed them. */
struct truths {
	struct truth a, rd, b, sleep, c;
	double slice;		/* the profile's slice, ns */
	char pid[16];
};

/*
 * The worker's time in read() that the timeline puts within the read's
 * own span, a slice either side (the view's columns, of thread pid).
 */
static double
read_in_place(const struct csv *t, const struct truths *w)
{
	double in = 0;

	for (int i = 0; i < t->nrows; i++)
		if (strcmp(text_at(t, i, "row"), "column") == 0 &&
		    strcmp(text_at(t, i, "tid"), w->pid) == 0 &&
		    num(t, i, "start_ns") >= w->rd.t0 - w->slice &&
		    num(t, i, "end_ns") <= w->rd.t1 + w->slice)
			in += num(t, i, "io_ns");
	return in;
}

/*
 * The view's phases of t against the program's w: the worker's a(),
 * read(), b() and the other's sleep and c() (see recorded).
 */
static void
judge_phases(const struct csv *t, const struct truths *w, int perf,
    const char *what)
{
	struct found f[16];
	char pid[16];
	size_t n;

	/* the worker is the main thread: its tid the pid */
	n = found_phases(t, w->pid, f, 16);
	if (perf) {
		assert_found(f, n, "a", w->a, w->slice, 1, 0, what);
		assert_found(f, n, "read", w->rd, w->slice, 0, 0, what);
		assert_found(f, n, "b", w->b, w->slice, 0, 1, what);
	} else {
		assert_covered(f, n, "a", w->a, 0.7, what);
		assert_covered(f, n, "read", w->rd, 0.7, what);
		assert_covered(f, n, "b", w->b, 0.7, what);
	}
	/* the other thread: the one whose phases name c() */
	pid[0] = '\0';
	for (int i = 0; i < t->nrows && pid[0] == '\0'; i++)
		if (strcmp(text_at(t, i, "row"), "phase") == 0 &&
		    strcmp(text_at(t, i, "function"), "c") == 0 &&
		    text_at(t, i, "tid")[0] != '\0')
			snprintf(pid, sizeof pid, "%s", text_at(t, i, "tid"));
	n = found_phases(t, pid, f, 16);
	if (perf) {
		assert_found(f, n, "clock_nanosleep", w->sleep, w->slice, 1, 0,
		    what);
		assert_found(f, n, "c", w->c, w->slice, 0, 1, what);
	} else {
		assert_covered(f, n, "clock_nanosleep", w->sleep, 0.7, what);
		assert_covered(f, n, "c", w->c, 0.7, what);
	}
}

/*
 * The threads as the program named them, each after its start (phases.c:
 * pthread_setname_np): the worker, the main thread, and late.  The timer
 * engine, whose agent writes no names, named both by the process's name
 * when the thread was made ("worker" twice) until it read each thread's.
 */
static void
judge_names(const struct profil_profile *p, const char *what)
{
	int named = 0;

	for (size_t i = 0; i < p->nthreads; i++) {
		const struct profil_thread *t = &p->threads[i];
		const char *want = t->tid == t->pid ? "worker" : "late";

		if (strcmp(t->name, want) != 0)
			fail_msg("%s: thread %u is named '%s', not '%s'", what,
			    t->tid, t->name, want);
		named++;
	}
	if (named != 2)
		fail_msg("%s: %d threads, not 2", what, named);
}

/*
 * phases recorded (--wall) by engine, as root or an ordinary user, and
 * its view's phases: the worker's a(), read(), b() and the other's
 * sleep and c(), where the program's own clock says they were (b() and
 * c() to their deadline, a scaled second on: a thread preempted past it
 * says its end late).  The perf engine's timeline is exact where the
 * threads switched (the read, the sleep): each boundary within a slice
 * (a thread's last phase to its end at least).  The timer engine places
 * time blocked from its readings of the thread's counters, which a
 * loaded machine delays and misplaces (250 ms of a read put in b(),
 * phases of its own, at load 12): test-when holds 70% of its read()
 * inside the phase, and here each phase's name covers 70% of its span;
 * a recording whose timeline has less of the read in place than that
 * (2 of 6 at load 11 to 14, as nobody) is no test of the view, and is
 * made again, 3 times at most.
 */
static void
recorded(const char *engine, int as_user)
{
	static struct run r;
	char prf[PATH_MAX], scale[32], what[64], cause[256];
	char *argv[] = { profil_bin, "record", "-e", (char *)engine, "--wall",
	    "-o", prf, phases_bin, scale, NULL };
	char *const *cmd = argv;
	struct profil_profile *p;
	struct truths w;
	struct csv t;
	double second = harness_work_scale() * 1e9, in;
	int perf = strcmp(engine, "perf") == 0;

	snprintf(what, sizeof what, "%s engine%s", engine,
	    as_user ? ", as nobody" : "");
	if (as_user && (cmd = e2e_as_user(argv)) == NULL)
		SKIP("no setpriv to run as an ordinary user");
	scratch(prf, "phases.prf");
	snprintf(scale, sizeof scale, "%.2f", harness_work_scale());
	for (int tries = 1;; tries++) {
		run(&r, cmd);
		if (r.status != 0)
			fail_msg("%s: record exited %d: %s", what, r.status,
			    r.err);
		if ((p = profil_profile_read(prf, cause, sizeof cause)) == NULL)
			fail_msg("%s: %s", what, cause);
		w.a = truth_of(r.err, "a", p->start_ns);
		w.rd = truth_of(r.err, "read", p->start_ns);
		w.b = truth_of(r.err, "b", p->start_ns);
		w.sleep = truth_of(r.err, "sleep", p->start_ns);
		w.c = truth_of(r.err, "c", p->start_ns);
		/*
		 * b() and c() spin to their deadline, a second (scaled) on;
		 * a()'s phase runs to the read (its line said and the timer
		 * set between, 3 ms at load 10, no phase of their own)
		 */
		w.b.t1 = w.b.t0 + second;
		w.c.t1 = w.c.t0 + second;
		woken(&w.rd, &w.b, 0.5 * second);
		woken(&w.sleep, &w.c, 1.25 * second);
		w.a.t1 = w.rd.t0;
		w.slice = (double)p->slice_ns;
		snprintf(w.pid, sizeof w.pid, "%u", p->stacks[0].pid);
		judge_names(p, what);
		profil_profile_free(p);
		timeline_csv(&t, prf, NULL);
		in = read_in_place(&t, &w);
		if (perf || in >= 0.7 * (w.rd.t1 - w.rd.t0))
			break;
		csv_free(&t);
		if (tries == 3)
			fail_msg("%s: 3 recordings put under 70%% of the read "
			    "in its place (the last %.0f%%): the timer "
			    "engine's readings lag too far here (test-when's "
			    "bar)", what, 100 * in / (w.rd.t1 - w.rd.t0));
		print_message("%s: the recording put %.0f%% of the read in "
		    "its place, under test-when's bar: recorded again\n", what,
		    100 * in / (w.rd.t1 - w.rd.t0));
	}
	judge_phases(&t, &w, perf, what);
	csv_free(&t);
}

static void
test_recorded_perf(void **state)
{
	(void)state;
	recorded("perf", 0);
}

static void
test_recorded_timer(void **state)
{
	(void)state;
	recorded("timer", 0);
}

static void
test_recorded_perf_user(void **state)
{
	(void)state;
	recorded("perf", 1);
}

static void
test_recorded_timer_user(void **state)
{
	(void)state;
	recorded("timer", 1);
}

static int
setup(void **state)
{
	if (e2e_setup(state) != 0)
		return -1;
	snprintf(phases_bin, sizeof phases_bin, "%s/phases", bindir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_perf),
		cmocka_unit_test(test_recorded_timer),
		cmocka_unit_test(test_recorded_perf_user),
		cmocka_unit_test(test_recorded_timer_user),
	};

	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
