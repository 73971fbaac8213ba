/*
 * test-reportcode.c - the report of code that tells less of itself, end
 * to end on real recordings: --annotate without the source or without
 * debug information, --inline (code the compiler inlined given to the
 * function it came from), buckets wider than a function shared among
 * functions by their bytes, and a stripped program.  Runs that depend on
 * how many samples fell where are sized for it (e2e.h, record_for).
 */
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

/*
 * A program built here, then its source removed, or built without -g:
 * spin() for the CPU seconds asked, in rounds of 10 calls (about 10 ms:
 * tests/programs/workload.c says why), each call's work scaled by
 * PROFIL_TEST_WORK_SCALE.
 */
static void
build_tiny(const char *dir, const char *cflags)
{
	char cmd[PATH_MAX * 3];
	FILE *f;

	snprintf(cmd, sizeof cmd, "%s/tiny.c", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	fputs("#include <stdlib.h>\n"
	    "#include <time.h>\n"
	    "static volatile unsigned long s;\n"
	    "__attribute__((noinline)) static void spin(long n)\n"
	    "{\n"
	    "\tfor (long i = 0; i < n; i++)\n"
	    "\t\ts = s * 7 + (unsigned long)i;\n"
	    "}\n"
	    "static double cpu(void)\n"
	    "{\n"
	    "\tstruct timespec t;\n"
	    "\tclock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);\n"
	    "\treturn (double)t.tv_sec + (double)t.tv_nsec / 1e9;\n"
	    "}\n"
	    "int main(int c, char **v)\n"
	    "{\n"
	    "\tconst char *k = getenv(\"PROFIL_TEST_WORK_SCALE\");\n"
	    "\tdouble until = cpu() + (c > 1 ? atof(v[1]) : 0);\n"
	    "\tlong n = (long)(1000000 * (k != NULL ? atof(k) : 1)) + 1;\n"
	    "\tdo\n"
	    "\t\tfor (int i = 0; i < 10; i++)\n"
	    "\t\t\tspin(n);\n"
	    "\twhile (cpu() < until);\n"
	    "\treturn 0;\n"
	    "}\n",
	    f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "cd %s && cc -O1 %s -o tiny tiny.c", dir, cflags);
	assert_int_equal(system(cmd), 0);
}

static double
in_spin(const struct shares *s)
{
	return samples_of(s, "spin", NULL);
}

/*
 * What it needs of the samples: one in spin(), to annotate it, which has
 * all the program's time but start-up's (95% allowed).
 */
static void
test_annotate_without_source_or_debug_info(void **state)
{
	static struct run out;
	char dir[PATH_MAX], bin[PATH_MAX + 8], src[PATH_MAX + 8];
	const char *prf = tmp("tiny.prf"), *prf2 = tmp("tiny-nodebug.prf");
	char *prog[] = { bin, E2E_CPU, NULL };
	double need = E2E_STARTUP + e2e_samples_for_count(1, 0.95, 4);
	char *line, *next;
	struct shares s;
	struct run r;
	double sum = 0;

	(void)state;
	snprintf(dir, sizeof dir, "%s", tmp("tiny"));
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(bin, sizeof bin, "%s/tiny", dir);
	snprintf(src, sizeof src, "%s/tiny.c", dir);
	build_tiny(dir, "-g");
	record_for(&s, &out, "auto", prf, prog, 1, need, NULL);
	if (in_spin(&s) == 0)
		fail_msg("no sample in spin, of %.0f", s.total);
	assert_int_equal(unlink(src), 0);
	char *gone[] = { profil_bin, "report", "--annotate", "spin", (char *)prf, NULL };
	run(&r, gone);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "is not here; lines by number"));
	assert_non_null(strstr(r.out, "tiny.c"));

	build_tiny(dir, "-g0");
	record_for(&s, &out, "auto", prf2, prog, 1, need, NULL);
	if (in_spin(&s) == 0)
		fail_msg("no sample in spin, of %.0f", s.total);
	char *addr[] = { profil_bin, "report", "--annotate", "spin", "--format",
	    "csv", (char *)prf2, NULL };
	run(&r, addr);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "address,samples,percent,error95,"
	    "instruction\n", 44) == 0);
	for (line = strchr(r.out, '\n') + 1; *line; line = next + 1) {
		next = strchr(line, '\n');
		sum += atof(strchr(line, ',') + 1);
	}
	assert_int_equal(sum, flat_samples(prf2, "spin"));
	/* without a line table: the instructions, disassembled */
	char *addr_text[] = { profil_bin, "report", "--annotate", "spin",
	    (char *)prf2, NULL };
	run(&r, addr_text);
	assert_non_null(strstr(r.out, "no line table for spin"));
	assert_non_null(strstr(r.out, "samples per instruction"));
	assert_non_null(strstr(r.out, "ret"));

	char *none[] = { profil_bin, "report", "--annotate", "nosuch", (char *)prf2,
	    NULL };
	run(&r, none);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "no function named 'nosuch'"));
}

