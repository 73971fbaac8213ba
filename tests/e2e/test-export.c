/*
 * test-export.c - `profil export` beyond pprof, end to end: `--format
 * gmon`'s call arcs as GNU gprof reads them, and every format written to
 * standard output.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"
#include <profil.h>

#include "export-checks.h"

/* ---- gmon: call arcs for gprof ----------------------------------------- */

/* A call as gprof -q prints it: parent, child, count. */
struct gprof_arc {
	char parent[256], child[256];
	unsigned long long count;
};

/* Standard output of the shell command cmd (malloc'd), which must succeed. */
static char *
shell_output(const char *cmd)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL }, *out, err[4096];

	if (capture(argv, &out, err, sizeof err) != 0)
		fail_msg("%s: %s", cmd, err);
	return out;
}

/*
 * The calls of gprof's call graph of gmon (gprof -b -q on the workload):
 * each function's entry lists its parents above its own line, "self
 * children count/total name [index]", or "count name [index]" for a self
 * call; into arcs, at most max; how many.
 */
static size_t
gprof_arcs(const char *gmon, struct gprof_arc *arcs, size_t max)
{
	char cmd[3 * PATH_MAX], *out, *save, *line, *cut;
	struct gprof_arc parents[64];
	size_t n = 0, np = 0;
	int primary_seen = 0;

	snprintf(cmd, sizeof cmd, "exec gprof -b -q '%s' '%s'", workload, gmon);
	out = shell_output(cmd);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		struct gprof_arc a;
		unsigned long long total;
		double self, children;
		char bracket;

		if (strncmp(line, "-----", 5) == 0) {
			np = 0;
			primary_seen = 0;
		} else if (line[0] == '[' && (cut = strrchr(line, '[')) > line) {
			/* "[2] 60.8 0.23 0.00 236 six [2]": six's own line */
			while (cut > line && cut[-1] == ' ')
				*--cut = '\0';
			cut = strrchr(line, ' ');
			assert_non_null(cut);
			for (size_t i = 0; i < np && n < max; i++) {
				arcs[n] = parents[i];
				COPY(arcs[n].child, cut + 1);
				n++;
			}
			primary_seen = 1;
		} else if (!primary_seen && np < 64 && (sscanf(line,
		    "%lf %lf %llu/%llu %255s", &self, &children, &a.count, &total,
		    a.parent) == 5 || (sscanf(line, "%llu %255s %c", &a.count,
		    a.parent, &bracket) == 3 && bracket == '['))) {
			/* a caller; or a self call, its count alone */
			parents[np++] = a;
		}
	}
	free(out);
	return n;
}

/* gprof's flat profile (gprof -b -p): the percentage of function. */
static double
gprof_percent(const char *gmon, const char *function)
{
	char cmd[3 * PATH_MAX], *out, *save, *line, *name;
	double pct = -1, p;

	snprintf(cmd, sizeof cmd, "exec gprof -b -p '%s' '%s'", workload, gmon);
	out = shell_output(cmd);
	/* "%time cumulative self [calls self/call total/call] name" */
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		if ((name = strrchr(line, ' ')) != NULL &&
		    strcmp(name + 1, function) == 0 && sscanf(line, "%lf", &p) == 1)
			pct = p;
	free(out);
	if (pct < 0)
		fail_msg("gprof -p does not list %s", function);
	return pct;
}

/* The count of gprof's call parent -> child; how many such arcs in *n. */
static unsigned long long
arc_count(const struct gprof_arc *arcs, size_t narcs, const char *parent,
    const char *child, int *n)
{
	unsigned long long count = 0;

	*n = 0;
	for (size_t i = 0; i < narcs; i++)
		if (strcmp(arcs[i].child, child) == 0 &&
		    (parent == NULL || strcmp(arcs[i].parent, parent) == 0)) {
			count += arcs[i].count;
			++*n;
		}
	return count;
}

/* 1 if folded text has the call caller;callee (two whole frames). */
static int
has_call(const char *text, const char *caller, const char *callee)
{
	char call[512];

	snprintf(call, sizeof call, "%s;%s", caller, callee);
	return has_frame(text, call);
}

