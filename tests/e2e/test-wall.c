/*
 * test-wall.c - `profil record --wall` end to end (issue 17): real
 * recordings of tests/programs/wall-workload.c, built with frame pointers and
 * without, read back through `profil report --tree --format csv` and the
 * library.  Time off the CPU is measured by context switches, so it is
 * held to what the program measured of itself within a few milliseconds;
 * CPU time is sampled, so it is held to its count within several
 * standard errors, and runs are sized by the samples that needs.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

static char wall_wl[PATH_MAX], wall_wl_fp[PATH_MAX];

/* ---- the call tree, as report --tree --format csv gives it --------------- */

struct node {
	int parent;
	char function[256];
	double incl;		/* inclusive, in intervals (samples) */
};

struct tree {
	size_t n;
	struct node nodes[8192];
};

/* The call tree of prf (cpu: of its time on the CPU only), every node. */
static void
tree_of(struct tree *t, const char *prf, int cpu)
{
	static struct run r;
	char *argv[] = { profil_bin, "report", "--tree", "--format", "csv",
	    "--min-percent", "0", (char *)prf, cpu ? "--cpu" : NULL, NULL };
	const char *line;
	/* a wall view's samples count CPU samples; its time is in seconds */
	int want = cpu ? 6 : 11;
	double interval_s = 0;

	if (!cpu) {
		struct profil_profile *p = profil_profile_read(prf, NULL, 0);

		assert_non_null(p);
		interval_s = (double)p->interval_ns / 1e9;
		profil_profile_free(p);
	}
	run(&r, argv);
	if (r.status != 0)
		fail_msg("report --tree %s: exit %d: %s", prf, r.status, r.err);
	if (strncmp(r.out, "id,parent,depth,function,object,inclusive_samples,",
	    50) != 0)
		fail_msg("report --tree: not the CSV expected: %.200s", r.out);
	t->n = 0;
	for (line = strchr(r.out, '\n') + 1; *line; ) {
		char f[11][256];
		struct node *nd = &t->nodes[t->n];
		int k;

		for (k = 0; k < want && csv_field(&line, f[k], sizeof f[k]); k++)
			;
		if (k < want)
			fail_msg("report --tree: a short row near '%.80s'", line);
		if (t->n == sizeof t->nodes / sizeof t->nodes[0])
			fail_msg("report --tree: over %zu nodes", t->n);
		if (atoi(f[0]) != (int)t->n || atoi(f[1]) >= (int)t->n)
			fail_msg("report --tree: node %s out of order", f[0]);
		nd->parent = atoi(f[1]);
		snprintf(nd->function, sizeof nd->function, "%s", f[3]);
		nd->incl = cpu ? atof(f[5]) : atof(f[10]) / interval_s;
		t->n++;
		line = strchr(line, '\n');
		if (line == NULL)
			break;
		line++;
	}
}

/* Whether node i has an ancestor (not itself) named fn. */
static int
has_ancestor(const struct tree *t, size_t i, const char *fn)
{
	for (int up = t->nodes[i].parent; up >= 0; up = t->nodes[up].parent)
		if (strcmp(t->nodes[up].function, fn) == 0)
			return 1;
	return 0;
}

/*
 * Intervals at nodes named fn below a node named above (NULL: anywhere),
 * each path counted once (recursion into fn is not counted again).
 */
static double
under(const struct tree *t, const char *above, const char *fn)
{
	double sum = 0;

	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->nodes[i].function, fn) == 0 &&
		    !has_ancestor(t, i, fn) &&
		    (above == NULL || has_ancestor(t, i, above)))
			sum += t->nodes[i].incl;
	return sum;
}

/* ---- what the program said, what the profile says -------------------------- */

/* The number after "key " in out; fails if absent. */
static double
said(const char *out, const char *key)
{
	char want[64];
	const char *at;

	snprintf(want, sizeof want, "%s ", key);
	for (at = out; (at = strstr(at, want)) != NULL; at++)
		if (at == out || at[-1] == '\n')
			return atof(at + strlen(want));
	fail_msg("the program did not say its %s: %s", key, out);
	return 0;	/* not reached */
}