/*
 * --inline: the time of code the compiler inlined goes to the function it
 * came from (workload's inlined(), forced inline into outer()), the rest
 * as before, the total unchanged; in the call views it is a frame of its
 * own; the views of addresses refuse it.
 */
static void
test_inline_view(void **state)
{
	static struct run out;
	const char *prf = tmp("inl.prf");
	char *prog[] = { workload, "inlined", E2E_CPU, NULL };
	/*
	 * outer() at least 80% of the samples, at 95% of the program's time
	 * (the kernel the rest); inlined() 80% of outer's, all of it really
	 */
	double need = e2e_samples_for_share_above(0.95, 0.8);
	char *flat[] = { profil_bin, "report", "--format", "csv", (char *)prf, NULL };
	char *inl[] = { profil_bin, "report", "--inline", "--format", "csv",
	    (char *)prf, NULL };
	char *objects[] = { profil_bin, "report", "--inline", "--objects",
	    (char *)prf, NULL };
	char *callers[] = { profil_bin, "report", "--inline", "--callers",
	    "inlined", "--format", "csv", (char *)prf, NULL };
	char *plain[] = { profil_bin, "report", "--callers", "inlined",
	    (char *)prf, NULL };
	struct shares by_symbol, by_inline;
	double outer;
	struct run r;

	(void)state;
	record_for(&by_symbol, &out, "auto", prf, prog, 1, need, NULL);
	report_run(&by_symbol, flat);
	report_run(&by_inline, inl);
	outer = samples_of(&by_symbol, "outer", NULL);
	if (outer < 0.8 * by_symbol.total)
		fail_msg("outer has %.0f of %.0f samples (%.0f wanted)", outer,
		    by_symbol.total, need);
	assert_true(samples_of(&by_symbol, "inlined", NULL) == 0);
	if (samples_of(&by_inline, "inlined", NULL) < 0.8 * outer)
		fail_msg("--inline: inlined has %.0f, outer had %.0f\n%s",
		    samples_of(&by_inline, "inlined", NULL), outer, by_inline.csv);
	/*
	 * outer's samples are inlined()'s and its own, and thread_cpu()'s:
	 * FOR_CPU's clock, static, inlined into outer() too (a sample there
	 * is rare: one in a loaded CI run)
	 */
	assert_true(samples_of(&by_inline, "inlined", NULL) +
	    samples_of(&by_inline, "outer", NULL) +
	    samples_of(&by_inline, "thread_cpu", NULL) == outer);
	assert_true(by_inline.total == by_symbol.total);
	run(&r, objects);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "--inline"));
	/* the call views: inlined() a frame of its own, called by outer() */
	report_run(&by_inline, callers);
	if (samples_of(&by_inline, "outer", NULL) < 0.8 * outer)
		fail_msg("--inline --callers inlined:\n%s", by_inline.csv);
	run(&r, plain);
	assert_int_equal(r.status, 1);	/* no such frame without it */
}

/* A function of the workload from `nm -nS`: [start, end). */
struct nm_func {
	char name[128];
	unsigned long long start, end;
};

/*
 * The workload's functions as `nm -nS` lists them, a symbol without a size
 * reaching to the next one (an independent reading of the symbol table).
 */
static size_t
nm_functions(struct nm_func *v, size_t max)
{
	char cmd[PATH_MAX + 32], line[512];
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof cmd, "nm -nS %s", workload);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL && n < max) {
		unsigned long long a, size;
		char type, name[128];

		if (sscanf(line, "%llx %llx %c %127s", &a, &size, &type, name) == 4)
			;
		else if (sscanf(line, "%llx %c %127s", &a, &type, name) == 3)
			size = 0;
		else
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (n > 0 && v[n - 1].end == v[n - 1].start)
			v[n - 1].end = a;	/* no size: up to this one */
		snprintf(v[n].name, sizeof v[n].name, "%s", name);
		v[n].start = a;
		v[n].end = a + size;
		n++;
	}
	pclose(f);
	return n;
}

/*
 * -b wider than a byte: a bucket that straddles functions is shared
 * between them by their bytes in it (gprof's rule), not given whole to
 * the function at its start; where the profile has stacks, their leaves
 * keep every sample's address, and the functions are exact.  The same samples at 1 and 256 bytes: each
 * function's samples must be what the rule gives, to the rounding of one
 * sample per bucket (b() took c()'s 45% whole before).  Six, three and
 * one are small functions side by side: the wide buckets of their loops
 * hold other code too, and one (10%) needs 312 samples of the three for
 * 10 there, with 4 standard errors to spare.
 */
