/*
 * jit-checks.c - what the end-to-end tests of generated code share
 * (jit-checks.h): tests/programs/jit-workload.c run under `profil record`,
 * what it said it measured, and the checks of the profile against that: names,
 * splits within the error of the sample count, whole stacks.
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

char jit_wl[PATH_MAX];

/* ---- what the program said ----------------------------------------------- */

/* The number after "key " in out, key at a line's start or after a space. */
double
said(const char *out, const char *key)
{
	char want[128];
	const char *at;

	snprintf(want, sizeof want, "%s ", key);
	for (at = out; (at = strstr(at, want)) != NULL; at++)
		if (at == out || at[-1] == '\n' || at[-1] == ' ')
			return atof(at + strlen(want));
	fail_msg("the program did not say its %s: %s", key, out);
	return 0;	/* not reached */
}

/* workload's line "PREFIX_six X PREFIX_three Y PREFIX_one Z c_leaf W" */
void
split_said(struct jit_split *sp, const char *out, const char *prefix,
    const char *const names[3])
{
	static const char *const parts[3] = { "six", "three", "one" };
	static const char *const callers[3] = { "call_six", "call_three",
	    "call_one" };
	char key[64];

	memset(sp, 0, sizeof *sp);
	sp->n = 3;
	for (int i = 0; i < 3; i++) {
		snprintf(key, sizeof key, "%s_%s", prefix, parts[i]);
		sp->name[i] = names[i];
		sp->caller[i] = callers[i];
		sp->cpu[i] = said(out, key);
	}
	snprintf(key, sizeof key, "%s_one", prefix);
	/* c_leaf's, on the same line: the first after this prefix's one */
	sp->other = said(strstr(out, key), "c_leaf");
}

/* ---- what the profile says ----------------------------------------------- */

/*
 * The samples of prf (all of them, however long its flat profile), and
 * how many counts a sample weighs, as far as precision goes: the timer
 * engine weighs a signal by the ticks it stands for, and a share of n
 * counts is then as precise as one of n / scale samples (profil.h).
 */
void
profile_counts(const char *prf, double *samples, double *scale)
{
	char cause[256];
	struct profil_profile *p = profil_profile_read(prf, cause, sizeof cause);

	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	*samples = (double)p->samples;
	*scale = p->samples > 0 && p->weight_sq > p->samples ?
	    (double)p->weight_sq / (double)p->samples : 1;
	profil_profile_free(p);
}

double
weight_scale(const char *prf)
{
	double samples, scale;

	profile_counts(prf, &samples, &scale);
	return scale;
}

/*
 * Whether fn names the JS function js: js in it as a word ("JS:*hotA
 * /tmp/hot.js:3:14", "JS:^hotA ..."), not in a longer name (node's
 * C++ has SnapshotByteSink).
 */
int
names_js(const char *fn, const char *js)
{
	size_t len = strlen(js);

	for (const char *at = fn; (at = strstr(at, js)) != NULL; at++) {
		char before = at == fn ? ' ' : at[-1], after = at[len];

		if (!isalnum((unsigned char)before) && before != '_' &&
		    !isalnum((unsigned char)after) && after != '_')
			return 1;
	}
	return 0;
}

/* Samples of the flat profile's functions that name the JS function js. */
double
samples_of_js(const struct shares *s, const char *js)
{
	double sum = 0;

	for (const char *line = strchr(s->csv, '\n') + 1; *line; ) {
		char f[3][1024];
		int k;

		for (k = 0; k < 3 && csv_field(&line, f[k], sizeof f[k]); k++)
			;
		if (k == 3 && names_js(f[0], js))
			sum += atof(f[2]);
		line = strchr(line, '\n');
		if (line == NULL)
			break;
		line++;
	}
	return sum;
}

/* What the flat profile has besides, for a failure to say: its top rows. */
const char *
top_rows(const struct shares *s)
{
	static char buf[1024];

	snprintf(buf, sizeof buf, "%.1000s", s->csv);
	return buf;
}