static struct profil_profile *
read_wall(const char *prf)
{
	char cause[256], *check[] = { profil_bin, "check", (char *)prf, NULL };
	struct profil_profile *p = profil_profile_read(prf, cause, sizeof cause);
	static struct run r;

	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	if (p->wall == NULL)
		fail_msg("%s: not a wall profile", prf);
	run(&r, check);
	if (r.status != 0)
		fail_msg("check %s: exit %d: %s", prf, r.status, r.err);
	return p;
}

/*
 * Nanoseconds off the CPU in stacks of pid (0: any) whose leaf is
 * [off-cpu: code] (UINT64_MAX: any), and of them sampled.
 */
static double
off_ns(const struct profil_profile *p, uint32_t pid, uint64_t code,
    double *sampled)
{
	double sum = 0;

	if (sampled)
		*sampled = 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		const struct profil_frame *leaf = &p->frames[st->frames[0]];

		if (leaf->object != PROFIL_FRAME_OFFCPU ||
		    (pid != 0 && st->pid != pid) ||
		    (code != UINT64_MAX && leaf->addr != code))
			continue;
		sum += (double)st->off_ns;
		if (sampled)
			*sampled += (double)st->sampled_ns;
	}
	return sum;
}

/*
 * How far off a blocked part may be in the timer engine, beyond the perf
 * engine's margin: it has no switch records, and places the time between
 * two readings of a thread's counters by halves where it moved from one
 * place to the next.  A part's start and end are each placed to within
 * half the time between two readings: 2.5 ms for a running thread, 10 ms
 * for one parked (read every 20 ms); on a busy machine the recorder
 * reads late, up to as much again (measured with a core burned: 26 ms
 * off at most).  So 2 x 20 ms + 3 ms: a part put under the wrong
 * function is still off by all of its 200 ms.
 */
#define TIMER_SLACK	43e-3

static void
need_perf(void)
{
	if (!harness_perf_allowed())
		SKIP("perf events refused here: record --wall takes the perf "
		    "engine's context switches");
}

/*
 * A blocked part as the profile has it, against what the program
 * measured around its call.  The switches time the interval off the CPU
 * on the program's own clock (CLOCK_MONOTONIC) to the nanosecond, so what
 * separates the two is: the program's window also holds some time on
 * the CPU (entering the call, the return after waking: microseconds);
 * a preemption inside the window, which the profile puts under the same
 * function as [off-cpu: runnable] (allowed for, measured); the report's
 * rounding to an interval (0.2 ms); and the thread's blocks too short to
 * be looked at, apportioned by sampling to the places looks found its
 * short blocks at, which may be this one (main's few short waits: a
 * millisecond or so).  3 ms, or 3% of a long part, covers these with
 * room; a part not looked at (its time lost to [off-cpu: blocked]) or
 * put under another function is off by the whole part.
 */
static void
assert_part_with(const struct tree *t, double interval_s, const char *function,
    const char *leaf, double measured, double slack)
{
	double got = interval_s * under(t, function, leaf);
	double runnable = interval_s * under(t, function, "[off-cpu: runnable]");
	double margin = fmax(3e-3, 0.03 * measured) + slack;

	if (got > measured + margin || got < measured - margin - runnable)
		fail_msg("%s: %.1f ms under %s in the profile, the program "
		    "measured %.1f ms (+- %.1f ms, %.1f ms preempted)", leaf,
		    1e3 * got, function, 1e3 * measured, 1e3 * margin,
		    1e3 * runnable);
	print_message("%s under %s: %.2f ms, measured %.2f ms\n", leaf, function,
	    1e3 * got, 1e3 * measured);
}

static void
assert_part(const struct tree *t, double interval_s, const char *function,
    const char *leaf, double measured)
{
	assert_part_with(t, interval_s, function, leaf, measured, 0);
}

