/*
 * test-merge.c - `profil merge` end to end on real recordings of
 * tests/programs/workload.c.  Sums are checked exactly against the
 * inputs' flat reports (functions, stacks, buckets of other sizes); what
 * cannot be merged (another program, other rates, bad usage) is refused
 * in one line; timelines kept side by side, or dropped in one line, and
 * two recordings of tests/programs/phases.c put each run's phases at
 * their own times in the sum.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "e2e.h"
#include "harness.h"

static char phases_bin[PATH_MAX];

/* The common setup, and where the phases program is. */
static int
setup(void **state)
{
	if (e2e_setup(state) != 0)
		return -1;
	snprintf(phases_bin, sizeof phases_bin, "%s/phases", bindir);
	return 0;
}

/*
 * Runs are sized by the samples their checks need (e2e.h, record_for):
 * what each check needs is worked out beside it.
 */

/*
 * `profil record ...` of one's own (argv, writing prf), whose argument
 * E2E_CPU stands for the program's CPU seconds, run until object has
 * need samples (e2e_longer: three runs at most); its flat profile in s.
 */
static void
record_argv_for(struct shares *s, char **argv, const char *prf,
    const char *object, double need)
{
	double cpu = atof(e2e_cpu_for(need, 1));
	char *v[32], arg[32];
	struct run r;
	int i, runs = 0;

	for (;;) {
		snprintf(arg, sizeof arg, "%.3f", cpu);
		for (i = 0; argv[i] != NULL && i < 31; i++)
			v[i] = strcmp(argv[i], E2E_CPU) == 0 ? arg : argv[i];
		v[i] = NULL;
		run(&r, v);
		if (r.status != 0)
			fail_msg("record exited %d: %s", r.status, r.err);
		report(s, prf);
		if (samples_of(s, NULL, object) >= need)
			return;
		cpu = e2e_longer(cpu, samples_of(s, NULL, object), need, &runs);
	}
}

static void
merge_ok(const char *out, const char *a, const char *b)
{
	struct run r;
	char *argv[] = { profil_bin, "merge", "-q", "-o", (char *)out, (char *)a,
	    (char *)b, NULL };

	run(&r, argv);
	if (r.status != 0)
		fail_msg("merge exited %d: %s", r.status, r.err);
	assert_string_equal(r.err, "");
}

/*
 * Every row (function, object) of the merged flat profile m has exactly
 * ka times a's samples plus kb times b's, and the totals agree, so no row
 * of a or b is missing from m either.
 */
static void
assert_sum(const struct shares *m, const struct shares *a, int ka,
    const struct shares *b, int kb)
{
	const char *line = strchr(m->csv, '\n') + 1;
	int rows = 0;

	for (; *line; rows++) {
		char fn[512], obj[512];
		double n, want;

		assert_int_equal(sscanf(line, "%511[^,],%511[^,],%lf", fn, obj, &n), 3);
		want = ka * samples_of(a, fn, obj) + kb * samples_of(b, fn, obj);
		if (n != want)
			fail_msg("%s in %s: %.0f samples merged, %.0f in the inputs",
			    fn, obj, n, want);
		line = strchr(line, '\n');
		if (line == NULL)
			break;
		line++;
	}
	assert_true(rows >= 3);
	if (m->total != ka * a->total + kb * b->total)
		fail_msg("%.0f samples merged, %.0f and %.0f in the inputs",
		    m->total, a->total, b->total);
}

/* Lines (after the header) of a report view's CSV. */
static int
csv_rows(const char *prf, const char *view)
{
	struct run r;
	char *argv[] = { profil_bin, "report", (char *)view, "--format", "csv",
	    (char *)prf, NULL };
	int n = -1;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report %s: %s", view, r.err);
	for (const char *s = r.out; *s; s++)
		n += *s == '\n';
	return n;
}

