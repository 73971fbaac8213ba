/*
 * test-jit.c - code generated at run time, named and unwound (issue 18),
 * end to end: `profil record` of tests/programs/jit-workload.c, which names its
 * generated code in a perf map (/tmp/perf-PID.map) or a jitdump file as
 * JIT runtimes do, and of Node with --perf-basic-prof, read back through
 * `profil report --format csv`, `--annotate` and `export --format folded`.
 *
 * The programs measure the CPU time of each generated function around
 * its calls; shares are held to that within 4 standard errors of the
 * sample count (and half a point for what is not sampling's), and runs
 * are sized by the samples the checks need (record_for): too few fail,
 * never pass (tests/harness/jit-checks.h).  The map and dump files are gone before any report is
 * made (the programs remove theirs at exit): the names must be the
 * profile's, read while the program ran, not looked up afterwards.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"
#include "jit-checks.h"

/* ---- frames whose callers were found by frame pointer --------------------- */

/* The name p keeps for [jit] frame f, or "". */
static const char *
jit_name_of(const struct profil_profile *p, const struct profil_frame *f)
{
	for (size_t i = 0; i < p->nsymbols; i++)
		if (p->symbols[i].object == f->object &&
		    f->addr >= p->symbols[i].start && f->addr < p->symbols[i].end)
			return p->symbols[i].name;
	return "";
}

static int
fp_marked(const struct profil_profile *p, uint32_t frame)
{
	for (size_t i = 0; i < p->nfp_frames; i++)
		if (p->fp_frames[i] == frame)
			return 1;
	return 0;
}

/*
 * The profile's fp frames: every frame of the generated functions named
 * in by_fp[0..nfp) that has a caller in some stack is marked (its caller
 * was found by frame pointer), and no frame of the program's own code
 * (jit-workload, whose unwind tables tell every caller) nor of the
 * functions in by_cfi[0..ncfi) is.
 */
static void
assert_fp_frames(const char *prf, const char *const *by_fp, int nfp,
    const char *const *by_cfi, int ncfi, const char *what)
{
	char cause[256];
	struct profil_profile *p = profil_profile_read(prf, cause, sizeof cause);
	unsigned char *has_caller;
	size_t want = 0, marked = 0;

	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	has_caller = calloc(p->nframes + 1, 1);
	for (size_t i = 0; i < p->nstacks; i++)
		for (size_t d = 0; d + 1 < p->stacks[i].depth; d++)
			if (p->frames[p->stacks[i].frames[d + 1]].object !=
			    PROFIL_FRAME_CUT)
				has_caller[p->stacks[i].frames[d]] = 1;
	for (uint32_t i = 0; i < p->nframes; i++) {
		const struct profil_frame *f = &p->frames[i];
		const char *obj = f->object < p->nobjects ?
		    p->objects[f->object].path : "";
		int jit = strcmp(obj, PROFIL_JIT_OBJECT) == 0;
		const char *name = jit ? jit_name_of(p, f) : "";
		size_t len = strlen(obj);

		if (len >= 12 && strcmp(obj + len - 12, "jit-workload") == 0 &&
		    fp_marked(p, i))
			fail_msg("%s: a frame of jit-workload (at %#llx), which has "
			    "unwind tables, is marked as found by frame pointer",
			    what, (unsigned long long)f->addr);
		for (int k = 0; jit && k < ncfi; k++)
			if (strcmp(name, by_cfi[k]) == 0 && fp_marked(p, i))
				fail_msg("%s: %s, unwound by its tables, is marked "
				    "as found by frame pointer", what, name);
		for (int k = 0; jit && k < nfp; k++)
			if (strcmp(name, by_fp[k]) == 0 && has_caller[i]) {
				want++;
				if (fp_marked(p, i))
					marked++;
				else
					fail_msg("%s: a frame of %s (at %#llx) has a "
					    "caller not marked as found by frame "
					    "pointer", what, name,
					    (unsigned long long)f->addr);
			}
	}
	if (nfp > 0 && want == 0)
		fail_msg("%s: no frame of the generated code has a caller", what);
	print_message("%s: %zu of %zu frames of %d functions marked found by "
	    "frame pointer; %zu fp frames in all\n", what, marked, want, nfp,
	    p->nfp_frames);
	free(has_caller);
	profil_profile_free(p);
}