/*
 * parts: CPU, then a sleep, a read and a mutex each about 0.2 s.  The
 * CPU part's samples (in the --cpu tree, under cpu_part) are held to its
 * measured CPU time x the rate within 4 standard errors of that count (and
 * 2 samples for the ends); the run is sized for that to be 10% at most:
 * 1600 samples.
 */
static void
parts_check(const char *prog, const char *engine)
{
	static struct tree t;
	static struct run r;
	const double need = (4 / 0.10) * (4 / 0.10);
	const char *prf = tmp("parts.prf");
	double slack = strcmp(engine, "timer") == 0 ? TIMER_SLACK : 0;
	int runs = 0;

	if (strcmp(engine, "perf") == 0)
		need_perf();
	for (double cpu = atof(e2e_cpu_for(need, 1));;) {
		char arg[32];
		char *program[] = { "--wall", (char *)prog, "parts", arg, "0.2",
		    "0.2", "0.2", NULL };
		struct profil_profile *p;
		double interval_s, want, got, margin, scale;

		snprintf(arg, sizeof arg, "%.3f", cpu);
		record_run(&r, engine, prf, program);
		p = read_wall(prf);
		interval_s = (double)p->interval_ns / 1e9;
		/* weighted counts (the timer engine's, above the tick rate):
		   as precise as samples / scale unweighted ones */
		scale = p->samples > 0 && p->weight_sq > p->samples ?
		    (double)p->weight_sq / (double)p->samples : 1;
		profil_profile_free(p);
		tree_of(&t, prf, 1);
		got = under(&t, NULL, "cpu_part");
		want = said(r.out, "cpu") / interval_s;
		if (got / scale < need) {
			cpu = e2e_longer(cpu, got / scale, need, &runs);
			continue;
		}
		margin = 4 * sqrt(want * scale) + 2 * scale;
		if (fabs(got - want) > margin)
			fail_msg("cpu_part: %.0f samples, its %.3f s of CPU make "
			    "%.0f +- %.0f", got, said(r.out, "cpu"), want, margin);
		tree_of(&t, prf, 0);
		assert_part_with(&t, interval_s, "sleep_part",
		    "[off-cpu: clock_nanosleep]", said(r.out, "sleep"), slack);
		assert_part_with(&t, interval_s, "read_part", "[off-cpu: read]",
		    said(r.out, "read"), slack);
		assert_part_with(&t, interval_s, "lock_part", "[off-cpu: futex]",
		    said(r.out, "lock"), slack);
		return;
	}
}

static void
test_parts_without_frame_pointers(void **state)
{
	(void)state;
	parts_check(wall_wl, "perf");
}

static void
test_parts_with_frame_pointers(void **state)
{
	(void)state;
	parts_check(wall_wl_fp, "perf");
}

/* The same parts in the timer engine (no switch records: a container). */
static void
test_timer_parts(void **state)
{
	(void)state;
	parts_check(wall_wl, "timer");
}

/*
 * Looking at blocked threads never interrupts them: poll, sleep, select,
 * a read with SO_RCVTIMEO and epoll_wait, none retried, each time out
 * normally under record --wall (the program exits 1 otherwise, saying
 * which).  The program is run plain first, so that a failure there is
 * not blamed on the recorder.
 */
static void
noeintr_check(const char *engine)
{
	static struct run r;
	char *plain[] = { wall_wl, "noeintr", NULL };
	char *program[] = { "--wall", wall_wl, "noeintr", NULL };
	const char *prf = tmp("noeintr.prf");
	struct profil_profile *p;
	double off;

	if (strcmp(engine, "perf") == 0)
		need_perf();
	run(&r, plain);
	if (r.status != 0)
		fail_msg("noeintr fails without profil: %s", r.err);
	record_run(&r, engine, prf, program);	/* fails unless it exits 0 */
	p = read_wall(prf);
	/* and the recorder saw them: 5 x 300 ms off the CPU at least */
	off = off_ns(p, p->processes[0].pid, UINT64_MAX, NULL);
	if (off < 1.5e9)
		fail_msg("%.0f ms off the CPU recorded, 1500 waited", off / 1e6);
	profil_profile_free(p);
}

