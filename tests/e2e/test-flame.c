/*
 * test-flame.c - the flame graph of `profil report --html` (flame.c),
 * end to end: the data on the page (a tree whose root is every sample,
 * boxes under 0.1% left out, names escaped), inlined functions inlined
 * into others as boxes of their own, profiles without stacks, and the
 * page in headless Chromium (tests/browser/check-html.js: zoom,
 * reset, search, hover) with numbers taken from `profil report --format
 * csv` and the folded export.
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

static char cxx[PATH_MAX];

/* The page's flame graph data (flame.c's JSON), decoded. */
struct flame {
	unsigned long long total;
	size_t nfuncs, n;
	char **name, **object;
	int *flags;
	long *parent, *func;
	unsigned long long *count;
	double *err;		/* each box's 95% error, in points */
};

/* A whole file, NUL-terminated; malloc'd. */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	long size;
	char *s;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	s = malloc((size_t)size + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)size, f), (size_t)size);
	s[size] = '\0';
	fclose(f);
	return s;
}

/* `profil report --html PAGE prf`, which must succeed; the page's text. */
static char *
html_of_with(const char *prf, const char *page, const char *option)
{
	char *argv[] = { profil_bin, "report", "--html", (char *)page, (char *)prf,
	    (char *)option, NULL };
	struct run r;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report --html exited %d: %s", r.status, r.err);
	return slurp(page);
}

static char *
html_of(const char *prf, const char *page)
{
	return html_of_with(prf, page, NULL);
}

/* A JSON string at *s (escapes \" \\ \/ \uXXXX below 0x80), malloc'd. */
static char *
json_string(const char **s)
{
	const char *p = *s;
	char *out = malloc(strlen(p) + 1), *o = out;

	assert_true(*p == '"');
	for (p++; *p != '"'; p++) {
		assert_true(*p != '\0' && (unsigned char)*p >= 0x20);
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		p++;
		if (*p == 'u') {
			unsigned v;

			assert_int_equal(sscanf(p + 1, "%4x", &v), 1);
			assert_true(v > 0 && v < 0x80);
			*o++ = (char)v;
			p += 4;
		} else {
			assert_non_null(strchr("\"\\/", *p));
			*o++ = *p;
		}
	}
	*o = '\0';
	*s = p + 1;
	return out;
}

/* The numbers of "key":[a,b,...] in data, into a malloc'd array. */
static size_t
json_numbers(const char *data, const char *key, long long **out)
{
	const char *p = strstr(data, key);
	size_t n = 0, cap = 64;
	long long *v = malloc(cap * sizeof *v);

	assert_non_null(p);
	p += strlen(key);
	while (*p != ']') {
		char *end;

		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof *v);
		v[n++] = strtoll(p, &end, 10);
		assert_true(end != p);
		p = *end == ',' ? end + 1 : end;
	}
	*out = v;
	return n;
}

static void
flame_parse(struct flame *fl, const char *page)
{
	const char *data = strstr(page, "<script type=\"application/json\" "
	    "id=\"flame-data\">"), *p;
	long long *v;
	size_t cap = 64;

	memset(fl, 0, sizeof *fl);
	assert_non_null(data);
	assert_int_equal(sscanf(strstr(data, "\"total\":"), "\"total\":%llu",
	    &fl->total), 1);
	fl->name = malloc(cap * sizeof *fl->name);
	fl->object = malloc(cap * sizeof *fl->object);
	fl->flags = malloc(cap * sizeof *fl->flags);
	p = strstr(data, "\"funcs\":[") + 9;
	while (*p != ']') {
		while (*p == '\n' || *p == ',')
			p++;
		assert_true(*p == '[');
		p++;
		if (fl->nfuncs == cap) {
			cap *= 2;
			fl->name = realloc(fl->name, cap * sizeof *fl->name);
			fl->object = realloc(fl->object, cap * sizeof *fl->object);
			fl->flags = realloc(fl->flags, cap * sizeof *fl->flags);
		}
		fl->name[fl->nfuncs] = json_string(&p);
		assert_true(*p++ == ',');
		fl->object[fl->nfuncs] = json_string(&p);
		assert_true(*p++ == ',');
		fl->flags[fl->nfuncs++] = (int)strtol(p, (char **)&p, 10);
		assert_true(*p++ == ']');
	}
	fl->n = json_numbers(data, "\"parent\":[", (long long **)&fl->parent);
	assert_int_equal(json_numbers(data, "\"func\":[", (long long **)&fl->func),
	    fl->n);
	assert_int_equal(json_numbers(data, "\"count\":[", &v), fl->n);
	fl->count = (unsigned long long *)v;
	fl->err = calloc(fl->n, sizeof *fl->err);
	p = strstr(data, "\"err\":[");
	assert_non_null(p);
	p += 7;
	for (size_t i = 0; i < fl->n; i++) {
		char *end;

		fl->err[i] = strtod(p, &end);
		assert_true(end != p);
		p = *end == ',' ? end + 1 : end;
	}
	assert_true(*p == ']');
}