static void
test_merge_sums_functions(void **state)
{
	char *prog[] = { workload, "split", "0.44", NULL };
	struct shares a, b, m;

	(void)state;
	record_ok(tmp("a.prf"), prog);
	record_ok(tmp("b.prf"), prog);
	merge_ok(tmp("ab.prf"), tmp("a.prf"), tmp("b.prf"));
	assert_int_equal(checked_samples(tmp("ab.prf")),
	    checked_samples(tmp("a.prf")) + checked_samples(tmp("b.prf")));
	report(&a, tmp("a.prf"));
	report(&b, tmp("b.prf"));
	report(&m, tmp("ab.prf"));
	assert_sum(&m, &a, 1, &b, 1);
	/* the processes of both runs are kept */
	assert_int_equal(csv_rows(tmp("ab.prf"), "--pid"),
	    csv_rows(tmp("a.prf"), "--pid") + csv_rows(tmp("b.prf"), "--pid"));
	/* the output may be an input: a running total */
	merge_ok(tmp("a.prf"), tmp("a.prf"), tmp("b.prf"));
	report(&a, tmp("a.prf"));
	assert_sum(&a, &m, 1, &b, 0);
}

/*
 * A run merged with a copy of itself counts twice (the same file twice is
 * refused: test-cli.c; a copy says it is meant).
 */
static void
test_merge_with_itself_doubles(void **state)
{
	char *prog[] = { workload, "split", "0.22", NULL };
	char cmd[PATH_MAX * 3];
	struct shares a, m;

	(void)state;
	record_ok(tmp("self.prf"), prog);
	snprintf(cmd, sizeof cmd, "cp %s %s", tmp("self.prf"), tmp("copy.prf"));
	assert_int_equal(system(cmd), 0);
	merge_ok(tmp("self2.prf"), tmp("self.prf"), tmp("copy.prf"));
	report(&a, tmp("self.prf"));
	report(&m, tmp("self2.prf"));
	assert_sum(&m, &a, 2, &a, 0);
	assert_int_equal(csv_rows(tmp("self2.prf"), "--objects"),
	    csv_rows(tmp("self.prf"), "--objects"));
}

/*
 * Samples of each object in the objects view (CSV: object,path,samples,
 * ...; path is empty for [kernel] and the like), as "object=samples;".
 */
static void
object_samples(char *out, size_t size, const char *prf)
{
	struct run r;
	char *argv[] = { profil_bin, "report", "--objects", "--format", "csv",
	    (char *)prf, NULL };
	size_t n = 0;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report --objects: %s", r.err);
	out[0] = '\0';
	for (const char *line = strchr(r.out, '\n'); line && line[1]; ) {
		const char *comma = strchr(++line, ','), *path_end;

		assert_non_null(comma);
		path_end = strchr(comma + 1, ',');
		assert_non_null(path_end);
		n += (size_t)snprintf(out + n, size - n, "%.*s=%lld;",
		    (int)(comma - line), line, atoll(path_end + 1));
		assert_true(n < size);
		line = strchr(line, '\n');
	}
}

/* The samples of object in an object_samples() string (0 if absent). */
static long long
samples_in(const char *list, const char *object)
{
	char key[512];
	const char *at;

	snprintf(key, sizeof key, "%s=", object);
	for (at = list; (at = strstr(at, key)) != NULL; at++)
		if (at == list || at[-1] == ';')
			return atoll(at + strlen(key));
	return 0;
}

/* Folded stacks of a profile: each distinct line once, with its count. */
struct folded {
	char *line[4096];
	unsigned long long count[4096];
	int n;
};

static void
folded_of(struct folded *f, const char *prf)
{
	char *argv[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    (char *)prf, NULL };
	struct run r;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("export folded %s: %s", prf, r.err);
	f->n = 0;
	for (char *line = r.out, *end; *line; line = end + 1) {
		char *space;

		end = strchr(line, '\n');
		assert_non_null(end);
		*end = '\0';
		space = strrchr(line, ' ');
		assert_non_null(space);
		assert_true(f->n < 4096);
		*space = '\0';
		f->line[f->n] = xstrdup(line);
		f->count[f->n++] = strtoull(space + 1, NULL, 10);
	}
}

static unsigned long long
folded_count(const struct folded *f, const char *line)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->line[i], line) == 0)
			return f->count[i];
	return 0;
}

static void
folded_free(struct folded *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->line[i]);
	f->n = 0;
}

/* Stacks of prf as read by the library (the file must read). */
static size_t
stacks_in(const char *prf)
{
	char cause[256];
	struct profil_profile *p = profil_profile_read(prf, cause, sizeof cause);
	size_t n;

	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	n = p->nstacks;
	profil_profile_free(p);
	return n;
}