static void
test_no_eintr(void **state)
{
	(void)state;
	noeintr_check("perf");
}

/* The timer engine's CPU timers fire only in running threads: none either. */
static void
test_timer_no_eintr(void **state)
{
	(void)state;
	noeintr_check("timer");
}

/*
 * 1,000 threads parked for the run while main works: their time is under
 * one parking stack (parker, [off-cpu: futex]), adding up to what they
 * measured, and each was read a few times at most (a new thread may
 * block briefly before it parks: its stack's first page faults, the
 * allocator's lock), not once a poll (5 ms: 100 polls in the run).  The
 * margin: each thread's window holds some time on the CPU
 * (its start, the return after waking: tens of microseconds, 1000 of
 * them), and the wake of 1,000 threads at once leaves most waiting for a
 * CPU, which the program's window and the switches both count; 2%, and
 * what the profile shows preempted under parker.
 */
enum { THREADS = 1000 };

/*
 * Record THREADS parked threads in engine; their time under parker /
 * [off-cpu: futex] within margin (a fraction) of what they measured,
 * and at most reads_each looks a thread.
 */
static void
parked_check(const char *engine, const char *prf, const char *seconds,
    double margin, double reads_each)
{
	static struct tree t;
	static struct run r;
	char *program[] = { "--wall", wall_wl, "parked", "1000", (char *)seconds,
	    NULL };
	struct profil_profile *p;
	double interval_s, got, measured, runnable, reads;

	record_run(&r, engine, prf, program);
	measured = said(r.out, "parked");
	p = read_wall(prf);
	interval_s = (double)p->interval_ns / 1e9;
	reads = (double)p->wall->reads;
	if (p->nthreads < THREADS)
		fail_msg("%zu threads in the profile, %d ran", p->nthreads,
		    THREADS + 1);
	profil_profile_free(p);
	print_message("%.0f stacks read for %d parked threads\n", reads, THREADS);
	if (reads < THREADS || reads > reads_each * THREADS)
		fail_msg("%.0f stacks read for %d threads parked for the run: "
		    "a few each at most, not one a poll", reads, THREADS);
	tree_of(&t, prf, 0);
	got = interval_s * under(&t, "parker", "[off-cpu: futex]");
	runnable = interval_s * under(&t, "parker", "[off-cpu: runnable]");
	print_message("parked: %.3f s in the profile, %.3f s measured\n", got,
	    measured);
	if (got > (1 + margin) * measured ||
	    got < (1 - margin) * measured - runnable)
		fail_msg("%.3f s parked in the profile, the threads measured "
		    "%.3f s (%.0f%%, %.3f s preempted)", got, measured,
		    100 * margin, runnable);
}

static void
test_thousand_parked_threads(void **state)
{
	(void)state;
	need_perf();
	parked_check("perf", tmp("parked.prf"), "0.5", 0.02, 3);
}

/*
 * The timer engine's 1,000 parked threads: no switch records, so each
 * thread's counters are read while it stays parked, less and less often
 * (to every 20 ms, 50 ms for 1,000): a few reads each, not one a poll
 * (5 ms: hundreds in the run).  Its totals are measured, but what a
 * thread does between its last two readings is placed by halves: here,
 * woken together, the threads queue on a lock on their way out, which
 * a reading 50 ms apart misses, and part of it goes to the park (25-75
 * ms a thread, more the slower the machine).  So the park is 2 s, for
 * that to be a few percent, and the margin 10%.
 */
static void
test_timer_parked_threads(void **state)
{
	(void)state;
	parked_check("timer", tmp("parked-timer.prf"), "2", 0.10, 5);
}