/* ---- a) the perf map ----------------------------------------------------- */

/*
 * perfmap: jit_six, jit_three and "JS:*jit_one gen.js:3" (a name with a
 * space, whole) take 6:3:1 of their samples as the program measured,
 * object [jit]; their stacks reach main through their C callers, and
 * c_leaf's through jit_calls_c; all of it after the map was removed.
 */
/* The generated functions, all stepped through by frame pointer. */
static const char *const fp_all[4] = { "jit_six", "jit_three",
    "JS:*jit_one gen.js:3", "jit_calls_c" };

static void
perfmap_check(const char *engine)
{
	static const char *const names[3] = { "jit_six", "jit_three",
	    "JS:*jit_one gen.js:3" };
	static struct run r;
	const char *prf = tmp(strcmp(engine, "perf") == 0 ? "map.prf" :
	    "map-timer.prf");
	struct jit_split sp;
	struct shares s;
	char map[64], what[64];
	double scale;

	need_perf(engine);
	snprintf(what, sizeof what, "perf map, %s engine", engine);
	record_mode(&s, &r, engine, prf, "perfmap", 1, split_need(SPLIT_POINTS));
	snprintf(map, sizeof map, "/tmp/perf-%d.map", (int)said(r.out, "pid"));
	assert_gone(map, what);
	split_said(&sp, r.out, "jit", names);
	scale = weight_scale(prf);
	assert_named(&s, &sp, scale, what);
	assert_jit_object(&s, &sp, what);
	assert_split_as_measured(&s, &sp, scale, SPLIT_POINTS, what);
	assert_jit_stacks(prf, &sp, 1, what);
	assert_fp_frames(prf, fp_all, 4, NULL, 0, what);
}

static void
test_perfmap_perf(void **state)
{
	(void)state;
	perfmap_check("perf");
}

/* The timer engine: the sampler in the program, the map read from outside. */
static void
test_perfmap_timer(void **state)
{
	(void)state;
	perfmap_check("timer");
}

/* ---- b) jitdump ---------------------------------------------------------- */

/*
 * `report --annotate jit_one`: its samples by the lines of its
 * DEBUG_INFO record (gen.js 10 to 13; the file named in the first entry
 * only, "\xff" in the others), adding up to its flat samples, line 12
 * (the loop) holding 90% at least: all but a few instructions' samples.
 */
static void
assert_debug_lines(const char *prf, const struct shares *s, const char *what)
{
	static struct run r;
	char *ann[] = { profil_bin, "report", "--annotate", "jit_one", "--format",
	    "csv", (char *)prf, NULL };
	double flat = samples_of(s, "jit_one", NULL), sum = 0, loop = 0;
	const char *line;

	run(&r, ann);
	if (r.status != 0)
		fail_msg("%s: report --annotate jit_one: exit %d: %s", what,
		    r.status, r.err);
	if (strncmp(r.out, "file,line,samples,percent,error95,source\n", 41) != 0)
		fail_msg("%s: jit_one not annotated by source line: %.300s", what,
		    r.out);
	for (line = strchr(r.out, '\n') + 1; *line; ) {
		char f[3][512];
		int k, no;

		for (k = 0; k < 3 && csv_field(&line, f[k], sizeof f[k]); k++)
			;
		no = atoi(f[1]);
		if (k < 3 || strstr(f[0], "gen.js") == NULL || no < 10 || no > 13)
			fail_msg("%s: jit_one annotated with a line not of its "
			    "DEBUG_INFO (gen.js, 10 to 13):\n%s", what, r.out);
		sum += atof(f[2]);
		if (no == 12)
			loop += atof(f[2]);
		line = strchr(line, '\n');
		if (line == NULL)
			break;
		line++;
	}
	if (sum != flat)
		fail_msg("%s: jit_one's lines have %.0f samples, the function "
		    "%.0f\n%s", what, sum, flat, r.out);
	if (loop < 0.9 * sum)
		fail_msg("%s: line 12 (jit_one's loop) has %.0f of its %.0f "
		    "samples\n%s", what, loop, sum, r.out);
}