/*
 * Two recordings with call stacks merged: each path of functions
 * (folded line) has the samples it had in the two inputs together, and
 * `profil check` takes the result.  Merged with a profile recorded
 * without stacks, the result has none, and merge says so in one line.
 */
static void
test_merge_sums_stacks(void **state)
{
	char *prog[] = { workload, "split", "0.22", NULL };
	char a[PATH_MAX], b[PATH_MAX], ab[PATH_MAX], flat[PATH_MAX], af[PATH_MAX];
	char *no_stacks[] = { profil_bin, "record", "-q", "-F", e2e_rate_arg(),
	    "--no-call-graph", "-o", flat, workload, "split", "0.22", NULL };
	char *merge[] = { profil_bin, "merge", "-q", "-o", af, a, flat, NULL };
	struct folded fa, fb, fm;
	unsigned long long total = 0;
	struct run r;

	(void)state;
	scratch(a, "st-a.prf");
	scratch(b, "st-b.prf");
	scratch(ab, "st-ab.prf");
	scratch(flat, "st-flat.prf");
	scratch(af, "st-af.prf");
	record_ok(a, prog);
	record_ok(b, prog);
	assert_true(stacks_in(a) > 0 && stacks_in(b) > 0);
	merge_ok(ab, a, b);
	assert_int_equal(checked_samples(ab),
	    checked_samples(a) + checked_samples(b));
	folded_of(&fa, a);
	folded_of(&fb, b);
	folded_of(&fm, ab);
	for (int i = 0; i < fm.n; i++) {
		unsigned long long want = folded_count(&fa, fm.line[i]) +
		    folded_count(&fb, fm.line[i]);

		if (fm.count[i] != want)
			fail_msg("%s: %llu merged, %llu in the inputs", fm.line[i],
			    fm.count[i], want);
		total += fm.count[i];
	}
	/* and no path of an input is missing from the sum */
	for (int i = 0; i < fa.n; i++)
		assert_true(folded_count(&fm, fa.line[i]) >= fa.count[i]);
	for (int i = 0; i < fb.n; i++)
		assert_true(folded_count(&fm, fb.line[i]) >= fb.count[i]);
	assert_int_equal(total, checked_samples(ab));
	assert_true(folded_count(&fm, "_start;__libc_start_main;"
	    "__libc_start_call_main;main;split;six") > 0);
	folded_free(&fa);
	folded_free(&fb);
	folded_free(&fm);

	run(&r, no_stacks);
	if (r.status != 0)
		fail_msg("record --no-call-graph: %s", r.err);
	run(&r, merge);
	if (r.status != 0)
		fail_msg("merge: %s", r.err);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "st-flat.prf has no call stacks"));
	assert_int_equal(stacks_in(af), 0);
	assert_int_equal(checked_samples(af),
	    checked_samples(a) + checked_samples(flat));
}

/*
 * Bucket sizes that are powers of two are summed at the coarsest.  The
 * sum is checked over more than 1000 samples of the workload's, each
 * run sized for half of them (the rate of record_run, which copes under
 * sanitizers).
 */