/*
 * With --no-children, a child the program forks is not profiled: none
 * of its time, on the CPU or off it, is in the profile (its switches
 * were left out, and so must its fork and exit be, or its thread would
 * wait "runnable" from its fork to the end).
 */
static void
test_no_children_leaves_children_out(void **state)
{
	static struct run r;
	char *program[] = { "--wall", "--no-children", wall_wl, "child", "0.2",
	    NULL };
	const char *prf = tmp("nochild.prf");
	struct profil_profile *p;
	uint32_t child;

	(void)state;
	need_perf();
	record_run(&r, "perf", prf, program);
	child = (uint32_t)atoi(strstr(r.out, "child ") + 6);
	p = read_wall(prf);
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].pid == child)
			fail_msg("--no-children: the child %u is among the "
			    "threads", child);
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].pid == child)
			fail_msg("--no-children: the child %u has a stack", child);
	profil_profile_free(p);
}

/*
 * A program an ordinary user's recorder may not read (undumpable, as a
 * set-uid one is): one line says so, and its time off the CPU is kept,
 * without a stack ([off-cpu: blocked]), with its CPU profile.  As root
 * every program is readable, so the recorder runs as nobody.
 */
static void
test_unreadable_program_keeps_its_time(void **state)
{
	static struct run r;
	char dir[] = "/tmp/profil-wall-XXXXXX", prf[64];
	char *as_root[] = { profil_bin, "record", "--wall", "-o", prf, wall_wl,
	    "undumpable", "0.3", "0.05", NULL };
	char *as_nobody[] = { "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
	    "--clear-groups", profil_bin, "record", "--wall", "-o", prf, wall_wl,
	    "undumpable", "0.3", "0.05", NULL };
	struct profil_profile *p;
	const char *line;
	double blocked = 0, slept;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(prf, sizeof prf, "%s/u.prf", dir);
	run(&r, geteuid() == 0 ? as_nobody : as_root);
	if (r.status == 99 || r.status == 126 || r.status == 127 ||
	    strstr(r.err, "setpriv:"))
		SKIP("cannot run the recorder as nobody here");
	if (r.status != 0)
		fail_msg("record exited %d: %s", r.status, r.err);
	line = strstr(r.err, "cannot be read");
	if (line == NULL)
		fail_msg("no word of the unreadable stacks: %s", r.err);
	slept = said(r.out, "sleep");
	p = read_wall(prf);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];

		if (st->off_ns > 0 && p->frames[st->frames[0]].addr ==
		    PROFIL_OFFCPU_BLOCKED)
			blocked += (double)st->off_ns / 1e9;
	}
	print_message("unreadable: %.3f s blocked without a stack, slept %.3f "
	    "s, %.3f s unread\n", blocked, slept,
	    (double)p->wall->unread_ns / 1e9);
	/* the switches (or counters) still measure it, to a few ms */
	if (blocked < slept - 0.02 || (double)p->wall->unread_ns / 1e9 <
	    slept - 0.02)
		fail_msg("slept %.3f s, %.3f s blocked without a stack, %.3f s "
		    "unread", slept, blocked, (double)p->wall->unread_ns / 1e9);
	if (p->samples == 0)
		fail_msg("its CPU profile is gone");
	profil_profile_free(p);
	unlink(prf);
	rmdir(dir);
}

/*
 * Options that make no sense with --wall say so, in one line, as a
 * usage error, before anything runs: no stacks to place waiting at, a
 * budget (the waiting is measured, not sampled at a rate).
 */
static void
test_options_that_do_not_go_with_wall(void **state)
{
	static struct run r;
	const char *prf = tmp("never.prf");
	char *no_stacks[] = { profil_bin, "record", "--wall", "--no-call-graph",
	    "-o", (char *)prf, "true", NULL };
	char *budget[] = { profil_bin, "record", "--wall", "--samples", "1000",
	    "-o", (char *)prf, "true", NULL };
	char **cases[] = { no_stacks, budget };

	(void)state;
	unlink(prf);
	for (size_t i = 0; i < 2; i++) {
		run(&r, cases[i]);
		assert_int_equal(r.status, 2);
		assert_non_null(strstr(r.err, "--wall"));
		assert_null(strchr(strchr(r.err, '\n') + 1, '\n'));
		assert_int_equal(access(prf, F_OK), -1);
	}
}