static void
flame_free(struct flame *fl)
{
	for (size_t i = 0; i < fl->nfuncs; i++) {
		free(fl->name[i]);
		free(fl->object[i]);
	}
	free(fl->name);
	free(fl->object);
	free(fl->flags);
	free(fl->parent);
	free(fl->func);
	free(fl->count);
	free(fl->err);
}

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

static const char *
node_name(const struct flame *fl, long i)
{
	return fl->func[i] < 0 ? "(root)" : fl->name[fl->func[i]];
}

/*
 * What the script relies on: the root first (every sample), a parent
 * before its children (preorder: a subtree is one run of nodes), children
 * heaviest first and within their parent's count, nothing under 0.1%.
 */
static void
flame_check_tree(const struct flame *fl)
{
	unsigned long long *children = calloc(fl->n, sizeof *children);
	long *last = calloc(fl->n, sizeof *last);

	assert_true(fl->n >= 2);
	assert_int_equal(fl->parent[0], -1);
	assert_int_equal(fl->func[0], -1);
	assert_int_equal(fl->count[0], fl->total);
	for (size_t i = 1; i < fl->n; i++) {
		long p = fl->parent[i];

		assert_true(p >= 0 && (size_t)p < i);
		assert_true(fl->func[i] >= 0 && (size_t)fl->func[i] < fl->nfuncs);
		assert_true(fl->count[i] > 0 && fl->count[i] * 1000 >= fl->total);
		/* a new child of p comes after p's earlier children's subtrees,
		   and no heavier than them */
		if (last[p] != 0)
			assert_true(fl->count[last[p]] >= fl->count[i]);
		for (long a = (long)i - 1; a != p; a = fl->parent[a])
			assert_true(a > p);	/* i - 1 is in p's subtree */
		last[p] = (long)i;
		children[p] += fl->count[i];
	}
	for (size_t i = 0; i < fl->n; i++)
		if (children[i] > fl->count[i])
			fail_msg("box %zu (%s): its children have %llu samples, it "
			    "has %llu", i, node_name(fl, (long)i), children[i],
			    fl->count[i]);
	free(children);
	free(last);
}

/* 1 if the browser check can run; skips (or fails, when required) if not. */
static int
browser_ready(void)
{
	if (access("tests/browser/check-html.sh", X_OK) == 0 &&
	    system("command -v chromium >/dev/null && command -v node "
	    ">/dev/null") == 0)
		return 1;
	if (getenv("PROFIL_REQUIRE_BROWSER") != NULL)
		fail_msg("PROFIL_REQUIRE_BROWSER is set but chromium, node or "
		    "tests/browser/check-html.sh is missing");
	SKIP("chromium or node not installed (PROFIL_REQUIRE_BROWSER=1 "
	    "makes it a failure)");
	return 0;
}

/* check-html.sh PAGE SHOT EXPECT (JSON), which must print "ok". */
static void
browser_check(const char *page, const char *shot, const char *expect)
{
	/* make check runs from the top of the source tree */
	char *check[] = { "tests/browser/check-html.sh", (char *)page,
	    (char *)shot, (char *)expect, NULL };
	struct run r;

	if (!browser_ready())
		return;
	run(&r, check);
	if (r.status != 0 || strstr(r.out, "ok") == NULL)
		fail_msg("browser check failed (%d): %s%s", r.status, r.out, r.err);
}

static void
need_stacks(void)
{
	if (!harness_perf_allowed())
		SKIP("perf events refused here, and the timer engine takes no stacks");
}

/*
 * C++ names reach the data JSON-escaped with < > & as \u escapes (so
 * nothing in a name can end the script element or read as markup), and
 * decode to the names the flat view shows.  burn_with's box needs a
 * sample, where it is on half of the program's stacks.
 */