static void
test_merge_bucket_sizes(void **state)
{
	struct run r;
	struct shares s;
	char f4[PATH_MAX], f16[PATH_MAX], f3[PATH_MAX], f34[PATH_MAX];
	char *b4[] = { profil_bin, "record", "-q", "-F", e2e_rate_arg(),
	    "-b", "4", "-o", f4, workload, "split", E2E_CPU, NULL };
	char *b16[] = { profil_bin, "record", "-q", "-F", e2e_rate_arg(),
	    "-b", "16", "-o", f16, workload, "split", E2E_CPU, NULL };
	char *b3[] = { profil_bin, "record", "-q", "-F", e2e_rate_arg(),
	    "-b", "3", "-o", f3, workload, "split", "0.022", NULL };
	char *odd[] = { profil_bin, "merge", "-o", f34, f3, f4, NULL };
	char a[4096], b[4096], m[4096], name[512];
	int objects = 0;

	(void)state;
	scratch(f4, "b4.prf");
	scratch(f16, "b16.prf");
	scratch(f3, "b3.prf");
	scratch(f34, "b34.prf");
	record_argv_for(&s, b4, f4, "workload", 501);
	record_argv_for(&s, b16, f16, "workload", 501);
	run(&r, b3);
	assert_int_equal(r.status, 0);
	merge_ok(tmp("b416.prf"), f4, f16);
	assert_int_equal(checked_samples(tmp("b416.prf")),
	    checked_samples(f4) + checked_samples(f16));
	/* functions may share a 16-byte bucket: compare objects, exactly */
	object_samples(a, sizeof a, f4);
	object_samples(b, sizeof b, f16);
	object_samples(m, sizeof m, tmp("b416.prf"));
	for (const char *at = m; sscanf(at, "%511[^=]=", name) == 1; objects++) {
		if (samples_in(m, name) != samples_in(a, name) + samples_in(b, name))
			fail_msg("%s: %lld merged, %lld + %lld in the inputs", name,
			    samples_in(m, name), samples_in(a, name),
			    samples_in(b, name));
		at = strchr(at, ';') + 1;
	}
	assert_true(objects >= 2);
	if (samples_in(m, "workload") <= 1000)
		fail_msg("%lld samples of the workload merged, 1000 wanted",
		    samples_in(m, "workload"));

	run(&r, odd);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "3-byte buckets"));
	assert_false(exists(f34));
}

static void
test_merge_refuses_another_program(void **state)
{
	struct run r;
	char cmd[PATH_MAX * 3];
	char *prog[] = { workload, "split", "0.022", NULL };
	char split[PATH_MAX];
	char *other[] = { split, "2", NULL };
	char exe[PATH_MAX], out[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];
	char c1[PATH_MAX], c2[PATH_MAX];
	char *copy[] = { exe, "split", "0.022", NULL };
	char *rebuilt[] = { exe, "2", NULL };
	char *merge[] = { profil_bin, "merge", "-o", out, p1, p2, NULL };
	char *merge2[] = { profil_bin, "merge", "-o", out, c1, c2, NULL };

	(void)state;
	/* examples/split: a plain program, as workload is (either engine) */
	snprintf(split, sizeof split, "%s/../examples/split", bindir);
	scratch(exe, "prog");
	scratch(out, "mixed.prf");
	scratch(p1, "p1.prf");
	scratch(p2, "p2.prf");
	scratch(c1, "c1.prf");
	scratch(c2, "c2.prf");
	record_ok(p1, prog);
	record_ok(p2, other);
	run(&r, merge);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "different programs"));
	assert_non_null(strstr(r.err, "/examples/split (build-id "));
	assert_false(exists(out));

	/* the same path, rebuilt: another build-id */
	snprintf(cmd, sizeof cmd, "cp %s %s", workload, exe);
	assert_int_equal(system(cmd), 0);
	record_ok(c1, copy);
	snprintf(cmd, sizeof cmd, "cp %s %s", split, exe);
	assert_int_equal(system(cmd), 0);
	record_ok(c2, rebuilt);
	run(&r, merge2);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "build-id"));
	assert_false(exists(out));
}

static void
test_merge_refuses_other_rates(void **state)
{
	struct run r;
	char f1[PATH_MAX], f2[PATH_MAX], out[PATH_MAX];
	char *slow[] = { profil_bin, "record", "-q", "-F", "1000", "-o", f1,
	    workload, "split", "0.022", NULL };
	char *fast[] = { profil_bin, "record", "-q", "-F", "2000", "-o", f2,
	    workload, "split", "0.022", NULL };
	char *merge[] = { profil_bin, "merge", "-o", out, f1, f2, NULL };
	FILE *f;
	char kept[16] = "";

	(void)state;
	scratch(f1, "f1000.prf");
	scratch(f2, "f2000.prf");
	scratch(out, "rates.prf");
	run(&r, slow);
	assert_int_equal(r.status, 0);
	run(&r, fast);
	assert_int_equal(r.status, 0);
	/* a file already at the output stays as it was */
	f = fopen(out, "w");
	assert_non_null(f);
	fputs("previous", f);
	fclose(f);
	run(&r, merge);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "1000 Hz"));
	assert_non_null(strstr(r.err, "2000 Hz"));
	f = fopen(out, "r");
	assert_non_null(f);
	assert_non_null(fgets(kept, sizeof kept, f));
	fclose(f);
	assert_string_equal(kept, "previous");
}

