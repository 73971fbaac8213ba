/*
 * test-jitlate.c - generated code named by files written late (issue
 * 25), end to end: a JVM writes its perf map at exit
 * (-XX:+DumpPerfMapAtExit) or when told (jcmd PID Compiler.perfmap), V8
 * buffers its jitdump records; the samples taken before are to be named
 * all the same, in both engines.  tests/programs/jit-workload.c's late modes do
 * as those runtimes do, with the CPU of each generated function measured
 * on the thread's clock; a real JVM, when there is one, measures its
 * methods' CPU itself (ThreadMXBean).  Then what is not named: one line
 * saying why and what the runtime needs, and the files a profiler must
 * not believe (another user's, anyone's to write, a symlink), each said
 * in one line and not read.
 *
 * The checks are tests/harness/jit-checks.h's: shares within 4 standard errors
 * of the sample count of what the program measured, runs sized by the
 * samples they need.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"
#include "jit-checks.h"

/* ---- the files a late mode leaves for the recorder ---------------------- */

/* Have the program list the files it leaves (PROFIL_TEST_JITLIST). */
static void
list_left(void)
{
	const char *list = tmp("left.list");

	unlink(list);
	setenv("PROFIL_TEST_JITLIST", list, 1);
	setenv("PROFIL_TEST_JITDIR", tmpdir, 1);
}

/* Remove what the program left (the recorder has read it by now). */
static void
remove_left(void)
{
	const char *list = tmp("left.list");
	char path[PATH_MAX];
	FILE *f = fopen(list, "r");

	unsetenv("PROFIL_TEST_JITLIST");
	unsetenv("PROFIL_TEST_JITDIR");
	if (f == NULL)
		return;
	while (fgets(path, sizeof path, f) != NULL) {
		path[strcspn(path, "\n")] = '\0';
		unlink(path);
	}
	fclose(f);
	unlink(list);
}

/* The lines of err holding what, and whether each also holds also. */
static int
lines_with(const char *err, const char *what, const char *also, int *all)
{
	int n = 0;

	*all = 1;
	for (const char *l = err; *l; ) {
		const char *nl = strchr(l, '\n');
		char text[2048];

		snprintf(text, sizeof text, "%.*s", nl ? (int)(nl - l) :
		    (int)strlen(l), l);
		if (strstr(text, what) != NULL) {
			n++;
			if (also != NULL && strstr(text, also) == NULL)
				*all = 0;
		}
		l = nl ? nl + 1 : l + strlen(l);
	}
	return n;
}

/* ---- a) names written late by the workload -------------------------------- */

/*
 * jit-workload MODE as record_mode runs it; flat: with --no-call-graph
 * (the flat profile's samples take another way in both engines).
 */
static void
record_late(struct shares *s, struct run *r, const char *engine,
    const char *prf, const char *mode, int flat, double need)
{
	char *prog[] = { "--no-call-graph", jit_wl, (char *)mode, E2E_CPU,
	    NULL };

	if (flat)
		record_for(s, r, engine, prf, prog, 1, need, NULL);
	else
		record_mode(s, r, engine, prf, mode, 1, need);
}

/*
 * MODE of jit-workload, whose names come late: jit_six, jit_three and
 * jit_one (in the map, "JS:*jit_one gen.js:3") named for the samples
 * taken before the names were written too, in the split measured, object
 * [jit], their stacks whole through the code unnamed when they were
 * unwound; the file removed before the report (the program's, or ours
 * once the recording is over); no line of code left unnamed.
 */
static void
late_check(const char *engine, const char *mode, int map, int flat)
{
	static const char *const map_names[3] = { "jit_six", "jit_three",
	    "JS:*jit_one gen.js:3" };
	static const char *const dump_names[3] = { "jit_six", "jit_three",
	    "jit_one" };
	static struct run r;
	char prf[64], what[64];
	struct jit_split sp;
	struct shares s;
	double scale;
	int all;

	need_perf(engine);
	snprintf(what, sizeof what, "%s, %s engine%s", mode, engine,
	    flat ? ", no call graph" : "");
	snprintf(prf, sizeof prf, "%s-%s.prf", mode, engine);
	list_left();
	record_late(&s, &r, engine, tmp(prf), mode, flat,
	    split_need(SPLIT_POINTS));
	remove_left();
	split_said(&sp, r.out, "jit", map ? map_names : dump_names);
	scale = weight_scale(tmp(prf));
	assert_named(&s, &sp, scale, what);
	assert_jit_object(&s, &sp, what);
	assert_split_as_measured(&s, &sp, scale, SPLIT_POINTS, what);
	if (!flat)
		assert_jit_stacks(tmp(prf), &sp, 1, what);
	if (lines_with(r.err, "left unnamed", NULL, &all) != 0)
		fail_msg("%s: code said unnamed:\n%s", what, r.err);
}