/*
 * jitdump: names from the CODE_LOAD records, object [jit], 6:3:1 as
 * measured though jit_three moved halfway (CODE_MOVE: named for its time
 * at both addresses, or its share is half), whole stacks as with a map,
 * jit_one's source lines from DEBUG_INFO; all after the file was removed.
 */
static void
jitdump_check(const char *engine)
{
	static const char *const names[3] = { "jit_six", "jit_three", "jit_one" };
	static struct run r;
	const char *prf = tmp(strcmp(engine, "perf") == 0 ? "dump.prf" :
	    "dump-timer.prf");
	struct jit_split sp;
	struct shares s;
	char dump[PATH_MAX], what[64];
	double scale;

	need_perf(engine);
	snprintf(what, sizeof what, "jitdump, %s engine", engine);
	setenv("PROFIL_TEST_JITDIR", tmpdir, 1);
	record_mode(&s, &r, engine, prf, "jitdump", 1, split_need(SPLIT_POINTS));
	unsetenv("PROFIL_TEST_JITDIR");
	snprintf(dump, sizeof dump, "%s/jit-%d.dump", tmpdir,
	    (int)said(r.out, "pid"));
	assert_gone(dump, what);
	split_said(&sp, r.out, "jit", names);
	scale = weight_scale(prf);
	assert_named(&s, &sp, scale, what);
	assert_jit_object(&s, &sp, what);
	assert_split_as_measured(&s, &sp, scale, SPLIT_POINTS, what);
	assert_jit_stacks(prf, &sp, 1, what);
	assert_debug_lines(prf, &s, what);
}

static void
test_jitdump_perf(void **state)
{
	(void)state;
	jitdump_check("perf");
}

static void
test_jitdump_timer(void **state)
{
	(void)state;
	jitdump_check("timer");
}

/*
 * unwinding: jit_six, jit_three and jit_one have no frame pointer (rbp
 * zeroed) and come with their unwind tables (UNWINDING_INFO before each
 * CODE_LOAD): named and split as measured, and their stacks whole,
 * main;...;call_X;jit_X: found by the tables, as nothing else can.
 */
static const char *const fp_calls[1] = { "jit_calls_c" };

static void
unwinding_check(const char *engine)
{
	static const char *const names[3] = { "jit_six", "jit_three", "jit_one" };
	static struct run r;
	const char *prf = tmp(strcmp(engine, "perf") == 0 ? "unw.prf" :
	    "unw-timer.prf");
	struct jit_split sp;
	struct shares s;
	char what[64];
	double scale;

	need_perf(engine);
	snprintf(what, sizeof what, "unwinding info, %s engine", engine);
	setenv("PROFIL_TEST_JITDIR", tmpdir, 1);
	record_mode(&s, &r, engine, prf, "unwinding", 1,
	    split_need(SPLIT_POINTS));
	unsetenv("PROFIL_TEST_JITDIR");
	split_said(&sp, r.out, "jit", names);
	scale = weight_scale(prf);
	assert_named(&s, &sp, scale, what);
	assert_split_as_measured(&s, &sp, scale, SPLIT_POINTS, what);
	assert_jit_stacks(prf, &sp, 1, what);
	/* by their tables; jit_calls_c, which has none, by frame pointer */
	assert_fp_frames(prf, fp_calls, 1, names, 3, what);
}

static void
test_unwinding_perf(void **state)
{
	(void)state;
	unwinding_check("perf");
}

static void
test_unwinding_timer(void **state)
{
	(void)state;
	unwinding_check("timer");
}