static void
test_merge_bad_usage(void **state)
{
	struct run r;
	char *prog[] = { workload, "split", "0.011", NULL };
	char in[PATH_MAX], out[PATH_MAX], absent[PATH_MAX], bad[PATH_MAX];
	char *one[] = { profil_bin, "merge", in, NULL };
	char *none[] = { profil_bin, "merge", "-o", out, NULL };
	char *option[] = { profil_bin, "merge", "--bogus", in, in, NULL };
	char *missing[] = { profil_bin, "merge", "-o", out, in, absent, NULL };
	char *corrupt[] = { profil_bin, "merge", "-o", out, in, bad, NULL };
	char cmd[PATH_MAX * 3];

	(void)state;
	scratch(in, "u.prf");
	scratch(out, "u2.prf");
	scratch(absent, "nothing-here.prf");
	scratch(bad, "corrupt.prf");
	record_ok(in, prog);
	snprintf(cmd, sizeof cmd, "head -c 200 %s > %s", in, bad);
	assert_int_equal(system(cmd), 0);
	run(&r, one);
	assert_int_equal(r.status, 2);
	assert_one_line(&r, "merge");
	run(&r, none);
	assert_int_equal(r.status, 2);
	run(&r, option);
	assert_int_equal(r.status, 2);
	assert_one_line(&r, "merge");
	run(&r, missing);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "nothing-here.prf"));
	run(&r, corrupt);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "merge");
	assert_non_null(strstr(r.err, "corrupt.prf"));
	assert_false(exists(out));
}

/*
 * A profile of /bin/app saved at path: 6 samples at 0x10 under 0x50
 * (thread 1 of process pid), with a timeline of slices of slice_ns (0:
 * none): 2 samples in slice 0, 4 in slice 3.
 */
static void
save_timed(const char *path, uint32_t pid, uint64_t slice_ns)
{
	struct profil_bucket bucket = { 0x10, 6 };
	struct profil_object app = { .path = "/bin/app", .lowpc = 0,
	    .highpc = 0x100, .bucket_bytes = 1, .samples = 6, .nbuckets = 1,
	    .buckets = &bucket };
	struct profil_frame frames[] = { { 0, 0x10 }, { 0, 0x50 } };
	uint32_t whole[] = { 0, 1 };
	struct profil_stack stack = { .pid = pid, .tid = pid, .count = 6,
	    .depth = 2, .frames = whole };
	struct profil_timeline_entry timeline[] = { { 0, 0, 2 }, { 0, 3, 4 } };
	char *argv[] = { "app", NULL }, cause[256];
	struct profil_profile p = { .interval_ns = 1000000, .bucket_bytes = 1,
	    .engine = "perf", .argc = 1, .argv = argv, .samples = 6,
	    .nobjects = 1, .objects = &app, .nframes = 2, .frames = frames,
	    .nstacks = 1, .stacks = &stack, .slice_ns = slice_ns,
	    .nslices = slice_ns ? 4 : 0, .ntimeline = slice_ns ? 2 : 0,
	    .timeline = timeline };

	if (profil_profile_save(&p, path, cause, sizeof cause) < 0)
		fail_msg("save %s: %s", path, cause);
}

/*
 * Timelines merged by the command: two runs side by side, re-sliced to
 * the coarser (2^20 and 2^21 ns: the first's slice 3 is the sum's 1), the
 * sum sound by the reader's checks; with an input that has none, the sum
 * has none, and one line says which input and why.
 */