/* The map written at exit: every sample was kept back for it. */
static void
test_late_map_perf(void **state)
{
	(void)state;
	late_check("perf", "latemap", 1, 0);
}

static void
test_late_map_timer(void **state)
{
	(void)state;
	late_check("timer", "latemap", 1, 0);
}

/* The same, the samples with no stacks: they wait for names too. */
static void
test_late_map_flat_perf(void **state)
{
	(void)state;
	late_check("perf", "latemap", 1, 1);
}

static void
test_late_map_flat_timer(void **state)
{
	(void)state;
	late_check("timer", "latemap", 1, 1);
}

/* The map written halfway: the first half's samples wait for it. */
static void
test_mid_map_perf(void **state)
{
	(void)state;
	late_check("perf", "midmap", 1, 0);
}

static void
test_mid_map_timer(void **state)
{
	(void)state;
	late_check("timer", "midmap", 1, 0);
}

/* The jitdump records written at exit, jit_three's move among them. */
static void
test_late_dump_perf(void **state)
{
	(void)state;
	late_check("perf", "latedump", 0, 0);
}

static void
test_late_dump_timer(void **state)
{
	(void)state;
	late_check("timer", "latedump", 0, 0);
}

/* The loads written halfway, the move as it happens. */
static void
test_mid_dump_perf(void **state)
{
	(void)state;
	late_check("perf", "middump", 0, 0);
}

static void
test_mid_dump_timer(void **state)
{
	(void)state;
	late_check("timer", "middump", 0, 0);
}

/*
 * latereuse: jit_first, then jit_second loaded at the same address, both
 * CODE_LOADs written at exit: only their times say which code each
 * sample was in, and the split is 1:2 as measured.  Without the times,
 * one name has all or none.
 */
static void
late_reuse_check(const char *engine)
{
	static struct run r;
	struct jit_split sp = { 2, { "jit_first", "jit_second" },
	    { "call_slot", "call_slot" }, { 0, 0 }, 0 };
	char prf[64], what[64];
	struct shares s;
	double scale;

	need_perf(engine);
	snprintf(what, sizeof what, "late reuse, %s engine", engine);
	snprintf(prf, sizeof prf, "latereuse-%s.prf", engine);
	list_left();
	record_mode(&s, &r, engine, tmp(prf), "latereuse", 1,
	    e2e_samples_for_share(1 / 3.0, 4, SPLIT_POINTS / 100 - 0.005) +
	    E2E_STARTUP);
	remove_left();
	sp.cpu[0] = said(r.out, "jit_first");
	sp.cpu[1] = said(r.out, "jit_second");
	scale = weight_scale(tmp(prf));
	assert_named(&s, &sp, scale, what);
	assert_split_as_measured(&s, &sp, scale, SPLIT_POINTS, what);
}

static void
test_late_reuse_perf(void **state)
{
	(void)state;
	late_reuse_check("perf");
}

static void
test_late_reuse_timer(void **state)
{
	(void)state;
	late_reuse_check("timer");
}

/* ---- b) what stays unnamed, and files not to believe ----------------------- */

/*
 * "N of M samples (P%) are in generated code left unnamed (process PID):
 * WHY; WHAT": in one line, naming the program's pid, saying why, with N
 * at least the samples the program's own clock puts in its generated
 * functions (less 4 standard errors and start-up's).
 */
static void
assert_unnamed_line(const struct run *r, const struct shares *s,
    const char *why, const char *what)
{
	const char *line = strstr(r->err, "left unnamed");
	struct jit_split sp;
	static const char *const names[3] = { "jit_six", "jit_three", "jit_one" };
	char pid[32];
	double n = 0, of = 0, cpu = 0, q, least;
	int all;

	snprintf(pid, sizeof pid, "(process %d)", (int)said(r->out, "pid"));
	if (lines_with(r->err, "left unnamed", pid, &all) != 1 || !all)
		fail_msg("%s: not one line of unnamed code naming %s:\n%s", what,
		    pid, r->err);
	if (lines_with(r->err, "left unnamed", why, &all) != 1 || !all)
		fail_msg("%s: the line does not say '%s':\n%s", what, why, r->err);
	while (line > r->err && line[-1] != '\n')
		line--;
	line = strstr(line, "warning: ");
	if (line == NULL || sscanf(line, "warning: %lf of %lf", &n, &of) != 2)
		fail_msg("%s: no count in the line:\n%s", what, r->err);
	split_said(&sp, r->out, "jit", names);
	for (int i = 0; i < 3; i++)
		cpu += sp.cpu[i];
	q = cpu / (cpu + sp.other);
	/*
	 * start-up's samples twice over under a sanitized recorder, slower
	 * to start the program and read its maps (558 said where 561 were
	 * the least, under ASan in CI)
	 */
	least = q * of - 4 * sqrt(q * (1 - q) * of) - E2E_STARTUP *
	    (getenv("PROFIL_TEST_SANITIZED") != NULL ? 2 : 1);
	if (n < least || n > of || of != s->total)
		fail_msg("%s: %.0f of %.0f samples said unnamed, %.0f wanted at "
		    "least (%.0f%% of the CPU in the generated code); the "
		    "profile has %.0f\n%s", what, n, of, least, 100 * q,
		    s->total, r->err);
}