static void
test_wide_buckets_shared_by_bytes(void **state)
{
	enum { WIDTH = 256, MAXF = 256 };
	static struct run out;
	const char *fine = tmp("fine.prf"), *wide = tmp("wide.prf");
	const char *exact = tmp("wide-stacks.prf");
	char *prog[] = { workload, "split", E2E_CPU, NULL };
	double need = e2e_samples_for_count(10, 0.1, 4);
	static struct nm_func fn[MAXF];
	static double want[MAXF];
	char cause[256];
	struct profil_profile *p;
	struct profil_object *exe = NULL;
	size_t nf = nm_functions(fn, MAXF), straddled = 0, busy = 0;
	struct shares s, f;
	struct run r;
	char *rep[] = { profil_bin, "report", (char *)wide, NULL };

	(void)state;
	record_for(&s, &out, "auto", fine, prog, 1, need, e2e_split_samples);
	p = profil_profile_read(fine, cause, sizeof cause);
	assert_non_null(p);
	for (size_t i = 0; i < p->nobjects; i++)
		if (strstr(p->objects[i].path, "/workload") != NULL)
			exe = &p->objects[i];
	assert_non_null(exe);
	/* the expected shares, from the exact buckets */
	for (size_t b = 0; b < exe->nbuckets; b++) {
		unsigned long long lo = exe->buckets[b].addr / WIDTH * WIDTH;
		unsigned long long hi = lo + WIDTH, bytes = 0;
		double count = 0;
		int in = 0;

		if (b > 0 && exe->buckets[b - 1].addr / WIDTH * WIDTH == lo)
			continue;	/* this wide bucket is done */
		for (size_t k = b; k < exe->nbuckets &&
		    exe->buckets[k].addr < hi; k++)
			count += (double)exe->buckets[k].count;
		for (size_t i = 0; i < nf; i++)
			if (fn[i].start < hi && fn[i].end > lo) {
				bytes += (fn[i].end < hi ? fn[i].end : hi) -
				    (fn[i].start > lo ? fn[i].start : lo);
				in++;
			}
		for (size_t i = 0; i < nf && bytes > 0; i++)
			if (fn[i].start < hi && fn[i].end > lo)
				want[i] += count * (double)((fn[i].end < hi ?
				    fn[i].end : hi) - (fn[i].start > lo ?
				    fn[i].start : lo)) / (double)bytes;
		straddled += in > 1;	/* each may round a function by one */
		busy += in > 1 && count >= 10;
	}
	if (busy == 0)	/* else this test shows nothing */
		fail_msg("no bucket of %d bytes shared by functions has 10 "
		    "samples, of %.0f in the split", WIDTH, e2e_split_samples(&s));
	/* the same samples in wide buckets */
	size_t n = 0;
	for (size_t b = 0; b < exe->nbuckets; b++) {
		uint64_t addr = exe->buckets[b].addr / WIDTH * WIDTH;

		if (n > 0 && exe->buckets[n - 1].addr == addr) {
			exe->buckets[n - 1].count += exe->buckets[b].count;
		} else {
			exe->buckets[n].addr = addr;
			exe->buckets[n++].count = exe->buckets[b].count;
		}
	}
	exe->nbuckets = n;
	exe->bucket_bytes = WIDTH;
	exe->lowpc = exe->lowpc / WIDTH * WIDTH;
	exe->highpc = (exe->highpc + WIDTH - 1) / WIDTH * WIDTH;
	/* with its stacks, every sample's address is still known: exact */
	assert_true(p->nstacks > 0);
	assert_int_equal(profil_profile_save(p, exact, cause, sizeof cause), 0);
	report(&s, exact);
	report(&f, fine);
	for (size_t i = 0; i < nf; i++)
		if (samples_of(&s, fn[i].name, "workload") !=
		    samples_of(&f, fn[i].name, "workload"))
			fail_msg("%s: %.0f samples in wide buckets with stacks, %.0f "
			    "in 1-byte ones", fn[i].name, samples_of(&s, fn[i].name,
			    "workload"), samples_of(&f, fn[i].name, "workload"));
	/* without stacks: the rule */
	for (size_t i = 0; i < p->nstacks; i++)
		free(p->stacks[i].frames);
	free(p->stacks);
	free(p->frames);
	p->stacks = NULL;
	p->frames = NULL;
	p->nstacks = p->nframes = 0;
	assert_int_equal(profil_profile_save(p, wide, cause, sizeof cause), 0);
	profil_profile_free(p);

	report(&s, wide);
	for (size_t i = 0; i < nf; i++) {
		double got = samples_of(&s, fn[i].name, "workload");

		if (fabs(got - want[i]) > (double)straddled + 1)
			fail_msg("%s: %.0f samples, the rule gives %.1f\n%s",
			    fn[i].name, got, want[i], s.csv);
	}
	/* and the caption says how the wide buckets were shared */
	run(&r, rep);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "buckets of 256 bytes"));
}