/*
 * nounwind: the same code without its tables.  Its callers cannot be
 * known (no frame pointer, no CFI): its stacks must end cut at it, not
 * go on through a caller made up; at most 2% may reach main.
 */
static void
test_no_unwinding_no_caller(void **state)
{
	static const char *const names[3] = { "jit_six", "jit_three", "jit_one" };
	static struct run r;
	static struct fstack st;
	const char *prf = tmp("nounw.prf"), *stacks;
	struct jit_split sp;
	struct shares s;
	double all = 0, whole = 0, cut = 0;

	(void)state;
	setenv("PROFIL_TEST_JITDIR", tmpdir, 1);
	record_mode(&s, &r, "timer", prf, "nounwind", 1, most_need() /
	    JIT_SHARE + E2E_STARTUP);
	unsetenv("PROFIL_TEST_JITDIR");
	split_said(&sp, r.out, "jit", names);
	stacks = folded(prf, &r);
	for (const char *at = stacks; next_stack(&at, &st); ) {
		if (behind(&st))
			continue;
		for (int i = 0; i < sp.n; i++) {
			if (strcmp(st.f[st.n - 1], sp.name[i]) != 0)
				continue;
			all += st.count;
			if (has_frame(&st, "main", 0))
				whole += st.count;
			if (has_frame(&st, "[stack cut", 1))
				cut += st.count;
		}
	}
	if (all < most_need())
		fail_msg("nounwind: %.0f samples of the generated functions, "
		    "%.0f needed\n%.2000s", all, most_need(), stacks);
	if (whole > 0.02 * all)
		fail_msg("nounwind: %.0f of %.0f stacks of code without frame "
		    "pointer or tables reach main: callers made up\n%.2000s",
		    whole, all, stacks);
	if (cut < 0.9 * all)
		fail_msg("nounwind: %.0f of %.0f such stacks marked cut\n%.2000s",
		    cut, all, stacks);
}

/*
 * reuse: jit_first, then jit_second loaded at the same address (a later
 * CODE_LOAD there), each named for its own time: 1:2 as measured; a
 * recorder that kept one name for the address has 0 or all in one.
 */
static void
reuse_check(const char *engine)
{
	static struct run r;
	const char *prf = tmp(strcmp(engine, "perf") == 0 ? "reuse.prf" :
	    "reuse-timer.prf");
	struct jit_split sp = { 2, { "jit_first", "jit_second" },
	    { "call_slot", "call_slot" }, { 0, 0 }, 0 };
	struct shares s;
	char what[64];
	double scale;

	need_perf(engine);
	snprintf(what, sizeof what, "reused address, %s engine", engine);
	setenv("PROFIL_TEST_JITDIR", tmpdir, 1);
	record_mode(&s, &r, engine, prf, "reuse", 1,
	    e2e_samples_for_share(1 / 3.0, 4, SPLIT_POINTS / 100 - 0.005) +
	    E2E_STARTUP);
	unsetenv("PROFIL_TEST_JITDIR");
	sp.cpu[0] = said(r.out, "jit_first");
	sp.cpu[1] = said(r.out, "jit_second");
	scale = weight_scale(prf);
	assert_named(&s, &sp, scale, what);
	assert_jit_object(&s, &sp, what);
	assert_split_as_measured(&s, &sp, scale, SPLIT_POINTS, what);
	assert_jit_stacks(prf, &sp, 0, what);
}

static void
test_reuse_perf(void **state)
{
	(void)state;
	reuse_check("perf");
}

static void
test_reuse_timer(void **state)
{
	(void)state;
	reuse_check("timer");
}

/* ---- c) Node ------------------------------------------------------------- */

/*
 * hotA and hotB: the same loop, 3:1 of the work, each call's CPU
 * measured (process.cpuUsage: the process's, its helper threads idle
 * once the functions are compiled); first an untimed warm-up, 3:1 too,
 * while V8 compiles them (the interpreter's time is its builtins', not
 * theirs).  V8 --perf-basic-prof names them "JS:*hotA FILE:3:14" (and
 * "JS:^hotA" for baseline code) in /tmp/perf-PID.map, which the program
 * removes at exit, as jit-workload does (V8 leaves it).
 */
