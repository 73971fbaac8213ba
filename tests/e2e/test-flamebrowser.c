/*
 * test-flamebrowser.c - the flame graph of `profil report --html` in
 * headless Chromium (tests/browser/check-html.js: zoom, reset, search,
 * hover), of a CPU profile and of a wall profile, with numbers taken from
 * `profil report --format csv` and the folded export; its data checked as
 * a tree first (flame-checks.h).
 */
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

#include "flame-checks.h"

/* The path of box i from the root, name@object joined by ';', into buf. */
static void
box_path(const struct flame *fl, long i, char *buf, size_t size)
{
	long up[1024];
	size_t n = 0, len = 0;

	for (; i > 0 && n < 1024; i = fl->parent[i])
		up[n++] = i;
	buf[0] = '\0';
	while (n-- > 0 && len < size)
		len += (size_t)snprintf(buf + len, size - len, "%s%s@%s",
		    len ? ";" : "", fl->name[fl->func[up[n]]],
		    fl->object[fl->func[up[n]]]);
}

/*
 * Each box's error on the page is the one the call tree gives its path
 * (report --tree --format csv, every path): one definition (share.h).
 */
static void
assert_errors_as_the_tree(const struct flame *fl, const char *prf)
{
	char *argv[] = { profil_bin, "report", "--tree", "--format", "csv",
	    "--min-percent", "0", (char *)prf, NULL };
	static struct run r;
	static char paths[4096][512];
	static double errs[4096];
	long parent_of[4096];
	size_t n = 0;
	const char *line;

	run(&r, argv);
	assert_int_equal(r.status, 0);
	for (line = strchr(r.out, '\n') + 1; *line && n < 4096; n++) {
		char f[8][512];
		int k;

		for (k = 0; k < 8 && csv_field(&line, f[k], sizeof f[k]); k++)
			;
		assert_true(k == 8);
		parent_of[n] = atol(f[1]);
		if (parent_of[n] >= 0)
			snprintf(paths[n], sizeof paths[n], "%.250s;%.125s@%.125s",
			    paths[parent_of[n]], f[3], f[4]);
		else
			snprintf(paths[n], sizeof paths[n], "%.250s@%.250s", f[3],
			    f[4]);
		errs[n] = atof(f[7]);
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "";
	}
	for (size_t i = 1; i < fl->n; i++) {
		char path[8192];
		size_t k;

		box_path(fl, (long)i, path, sizeof path);
		for (k = 0; k < n && strcmp(paths[k], path) != 0; k++)
			;
		if (k == n)
			continue;	/* a path too long to compare */
		if (fabs(fl->err[i] - errs[k]) > 0.0002)
			fail_msg("box %s: +- %.4f, the tree's %.4f", path,
			    fl->err[i], errs[k]);
	}
}

/*
 * Samples of folded stacks with a frame in names (each line once); with
 * kernel_above, the samples of those that go on above the last such
 * frame, which must be the kernel's.
 */
static unsigned long long
folded_with(const char *folded, const char *const *names, size_t nnames,
    unsigned long long *kernel_above)
{
	unsigned long long sum = 0;
	char *copy = strdup(folded), *save = NULL;

	if (kernel_above != NULL)
		*kernel_above = 0;
	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *space = strrchr(line, ' '), *frame, *fsave = NULL;
		unsigned long long n = strtoull(space + 1, NULL, 10);
		int has = 0, leaf_in = 0;

		*space = '\0';
		for (frame = strtok_r(line, ";", &fsave); frame != NULL;
		    frame = strtok_r(NULL, ";", &fsave)) {
			leaf_in = 0;
			for (size_t k = 0; k < nnames; k++)
				if (strcmp(frame, names[k]) == 0)
					has = leaf_in = 1;
			if (fsave == NULL || *fsave == '\0')
				break;
		}
		if (!has)
			continue;
		sum += n;
		/* a frame above them can only be the kernel's, sampled in them */
		if (kernel_above != NULL && !leaf_in) {
			assert_non_null(frame);
			if (strstr(frame, "_[k]") == NULL)
				fail_msg("a stack goes on above six or three: %s", frame);
			*kernel_above += n;
		}
	}
	free(copy);
	return sum;
}

/*
 * Samples of folded stacks with a frame the extended regular expression
 * re matches anywhere in its name, as the page's search box does (each
 * line once): "split|six" matches "posix_cpu_timers_work" too.
 */