/*
 * The three busiest rows of object wl in s, in name and top (their
 * samples; 0 for any missing); how many there were.
 */
static int
top_of_wl(const struct shares *s, char name[3][256], double top[3])
{
	char *csv = strdup(strchr(s->csv, '\n') + 1), *save, *row;
	int k = 0;

	assert_non_null(csv);
	top[0] = top[1] = top[2] = 0;
	for (row = strtok_r(csv, "\n", &save); row != NULL && k < 3;
	    row = strtok_r(NULL, "\n", &save)) {
		char fn[256], obj[256];
		double c;

		if (sscanf(row, "%255[^,],%255[^,],%lf", fn, obj, &c) == 3 &&
		    strcmp(obj, "wl") == 0) {
			if (strncmp(fn, "wl+0x", 5) != 0)
				fail_msg("row %s of the stripped program", fn);
			snprintf(name[k], sizeof name[k], "%s", fn);
			top[k++] = c;
		}
	}
	free(csv);
	return k;
}

static double
in_wl_top(const struct shares *s)
{
	char name[3][256];
	double top[3];

	top_of_wl(s, name, top);
	return top[0] + top[1] + top[2];
}

/*
 * A stripped program: its functions are found from .eh_frame and named
 * OBJECT+0xSTART (one row each, with the known split: 6:3:1 within 4
 * standard errors, at most 4 points), annotate shows their
 * instructions, and gmon export says gprof cannot name them.
 */
static void
test_stripped_program(void **state)
{
	static struct run out;
	char cmd[3 * PATH_MAX], *save, *row;
	const char *bin = tmp("wl"), *prf = tmp("wl.prf");
	char *prog[] = { (char *)bin, "split", E2E_CPU, NULL };
	double top[3] = { 0, 0, 0 }, n;
	double need = e2e_samples_for_share(0.6, 4, 0.04);
	char name[3][256] = { "", "", "" };
	struct shares s;
	struct run r;

	(void)state;
	snprintf(cmd, sizeof cmd, "cp %s %s && strip %s", workload, bin, bin);
	assert_int_equal(system(cmd), 0);
	record_for(&s, &out, "auto", prf, prog, 1, need, in_wl_top);
	assert_true(samples_of(&s, "[wl]", NULL) == 0);
	/* the three busiest rows of wl are its six, three and one */
	assert_int_equal(top_of_wl(&s, name, top), 3);
	n = top[0] + top[1] + top[2];
	for (int i = 0; i < 3; i++) {
		const double want[3] = { 0.6, 0.3, 0.1 };
		double margin = harness_margin(want[i], n, 4, 0.01);

		if (margin > 0.04)
			fail_msg("too few samples (%.0f, %.0f wanted) for a "
			    "4-point check", n, need);
		if (fabs(top[i] / n - want[i]) > margin)
			fail_msg("%s: %.0f of %.0f (want %.0f%% +- %.2f)",
			    name[i], top[i], n, 100 * want[i], 100 * margin);
	}
	/* annotate: per instruction, adding up to the function */
	char *ann[] = { profil_bin, "report", "--annotate", name[0], "--format",
	    "csv", (char *)prf, NULL };
	double sum = 0;
	run(&r, ann);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "imul"));	/* the loop's multiply */
	for (row = strtok_r(strchr(r.out, '\n') + 1, "\n", &save); row != NULL;
	    row = strtok_r(NULL, "\n", &save))
		sum += atof(strchr(row, ',') + 1);
	assert_true(sum == top[0]);
	/* gmon: gprof reads .symtab only */
	char *gmon[] = { profil_bin, "export", "--format", "gmon", "-o", tmpdir,
	    (char *)prf, NULL };
	run(&r, gmon);
	assert_int_equal(r.status, 0);
	if (strstr(r.err, "wl has no symbol table") == NULL)
		fail_msg("no word on the stripped object: %s", r.err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_annotate_without_source_or_debug_info),
		cmocka_unit_test(test_inline_view),
		cmocka_unit_test(test_wide_buckets_shared_by_bytes),
		cmocka_unit_test(test_stripped_program),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