static const char node_js[] =
    "'use strict';\n"
    "const fs = require('fs');\n"
    "const seconds = Number(process.argv[2] || 0);\n"
    "const scale = Number(process.env.PROFIL_TEST_WORK_SCALE || 1);\n"
    "const unit = Math.max(1, Math.round(1e6 * scale));\n"
    "function hotA(n) {\n"
    "\tlet x = 1;\n"
    "\tfor (let i = 0; i < n; i++)\n"
    "\t\tx = (Math.imul(x, 1103515245) + i) | 0;\n"
    "\treturn x;\n"
    "}\n"
    "function hotB(n) {\n"
    "\tlet x = 7;\n"
    "\tfor (let i = 0; i < n; i++)\n"
    "\t\tx = (Math.imul(x, 22695477) + i) | 0;\n"
    "\treturn x;\n"
    "}\n"
    "function cpu() {\n"
    "\tconst u = process.cpuUsage();\n"
    "\treturn (u.user + u.system) / 1e6;\n"
    "}\n"
    "process.on('exit', () => {\n"
    "\ttry { fs.unlinkSync('/tmp/perf-' + process.pid + '.map'); } catch (e) {}\n"
    "\ttry { fs.unlinkSync('jit-' + process.pid + '.dump'); } catch (e) {}\n"
    "});\n"
    "let sink = 0, inA = 0, inB = 0;\n"
    "for (let i = 0; i < 20; i++) {\n"
    "\tsink += hotA(3 * unit / 10);\n"
    "\tsink += hotB(unit / 10);\n"
    "}\n"
    "const start = cpu();\n"
    "for (let t = start; t - start < seconds;) {\n"
    "\tconst t0 = t;\n"
    "\tfor (let k = 0; k < 30; k++)\n"
    "\t\tsink += hotA(unit / 10);\n"
    "\tconst t1 = cpu();\n"
    "\tfor (let k = 0; k < 10; k++)\n"
    "\t\tsink += hotB(unit / 10);\n"
    "\tt = cpu();\n"
    "\tinA += t1 - t0;\n"
    "\tinB += t - t1;\n"
    "}\n"
    "console.log('pid ' + process.pid);\n"
    "console.log(`hotA ${inA.toFixed(6)} hotB ${inB.toFixed(6)} ` +\n"
    "\t`sink ${sink}`);\n";

/*
 * node --perf-basic-prof: the samples of hotA and hotB (every name
 * holding them: V8's tiers) split as the program measured, within 4
 * standard errors and a point (process.cpuUsage counts the helper
 * threads too), and 80% of their stacks reach node::Start, through V8's
 * frames (frame pointers) and node's C++ (unwind tables).  Node's main
 * is a jump to node::Start (objdump), so it is never on a stack.
 */