/*
 * Add to p a stack sampled in code of no object count times, called
 * from split recursing into itself: leaf first [unknown] s1 s2 s3 m ...,
 * where s1, s2, s3 are three call sites in split (of six, three and one)
 * and m ... is where main calls split and on out.  Within object oi
 * (the workload) its calls are split -> split twice (s2 -> s1, s3 -> s2)
 * and main -> split once.  Keeps p consistent.
 */
static void
add_recursive_stack(struct profil_profile *p, size_t oi, uint64_t count)
{
	const struct profil_stack *like = NULL;
	uint32_t sites[3], unknown;
	struct profil_stack *st;
	size_t nsites = 0, at = 0, like_index;

	/* leaf, call site in split, main's call: six, three, one's stacks */
	for (size_t i = 0; i < p->nstacks && nsites < 3; i++) {
		const struct profil_stack *c = &p->stacks[i];
		int known = 0;

		if (c->depth < 3 || p->frames[c->frames[0]].object != oi ||
		    p->frames[c->frames[1]].object != oi ||
		    p->frames[c->frames[2]].object != oi ||
		    (like != NULL && c->frames[2] != like->frames[2]))
			continue;
		for (size_t k = 0; k < nsites; k++)
			known |= sites[k] == c->frames[1];
		if (!known)
			sites[nsites++] = c->frames[1];
		like = like ? like : c;
	}
	if (nsites < 3)
		fail_msg("no three call sites in split among the stacks");
	like_index = (size_t)(like - p->stacks);
	/* an unknown frame, where the sorted frames have it */
	while (at < p->nframes && p->frames[at].object < PROFIL_FRAME_UNKNOWN)
		at++;
	if (at == p->nframes || p->frames[at].object != PROFIL_FRAME_UNKNOWN) {
		p->frames = realloc(p->frames, (p->nframes + 1) * sizeof *p->frames);
		assert_non_null(p->frames);
		memmove(p->frames + at + 1, p->frames + at,
		    (p->nframes - at) * sizeof *p->frames);
		p->frames[at] = (struct profil_frame){ PROFIL_FRAME_UNKNOWN, 1 };
		p->nframes++;
		for (size_t i = 0; i < p->nstacks; i++)
			for (size_t k = 0; k < p->stacks[i].depth; k++)
				p->stacks[i].frames[k] += p->stacks[i].frames[k] >= at;
		for (size_t k = 0; k < 3; k++)
			sites[k] += sites[k] >= at;
	}
	unknown = (uint32_t)at;
	p->stacks = realloc(p->stacks, (p->nstacks + 1) * sizeof *p->stacks);
	assert_non_null(p->stacks);
	like = &p->stacks[like_index];
	st = &p->stacks[p->nstacks];
	*st = *like;
	st->depth = like->depth + 2;
	st->frames = malloc(st->depth * sizeof *st->frames);
	assert_non_null(st->frames);
	st->frames[0] = unknown;
	memcpy(st->frames + 1, sites, sizeof sites);
	memcpy(st->frames + 4, like->frames + 2,
	    (like->depth - 2) * sizeof *st->frames);
	st->count = count;
	p->nstacks++;
	p->unknown += count;
	p->samples += count;
	add_unit_weights(p, count);
	if (p->nthreads > 0)
		p->threads[0].samples += count;
	if (p->nprocesses > 0)
		p->processes[0].samples += count;
}

/*
 * export --format gmon writes the stacks' calls as arcs: gprof -q, on a
 * program never built with -pg, shows split (which main calls) calling
 * six, three and one 6:3:1, each count the samples whose stack holds
 * that call (the folded stacks say how many), while the flat profile is
 * still the report's; a call recursion repeats on a stack counts once for
 * it; counts past 32 bits take several records, which gprof adds up.
 */