static void
test_merge_timelines(void **state)
{
	char a[PATH_MAX], b[PATH_MAX], out[PATH_MAX], cause[256];
	char *argv[] = { profil_bin, "merge", "-q", "-o", out, a, b, NULL };
	struct profil_profile *m;
	struct run r;

	(void)state;
	scratch(a, "timed-a.prf");
	scratch(b, "timed-b.prf");
	scratch(out, "timed-sum.prf");
	save_timed(a, 10, 1u << 20);
	save_timed(b, 20, 1u << 21);
	merge_ok(out, a, b);
	m = profil_profile_read(out, cause, sizeof cause);
	if (m == NULL)
		fail_msg("%s: %s", out, cause);
	assert_int_equal(m->slice_ns, 1u << 21);
	assert_int_equal(m->nslices, 4);		/* b's 4; a's 2 */
	assert_int_equal(m->ntimeline, 4);
	for (size_t i = 0; i < 4; i++) {
		const struct profil_timeline_entry *e = &m->timeline[i];
		uint32_t pid = m->stacks[e->stack].pid;

		/* a's 0 and 3 are the sum's 0 and 1; b's stay 0 and 3 */
		assert_int_equal(e->slice, (i % 2 == 0) ? 0 : pid == 10 ? 1 : 3);
		assert_int_equal(e->value, (i % 2 == 0) ? 2 : 4);
	}
	profil_profile_free(m);

	save_timed(b, 20, 0);
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_one_line(&r, "merge");
	if (strstr(r.err, "timed-b.prf has no timeline") == NULL)
		fail_msg("merge said: %s", r.err);
	m = profil_profile_read(out, cause, sizeof cause);
	assert_non_null(m);
	assert_true(m->slice_ns == 0 && m->ntimeline == 0);
	assert_int_equal(m->nstacks, 2);
	profil_profile_free(m);
}

/* What the sum of two runs of phases did, and where. */
struct merged_phases {
	double late_in, late_out;	/* late's CPU samples, in c() or not */
	double worker, mid_read;	/* the worker's, all and mid-read() */
	double read_in, read_out;	/* the worker's s in read(), in its phase */
	double late_inputs;		/* late's samples in the two inputs */
};

/*
 * The sum m of in[0] and in[1] (err[i]: what in[i]'s program said) told
 * apart by run, each entry judged against its own run's phases, from its
 * own start.  The worker is the main thread, late the other (the timer
 * engine knows it by the name it was born with, the worker's).
 */
static void
tally_phases(struct merged_phases *t, const struct profil_profile *m,
    struct profil_profile *const in[2], const char *const err[2])
{
	struct e2e_phase c[2], rd[2];
	uint32_t pid[2];
	double slice_s = (double)m->slice_ns / 1e9;

	memset(t, 0, sizeof *t);
	for (int i = 0; i < 2; i++) {
		c[i] = e2e_phase_of(err[i], "c", in[i]->start_ns);
		rd[i] = e2e_phase_of(err[i], "read", in[i]->start_ns);
		assert_true(in[i]->nprocesses >= 1);
		pid[i] = in[i]->processes[0].pid;
		for (size_t k = 0; k < in[i]->nstacks; k++)
			if (in[i]->stacks[k].tid != in[i]->stacks[k].pid)
				t->late_inputs += (double)in[i]->stacks[k].count;
	}
	assert_true(pid[0] != pid[1]);
	for (size_t i = 0; i < m->ntimeline; i++) {
		const struct profil_timeline_entry *e = &m->timeline[i];
		const struct profil_stack *st = &m->stacks[e->stack];
		const struct profil_frame *leaf = &m->frames[st->frames[0]];
		int k = st->pid == pid[0] ? 0 : 1;
		double v = (double)e->value, t0 = e->slice * slice_s;

		assert_true(st->pid == pid[k]);
		if (st->off_ns > 0) {
			if (st->tid == st->pid && leaf->addr == 0) {	/* read */
				if (e2e_in_phase(&rd[k], slice_s, e->slice))
					t->read_in += v / 1e9;
				else
					t->read_out += v / 1e9;
			}
		} else if (st->tid != st->pid) {
			if (e2e_in_phase(&c[k], slice_s, e->slice))
				t->late_in += v;
			else
				t->late_out += v;
		} else {
			t->worker += v;
			if (t0 >= rd[k].t0 + slice_s &&
			    t0 + 2 * slice_s <= rd[k].t1)
				t->mid_read += v;
		}
	}
}

