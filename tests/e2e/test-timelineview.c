/*
 * test-timelineview.c - `profil report --timeline` end to end on profiles
 * whose timelines are known (tests/harness/timelines.h): two threads of
 * one process, the first on the CPU in a() until A_END, then blocked in
 * read(2) (called by load_config through libc) until R_END, then in
 * b(); the second asleep (worker through libc's clock_nanosleep) until
 * S_END, then in c().  Samples are drawn at 1 kHz into slices of 10 ms
 * (or 2 ms).  The phases (CSV) must find each part and put each
 * boundary within one slice of the truth, also with a tenth of the
 * samples in random other functions and the sampling period jittered;
 * the strips (text, in a pipe and a terminal) must show each thread
 * busy and waiting where it was, at the width asked; JSON must say what
 * CSV says; a profile without a timeline is refused with its reason.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "csv-table.h"
#include "e2e.h"
#include "harness.h"
#include "timelines.h"

/* A path in the scratch directory, for the length of a test. */
#define SCRATCH_PATH(var, name) char var[PATH_MAX]; scratch(var, name)

/* ---- the phases (CSV) -------------------------------------------------- */

/* A phase as expected: its state, function and wait, and its truth. */
struct want {
	const char *state, *function, *wait;	/* "x|y": either */
	uint64_t start, end;
};

static int
one_of(const char *got, const char *alternatives)
{
	size_t n = strlen(got);

	for (const char *at = alternatives;; at++) {
		if (strncmp(at, got, n) == 0 && (at[n] == '|' || at[n] == '\0'))
			return 1;
		if ((at = strchr(at, '|')) == NULL)
			return 0;
	}
}

/*
 * The phases of tid ("" for the program's) in t into buf, as
 * "[start-end state function wait]".
 */
static void
say_phases(const struct csv *t, const char *tid, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int r = 0; r < t->nrows && len < size; r++)
		if (strcmp(text_at(t, r, "row"), "phase") == 0 &&
		    strcmp(text_at(t, r, "tid"), tid) == 0)
			len += (size_t)snprintf(buf + len, size - len,
			    " [%s-%s %s %s %s]", text_at(t, r, "start_ns"),
			    text_at(t, r, "end_ns"), text_at(t, r, "state"),
			    text_at(t, r, "function"), text_at(t, r, "wait"));
}

/*
 * tid's phases in t are want's n, in order, named alike, each boundary
 * within one slice of the truth, the first from 0 and the last to the
 * end; their shares add up to the run.  0 if so, else -1 with why
 * (fail 1: the test fails at once).
 */
static int
match_phases(const struct csv *t, const char *tid, const struct want *want,
    size_t n, int fail, const char *what)
{
	char got[4096];
	size_t k = 0;
	double percent = 0;

	say_phases(t, tid, got, sizeof got);
	for (int r = 0; r < t->nrows; r++) {
		const struct want *w = &want[k];
		double start, end;

		if (strcmp(text_at(t, r, "row"), "phase") != 0 ||
		    strcmp(text_at(t, r, "tid"), tid) != 0)
			continue;
		if (k == n)
			goto wrong;
		start = num(t, r, "start_ns");
		end = num(t, r, "end_ns");
		percent += num(t, r, "percent");
		if (!one_of(text_at(t, r, "state"), w->state) ||
		    !one_of(text_at(t, r, "function"), w->function) ||
		    !one_of(text_at(t, r, "wait"), w->wait) ||
		    fabs(start - (double)w->start) > SLICE_NS ||
		    fabs(end - (double)w->end) > SLICE_NS ||
		    (w->start == 0 && start != 0) ||
		    (w->end == SPAN_NS && end != SPAN_NS))
			goto wrong;
		k++;
	}
	if (k == n && fabs(percent - 100) < 0.01)
		return 0;
wrong:
	if (fail)
		fail_msg("%s: thread '%s' has the phases:%s", what, tid, got);
	return -1;
}

static const struct want t1_wall[] = {
	{ "on", "a", "", 0, A_END },
	{ "off", "load_config", "read", A_END, R_END },
	{ "on", "b", "", R_END, SPAN_NS },
};
static const struct want t2_wall[] = {
	{ "off", "worker", "clock_nanosleep", 0, S_END },
	{ "on", "c", "", S_END, SPAN_NS },
};
/* A CPU profile knows no more than that the threads were not on it. */
static const struct want t1_cpu[] = {
	{ "on", "a", "", 0, A_END },
	{ "none", "", "", A_END, R_END },
	{ "on", "b", "", R_END, SPAN_NS },
};
static const struct want t2_cpu[] = {
	{ "none", "", "", 0, S_END },
	{ "on", "c", "", S_END, SPAN_NS },
};
/*
 * The program: a() while thread 1 runs it alone; both waiting (in a wall
 * profile, either wait: they took the same time); then c(), and b() and
 * c() together (one a CPU: either may name it).
 */