/* A forked child's sleep is its own, under its pid, at its stack. */
static void
test_child_sleep_under_its_pid(void **state)
{
	static struct tree t;
	static struct run r;
	char *program[] = { "--wall", wall_wl, "child", "0.2", NULL };
	const char *prf = tmp("child.prf");
	struct profil_profile *p;
	double slept, in_child, in_parent, margin, interval_s;
	uint32_t child;
	int seen = 0;

	(void)state;
	need_perf();
	record_run(&r, "perf", prf, program);
	child = (uint32_t)atoi(strstr(r.out, "child ") + 6);
	slept = atof(strstr(r.out, " sleep ") + 7);
	p = read_wall(prf);
	interval_s = (double)p->interval_ns / 1e9;
	/*
	 * Its thread (the process list leaves out a process with no CPU
	 * sample and no exit status seen, as a forked child's is not)
	 */
	for (size_t i = 0; i < p->nthreads; i++)
		seen |= p->threads[i].pid == child && p->threads[i].tid == child;
	if (!seen)
		fail_msg("child %u not among the profile's threads", child);
	in_child = off_ns(p, child, SYS_clock_nanosleep, NULL) / 1e9;
	in_parent = off_ns(p, (uint32_t)atoi(strstr(r.out, " parent ") + 8),
	    SYS_clock_nanosleep, NULL) / 1e9;
	profil_profile_free(p);
	/* as assert_part: exact switches, 3 ms for what is around the call */
	margin = fmax(3e-3, 0.03 * slept);
	if (fabs(in_child - slept) > margin)
		fail_msg("the child slept %.1f ms, its pid has %.1f ms of "
		    "clock_nanosleep", 1e3 * slept, 1e3 * in_child);
	if (in_parent > margin)
		fail_msg("the parent never sleeps, yet has %.1f ms of "
		    "clock_nanosleep", 1e3 * in_parent);
	tree_of(&t, prf, 0);
	assert_part(&t, interval_s, "child_sleep",
	    "[off-cpu: clock_nanosleep]", slept);
}

/*
 * Attached to a running program that naps 20 ms and spins 20 ms of CPU
 * in turn, both parts are in the profile, in the amounts a turn has.
 * A nap is 20 ms off the CPU at least (a sleep never ends early) and
 * more by its wake-up, which on a loaded machine waits for a CPU (and
 * the switches count it); a spin is 20 ms of CPU and up to 2 ms more
 * (the program reads its CPU clock every ~2 ms).  So the nap's time is
 * at least 20/22 of the spin's, and at most twice it (a wake-up waiting
 * 20 ms a turn on average is no profile of this program), each less or
 * more by two turns (the recording's ends cut one each) and 4 standard
 * errors of the spin's sample count.  The run is long enough for 400 of
 * them (20% for those 4 errors at most).
 */