static void
node_check(const char *engine, const char *names_from)
{
	static struct run r;
	static struct fstack st;
	const char *prf = tmp(strcmp(engine, "perf") == 0 ? "node.prf" :
	    "node-timer.prf");
	const char *js = tmp("hot.js");
	char node[PATH_MAX], what[64], map[64], log[PATH_MAX + 16];
	/* V8 logs code events with it, into the working directory unless told */
	char *prog[] = { node, (char *)names_from, "--no-logfile-per-isolate",
	    log, (char *)js, E2E_CPU, NULL };
	/* hotA's 0.75 share, of the 85% the two have of node's samples */
	double need = e2e_samples_for_share(0.75, 4, SPLIT_POINTS / 100 - 0.01) /
	    0.85 + 10 * E2E_STARTUP;
	double a, b, n, want, margin, scale, all = 0, reached = 0;
	const char *stacks;
	struct shares s;
	FILE *f;

	if (!find_program("node", node, sizeof node))
		SKIP("node is not installed: no V8 to profile");
	need_perf(engine);
	snprintf(what, sizeof what, "node %s, %s engine", names_from, engine);
	snprintf(log, sizeof log, "--logfile=%s", tmp("v8.log"));
	f = fopen(js, "w");
	assert_non_null(f);
	fputs(node_js, f);
	fclose(f);
	record_runtime(&s, &r, engine, prf, prog, need);
	snprintf(map, sizeof map, "/tmp/perf-%d.map", (int)said(r.out, "pid"));
	assert_gone(map, what);
	scale = weight_scale(prf);
	a = samples_of_js(&s, "hotA");
	b = samples_of_js(&s, "hotB");
	n = a + b;
	want = said(r.out, "hotA") / (said(r.out, "hotA") + said(r.out, "hotB"));
	margin = harness_margin(want, n / scale, 4, 0.005) + 0.01;
	if (n <= 0 || margin > SPLIT_POINTS / 100)
		fail_msg("%s: %.0f samples named hotA or hotB, of %.0f: too few "
		    "for a %.0f-point check\n%s", what, n, s.total, SPLIT_POINTS,
		    top_rows(&s));
	print_message("%s: hotA %.2f%% of hotA and hotB, measured %.2f%%\n",
	    what, 100 * a / n, 100 * want);
	if (fabs(a / n - want) > margin)
		fail_msg("%s: hotA has %.2f%% of the %.0f samples of hotA and "
		    "hotB, its CPU %.2f%% (+- %.2f)", what, 100 * a / n, n,
		    100 * want, 100 * margin);
	stacks = folded(prf, &r);
	for (const char *at = stacks; next_stack(&at, &st); ) {
		const char *leaf = st.f[st.n - 1];

		if (behind(&st) || (!names_js(leaf, "hotA") &&
		    !names_js(leaf, "hotB")))
			continue;
		all += st.count;
		if (has_frame(&st, "node::Start(", 1))
			reached += st.count;
	}
	print_message("%s: %.0f of %.0f stacks of hotA and hotB reach "
	    "node::Start\n", what, reached, all);
	if (reached < 0.8 * all)
		fail_msg("%s: %.0f of %.0f stacks of hotA and hotB reach "
		    "node::Start, under 80%%\n%.2000s", what, reached, all,
		    stacks);
}

static void
test_node_perf(void **state)
{
	(void)state;
	node_check("perf", "--perf-basic-prof");
}

static void
test_node_timer(void **state)
{
	(void)state;
	node_check("timer", "--perf-basic-prof");
}

/*
 * The same through V8's jitdump file (node --perf-prof), which V8 writes
 * 2 MiB at a time: names come late, after the samples, and the stacks
 * must still go through code not named when they were unwound (they
 * were cut at their leaf, 4% of hotA's reaching node::Start).
 */
static void
test_node_jitdump_perf(void **state)
{
	(void)state;
	node_check("perf", "--perf-prof");
}

static void
test_node_jitdump_timer(void **state)
{
	(void)state;
	node_check("timer", "--perf-prof");
}

/* ---- d) bad input -------------------------------------------------------- */

/*
 * badmap: a map of garbage, a size of 0, a range past 2^64, a line with
 * no name, one of 5000 bytes, one with a NUL, among good lines, after a
 * range over all of user space, and a last line (jit_one's) without its
 * newline.  The recording succeeds, says so in one line naming the map
 * (its pid), and its profile checks; the good lines name their code, the
 * last one too (the writer is gone when it is read), in the measured
 * split (5 points: the names, not their precision, are the point);
 * the range over everything, older than every line after it, names
 * nothing they name nor any code of a file (c_leaf, libc): 1% at most
 * (vDSO code, which it covers too, is a matter of opinion).
 */