/* nomap: nothing names the code: one line, in either engine. */
static void
nomap_check(const char *engine, int flat)
{
	static struct run r;
	struct shares s;
	char what[64];

	need_perf(engine);
	snprintf(what, sizeof what, "no map, %s engine%s", engine,
	    flat ? ", no call graph" : "");
	record_late(&s, &r, engine, tmp("nomap.prf"), "nomap", flat, 500);
	assert_unnamed_line(&r, &s, "wrote no perf map", what);
}

static void
test_unnamed_said_perf(void **state)
{
	(void)state;
	nomap_check("perf", 0);
	nomap_check("perf", 1);
}

static void
test_unnamed_said_timer(void **state)
{
	(void)state;
	nomap_check("timer", 0);
	nomap_check("timer", 1);
}

/*
 * A map the recorder must not believe (jit-workload MODE: another user's,
 * anyone's to write, a symlink): not read, so its names are nowhere; one
 * line naming it says why (because), and the line of the code left
 * unnamed says its files were not read.
 */
static void
refused_check(const char *mode, const char *because)
{
	static const char *const names[3] = { "jit_six", "jit_three",
	    "JS:*jit_one gen.js:3" };
	static struct run r;
	struct shares s;
	char map[64];
	double named = 0;
	int all;

	list_left();
	record_mode(&s, &r, "auto", tmp("refused.prf"), mode, 1, 500);
	remove_left();
	snprintf(map, sizeof map, "/tmp/perf-%d.map", (int)said(r.out, "pid"));
	for (int i = 0; i < 3; i++)
		named += samples_of(&s, names[i], NULL);
	if (named > 0)
		fail_msg("%s: %.0f samples named from a map not to be read\n%s",
		    mode, named, top_rows(&s));
	if (lines_with(r.err, map, because, &all) != 1 || !all)
		fail_msg("%s: not one line naming %s saying '%s':\n%s", mode, map,
		    because, r.err);
	assert_unnamed_line(&r, &s, "not read", mode);
}

/* The map is another user's (the program, root, gave it to nobody). */
static void
test_map_of_another_user(void **state)
{
	(void)state;
	if (geteuid() != 0)
		SKIP("not root: a file cannot be given to another user");
	refused_check("foreignmap", "not written by process");
}

/* Anyone may write the map (mode 0666). */
static void
test_map_anyone_writes(void **state)
{
	(void)state;
	refused_check("openmap", "anyone may write it");
}

/* The map is a symlink to a file of the program's (a root's could be). */
static void
test_map_symlink(void **state)
{
	(void)state;
	refused_check("linkmap", "a symbolic link");
}

/* ---- c) a JVM ---------------------------------------------------------------- */

/*
 * hotA and hotB: the same loop, 2:1 of the calls, each call's CPU
 * measured on the main thread's clock (ThreadMXBean: the thread's CPU
 * clock), after an untimed warm-up while the JIT compiles them (not
 * inlined: they are to be named).  With "mid", the map is written when
 * half the CPU is spent, as `jcmd PID Compiler.perfmap` does (the same
 * diagnostic command, asked of the JVM itself: its CPU, loading JMX, is
 * neither method's); otherwise the JVM writes
 * it at exit (-XX:+DumpPerfMapAtExit).  It says its pid, the two
 * methods' CPU and the process's (all its threads); the map's path goes
 * into $PROFIL_TEST_JITLIST for the test to remove (the JVM leaves it).
 */