static void
test_flame_data_escaped(void **state)
{
	static struct run r;
	const char *prf = tmp("flame-cxx.prf");
	const char *want = "double geo::burn_with<double>(geo::Burner<double> "
	    "const&, long)";
	char *prog[] = { cxx, "burn", E2E_CPU, NULL };
	struct flame fl;
	struct shares s;
	char *page;
	long burn_with = -1;

	(void)state;
	need_stacks();
	record_for(&s, &r, "auto", prf, prog, 1,
	    E2E_STARTUP + e2e_samples_for_count(1, 0.5, 4), NULL);
	page = html_of(prf, tmp("flame-cxx.html"));
	flame_parse(&fl, page);
	flame_check_tree(&fl);
	assert_true((double)fl.total == s.total);
	for (size_t i = 0; i < fl.nfuncs; i++)
		if (strcmp(fl.name[i], want) == 0)
			burn_with = (long)i;
	if (burn_with < 0)
		fail_msg("no box for %s, of %.0f samples", want, s.total);
	assert_string_equal(fl.object[burn_with], "cxx-workload");
	assert_non_null(strstr(page, "\"double geo::burn_with\\u003cdouble\\u003e("
	    "geo::Burner\\u003cdouble\\u003e const\\u0026, long)\""));
	/* nowhere on the page raw: not in the data, not in the tables */
	assert_null(strstr(page, "<double>"));
	assert_null(strstr(page, "const&"));
	assert_non_null(strstr(page, "geo::Burner&lt;double&gt;::burn(long) const"));
	/* no name ended the data's script element early */
	assert_int_equal(strncmp(strchr(strchr(strstr(page, "id=\"flame-data\""),
	    '>'), '<'), "</script>", 9), 0);
	flame_free(&fl);
	free(page);
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
	need_stacks();
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
	    "\"searches\":[{\"re\":\"six|three\",\"matched\":%llu,"
	    "\"error\":%.6f},{\"re\":\"split|six\",\"matched\":%llu}]}",
	    s.total, both_boxes, e2e_wilson95((double)both_boxes, s.total,
	    scale), split);
	browser_check(page_path, tmp("flame.png"), expect);
	flame_free(&fl);
	free(page);
}

/* Boxes the root has, and the number the page says it left out. */
static size_t
root_boxes(const struct flame *fl)
{
	size_t n = 0;

	for (size_t i = 1; i < fl->n; i++)
		n += fl->parent[i] == 0;
	return n;
}

static size_t
left_out(const char *page)
{
	const char *note = strstr(page, "are left out: ");
	size_t n;

	if (note == NULL)
		return 0;
	assert_int_equal(sscanf(note, "are left out: %zu of ", &n), 1);
	return n;
}

/*
 * A box under 0.1% of the samples is left out, and the page says so: in
 * a profile 1000 times as long, one sample of the busiest stack moved to
 * a stack of its own (its leaf alone, called by nothing) adds a box of
 * one sample at the root, which must not show.
 */