static void
test_attach_sees_sleep_and_spin(void **state)
{
	static struct tree t;
	static struct run r;
	const double need = 400;
	char pidstr[16], ready[16] = "";
	const char *prf = tmp("attach.prf");
	char *argv[] = { profil_bin, "record", "-q", "--wall", "-F", "5000",
	    "-o", (char *)prf, "-p", pidstr, NULL };
	struct profil_profile *p;
	double interval_s = 0, nap, spin = 0, slack, ms = 1500;
	int out[2], runs = 0;
	pid_t w;

	(void)state;
	need_perf();
	assert_int_equal(pipe(out), 0);
	if ((w = fork()) == 0) {
		dup2(out[1], 1);
		close(out[0]);
		execl(wall_wl, "wall-workload", "alternate", (char *)NULL);
		_exit(99);
	}
	assert_true(w > 0);
	close(out[1]);
	/* started and in its loop before we attach */
	if (read(out[0], ready, sizeof ready - 1) <= 0 ||
	    strncmp(ready, "ready", 5) != 0) {
		kill(w, SIGKILL);
		waitpid(w, NULL, 0);
		fail_msg("the program did not start");
	}
	snprintf(pidstr, sizeof pidstr, "%d", (int)w);
	for (;;) {
		run_full(&r, argv, NULL, SIGINT, TO_GROUP, (unsigned)ms);
		if (r.status != 0)
			break;
		p = read_wall(prf);
		interval_s = (double)p->interval_ns / 1e9;
		if (p->wall->unread_ns > 0 && geteuid() != 0) {
			profil_profile_free(p);
			kill(w, SIGKILL);
			waitpid(w, NULL, 0);
			SKIP("the blocked threads of a program we did not start "
			    "could not be read (ptrace refused: Yama's "
			    "ptrace_scope?)");
		}
		profil_profile_free(p);
		tree_of(&t, prf, 1);
		spin = under(&t, NULL, "spin");
		if (spin >= need)
			break;
		ms = e2e_longer(ms, spin, need, &runs);
	}
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	close(out[0]);
	if (r.status != 0)
		fail_msg("record -p: exit %d: %s", r.status, r.err);
	slack = 2 * 0.022 + 4 * sqrt(spin) * interval_s;
	spin *= interval_s;
	tree_of(&t, prf, 0);
	nap = interval_s * under(&t, "nap", "[off-cpu: clock_nanosleep]");
	print_message("attached: nap %.3f s, spin %.3f s of CPU\n", nap, spin);
	if (nap < spin * 20 / 22 - slack || nap > 2 * spin + slack)
		fail_msg("attached: %.3f s napping for %.3f s spinning, want "
		    "%.3f to %.3f s", nap, spin, spin * 20 / 22 - slack,
		    2 * spin + slack);
}

/*
 * A thread's time in a wall profile is its life, and its time on the
 * CPU what the kernel counted, whatever records it: both engines, as
 * root and as an ordinary user (who may sample user mode only), with
 * very short blocks (4,000 sleeps of 100 us, each with some 30 us of
 * CPU: the kernel's work at each switch is a large part of the CPU
 * time) and with none (60,000 64 KiB copies from /dev/zero to /dev/null: the
 * kernel's time almost all of it).  The truth is the program's own
 * schedstat at its end, and its life by its own clock from main on
 * (the profile counts from the exec: a few ms more).  Runnable is the
 * time on the run queue, woken or preempted, as schedstat counts it.
 */