static const struct want program_wall[] = {
	{ "on", "a", "", 0, A_END },
	{ "off", "load_config|worker", "read|clock_nanosleep", A_END, S_END },
	{ "on", "c", "", S_END, SPAN_NS },
};
static const struct want program_wall_b[] = {
	{ "on", "a", "", 0, A_END },
	{ "off", "load_config|worker", "read|clock_nanosleep", A_END, S_END },
	{ "on", "c", "", S_END, R_END },
	{ "on", "b", "", R_END, SPAN_NS },
};
static const struct want program_cpu[] = {
	{ "on", "a", "", 0, A_END },
	{ "none", "", "", A_END, S_END },
	{ "on", "c", "", S_END, SPAN_NS },
};
static const struct want program_cpu_b[] = {
	{ "on", "a", "", 0, A_END },
	{ "none", "", "", A_END, S_END },
	{ "on", "c", "", S_END, R_END },
	{ "on", "b", "", R_END, SPAN_NS },
};
#define N(a)	(sizeof (a) / sizeof (a)[0])

/* The phases of prf (--format csv, with option when not NULL) as made. */
static void
assert_made_phases(const char *prf, int wall, const char *option,
    const char *what)
{
	struct csv t;

	timeline_csv(&t, prf, option);
	match_phases(&t, "100", wall ? t1_wall : t1_cpu, 3, 1, what);
	match_phases(&t, "101", wall ? t2_wall : t2_cpu, 2, 1, what);
	if (match_phases(&t, "", wall ? program_wall : program_cpu, 3, 0,
	    what) < 0)
		match_phases(&t, "", wall ? program_wall_b : program_cpu_b, 4,
		    1, what);
	csv_free(&t);
}

/* Clean data: each part found, each boundary within a slice. */
static void
test_phases_clean(void **state)
{
	(void)state;
	save_made(tmp("wall.prf"), MADE_WALL, 1);
	assert_made_phases(tmp("wall.prf"), 1, NULL, "wall");
	/* --cpu: the same threads, their waits unknown */
	assert_made_phases(tmp("wall.prf"), 0, "--cpu", "wall --cpu");
	save_made(tmp("cpu.prf"), 0, 1);
	assert_made_phases(tmp("cpu.prf"), 0, NULL, "cpu");
}

/*
 * Noise: a tenth of the samples in five other functions, the period
 * jittered by half (7 to 13 samples a busy slice of 10 ms, 1 to 3 of
 * one of 2 ms, where the most common function of each slice cut the
 * two threads into 102 phases): the same phases, the same boundaries
 * within a slice, for every seed.
 */
static void
test_phases_noisy(void **state)
{
	char what[64];

	(void)state;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		/* half the seeds with 2 ms slices: 1 to 3 samples each */
		made_slice_ns = seed % 2 ? 10 * MS : 2 * MS;
		snprintf(what, sizeof what, "noisy wall, seed %llu, %d slices",
		    (unsigned long long)seed, NSLICES);
		save_made(tmp("noisy.prf"), MADE_WALL | MADE_NOISE, seed);
		assert_made_phases(tmp("noisy.prf"), 1, NULL, what);
		snprintf(what, sizeof what, "noisy cpu, seed %llu, %d slices",
		    (unsigned long long)seed, NSLICES);
		save_made(tmp("noisy.prf"), MADE_NOISE, seed);
		assert_made_phases(tmp("noisy.prf"), 0, NULL, what);
	}
	made_slice_ns = 10 * MS;
}

/*
 * Preempted (a busy machine): thread 1 runnable four fifths of its a()
 * and for 90 ms in clock_gettime() called by b(), on the CPU for none of
 * it: the same phases, a()'s saying how long it waited for a CPU; the
 * pause no phase of its own (it was 3.6% of the run: a phase of 90 ms
 * in clock_gettime() before pauses were joined to their neighbours).
 */