static const char hot_java[] =
    "import java.lang.management.ManagementFactory;\n"
    "import javax.management.ObjectName;\n"
    "public class Hot {\n"
    "\tstatic long sink;\n"
    "\tstatic long hotA(long n) { long x = 1; for (long i = 0; i < n; i++)"
    " x = x * 1103515245L + i; return x; }\n"
    "\tstatic long hotB(long n) { long x = 7; for (long i = 0; i < n; i++)"
    " x = x * 22695477L + i; return x; }\n"
    "\tpublic static void main(String[] a) throws Exception {\n"
    "\t\tlong pid = ProcessHandle.current().pid();\n"
    "\t\tString list = System.getenv(\"PROFIL_TEST_JITLIST\");\n"
    "\t\tif (list != null)\n"
    "\t\t\tjava.nio.file.Files.writeString(java.nio.file.Path.of(list),\n"
    "\t\t\t    \"/tmp/perf-\" + pid + \".map\\n\",\n"
    "\t\t\t    java.nio.file.StandardOpenOption.CREATE,\n"
    "\t\t\t    java.nio.file.StandardOpenOption.APPEND);\n"
    "\t\tdouble scale = Double.parseDouble(System.getenv()\n"
    "\t\t    .getOrDefault(\"PROFIL_TEST_WORK_SCALE\", \"1\"));\n"
    "\t\tlong unit = Math.max(1, Math.round(1e6 * scale));\n"
    "\t\tlong ns = (long)(Double.parseDouble(a[0]) * 1e9);\n"
    "\t\tboolean mid = a.length > 1 && a[1].equals(\"mid\");\n"
    "\t\tvar clock = ManagementFactory.getThreadMXBean();\n"
    "\t\tfor (int i = 0; i < 200; i++) {\n"
    "\t\t\tsink += hotA(unit / 10);\n"
    "\t\t\tsink += hotB(unit / 20);\n"
    "\t\t}\n"
    "\t\tlong start = clock.getCurrentThreadCpuTime(), inA = 0, inB = 0;\n"
    "\t\tfor (long t = start; t - start < ns;) {\n"
    "\t\t\tlong t0 = t;\n"
    "\t\t\tsink += hotA(unit);\n"
    "\t\t\tsink += hotA(unit);\n"
    "\t\t\tlong t1 = clock.getCurrentThreadCpuTime();\n"
    "\t\t\tsink += hotB(unit);\n"
    "\t\t\tt = clock.getCurrentThreadCpuTime();\n"
    "\t\t\tinA += t1 - t0;\n"
    "\t\t\tinB += t - t1;\n"
    "\t\t\tif (mid && t - start >= ns / 2) {\n"
    "\t\t\t\tManagementFactory.getPlatformMBeanServer().invoke(\n"
    "\t\t\t\t    new ObjectName(\"com.sun.management:type=DiagnosticCommand\"),\n"
    "\t\t\t\t    \"compilerPerfmap\", new Object[] { null },\n"
    "\t\t\t\t    new String[] { String[].class.getName() });\n"
    "\t\t\t\tmid = false;\n"
    "\t\t\t\tt = clock.getCurrentThreadCpuTime();\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t\tvar os = (com.sun.management.OperatingSystemMXBean)\n"
    "\t\t    ManagementFactory.getOperatingSystemMXBean();\n"
    "\t\tSystem.out.printf(\"pid %d%nhotA %.6f hotB %.6f cpu %.6f sink %d%n\",\n"
    "\t\t    pid, inA / 1e9, inB / 1e9, os.getProcessCpuTime() / 1e9, sink);\n"
    "\t}\n"
    "}\n";

/* Hot.class in the scratch directory, made once; 0 if there is no JDK. */
static int
hot_class(char *java, size_t size)
{
	static int made;
	char javac[PATH_MAX];
	static struct run r;
	FILE *f;

	if (!find_program("java", java, size) ||
	    !find_program("javac", javac, sizeof javac))
		return 0;
	if (!made) {
		char *argv[] = { javac, "-d", tmpdir, (char *)tmp("Hot.java"),
		    NULL };

		assert_non_null(f = fopen(tmp("Hot.java"), "w"));
		fputs(hot_java, f);
		fclose(f);
		run(&r, argv);
		if (r.status != 0)
			fail_msg("javac: exit %d: %s", r.status, r.err);
		made = 1;
	}
	return 1;
}

/*
 * A JVM whose perf map comes at exit, or halfway (when): hotA's and
 * hotB's samples are named for all of the run and split as the JVM
 * measured their CPU (within 4 standard errors and a point: the
 * interpreter's warm-up), and together they have their share of the
 * process's CPU less 4 standard errors, 5% and start-up's (a JVM's
 * start is hundreds of milliseconds of its threads' CPU).  Before, 96%
 * of such a profile was [unknown] (with the map midway, half).
 */
