/*
 * test-flame.c - the flame graph of `profil report --html` (flame.c),
 * end to end: the data on the page (a tree whose root is every sample,
 * boxes under 0.1% left out, names escaped: flame-checks.h), inlined
 * functions inlined into others as boxes of their own, and profiles
 * without stacks.  The page in a browser is test-flamebrowser.c's.
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
	char *prog[] = { cxx_workload, "burn", E2E_CPU, NULL };
	struct flame fl;
	struct shares s;
	char *page;
	long burn_with = -1;

	(void)state;
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
 * a stack of its own (its leaf alone, called by nothing; in the slice it
 * came in) adds a box of one sample at the root, which must not show:
 * under 0.1% of the run, and of its hundredth of it (the recording has a
 * timeline; test-htmltime keeps a box over 0.1% of a hundredth).
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
	record_ok(prf, prog);
	p = profil_profile_read(prf, cause, sizeof cause);
	assert_non_null(p);
	assert_true(p->nstacks > 0);
	/* a sample moves to a stack of its own below: when is not the point */
	free(p->timeline);
	p->timeline = NULL;
	p->ntimeline = 0;
	p->slice_ns = p->nslices = 0;
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
	/* and the slices to the stacks: the sample moved in its slice too */
	for (size_t k = 0; k < p->ntimeline; k++)
		if (p->timeline[k].stack == top) {
			p->timeline = realloc(p->timeline, (p->ntimeline + 1) *
			    sizeof *p->timeline);
			p->timeline[k].value--;
			p->timeline[p->ntimeline++] = (struct profil_timeline_entry){
			    (uint32_t)(p->nstacks - 1), p->timeline[k].slice, 1 };
			break;
		}
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flame_data_escaped),
		cmocka_unit_test(test_flame_graph_prunes_small_boxes),
		cmocka_unit_test(test_flame_graph_without_stacks),
		cmocka_unit_test(test_flame_graph_nested_inlines),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
