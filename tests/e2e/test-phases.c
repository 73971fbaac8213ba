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

/* The program's own time of one of its phases, in ns after start_ns. */
struct truth {
	double t0, t1;
};

static struct truth
truth_of(const char *err, const char *name, int64_t start_ns)
{
	char key[32];
	const char *at;
	unsigned long long t0, t1;

	snprintf(key, sizeof key, "phase %s ", name);
	if ((at = strstr(err, key)) == NULL ||
	    sscanf(at + strlen(key), "%llu %llu", &t0, &t1) != 2)
		fail_msg("the program did not say its phase %s: %s", name, err);
	return (struct truth){ (double)t0 - (double)start_ns,
	    (double)t1 - (double)start_ns };
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
		if ((from_start ? f[i].t0 <= want.t0 + tol :
		    fabs(f[i].t0 - want.t0) <= tol) &&
		    (to_end ? f[i].t1 >= want.t1 - tol :
		    fabs(f[i].t1 - want.t1) <= tol))
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
 * inside the phase, and here each phase's name covers 70% of its span.
 */
static void
recorded(const char *engine, int as_user)
{
	static struct run r;
	char prf[PATH_MAX], scale[32], what[64], cause[256], pid[16];
	char *argv[] = { profil_bin, "record", "-e", (char *)engine, "--wall",
	    "-o", prf, phases_bin, scale, NULL };
	char *const *cmd = argv;
	struct profil_profile *p;
	struct truth a, rd, b, sleep, c;
	struct found f[16];
	struct csv t;
	double slice, second = harness_work_scale() * 1e9;
	int perf = strcmp(engine, "perf") == 0;
	size_t n;

	snprintf(what, sizeof what, "%s engine%s", engine,
	    as_user ? ", as nobody" : "");
	if (as_user && (cmd = e2e_as_user(argv)) == NULL)
		SKIP("no setpriv to run as an ordinary user");
	scratch(prf, "phases.prf");
	snprintf(scale, sizeof scale, "%.2f", harness_work_scale());
	run(&r, cmd);
	if (r.status != 0)
		fail_msg("%s: record exited %d: %s", what, r.status, r.err);
	if ((p = profil_profile_read(prf, cause, sizeof cause)) == NULL)
		fail_msg("%s: %s", what, cause);
	a = truth_of(r.err, "a", p->start_ns);
	rd = truth_of(r.err, "read", p->start_ns);
	b = truth_of(r.err, "b", p->start_ns);
	sleep = truth_of(r.err, "sleep", p->start_ns);
	c = truth_of(r.err, "c", p->start_ns);
	/*
	 * b() and c() spin to their deadline, a second (scaled) on; a()'s
	 * phase runs to the read (its line said and the timer set between,
	 * 3 ms at load 10, no phase of their own)
	 */
	b.t1 = b.t0 + second;
	c.t1 = c.t0 + second;
	a.t1 = rd.t0;
	slice = (double)p->slice_ns;
	snprintf(pid, sizeof pid, "%u", p->stacks[0].pid);
	profil_profile_free(p);
	timeline_csv(&t, prf, NULL);
	/* the worker is the main thread: its tid the pid */
	n = found_phases(&t, pid, f, 16);
	if (perf) {
		assert_found(f, n, "a", a, slice, 1, 0, what);
		assert_found(f, n, "read", rd, slice, 0, 0, what);
		assert_found(f, n, "b", b, slice, 0, 1, what);
	} else {
		assert_covered(f, n, "a", a, 0.7, what);
		assert_covered(f, n, "read", rd, 0.7, what);
		assert_covered(f, n, "b", b, 0.7, what);
	}
	/* the other thread: the one whose phases name c() */
	pid[0] = '\0';
	for (int i = 0; i < t.nrows && pid[0] == '\0'; i++)
		if (strcmp(text_at(&t, i, "row"), "phase") == 0 &&
		    strcmp(text_at(&t, i, "function"), "c") == 0 &&
		    text_at(&t, i, "tid")[0] != '\0')
			snprintf(pid, sizeof pid, "%s", text_at(&t, i, "tid"));
	n = found_phases(&t, pid, f, 16);
	if (perf) {
		assert_found(f, n, "clock_nanosleep", sleep, slice, 1, 0, what);
		assert_found(f, n, "c", c, slice, 0, 1, what);
	} else {
		assert_covered(f, n, "clock_nanosleep", sleep, 0.7, what);
		assert_covered(f, n, "c", c, 0.7, what);
	}
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