static void
test_threads_time_is_the_kernels_count(void **state)
{
	static const char *engines[] = { "perf", "timer" };
	static const char *programs[][3] = {
		{ "naps", "4000", "100" }, { "copies", "60000", NULL } };
	static struct run r;

	(void)state;
	for (int user = 0; user < 2; user++)
	for (size_t e = 0; e < 2; e++)
	for (size_t k = 0; k < 2; k++) {
		const char *prf = tmp("truth.prf");
		char *argv[] = { profil_bin, "record", "-q", "--wall", "-e",
		    (char *)engines[e], "-o", (char *)prf, wall_wl,
		    (char *)programs[k][0], (char *)programs[k][1],
		    (char *)programs[k][2], NULL };
		char *threads[] = { profil_bin, "report", "--threads",
		    "--format", "csv", (char *)prf, NULL };
		char *const *as = user ? e2e_as_user(argv) : argv;
		double life, age, on, rq, total, running, blocked, runnable;
		const char *row;
		char what[64];

		if (as == NULL || (user && geteuid() != 0 && e + k > 0))
			continue;	/* no other user to be; or ran as one */
		snprintf(what, sizeof what, "%s %s%s", engines[e],
		    programs[k][0], user && geteuid() == 0 ? " as nobody" : "");
		run(&r, as);
		if (r.status != 0 && strstr(r.err, "refused") != NULL)
			continue;	/* perf events refused here */
		if (r.status != 0)
			fail_msg("%s: record exited %d: %s", what, r.status, r.err);
		life = said(r.out, "life");
		age = said(r.out, "age");
		on = said(r.out, "on");
		rq = said(r.out, "runq");
		chmod(prf, 0644);
		run(&r, threads);
		if (r.status != 0 || (row = strchr(r.out, '\n')) == NULL ||
		    sscanf(row + 1, "%*d,%*d,%*[^,],%*f,%*f,%*f,%lf,%lf,%lf,%lf",
		    &total, &running, &blocked, &runnable) != 4)
			fail_msg("%s: report --threads: %s%s", what, r.out, r.err);
		print_message("%s: life %.3f (age %.3f) on %.3f runq %.3f "
		    "blocked %.3f; profil %.3f, %.3f, %.3f, %.3f\n", what, life,
		    age, on, rq, life - on - rq, total, running, runnable,
		    blocked);
		/*
		 * The thread's time is at least its life from main on, and
		 * at most its age by the kernel's start of it (a tick over
		 * at most): before main come the loader and, with the timer
		 * engine, its library's start, which a loaded machine
		 * stretches (0.1 s past main's life at load 10, in CI).
		 * The timer engine knows a thread's start to a clock tick
		 * of /proc's starttime (half a tick either way), and counts
		 * its time blocked before its main: the recorder reading its
		 * maps while its loader maps libraries takes the lock they
		 * need, and on a loaded machine holds it for milliseconds
		 * (5.8 ms seen, the thread neither running nor runnable).
		 */
		if (total < life * 0.99 - 0.002 || total > fmax(life, age) *
		    1.01 + 0.008 +
		    (e == 1 ? 0.02 + 0.5 / (double)sysconf(_SC_CLK_TCK) : 0))
			fail_msg("%s: %.3f s of the thread's time, its life %.3f s "
			    "(%.3f s since the kernel started it)", what, total,
			    life, age);
		if (fabs(running - on) > 0.05 * on + 0.004)
			fail_msg("%s: %.3f s on the CPU, the kernel counted %.3f",
			    what, running, on);
		/*
		 * the kernel's on and runq count from its start, its time
		 * blocked is its age less them (or its life less them, when
		 * the tick's rounding of its age is the larger error)
		 */
		if (blocked < fmin(life, age) - on - rq - 0.05 * life - 0.008 ||
		    blocked > fmax(life, age) - on - rq + 0.05 * life + 0.008)
			fail_msg("%s: %.3f s blocked, the kernel %.3f (%.3f by its "
			    "age)", what, blocked, life - on - rq, age - on - rq);
	}
}

static int
setup(void **state)
{
	if (e2e_setup(state) != 0)
		return -1;
	snprintf(wall_wl, sizeof wall_wl, "%s/wall-workload", bindir);
	snprintf(wall_wl_fp, sizeof wall_wl_fp, "%s/wall-workload-fp", bindir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_without_frame_pointers),
		cmocka_unit_test(test_parts_with_frame_pointers),
		cmocka_unit_test(test_no_eintr),
		cmocka_unit_test(test_timer_parts),
		cmocka_unit_test(test_timer_no_eintr),
		cmocka_unit_test(test_timer_parked_threads),
		cmocka_unit_test(test_no_children_leaves_children_out),
		cmocka_unit_test(test_unreadable_program_keeps_its_time),
		cmocka_unit_test(test_options_that_do_not_go_with_wall),
		cmocka_unit_test(test_thousand_parked_threads),
		cmocka_unit_test(test_child_sleep_under_its_pid),
		cmocka_unit_test(test_attach_sees_sleep_and_spin),
		cmocka_unit_test(test_threads_time_is_the_kernels_count),
	};

	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