static void
test_flame_graph_prunes_small_boxes(void **state)
{
	const char *prf = tmp("flame-prune.prf"), *scaled = tmp("flame-x.prf");
	const char *moved = tmp("flame-moved.prf");
	char *prog[] = { workload, "split", "0.22", NULL };
	struct profil_stack *alone;
	struct profil_profile *p;
	struct flame before, after;
	char cause[256], *page_before, *page_after;
	size_t top = 0;

	(void)state;
	need_stacks();
	record_ok(prf, prog);
	p = profil_profile_read(prf, cause, sizeof cause);
	assert_non_null(p);
	assert_true(p->nstacks > 0);
	scale_profile(p, 1000);
	assert_int_equal(profil_profile_save(p, scaled, cause, sizeof cause), 0);
	for (size_t i = 1; i < p->nstacks; i++)
		if (p->stacks[i].count > p->stacks[top].count)
			top = i;
	assert_true(p->stacks[top].depth >= 2);
	p->stacks = realloc(p->stacks, (p->nstacks + 1) * sizeof *p->stacks);
	alone = &p->stacks[p->nstacks++];
	*alone = p->stacks[top];
	alone->depth = 1;
	alone->count = 1;
	alone->frames = malloc(sizeof *alone->frames);
	alone->frames[0] = p->stacks[top].frames[0];
	p->stacks[top].count--;	/* the leaves still add up to the flat profile */
	assert_int_equal(profil_profile_save(p, moved, cause, sizeof cause), 0);

	page_before = html_of(scaled, tmp("flame-x.html"));
	page_after = html_of(moved, tmp("flame-moved.html"));
	flame_parse(&before, page_before);
	flame_parse(&after, page_after);
	flame_check_tree(&after);	/* nothing under 0.1% */
	assert_true(after.total == p->samples);
	assert_int_equal(root_boxes(&after), root_boxes(&before));
	assert_int_equal(left_out(page_after), left_out(page_before) + 1);
	assert_non_null(strstr(page_after, "Boxes under 0.1% of the samples"));
	flame_free(&before);
	flame_free(&after);
	free(page_before);
	free(page_after);
	profil_profile_free(p);
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
	need_stacks();
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

/* Recorded without stacks: the section says what it needs. */
static void
test_flame_graph_without_stacks(void **state)
{
	const char *prf = tmp("flame-flat.prf");
	char *argv[] = { profil_bin, "record", "-q", "--no-call-graph", "-o",
	    (char *)prf, workload, "split", "0.055", NULL };
	struct run r;
	char *page;

	(void)state;
	run(&r, argv);
	assert_int_equal(r.status, 0);
	page = html_of(prf, tmp("flame-flat.html"));
	assert_non_null(strstr(page, "id=\"flame-none\""));
	assert_non_null(strstr(page, "needs call stacks"));
	assert_non_null(strstr(page, "without --no-call-graph"));
	assert_null(strstr(page, "flame-data"));
	assert_non_null(strstr(page, "id=\"flat\""));	/* the rest is there */
	free(page);
}

/*
 * With --inline, functions inlined into functions inlined: each is a box,
 * on the one its code was inlined into (nest_outer > nest_middle >
 * nest_inner), not only the innermost.  Without it, their time is
 * nest_outer's, the symbol it is in.  The program runs for the CPU
 * seconds asked, in rounds of 10 calls (tests/programs/workload.c says why),
 * for nest_inner (95% of its time) to have over half the samples.
 */
static void
test_flame_graph_nested_inlines(void **state)
{
	static struct run r;
	const char *dir = tmp("nest"), *prf = tmp("nest.prf");
	char src[PATH_MAX + 8], bin[PATH_MAX + 8], cmd[3 * PATH_MAX];
	char *prog[] = { bin, E2E_CPU, NULL };
	struct flame fl;
	struct shares s;
	char *page;
	FILE *f;
	int found = 0;

	(void)state;
	need_stacks();
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(src, sizeof src, "%s/nest.c", dir);
	snprintf(bin, sizeof bin, "%s/nest", dir);
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("#include <stdlib.h>\n"
	    "#include <time.h>\n"
	    "static volatile unsigned long s;\n"
	    "static unsigned long n = 1000000;\n"
	    "static inline __attribute__((always_inline)) void nest_inner(void)\n"
	    "{ for (unsigned long i = 0; i < n; i++) s = s * 7 + i; }\n"
	    "static inline __attribute__((always_inline)) void nest_middle(void)\n"
	    "{ nest_inner(); s++; }\n"
	    "__attribute__((noinline)) static void nest_outer(long k)\n"
	    "{ for (long i = 0; i < k; i++) nest_middle(); }\n"
	    "static double cpu(void)\n"
	    "{ struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);\n"
	    "  return (double)t.tv_sec + (double)t.tv_nsec / 1e9; }\n"
	    "int main(int c, char **v)\n"
	    "{ const char *k = getenv(\"PROFIL_TEST_WORK_SCALE\");\n"
	    "  double until = cpu() + (c > 1 ? atof(v[1]) : 0);\n"
	    "  if (k != NULL) n = (unsigned long)((double)n * atof(k)) + 1;\n"
	    "  do nest_outer(10); while (cpu() < until);\n"
	    "  return 0; }\n", f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "cd %s && cc -O2 -g -o nest nest.c", dir);
	assert_int_equal(system(cmd), 0);
	record_for(&s, &r, "auto", prf, prog, 1,
	    e2e_samples_for_share_above(0.95, 0.5), NULL);
	page = html_of(prf, tmp("nest.html"));
	flame_parse(&fl, page);
	flame_check_tree(&fl);
	for (size_t i = 1; i < fl.n; i++)
		if (strncmp(node_name(&fl, (long)i), "nest_inner", 10) == 0 ||
		    strncmp(node_name(&fl, (long)i), "nest_middle", 11) == 0)
			fail_msg("without --inline, a box %s", node_name(&fl, (long)i));
	flame_free(&fl);
	free(page);
	page = html_of_with(prf, tmp("nest.html"), "--inline");
	flame_parse(&fl, page);
	flame_check_tree(&fl);
	for (size_t i = 1; i < fl.n; i++) {
		long m = fl.parent[i], o = m > 0 ? fl.parent[m] : -1;

		if (strcmp(node_name(&fl, (long)i), "nest_inner") == 0 && o > 0 &&
		    strcmp(node_name(&fl, m), "nest_middle") == 0 &&
		    strncmp(node_name(&fl, o), "nest_outer", 10) == 0 &&
		    fl.count[i] * 2 > fl.total)
			found = 1;
	}
	if (!found)
		fail_msg("no nest_outer > nest_middle > nest_inner with most "
		    "of the %.0f samples", s.total);
	flame_free(&fl);
	free(page);
}

static int
setup(void **state)
{
	int rc = e2e_setup(state);

	snprintf(cxx, sizeof cxx, "%s/cxx-workload", bindir);
	return rc;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flame_data_escaped),
		cmocka_unit_test(test_flame_graph_in_browser),
		cmocka_unit_test(test_flame_graph_prunes_small_boxes),
		cmocka_unit_test(test_flame_graph_without_stacks),
		cmocka_unit_test(test_flame_graph_of_a_wall_profile),
		cmocka_unit_test(test_flame_graph_nested_inlines),
	};
	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