static void
test_gmon_call_arcs(void **state)
{
	SCRATCH(prf, "arcs.prf");
	SCRATCH(big_prf, "arcs-big.prf");
	SCRATCH(dir, "arcs");
	SCRATCH(gmon, "arcs/gmon.workload.out");
	char *prog[] = { workload, "split", E2E_CPU, NULL };
	char *exp[] = { profil_bin, "export", "--format", "gmon", "-o", dir, prf,
	    NULL };
	char *exp_big[] = { profil_bin, "export", "--format", "gmon", "-o", dir,
	    big_prf, NULL };
	char *folded_argv[] = { profil_bin, "export", "--format", "folded",
	    "-o", "-", prf, NULL };
	static const char *const fns[] = { "six", "three", "one" };
	const double want[3] = { 0.6, 0.3, 0.1 };
	unsigned long long counts[3], on_stacks[3], sum, main_split;
	unsigned long long big = 3 * (1ull << 32) + 12345;
	struct gprof_arc arcs[128], arcs_big[128];
	char *out, *save, *line, err[4096], cause[256], arg[32];
	/* 6:3:1 within 5 points, half a point of it not sampling's */
	double need = e2e_samples_for_share(0.6, 4, 0.05 - 0.005);
	size_t narcs, narcs_big;
	struct profil_profile *p;
	struct shares s;
	struct run r;
	int n, runs = 0;

	(void)state;
	if (system("gprof --version >/dev/null 2>&1") != 0)
		SKIP("GNU gprof not installed (binutils)");
	/* until the calls of split hold the samples the split needs */
	for (double cpu = atof(e2e_cpu_for(need, 1));;) {
		snprintf(arg, sizeof arg, "%.3f", cpu);
		record_stacks_or_not_at(prf, prog, 1, arg);
		run(&r, exp);
		if (r.status != 0)
			fail_msg("export: %s", r.err);
		narcs = gprof_arcs(gmon, arcs, 128);

		/* the samples whose stacks hold split -> six, ... */
		if (capture(folded_argv, &out, err, sizeof err) != 0)
			fail_msg("export --format folded: %s", err);
		memset(on_stacks, 0, sizeof on_stacks);
		for (line = strtok_r(out, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save)) {
			char *count = strrchr(line, ' ');

			assert_non_null(count);
			*count++ = '\0';
			for (int i = 0; i < 3; i++)
				if (has_call(line, "split", fns[i]))
					on_stacks[i] += strtoull(count, NULL,
					    10);
		}
		free(out);

		/* ... are gprof's counts, split the only caller, ... */
		sum = 0;
		for (int i = 0; i < 3; i++) {
			counts[i] = arc_count(arcs, narcs, NULL, fns[i], &n);
			if (n != 1 || arc_count(arcs, narcs, "split", fns[i],
			    &n) != counts[i])
				fail_msg("%s: %d callers in gprof, not split "
				    "alone", fns[i], n);
			assert_int_equal(counts[i], on_stacks[i]);
			sum += counts[i];
		}
		if ((double)sum >= need)
			break;
		cpu = e2e_longer(cpu, (double)sum, need, &runs);
	}
	/* ... 6:3:1 */
	for (int i = 0; i < 3; i++) {
		double margin = harness_margin(want[i], (double)sum, 4, 0.005) + 0.005;
		double got = (double)counts[i] / (double)sum;

		if (margin > 0.05)
			fail_msg("too few samples (%llu, %.0f wanted) for the "
			    "split", sum, need);
		if (fabs(got - want[i]) > margin)
			fail_msg("%s: %.2f%% of the calls (want %.0f%% +- %.2f) of %llu",
			    fns[i], 100 * got, 100 * want[i], 100 * margin, sum);
	}
	main_split = arc_count(arcs, narcs, "main", "split", &n);
	assert_int_equal(n, 1);
	assert_true(main_split >= sum);

	/* the flat part: gprof's shares of the object are the report's */
	report(&s, prf);
	for (int i = 0; i < 3; i++) {
		double ours = 100 * samples_of(&s, fns[i], NULL) /
		    samples_of(&s, NULL, "workload");
		double theirs = gprof_percent(gmon, fns[i]);

		if (fabs(ours - theirs) > 1)
			fail_msg("%s: gprof %.2f%%, profil %.2f%%", fns[i], theirs,
			    ours);
	}

	/*
	 * A stack where split calls itself twice, counted past 2^32 - 1:
	 * main -> split and split -> split get its count once each (several
	 * records of it, added up), every other call is as it was.
	 */
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s", cause);
	add_recursive_stack(p, 0, big);
	e2e_drop_timeline(p);
	if (profil_profile_save(p, big_prf, cause, sizeof cause) < 0)
		fail_msg("%s", cause);
	profil_profile_free(p);
	run(&r, exp_big);
	if (r.status != 0)
		fail_msg("export: %s", r.err);
	narcs_big = gprof_arcs(gmon, arcs_big, 128);
	assert_int_equal(arc_count(arcs_big, narcs_big, "split", "split", &n), big);
	assert_int_equal(n, 1);
	assert_int_equal(narcs_big, narcs + 1);
	for (size_t i = 0; i < narcs; i++) {
		int is_main_split = strcmp(arcs[i].parent, "main") == 0 &&
		    strcmp(arcs[i].child, "split") == 0;

		assert_int_equal(arc_count(arcs_big, narcs_big, arcs[i].parent,
		    arcs[i].child, &n), arcs[i].count + (is_main_split ? big : 0));
	}
}