static unsigned long long
folded_matching(const char *folded, const char *re)
{
	unsigned long long sum = 0;
	char *copy = strdup(folded), *save = NULL;
	regex_t rx;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	for (char *line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *space = strrchr(line, ' '), *frame, *fsave = NULL;
		unsigned long long n = strtoull(space + 1, NULL, 10);

		*space = '\0';
		for (frame = strtok_r(line, ";", &fsave); frame != NULL;
		    frame = strtok_r(NULL, ";", &fsave))
			if (regexec(&rx, frame, 0, NULL, 0) == 0) {
				sum += n;
				break;
			}
	}
	regfree(&rx);
	free(copy);
	return sum;
}

/*
 * Samples under the drawn boxes whose name re matches, each sample once
 * (a match under a match adds nothing), as the page's search box is
 * documented to count: boxes pruned under 0.1% of the samples are not
 * drawn, so not counted.
 */
static unsigned long long
flame_matching(const struct flame *fl, const char *re)
{
	unsigned char *match = calloc(fl->n, 1), *under = calloc(fl->n, 1);
	unsigned long long sum = 0;
	regex_t rx;

	assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
	for (size_t i = 1; i < fl->n; i++) {
		long p = fl->parent[i];

		under[i] = under[p] || match[p];
		match[i] = regexec(&rx, fl->name[fl->func[i]], 0, NULL, 0) == 0;
		if (match[i] && !under[i])
			sum += fl->count[i];
	}
	regfree(&rx);
	free(match);
	free(under);
	return sum;
}

/* Samples of the drawn boxes named name whose parent is named parent. */
static unsigned long long
boxes_under(const struct flame *fl, const char *parent, const char *name)
{
	unsigned long long sum = 0;

	for (size_t i = 1; i < fl->n; i++)
		if (strcmp(node_name(fl, (long)i), name) == 0 &&
		    strcmp(node_name(fl, fl->parent[i]), parent) == 0)
			sum += fl->count[i];
	return sum;
}

/*
 * The workload's split in Chromium: the root box has every sample, a
 * click on six zooms it to the full width, the root and Reset zoom out,
 * "six|three" highlights both and sums their share as the report does,
 * "split|six" counts the samples of six (above split) once, hovering six
 * gives its samples and 95% error.  Over 100 samples of six and 50 of
 * three: 266 of the three functions, with 4 standard errors to spare.
 */
static void
test_flame_graph_in_browser(void **state)
{
	static struct run out;
	const char *prf = tmp("flame-split.prf"), *page_path = tmp("flame.html");
	const char *const both[] = { "six", "three" }, *nested[] = { "split", "six" };
	double need = fmax(e2e_samples_for_count(100, 0.6, 4),
	    e2e_samples_for_count(50, 0.3, 4));
	char *prog[] = { workload, "split", E2E_CPU, NULL };
	char *folded[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    (char *)prf, NULL };
	unsigned long long matched, kernel_above, split, both_boxes;
	char expect[512], *page;
	struct flame fl;
	struct shares s;
	struct run r;
	double six, three, scale;
	struct profil_profile *p;
	char cause[256];

	(void)state;
	record_for(&s, &out, "auto", prf, prog, 1, need, e2e_split_samples);
	six = samples_of(&s, "six", NULL);
	three = samples_of(&s, "three", NULL);
	if (!(six > 100 && three > 50))
		fail_msg("six %.0f, three %.0f samples of %.0f (%.0f wanted)",
		    six, three, e2e_split_samples(&s), need);
	page = html_of(prf, page_path);
	flame_parse(&fl, page);
	flame_check_tree(&fl);
	assert_true((double)fl.total == s.total);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	scale = e2e_error_scale(p);
	profil_profile_free(p);
	/*
	 * Samples with six or three on the stack: their own (the flat view's
	 * self samples) and the kernel's while in them, which the kernel's
	 * frames stack above them.
	 */
	run(&r, folded);
	assert_int_equal(r.status, 0);
	matched = folded_with(r.out, both, 2, &kernel_above);
	assert_true((double)matched == six + three + (double)kernel_above);
	split = folded_with(r.out, nested, 2, NULL);
	assert_true((double)split > six);	/* less would mean six counted twice */
	/*
	 * The box's search is a pattern ("posix_..." holds "six"), over the
	 * boxes drawn: at most what the pattern finds in every stack.  So
	 * "six|three" also counts split() reading its CPU clock in the
	 * kernel's posix_cpu_clock_get (the workload does once a round:
	 * a sample in 319 at PROFIL_TEST_WORK_SCALE=0.3): at least the boxes
	 * of six and three above split.
	 */
	both_boxes = flame_matching(&fl, "six|three");
	assert_true(both_boxes <= folded_matching(r.out, "six|three"));
	assert_true(both_boxes >= boxes_under(&fl, "split", "six") +
	    boxes_under(&fl, "split", "three"));
	assert_true(matched <= folded_matching(r.out, "six|three"));
	split = flame_matching(&fl, "split|six");
	assert_true(split <= folded_matching(r.out, "split|six"));
	assert_true((double)split >= six);
	/*
	 * The boxes' errors are the tree's; a search's, the share's of the
	 * boxes it adds up: Wilson's, of the samples they are worth.
	 */
	assert_errors_as_the_tree(&fl, prf);
	snprintf(expect, sizeof expect, "{\"total\":%.0f,\"zoom\":\"six\","
	    "\"scale\":%.17g,"
	    "\"searches\":[{\"re\":\"six|three\",\"matched\":%llu,"
	    "\"error\":%.6f},{\"re\":\"split|six\",\"matched\":%llu}]}",
	    s.total, scale, both_boxes, e2e_wilson95((double)both_boxes,
	    s.total, scale), split);
	browser_check(page_path, tmp("flame.png"), expect);
	flame_free(&fl);
	free(page);
}