static void
test_phases_preempted(void **state)
{
	SCRATCH_PATH(prf, "preempted.prf");
	char *argv[] = { profil_bin, "report", "--timeline", prf, NULL };
	struct run r;

	(void)state;
	save_made(prf, MADE_WALL | MADE_PREEMPTED, 1);
	assert_made_phases(prf, 1, NULL, "preempted");
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "% on the CPU, 80% runnable"));
	assert_null(strstr(r.out, "clock_gettime"));
}

/* ---- the strips (text) ------------------------------------------------- */

/*
 * The strip of thread tid's row ("cpu" or "wait") in text out: what is
 * between its bars, into buf.  Fails the test if there is none.
 */
static void
strip_of(const char *out, unsigned tid, const char *row, char *buf,
    size_t size)
{
	char head[32], label[16];
	const char *at, *bar, *end;

	snprintf(head, sizeof head, "\nthread %u ", tid);
	snprintf(label, sizeof label, "\n%4s |", row);
	if ((at = strstr(out, head)) == NULL ||
	    (at = strchr(at + 1, '\n')) == NULL)
		fail_msg("no strip of thread %u in:\n%s", tid, out);
	/* the thread's rows follow its line, cpu then wait */
	if (strncmp(at, label, strlen(label)) != 0 &&
	    strncmp(strchr(at + 1, '\n'), label, strlen(label)) != 0)
		fail_msg("no %s row for thread %u in:\n%s", row, tid, out);
	if (strncmp(at, label, strlen(label)) != 0)
		at = strchr(at + 1, '\n');
	bar = at + strlen(label);
	end = strchr(bar, '|');
	if (end == NULL || (size_t)(end - bar) >= size)
		fail_msg("thread %u's %s row is not closed:\n%s", tid, row,
		    out);
	memcpy(buf, bar, (size_t)(end - bar));
	buf[end - bar] = '\0';
}

/*
 * Each column of strip (n of them over the run) that lies wholly in
 * slices [k0, k1) shows c.
 */
static void
assert_columns(const char *strip, uint64_t k0, uint64_t k1, char c,
    const char *what)
{
	size_t n = strlen(strip), checked = 0;

	for (size_t j = 0; j < n; j++) {
		uint64_t from = SPAN_NS * j / n, to = SPAN_NS * (j + 1) / n;

		if (from < k0 * SLICE_NS || to > k1 * SLICE_NS)
			continue;
		checked++;
		if (strip[j] != c)
			fail_msg("%s: column %zu ('%c') is not '%c': |%s|",
			    what, j, strip[j], c, strip);
	}
	if (checked == 0)
		fail_msg("%s: no column in slices %llu to %llu", what,
		    (unsigned long long)k0, (unsigned long long)k1);
}

/* Every line of out at most width columns (UTF-8 characters). */
static void
assert_width(const char *out, int width, const char *what)
{
	int col = 0, line = 1;

	for (const unsigned char *c = (const unsigned char *)out; *c; c++) {
		if (*c == '\n') {
			col = 0;
			line++;
		} else if ((*c & 0xc0) != 0x80 && ++col > width) {
			fail_msg("%s: line %d is wider than %d:\n%s", what,
			    line, width, out);
		}
	}
}

/* The strips of the clean wall profile in out, n columns wide. */
static void
assert_wall_strips(const char *out, size_t n, const char *what)
{
	char cpu[4200], wait[4200];

	strip_of(out, T1, "cpu", cpu, sizeof cpu);
	strip_of(out, T1, "wait", wait, sizeof wait);
	if (strlen(cpu) != n || strlen(wait) != n)
		fail_msg("%s: strips %zu and %zu wide, want %zu", what,
		    strlen(cpu), strlen(wait), n);
	assert_columns(cpu, 0, 100, '@', what);		/* a() */
	assert_columns(wait, 0, 100, ' ', what);
	assert_columns(cpu, 101, 150, ' ', what);	/* read */
	assert_columns(wait, 101, 150, 'i', what);
	assert_columns(cpu, 151, 250, '@', what);	/* b() */
	assert_columns(wait, 151, 250, ' ', what);
	strip_of(out, T2, "cpu", cpu, sizeof cpu);
	strip_of(out, T2, "wait", wait, sizeof wait);
	assert_columns(cpu, 0, 120, ' ', what);		/* asleep */
	assert_columns(wait, 0, 120, 's', what);
	assert_columns(cpu, 121, 250, '@', what);	/* c() */
	assert_columns(wait, 121, 250, ' ', what);
}

/*
 * In a pipe: 80 columns, or COLUMNS; --wide a column per slice.  Each
 * thread busy and waiting where it was; the phases under the strips
 * name what they found.
 */