/*
 * -o - is standard output for every format that is one stream: pprof's
 * bytes there are those of -o FILE (not a file named "-", as they were),
 * folded's too; pprof's gzipped bytes are not written to a terminal;
 * gmon, a file per object, refuses it in one line.  No "-" is left in
 * the directory it ran in.
 */
static void
test_stdout_for_every_format(void **state)
{
	SCRATCH(prf, "stdout.prf");
	SCRATCH(dash, "-");
	SCRATCH(to_file, "stdout-file");
	SCRATCH(to_stdout, "stdout-pipe");
	char *prog[] = { workload, "split", "0.022", NULL };
	static const char *const formats[] = { "pprof", "folded" };
	char cmd[4 * PATH_MAX], pts[PATH_MAX];
	char *sh[] = { "/bin/sh", "-c", cmd, NULL };
	struct run r;
	int master;

	(void)state;
	record_ok(prf, prog);
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		char *to[] = { profil_bin, "export", "--format",
		    (char *)formats[i], "-o", to_file, prf, NULL };

		run(&r, to);
		if (r.status != 0)
			fail_msg("%s -o FILE: exit %d: %s", formats[i], r.status,
			    r.err);
		snprintf(cmd, sizeof cmd, "cd '%s' && '%s' export --format %s "
		    "-o - '%s' >'%s'", tmpdir, profil_bin, formats[i], prf,
		    to_stdout);
		run(&r, sh);
		if (r.status != 0)
			fail_msg("%s -o -: exit %d: %s", formats[i], r.status, r.err);
		assert_int_equal(access(dash, F_OK), -1);
		snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", to_file, to_stdout);
		if (system(cmd) != 0)
			fail_msg("%s: -o - wrote other bytes than -o FILE",
			    formats[i]);
		assert_int_equal(unlink(to_file), 0);
	}

	/* a terminal gets no gzipped bytes: one line, and nothing written */
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0 &&
	    ptsname_r(master, pts, sizeof pts) == 0) {
		snprintf(cmd, sizeof cmd, "cd '%s' && '%s' export --format pprof "
		    "-o - '%s' >'%s'", tmpdir, profil_bin, prf, pts);
		run(&r, sh);
		assert_int_equal(r.status, 2);
		assert_one_error_line(&r);
		assert_non_null(strstr(r.err, "terminal"));
		assert_int_equal(access(dash, F_OK), -1);
	}
	if (master >= 0)
		close(master);

	snprintf(cmd, sizeof cmd, "cd '%s' && '%s' export --format gmon -o - "
	    "'%s'", tmpdir, profil_bin, prf);
	run(&r, sh);
	assert_int_equal(r.status, 2);
	assert_one_error_line(&r);
	assert_non_null(strstr(r.err, "a file per object"));
	assert_int_equal(access(dash, F_OK), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gmon_call_arcs),
		cmocka_unit_test(test_stdout_for_every_format),
	};

	return cmocka_run_group_tests(tests, export_setup, e2e_teardown);
}