static void
test_bad_map(void **state)
{
	static const char *const names[3] = { "jit_six", "jit_three", "jit_one" };
	static struct run r, c;
	const char *prf = tmp("badmap.prf");
	char *check[] = { profil_bin, "check", (char *)prf, NULL };
	struct jit_split sp;
	struct shares s;
	char map[64], pid[32];
	double huge, scale;
	int lines = 0;

	(void)state;
	record_mode(&s, &r, "auto", prf, "badmap", 1, split_need(5));
	snprintf(pid, sizeof pid, "%d", (int)said(r.out, "pid"));
	snprintf(map, sizeof map, "/tmp/perf-%s.map", pid);
	unlink(map);	/* left there: its last line is read at the end */
	for (const char *l = r.err; *l; ) {
		const char *nl = strchr(l, '\n');
		char text[1024];

		snprintf(text, sizeof text, "%.*s", nl ? (int)(nl - l) :
		    (int)strlen(l), l);
		if (strcasestr(text, "map") != NULL) {
			lines++;
			if (strstr(text, pid) == NULL)
				fail_msg("a warning of the map that does not say "
				    "whose (pid %s): %s", pid, text);
		}
		l = nl ? nl + 1 : l + strlen(l);
	}
	if (lines != 1)
		fail_msg("%d lines of the bad map on stderr, one wanted:\n%s",
		    lines, r.err);
	run(&c, check);
	if (c.status != 0)
		fail_msg("check: exit %d: %s", c.status, c.err);
	split_said(&sp, r.out, "jit", names);
	scale = weight_scale(prf);
	assert_named(&s, &sp, scale, "bad map");
	assert_jit_object(&s, &sp, "bad map");
	assert_split_as_measured(&s, &sp, scale, 5, "bad map");
	huge = samples_of(&s, "huge_span", NULL);
	if (huge > 0.01 * s.total)
		fail_msg("bad map: the range over all of user space has %.0f of "
		    "%.0f samples\n%s", huge, s.total, top_rows(&s));
}

/*
 * stalemap: the program's map says what it runs, but its time is an hour
 * before the program began, as a map left in /tmp by an earlier process
 * of the same pid would be: it is not read (its names are nowhere, the
 * code is unknown), and record says so in one line naming the map.
 */
static void
test_stale_map(void **state)
{
	static const char *const names[3] = { "jit_six", "jit_three", "jit_one" };
	static struct run r;
	const char *prf = tmp("stalemap.prf");
	struct shares s;
	char map[64];
	double named = 0;
	int lines = 0;

	(void)state;
	record_mode(&s, &r, "auto", prf, "stalemap", 1, 200);
	snprintf(map, sizeof map, "/tmp/perf-%d.map", (int)said(r.out, "pid"));
	for (int i = 0; i < 3; i++)
		named += samples_of(&s, names[i], NULL);
	if (named > 0 || samples_of(&s, "[unknown]", NULL) < 0.5 * s.total)
		fail_msg("stale map: %.0f samples named from it, [unknown] "
		    "%.0f of %.0f\n%s", named, samples_of(&s, "[unknown]",
		    NULL), s.total, top_rows(&s));
	for (const char *l = r.err; (l = strstr(l, map)) != NULL; l++)
		lines++;
	if (lines != 1 || strstr(r.err, "older than process") == NULL)
		fail_msg("stale map: %d lines naming %s, one saying it is older "
		    "than the process wanted:\n%s", lines, map, r.err);
}

/*
 * archive: the names of generated code are the profile's own, and
 * `profil archive` keeps them, those of code that only called too
 * (jit_calls_c: its samples are c_leaf's): stacks from the archived
 * profile read as from the recorded one.
 */
static void
test_archive_keeps_callers(void **state)
{
	static struct run r, a;
	const char *prf = tmp("arch-src.prf"), *out = tmp("arch.prf");
	char *archive[] = { profil_bin, "archive", "-o", (char *)out,
	    (char *)prf, NULL };
	struct fstack st;
	struct shares s;
	double through = 0;

	(void)state;
	record_mode(&s, &r, "auto", prf, "perfmap", 1, split_need(5));
	run(&a, archive);
	if (a.status != 0)
		fail_msg("archive exited %d: %s", a.status, a.err);
	for (const char *at = folded(out, &a); next_stack(&at, &st); )
		if (has_frame(&st, "jit_calls_c", 0) &&
		    strcmp(st.f[st.n - 1], "c_leaf") == 0)
			through += st.count;
	if (through == 0)
		fail_msg("archive: no stack of c_leaf under jit_calls_c in the "
		    "archived profile (its name was not kept)");
}