/*
 * The generated code's samples are named: of the T samples in user code
 * (the kernel's are the machine's: interrupts, the clock's system
 * calls), the share q the program measured in the functions (of its
 * passes), less 2% for what lies between the calls, 4 standard errors
 * and start-up's, carry their names (jit_three named for half its time,
 * before its move only, is 12% of T short); without names the samples
 * are [unknown], and this says so first.
 */
void
assert_named(const struct shares *s, const struct jit_split *sp,
    double scale, const char *what)
{
	double user = s->total - samples_of(s, NULL, "[kernel]");
	double named = 0, cpu = 0, q, least;
	char each[512] = "";
	size_t len = 0;

	for (int i = 0; i < sp->n; i++) {
		double k = samples_of(s, sp->name[i], NULL);

		named += k;
		cpu += sp->cpu[i];
		len += (size_t)snprintf(each + len, sizeof each - len,
		    "%s'%s' %.0f", i ? ", " : "", sp->name[i], k);
	}
	q = cpu / (cpu + sp->other);
	least = 0.98 * q * user - 4 * sqrt(q * (1 - q) * user * scale) -
	    E2E_STARTUP;
	if (named < least)
		fail_msg("%s: %.0f of %.0f samples in user code named for the "
		    "generated code (%s), which had %.0f%% of the CPU: %.0f "
		    "wanted at least; [unknown] has %.0f\n%s", what, named, user,
		    each, 100 * q, least, samples_of(s, "[unknown]", NULL),
		    top_rows(s));
}

/* Every sample of a generated function has [jit] for its object. */
void
assert_jit_object(const struct shares *s, const struct jit_split *sp,
    const char *what)
{
	for (int i = 0; i < sp->n; i++) {
		double all = samples_of(s, sp->name[i], NULL);
		double jit = samples_of(s, sp->name[i], "[jit]");

		if (jit != all)
			fail_msg("%s: '%s' has %.0f samples, %.0f of them in "
			    "object [jit]\n%s", what, sp->name[i], all, jit,
			    top_rows(s));
	}
}

/*
 * The generated functions' shares of their samples are what the program
 * measured of their CPU, within 4 standard errors (of n / scale samples)
 * and half a point; the run was sized for that to be `points` at most.
 */
void
assert_split_as_measured(const struct shares *s, const struct jit_split *sp,
    double scale, double points, const char *what)
{
	double n = 0, cpu = 0;

	for (int i = 0; i < sp->n; i++) {
		n += samples_of(s, sp->name[i], NULL);
		cpu += sp->cpu[i];
	}
	if (n <= 0 || cpu <= 0)
		fail_msg("%s: no sample named %s, ... (the program measured "
		    "%.3f s in them)\n%s", what, sp->name[0], cpu, top_rows(s));
	for (int i = 0; i < sp->n; i++) {
		double want = sp->cpu[i] / cpu;
		double got = samples_of(s, sp->name[i], NULL) / n;
		double margin = harness_margin(want, n / scale, 4, 0.005) + 0.005;

		if (margin > points / 100)
			fail_msg("%s: too few samples (%.0f) named for a "
			    "%.1f-point check", what, n, points);
		if (fabs(got - want) > margin)
			fail_msg("%s: '%s' has %.2f%% of the %.0f samples of the "
			    "generated code, its CPU %.2f%% (+- %.2f) as the "
			    "program measured", what, sp->name[i], 100 * got, n,
			    100 * want, 100 * margin);
		print_message("%s: %s %.2f%%, measured %.2f%%\n", what,
		    sp->name[i], 100 * got, 100 * want);
	}
}

/* ---- call stacks, from the folded export --------------------------------- */

/*
 * The folded stacks of prf, in a buffer of their own (freed at the next
 * call): node's run more than a test's output holds (1 MiB of C++ names).
 */