static void
test_strips_in_a_pipe(void **state)
{
	SCRATCH_PATH(prf, "wall.prf");
	char *argv[] = { profil_bin, "report", "--timeline", prf, NULL };
	char *wide[] = { profil_bin, "report", "--timeline", "--wide", prf,
	    NULL };
	struct run r;
	char cpu[4200];

	(void)state;
	save_made(prf, MADE_WALL, 1);
	unsetenv("COLUMNS");
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	assert_width(r.out, 80, "a pipe");
	assert_wall_strips(r.out, 80 - 7, "a pipe");
	assert_non_null(strstr(r.out, "load_config"));
	assert_non_null(strstr(r.out, "% off the CPU in read"));
	assert_non_null(strstr(r.out, "% off the CPU in clock_nanosleep"));
	assert_non_null(strstr(r.out, "\n  i "));	/* the legend's I/O */
	setenv("COLUMNS", "120", 1);
	run(&r, argv);
	unsetenv("COLUMNS");
	assert_int_equal(r.status, 0);
	assert_width(r.out, 120, "COLUMNS=120");
	assert_wall_strips(r.out, 120 - 7, "COLUMNS=120");
	/* no finer than a slice: 250 of them, not 1000 columns */
	setenv("COLUMNS", "1000", 1);
	run(&r, argv);
	unsetenv("COLUMNS");
	assert_wall_strips(r.out, NSLICES, "COLUMNS=1000");
	run(&r, wide);
	assert_int_equal(r.status, 0);
	assert_wall_strips(r.out, NSLICES, "--wide");
	/* a CPU profile: no wait row, nothing where the threads waited */
	save_made(prf, 0, 1);
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_width(r.out, 80, "a CPU profile");
	assert_null(strstr(r.out, "wait |"));
	strip_of(r.out, T1, "cpu", cpu, sizeof cpu);
	assert_columns(cpu, 0, 100, '@', "a CPU profile");
	assert_columns(cpu, 101, 150, ' ', "a CPU profile");
}

/*
 * argv in a terminal of cols columns, its locale UTF-8: what it wrote,
 * its carriage returns taken out, into out.
 */
static void
run_in_terminal(char *const argv[], unsigned short cols, char *out,
    size_t size)
{
	struct winsize ws = { 40, cols, 0, 0 };
	size_t len = 0;
	int fd, status;
	pid_t pid = forkpty(&fd, NULL, NULL, &ws);
	char buf[4096];
	ssize_t got;

	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("LC_ALL", "C.UTF-8", 1);
		unsetenv("COLUMNS");
		execv(argv[0], argv);
		_exit(127);
	}
	/* EIO once the child is gone and the terminal hung up */
	while ((got = read(fd, buf, sizeof buf)) > 0 || (got < 0 &&
	    errno == EINTR))
		for (ssize_t i = 0; i < got; i++)
			if (buf[i] != '\r' && len + 1 < size)
				out[len++] = buf[i];
	out[len] = '\0';
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("exit status %#x in a terminal:\n%s", status, out);
}

/* In a terminal: its width, and in a UTF-8 locale the blocks. */
static void
test_strips_in_a_terminal(void **state)
{
	SCRATCH_PATH(prf, "wall.prf");
	char *argv[] = { profil_bin, "report", "--timeline", "--color",
	    "never", prf, NULL };
	static char out[65536];
	const char *at;

	(void)state;
	save_made(prf, MADE_WALL, 1);
	run_in_terminal(argv, 100, out, sizeof out);
	assert_width(out, 100, "a terminal of 100 columns");
	/* thread 1's cpu row: the full block where it ran */
	at = strstr(out, "\nthread 100 ");
	assert_non_null(at);
	at = strstr(at, " cpu |");
	assert_non_null(at);
	if (strncmp(at + 6, "\u2588\u2588\u2588", 9) != 0)
		fail_msg("no full blocks where thread 1 ran:\n%s", out);
	/* an en dash in the phases' spans */
	assert_non_null(strstr(out, "\u2013"));
}

/* ---- JSON, errors, --limit --------------------------------------------- */

/* The integer after "key": in the JSON object at at. */
static long long
json_int(const char *at, const char *key)
{
	char quoted[64];
	const char *v;

	snprintf(quoted, sizeof quoted, "\"%s\": ", key);
	v = strstr(at, quoted);
	if (v == NULL || v > strchr(at, '}'))
		fail_msg("no %s in %.200s", key, at);
	return strtoll(v + strlen(quoted), NULL, 10);
}