/*
 * A wall profile (record --wall of a 300 ms sleep): its flame graph is of
 * wall time, the sleep a box of its own under [off-cpu: ...], and
 * "on the CPU only" switches to the CPU samples.  The expected totals
 * come from the profile's own numbers: its samples, and its time off
 * the CPU in whole intervals.
 */
static void
test_flame_graph_of_a_wall_profile(void **state)
{
	const char *prf = tmp("flame-wall.prf");
	char script[PATH_MAX + 64];
	char *argv[] = { profil_bin, "record", "-q", "--wall", "-o", (char *)prf,
	    "sh", "-c", script, NULL };
	struct profil_profile *p;
	struct run r;
	char expect[512], cause[256], *page;
	uint64_t off = 0;
	unsigned long long sleep;
	struct flame fl;
	int perf = harness_perf_allowed();

	(void)state;
	/* some CPU time (any will do: the page is checked against the
	   profile's own counts), then the sleep */
	snprintf(script, sizeof script, "%s split 0.05 && sleep 0.3", workload);
	run(&r, argv);
	assert_int_equal(r.status, 0);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s", cause);
	for (size_t i = 0; i < p->nstacks; i++)
		off += p->stacks[i].off_ns;
	assert_true(off >= 300000000ull);	/* the sleep, at least */
	page = html_of(prf, tmp("flame-wall.html"));
	assert_non_null(strstr(page, "[off-cpu: clock_nanosleep]"));
	/*
	 * Its boxes' errors are the tree's; the sleep, timed by the
	 * switches (the perf engine), has none, in its box and searched.
	 */
	flame_parse(&fl, page);
	assert_errors_as_the_tree(&fl, prf);
	sleep = flame_matching(&fl, "\\[off-cpu: clock_nanosleep\\]");
	for (size_t i = 1; i < fl.n; i++)
		if (perf && strcmp(node_name(&fl, (long)i),
		    "[off-cpu: clock_nanosleep]") == 0 && fl.err[i] != 0)
			fail_msg("the sleep's box: +- %.4f", fl.err[i]);
	snprintf(expect, sizeof expect, "{\"total\":%llu,\"cpu\":%llu,"
	    "\"searches\":[{\"re\":\"\\\\[off-cpu: clock_nanosleep\\\\]\","
	    "\"matched\":%llu%s}]}",
	    (unsigned long long)(p->samples + off / p->interval_ns),
	    (unsigned long long)p->samples, sleep, perf ? ",\"error\":0" : "");
	flame_free(&fl);
	browser_check(tmp("flame-wall.html"), tmp("flame-wall.png"), expect);
	free(page);
	profil_profile_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flame_graph_in_browser),
		cmocka_unit_test(test_flame_graph_of_a_wall_profile),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