static void
jvm_check(const char *engine, const char *when)
{
	static struct run r;
	char java[PATH_MAX], what[64], prf[64];
	char *prog[] = { java, "-XX:+UnlockDiagnosticVMOptions",
	    "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,Hot::hot*",
	    strcmp(when, "exit") == 0 ? "-XX:+DumpPerfMapAtExit" : "-Xshare:auto",
	    "-cp", tmpdir, "Hot", E2E_CPU, (char *)when, NULL };
	/* hotA's 2/3, of the ~80% the two have of a short JVM's samples */
	double need = e2e_samples_for_share(2 / 3.0, 4, 0.04 - 0.01) / 0.8 +
	    2500;
	double a, b, n, want, margin, scale, q, least;
	struct shares s;

	if (!hot_class(java, sizeof java))
		SKIP("no java and javac here: no JVM to profile");
	need_perf(engine);
	snprintf(what, sizeof what, "JVM, map at %s, %s engine", when, engine);
	snprintf(prf, sizeof prf, "jvm-%s-%s.prf", when, engine);
	list_left();
	record_runtime(&s, &r, engine, tmp(prf), prog, need);
	remove_left();
	scale = weight_scale(tmp(prf));
	a = samples_of_js(&s, "Hot.hotA");
	b = samples_of_js(&s, "Hot.hotB");
	n = a + b;
	want = said(r.out, "hotA") / (said(r.out, "hotA") + said(r.out, "hotB"));
	margin = harness_margin(want, n / scale, 4, 0.005) + 0.01;
	q = (said(r.out, "hotA") + said(r.out, "hotB")) / said(r.out, "cpu");
	least = 0.95 * q * s.total - 4 * sqrt(q * (1 - q) * s.total * scale) -
	    E2E_STARTUP;
	print_message("%s: hotA %.2f%% of the two, measured %.2f%%; the two "
	    "%.0f of %.0f samples, their CPU %.1f%% of the process's\n", what,
	    n > 0 ? 100 * a / n : 0, 100 * want, n, s.total, 100 * q);
	if (n < least)
		fail_msg("%s: %.0f of %.0f samples named Hot.hotA or Hot.hotB, "
		    "%.0f wanted (they had %.0f%% of the CPU)\n%s\n%s", what, n,
		    s.total, least, 100 * q, top_rows(&s), r.err);
	if (margin > 0.04)
		fail_msg("%s: too few samples (%.0f) named for a 4-point check",
		    what, n);
	if (fabs(a / n - want) > margin)
		fail_msg("%s: hotA has %.2f%% of the %.0f samples of hotA and "
		    "hotB, its CPU %.2f%% (+- %.2f)", what, 100 * a / n, n,
		    100 * want, 100 * margin);
}

static void
test_jvm_map_at_exit_perf(void **state)
{
	(void)state;
	jvm_check("perf", "exit");
}

static void
test_jvm_map_at_exit_timer(void **state)
{
	(void)state;
	jvm_check("timer", "exit");
}

static void
test_jvm_map_midway_perf(void **state)
{
	(void)state;
	jvm_check("perf", "mid");
}

static void
test_jvm_map_midway_timer(void **state)
{
	(void)state;
	jvm_check("timer", "mid");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_late_map_perf),
		cmocka_unit_test(test_late_map_timer),
		cmocka_unit_test(test_late_map_flat_perf),
		cmocka_unit_test(test_late_map_flat_timer),
		cmocka_unit_test(test_mid_map_perf),
		cmocka_unit_test(test_mid_map_timer),
		cmocka_unit_test(test_late_dump_perf),
		cmocka_unit_test(test_late_dump_timer),
		cmocka_unit_test(test_mid_dump_perf),
		cmocka_unit_test(test_mid_dump_timer),
		cmocka_unit_test(test_late_reuse_perf),
		cmocka_unit_test(test_late_reuse_timer),
		cmocka_unit_test(test_unnamed_said_perf),
		cmocka_unit_test(test_unnamed_said_timer),
		cmocka_unit_test(test_map_of_another_user),
		cmocka_unit_test(test_map_anyone_writes),
		cmocka_unit_test(test_map_symlink),
		cmocka_unit_test(test_jvm_map_at_exit_perf),
		cmocka_unit_test(test_jvm_map_at_exit_timer),
		cmocka_unit_test(test_jvm_map_midway_perf),
		cmocka_unit_test(test_jvm_map_midway_timer),
	};

	return cmocka_run_group_tests(tests, jit_checks_setup, e2e_teardown);
}