/*
 * Two recordings of the phases program (--wall) merged by the command:
 * the runs side by side, each from its own start.  The truth is each
 * program's own clock: in the sum, each run's thread "late" is on the
 * CPU only in its c() phase and its worker never in the middle of its
 * read(), each within a slice, the runs told apart by their processes;
 * with the perf engine, which times the switches, the worker's time in
 * read() lies in its read phase.  The late thread's samples are the two
 * runs' together.  Runs longer while either thread has under 50 samples.
 */
static void
merge_phases(const char *engine)
{
	static struct run r[2];
	char prf[2][PATH_MAX], out[PATH_MAX], scale[32], cause[512];
	char *argv[] = { profil_bin, "record", "-e", (char *)engine, "--wall",
	    "-o", NULL, phases_bin, scale, NULL };
	struct profil_profile *in[2], *m;
	struct merged_phases t;
	double s = harness_work_scale(), read_s;

	scratch(prf[0], "phases-1.prf");
	scratch(prf[1], "phases-2.prf");
	scratch(out, "phases-sum.prf");
	for (int runs = 0;; runs++, s *= 3) {
		const char *err[2] = { r[0].err, r[1].err };

		snprintf(scale, sizeof scale, "%.2f", s);
		for (int i = 0; i < 2; i++) {
			argv[6] = prf[i];
			run(&r[i], argv);
			if (r[i].status != 0)
				fail_msg("record -e %s exited %d: %s", engine,
				    r[i].status, r[i].err);
			if ((in[i] = profil_profile_read(prf[i], cause,
			    sizeof cause)) == NULL)
				fail_msg("%s: %s", prf[i], cause);
		}
		merge_ok(out, prf[0], prf[1]);
		if ((m = profil_profile_read(out, cause, sizeof cause)) == NULL)
			fail_msg("%s: %s", out, cause);
		if (m->slice_ns == 0)
			fail_msg("-e %s: the sum has no timeline", engine);
		tally_phases(&t, m, in, err);
		read_s = 0;
		for (int i = 0; i < 2; i++) {
			struct e2e_phase rd = e2e_phase_of(err[i], "read",
			    in[i]->start_ns);

			read_s += rd.t1 - rd.t0;
			profil_profile_free(in[i]);
		}
		profil_profile_free(m);
		print_message("-e %s: late %.0f in c(), %.0f out; worker %.0f, "
		    "%.0f mid-read; read %.3f s in its phase, %.3f out, of "
		    "%.3f\n", engine, t.late_in, t.late_out, t.worker,
		    t.mid_read, t.read_in, t.read_out, read_s);
		if (t.late_in + t.late_out >= 50 && t.worker >= 50)
			break;
		if (runs == 2)
			fail_msg("-e %s: too few samples after 3 runs: the machine "
			    "is too busy to tell", engine);
	}
	assert_true(t.late_in + t.late_out == t.late_inputs);
	/* a sample's time is the kernel's or the handler's own: exact */
	if (t.late_out > 0.02 * (t.late_in + t.late_out) + 2 ||
	    t.mid_read > 0.02 * t.worker + 2)
		fail_msg("-e %s: samples out of their phases", engine);
	if (strcmp(engine, "perf") == 0 &&
	    (t.read_out > 0.02 * (t.read_in + t.read_out) ||
	    t.read_in < 0.7 * read_s))
		fail_msg("-e perf: read() out of its phases");
}

static void
test_merge_phases_perf(void **state)
{
	(void)state;
	if (!harness_perf_allowed())
		SKIP("perf events refused here");
	merge_phases("perf");
}

static void
test_merge_phases_timer(void **state)
{
	(void)state;
	merge_phases("timer");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_sums_functions),
		cmocka_unit_test(test_merge_with_itself_doubles),
		cmocka_unit_test(test_merge_sums_stacks),
		cmocka_unit_test(test_merge_bucket_sizes),
		cmocka_unit_test(test_merge_refuses_another_program),
		cmocka_unit_test(test_merge_refuses_other_rates),
		cmocka_unit_test(test_merge_bad_usage),
		cmocka_unit_test(test_merge_timelines),
		cmocka_unit_test(test_merge_phases_perf),
		cmocka_unit_test(test_merge_phases_timer),
	};
	/* sanitized, stacks at 1 kHz: TSan's recorder leaves most of 5 kHz
	   unwound, and inclusive shares of a few are noise */
	e2e_rate_when_sanitized = "1000";
	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