const char *
folded(const char *prf, struct run *r)
{
	static char *text;
	const char *path = tmp("stacks.folded");
	char *argv[] = { profil_bin, "export", "--format", "folded", "-o",
	    (char *)path, (char *)prf, NULL };
	FILE *f;
	long size;

	unlink(path);	/* export replaces only what it knows as its own */
	run(r, argv);
	if (r->status != 0)
		fail_msg("export folded exited %d: %s", r->status, r->err);
	free(text);
	assert_non_null(f = fopen(path, "r"));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	assert_true((size = ftell(f)) >= 0);
	rewind(f);
	text = calloc(1, (size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	return text;
}

/*
 * The next stack of *at into st; 0 at the end.  A frame's "_[j]" is
 * dropped: flamegraph.pl's mark of JIT code, as profil marks the
 * kernel's "_[k]", which an export may add.
 */
int
next_stack(const char **at, struct fstack *st)
{
	const char *line = *at, *nl, *sp;
	char *p;

	if (*line == '\0')
		return 0;
	nl = strchr(line, '\n');
	if (nl == NULL)
		nl = line + strlen(line);
	*at = *nl ? nl + 1 : nl;
	for (sp = nl; sp > line && sp[-1] != ' '; sp--)
		;
	st->count = atof(sp);
	snprintf(st->buf, sizeof st->buf, "%.*s", sp > line ? (int)(sp - line - 1)
	    : 0, line);
	st->n = 0;
	for (p = st->buf; p != NULL && st->n < 512; ) {
		char *semi = strchr(p, ';');
		size_t len;

		if (semi != NULL)
			*semi = '\0';
		len = strlen(p);
		if (len > 4 && strcmp(p + len - 4, "_[j]") == 0)
			p[len - 4] = '\0';
		st->f[st->n++] = p;
		p = semi != NULL ? semi + 1 : NULL;
	}
	return 1;
}

/* Whether a frame of st is named fn (whole), or begins with it (prefix). */
int
has_frame(const struct fstack *st, const char *fn, int prefix)
{
	for (int i = 0; i < st->n; i++)
		if (prefix ? strncmp(st->f[i], fn, strlen(fn)) == 0 :
		    strcmp(st->f[i], fn) == 0)
			return 1;
	return 0;
}

/* Whether st ends (leaf last) with the frames tail[0..k). */
int
ends_with(const struct fstack *st, const char *const *tail, int k)
{
	if (st->n < k)
		return 0;
	for (int i = 0; i < k; i++)
		if (strcmp(st->f[st->n - k + i], tail[i]) != 0)
			return 0;
	return 1;
}

/* A stack left unwound for the recorder to catch up: not the unwinder's. */
int
behind(const struct fstack *st)
{
	return has_frame(st, "[stack cut: recorder behind]", 0);
}

/*
 * The samples a check that 90% of some stacks are whole needs, as
 * test-stacks': 90% then 4 standard errors below 98%.
 */
double
most_need(void)
{
	return e2e_samples_for_share(0.98, 4, 0.08);
}

/* whole of all, 90% at least, or fail saying what */
void
assert_most(double whole, double all, const char *what, const char *which,
    const char *stacks)
{
	if (all < most_need())
		fail_msg("%s: %.0f samples of %s, %.0f needed to check their "
		    "stacks\n%.2000s", what, all, which, most_need(), stacks);
	if (whole < 0.9 * all)
		fail_msg("%s: %.0f of %.0f samples of %s have the stack wanted, "
		    "under 90%%\n%.2000s", what, whole, all, which, stacks);
	print_message("%s: %.0f of %.0f stacks of %s whole\n", what, whole, all,
	    which);
}

/*
 * The stacks through the generated code: 90% of those with a generated
 * function as their leaf read main;...;CALLER;FUNCTION (unwound by the
 * frame pointer through the generated code, by the unwind tables in
 * C), and 90% of c_leaf's read main;...;call_back;jit_calls_c;c_leaf
 * (c_leaf's caller is generated code: its frame found from c_leaf's
 * unwind tables, and on from its frame pointer).
 */
void
assert_jit_stacks_in(const char *stacks, const struct jit_split *sp,
    int calls_c, const char *what)
{
	static const char *const back[] = { "call_back", "jit_calls_c",
	    "c_leaf" };
	static struct fstack st;
	double all = 0, whole = 0, c_all = 0, c_whole = 0;

	for (const char *at = stacks; next_stack(&at, &st); ) {
		if (behind(&st))
			continue;
		for (int i = 0; i < sp->n; i++) {
			const char *tail[] = { sp->caller[i], sp->name[i] };

			if (strcmp(st.f[st.n - 1], sp->name[i]) != 0)
				continue;
			all += st.count;
			if (ends_with(&st, tail, 2) && has_frame(&st, "main", 0))
				whole += st.count;
		}
		if (strcmp(st.f[st.n - 1], "c_leaf") == 0) {
			c_all += st.count;
			if (ends_with(&st, back, 3) && has_frame(&st, "main", 0))
				c_whole += st.count;
		}
	}
	assert_most(whole, all, what, "the generated functions", stacks);
	if (calls_c)
		assert_most(c_whole, c_all, what, "c_leaf under jit_calls_c",
		    stacks);
}

/* The same of prf's stacks (calls_c: c_leaf's are checked too). */
void
assert_jit_stacks(const char *prf, const struct jit_split *sp, int calls_c,
    const char *what)
{
	static struct run r;

	assert_jit_stacks_in(folded(prf, &r), sp, calls_c, what);
}


/* ---- running the program ------------------------------------------------- */

void
need_perf(const char *engine)
{
	if (strcmp(engine, "perf") == 0 && !harness_perf_allowed())
		SKIP("perf events refused here: the perf engine's test");
}

/* The program's file is gone (it removes it at exit): fail if not. */
void
assert_gone(const char *path, const char *what)
{
	if (access(path, F_OK) == 0) {
		unlink(path);
		fail_msg("%s: %s is still there: the test would not show that "
		    "the names are the profile's", what, path);
	}
}

/*
 * jit-workload MODE for the CPU that need samples take, the flat
 * profile in s (made after the program exited), its output in r.
 */
void
record_mode(struct shares *s, struct run *r, const char *engine,
    const char *prf, const char *mode, double per, double need)
{
	char *prog[] = { jit_wl, (char *)mode, E2E_CPU, NULL };

	record_for(s, r, engine, prf, prog, per, need, NULL);
}

/*
 * The samples the generated code's split needs of the whole run: the
 * widest share's (0.6), of the generated code's 80%, and start-up's.
 */
double
split_need(double points)
{
	return e2e_samples_for_share(0.6, 4, points / 100 - 0.005) / JIT_SHARE +
	    E2E_STARTUP;
}

/*
 * A runtime's program (node, a JVM: prog, its CPU E2E_CPU) recorded for
 * need samples, as record_for does, but with its flat profile's rows of
 * 0.1% and more in s: a runtime's own code makes hundreds of rows of a
 * few samples, more than a test reads (node's came to 68 KB on a loaded
 * machine); all of its samples in s->total.
 */
void
record_runtime(struct shares *s, struct run *r, const char *engine,
    const char *prf, char **prog, double need)
{
	char *argv[32], arg[32];
	char *rows[] = { profil_bin, "report", "--format", "csv",
	    "--min-percent", "0.1", (char *)prf, NULL };
	double cpu = atof(e2e_cpu_for(need, 1)), got, scale;
	int runs = 0;

	for (;;) {
		snprintf(arg, sizeof arg, "%.3f", cpu);
		e2e_program_for(argv, 32, prog, arg);
		record_run(r, engine, prf, argv);
		profile_counts(prf, &got, &scale);
		/*
		 * counts, not what they are worth as record_for has it: a
		 * longer run of node takes more of V8's optimized code, fewer
		 * of whose stacks reach node::Start (77.7%, under the
		 * test's 80%, when a sanitized recorder's overruns lengthened
		 * it); where samples come a tick apart (no perf events) the
		 * 3-point split check finds them too few, and fails saying so
		 */
		if (got >= need)
			break;
		cpu = e2e_longer(cpu, got, need, &runs);
	}
	report_run(s, rows);
	s->total = got;
}

int
find_program(const char *name, char *path, size_t size)
{
	const char *env = getenv("PATH");
	char dirs[4096], *dir, *save;

	snprintf(dirs, sizeof dirs, "%s", env != NULL ? env : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir != NULL;
	    dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, size, "%s/%s", dir, name);
		if (access(path, X_OK) == 0)
			return 1;
	}
	return 0;
}

int
jit_checks_setup(void **state)
{
	if (e2e_setup(state) != 0)
		return -1;
	snprintf(jit_wl, sizeof jit_wl, "%s/jit-workload", bindir);
	return 0;
}