/*
 * JSON says what CSV says: as many rows, each phase's times, and a
 * column's time on the CPU and in I/O.
 */
static void
test_json_is_the_csv(void **state)
{
	SCRATCH_PATH(prf, "noisy.prf");
	SCRATCH_PATH(json, "timeline.json");
	char *argv[] = { profil_bin, "report", "--timeline", "--format",
	    "json", prf, NULL };
	const char *at;
	struct csv t;
	char *text;
	int rows = 0;

	(void)state;
	save_made(prf, MADE_WALL | MADE_NOISE, 7);
	timeline_csv(&t, prf, NULL);
	assert_int_equal(run_to_file(argv, json), 0);
	text = slurp(json);
	assert_true(text[0] == '[');
	for (at = strchr(text, '{'); at != NULL; at = strchr(at + 1, '{')) {
		const char *which = strstr(at, "\"row\": \"") + 8;

		assert_true(rows < t.nrows);
		assert_int_equal(strncmp(which, text_at(&t, rows, "row"),
		    strlen(text_at(&t, rows, "row"))), 0);
		assert_int_equal(json_int(at, "start_ns"),
		    (long long)num(&t, rows, "start_ns"));
		assert_int_equal(json_int(at, "end_ns"),
		    (long long)num(&t, rows, "end_ns"));
		assert_int_equal(json_int(at, "cpu_ns"),
		    (long long)num(&t, rows, "cpu_ns"));
		assert_int_equal(json_int(at, "io_ns"),
		    (long long)num(&t, rows, "io_ns"));
		rows++;
	}
	assert_int_equal(rows, t.nrows);
	/* a column per slice and thread, then the phases */
	assert_int_equal(row_of(&t, "row", "phase"), 2 * NSLICES);
	free(text);
	csv_free(&t);
}

/* One line on stderr from report, exit 1, holding want. */
static void
assert_refused(const char *prf, const char *want)
{
	char *argv[] = { profil_bin, "report", "--timeline", (char *)prf,
	    NULL };
	struct run r;

	run(&r, argv);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	assert_one_line(&r, "report");
	if (strstr(r.err, want) == NULL)
		fail_msg("want '%s' in: %s", want, r.err);
}

/*
 * No timeline: recorded before profil kept one, or without call stacks
 * (--no-call-graph): one line saying which.
 */
static void
test_no_timeline(void **state)
{
	SCRATCH_PATH(old, "old.prf");
	SCRATCH_PATH(flat, "flat.prf");

	(void)state;
	save_made(old, MADE_WALL | MADE_NO_TIMELINE, 1);
	assert_refused(old, "no timeline (recorded by a profil from before "
	    "timelines)");
	save_flat(flat);
	assert_refused(flat, "no call stacks");
}

/* --limit N: the N threads with most time, and a word on the others. */
static void
test_limit(void **state)
{
	SCRATCH_PATH(prf, "cpu.prf");
	char *argv[] = { profil_bin, "report", "--timeline", "--limit", "1",
	    prf, NULL };
	struct run r;
	struct csv t;

	(void)state;
	save_made(prf, 0, 1);
	run(&r, argv);
	assert_int_equal(r.status, 0);
	/* thread 1 ran 2 s, thread 2 1.3 s */
	assert_non_null(strstr(r.out, "\nthread 100 "));
	assert_null(strstr(r.out, "\nthread 101 "));
	assert_non_null(strstr(r.out, "(1 more threads"));
	timeline_csv(&t, prf, "--limit");
	for (int i = 0; i < t.nrows; i++)
		if (strcmp(text_at(&t, i, "tid"), "101") == 0)
			fail_msg("thread 101 in row %d of --limit 1's CSV", i);
	csv_free(&t);
}

/* Each test from 10 ms slices, whatever one that failed left. */
static int
ten_ms_slices(void **state)
{
	(void)state;
	made_slice_ns = 10 * MS;
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_phases_clean, ten_ms_slices),
		cmocka_unit_test_setup(test_phases_noisy, ten_ms_slices),
		cmocka_unit_test_setup(test_phases_preempted, ten_ms_slices),
		cmocka_unit_test_setup(test_strips_in_a_pipe, ten_ms_slices),
		cmocka_unit_test_setup(test_strips_in_a_terminal,
		    ten_ms_slices),
		cmocka_unit_test_setup(test_json_is_the_csv, ten_ms_slices),
		cmocka_unit_test_setup(test_no_timeline, ten_ms_slices),
		cmocka_unit_test_setup(test_limit, ten_ms_slices),
	};

	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