/*
 * forked: the program and its forked child run the same generated code
 * at the same addresses at once, each naming it in the map of its own
 * pid: the parent jit_six..., the child child_six....  Each process's
 * split is as it measured, and the two sets of names share the samples
 * as the two processes' CPU does (5 points: whose names, not their
 * precision): a recorder that read one map for both, or another pid's,
 * gives one set of names all of them.  (A map of a pid not profiled
 * cannot be shown unused as plainly: nothing would run at its
 * addresses but what a map of the program's own pid names too.)
 */
static void
test_map_of_each_process(void **state)
{
	static const char *const parent_names[3] = { "jit_six", "jit_three",
	    "JS:*jit_one gen.js:3" };
	static const char *const child_names[3] = { "child_six", "child_three",
	    "child_one" };
	static struct run r;
	const char *prf = tmp("forked.prf");
	struct jit_split parent, child;
	struct shares s;
	char map[64];
	double scale, pn = 0, cn = 0, pcpu = 0, ccpu = 0, want, margin;

	(void)state;
	/* two processes' split, each 5 points, of half the samples */
	record_mode(&s, &r, "auto", prf, "forked", 2, 2 * split_need(5));
	snprintf(map, sizeof map, "/tmp/perf-%d.map", (int)said(r.out, "pid"));
	assert_gone(map, "forked");
	snprintf(map, sizeof map, "/tmp/perf-%d.map", (int)said(r.out, "child"));
	assert_gone(map, "forked child");
	split_said(&parent, r.out, "jit", parent_names);
	split_said(&child, r.out, "child", child_names);
	scale = weight_scale(prf);
	assert_jit_object(&s, &parent, "forked, parent");
	assert_jit_object(&s, &child, "forked, child");
	assert_split_as_measured(&s, &parent, scale, 5, "forked, parent");
	assert_split_as_measured(&s, &child, scale, 5, "forked, child");
	for (int i = 0; i < 3; i++) {
		pn += samples_of(&s, parent_names[i], NULL);
		cn += samples_of(&s, child_names[i], NULL);
		pcpu += parent.cpu[i];
		ccpu += child.cpu[i];
	}
	want = pcpu / (pcpu + ccpu);
	margin = harness_margin(want, (pn + cn) / scale, 4, 0.005) + 0.005;
	if (fabs(pn / (pn + cn) - want) > margin)
		fail_msg("forked: the parent's names have %.0f samples, the "
		    "child's %.0f: %.1f%%, the parent's CPU %.1f%% (+- %.1f)",
		    pn, cn, 100 * pn / (pn + cn), 100 * want, 100 * margin);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perfmap_perf),
		cmocka_unit_test(test_perfmap_timer),
		cmocka_unit_test(test_jitdump_perf),
		cmocka_unit_test(test_jitdump_timer),
		cmocka_unit_test(test_unwinding_perf),
		cmocka_unit_test(test_unwinding_timer),
		cmocka_unit_test(test_no_unwinding_no_caller),
		cmocka_unit_test(test_reuse_perf),
		cmocka_unit_test(test_reuse_timer),
		cmocka_unit_test(test_node_perf),
		cmocka_unit_test(test_node_timer),
		cmocka_unit_test(test_node_jitdump_perf),
		cmocka_unit_test(test_node_jitdump_timer),
		cmocka_unit_test(test_bad_map),
		cmocka_unit_test(test_stale_map),
		cmocka_unit_test(test_archive_keeps_callers),
		cmocka_unit_test(test_map_of_each_process),
	};

	return cmocka_run_group_tests(tests, jit_checks_setup, e2e_teardown);
}
