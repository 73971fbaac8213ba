/*
 * test-pprof.c - `profil export --format pprof` end to end: a recorded
 * workload exported, then read back by an independent decoder (the
 * pprof-format npm package, via tests/js/pprof-decode.js: export-checks.h)
 * and compared with the .prf file itself (read with the library), with
 * our flat report and, for call stacks, with the folded stacks export;
 * inlined frames, values past 32 bits, wide buckets, what cannot be
 * exported refused in one line; and the profile's start and duration
 * as Go's own pprof reads them.  The decoder is installed into the build
 * directory on first use.
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
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"
#include <profil.h>

#include "export-checks.h"

/* The GNU build-id of an ELF file as readelf prints it (lowercase hex). */
static void
readelf_build_id(const char *path, char *id, size_t size)
{
	char cmd[PATH_MAX + 64], line[512], *p;
	FILE *f;

	snprintf(cmd, sizeof cmd, "readelf -n %s", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	id[0] = '\0';
	while (fgets(line, sizeof line, f) != NULL)
		if ((p = strstr(line, "Build ID: ")) != NULL) {
			p += strlen("Build ID: ");
			p[strcspn(p, " \n")] = '\0';
			snprintf(id, size, "%s", p);
		}
	pclose(f);
	if (id[0] == '\0')
		fail_msg("readelf shows no build-id for %s", path);
}

/* The line of tests/programs/workload.c that defines function name. */
static long
source_line_of(const char *name)
{
	char pattern[64];

	snprintf(pattern, sizeof pattern, " void %s(void)", name);
	return workload_line(pattern, 0);
}

/* Files of the scratch directory named like export's temporary files. */
static int
temporary_files(void)
{
	DIR *dir = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(dir);
	return n;
}

/* Copy file src to dst with the bits of the byte at offset inverted. */
static void
copy_flipping(const char *src, const char *dst, long offset)
{
	static char data[1 << 20];
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	size_t n;

	assert_true(in != NULL && out != NULL);
	n = fread(data, 1, sizeof data, in);
	assert_true(n > (size_t)offset && n < sizeof data);
	data[offset] = (char)~data[offset];
	assert_int_equal(fwrite(data, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

static void
record_stacks_or_not(const char *prf, char **prog, int stacks)
{
	record_stacks_or_not_at(prf, prog, stacks, NULL);
}

/*
 * The runs are sized by the samples their checks need (e2e.h): the same
 * record, its E2E_CPU argument the CPU seconds for need samples as count
 * counts them (NULL: all), run again longer while short (e2e_longer,
 * three runs at most); the flat profile in s, the seconds given in
 * cpu_arg (32 bytes).
 */
static void
record_for_samples(struct shares *s, char *cpu_arg, const char *prf,
    char **prog, int stacks, double need,
    double (*count)(const struct shares *))
{
	double cpu = atof(e2e_cpu_for(need, 1)), got;
	int runs = 0;

	for (;;) {
		snprintf(cpu_arg, 32, "%.3f", cpu);
		record_stacks_or_not_at(prf, prog, stacks, cpu_arg);
		report(s, prf);
		got = count != NULL ? count(s) : s->total;
		if (got >= need)
			return;
		cpu = e2e_longer(cpu, got, need, &runs);
	}
}

/*
 * Record prog into prf (with call stacks or not), sized as
 * record_for_samples has it, export it to pb as pprof, decode it into d.
 */
static void
record_and_export(struct shares *s, char *cpu_arg, char **prog,
    const char *prf, const char *pb, int stacks, double need,
    double (*count)(const struct shares *))
{
	need_decoder();
	record_for_samples(s, cpu_arg, prf, prog, stacks, need, count);
	export_and_decode(prf, pb, 0);
}

/*
 * Export workload split: totals, functions, mapping, lines, comments;
 * the leaf Locations of the samples make the flat profile with call
 * stacks as without.  Over 1000 samples, where one() (10%) comes after
 * three() and before any other function (a few % at most) by far more
 * than 4 standard errors.
 */
static void
pprof_matches_profile_and_report(int stacks)
{
	SCRATCH(prf, "split.prf");
	SCRATCH(pb, "split.pb.gz");
	char *prog[] = { workload, "split", E2E_CPU, NULL };
	static const char *const top[] = { "six", "three", "one" };
	struct profil_profile *p;
	char cause[256], id[160], want[PATH_MAX + 64], *save, *row, *csv;
	char cpu[32];
	const struct pprof_mapping *m = NULL;
	const struct pprof_function *six;
	unsigned long long unnamed = 0;
	struct shares s;

	record_and_export(&s, cpu, prog, prf, pb, stacks, 1001, NULL);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s", cause);
	if (stacks ? p->nstacks == 0 : p->nstacks != 0)
		fail_msg("%zu stacks recorded %s call stacks", p->nstacks,
		    stacks ? "with" : "without");
	/* without stacks, a Sample is a bucket: one Location */
	for (size_t i = 0; i < d.nstacks && !stacks; i++)
		assert_int_equal(d.stacks[i].locations, 1);

	/* totals, exactly */
	assert_string_equal(d.types[0], "samples");
	assert_string_equal(d.units[0], "count");
	assert_string_equal(d.types[1], "cpu");
	assert_string_equal(d.units[1], "nanoseconds");
	if (p->samples <= 1000)
		fail_msg("%llu samples, over 1000 wanted",
		    (unsigned long long)p->samples);
	assert_int_equal(d.totals[0], p->samples);
	assert_int_equal(d.totals[1], p->samples * p->interval_ns);
	assert_string_equal(d.period_type, "cpu");
	assert_string_equal(d.period_unit, "nanoseconds");
	assert_int_equal(d.period, p->interval_ns);
	assert_string_equal(d.default_type, "cpu");
	assert_int_equal(d.time_ns, (unsigned long long)p->start_ns);
	assert_int_equal(d.duration_ns, p->duration_ns);

	/* the flat profile: top three in order, each as our report has it */
	assert_int_equal((unsigned long long)s.total, p->samples);
	assert_true(d.nfuncs >= 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(d.funcs[i].name, top[i]);
		assert_int_equal(d.funcs[i].samples,
		    (unsigned long long)samples_of(&s, top[i], NULL));
	}
	/*
	 * and every other row: symbols by name, summed over the objects that
	 * have one (memcpy of ld.so and of libc; the report has no inlined
	 * functions; libc's debug information may give pprof some), [OBJECT]
	 * rows as no function
	 */
	csv = strdup(s.csv);
	assert_non_null(csv);
	row = strtok_r(strchr(csv, '\n') + 1, "\n", &save);
	for (; row != NULL; row = strtok_r(NULL, "\n", &save)) {
		char fn[512];
		double n;

		assert_int_equal(sscanf(row, "%511[^,],%*[^,],%lf", fn, &n), 2);
		if (fn[0] == '[' && strcmp(fn, "[kernel]") != 0 &&
		    strcmp(fn, "[unknown]") != 0)
			unnamed += (unsigned long long)n;
		else if (pprof_symbol_samples(fn) !=
		    (unsigned long long)samples_of(&s, fn, NULL))
			fail_msg("%s: pprof %llu samples, report %.0f", fn,
			    pprof_symbol_samples(fn), samples_of(&s, fn, NULL));
	}
	free(csv);
	assert_int_equal(d.no_function, unnamed);

	/* the workload's mapping: its path and the build-id readelf reads */
	for (size_t i = 0; i < d.nmaps; i++)
		if (strcmp(d.maps[i].file, workload) == 0)
			m = &d.maps[i];
	if (m == NULL)
		fail_msg("no mapping for %s", workload);
	readelf_build_id(workload, id, sizeof id);
	assert_string_equal(m->build_id, id);
	assert_true(m->has_functions && m->has_filenames && m->has_lines);
	assert_string_equal(d.maps[0].file, workload);	/* main binary first */

	/* six() at its line of tests/programs/workload.c (built with -g) */
	six = pprof_function("six");
	assert_non_null(six);
	snprintf(want, sizeof want, "%s/tests/programs/workload.c", srcdir);
	assert_string_equal(six->file, want);
	assert_int_equal(six->start_line, source_line_of("six"));
	snprintf(want, sizeof want, "%ld", source_line_of("six"));
	assert_string_equal(six->lines, want);

	/* lost samples (a recorder slowed down, by sanitizers say) are said */
	assert_int_equal(d.ncomments, 2 + (p->lost > 0));
	snprintf(want, sizeof want, "command: %s split %s", workload, cpu);
	assert_string_equal(d.comments[0], want);
	snprintf(want, sizeof want, "engine: %s", p->engine);
	assert_string_equal(d.comments[1], want);
	snprintf(want, sizeof want, "lost samples: %llu (not in the totals)",
	    (unsigned long long)p->lost);
	if (p->lost > 0)
		assert_string_equal(d.comments[2], want);
	profil_profile_free(p);
}

static void
test_pprof_matches_profile_and_report(void **state)
{
	(void)state;
	pprof_matches_profile_and_report(1);
}

/* The flat export, without stacks (record --no-call-graph), as it was. */
static void
test_pprof_without_stacks(void **state)
{
	(void)state;
	pprof_matches_profile_and_report(0);
}

/* qsort order of folded stacks: by text, then samples, then locations. */
static int
by_text(const void *a, const void *b)
{
	const struct folded_stack *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	if (c != 0)
		return c;
	if (x->samples != y->samples)
		return x->samples < y->samples ? -1 : 1;
	return x->locations < y->locations ? -1 : x->locations > y->locations;
}

/* v sorted by text, stacks of one text summed; how many are left. */
static size_t
sum_by_text(struct folded_stack *v, size_t n)
{
	size_t kept = 0;

	qsort(v, n, sizeof *v, by_text);
	for (size_t i = 0; i < n; i++) {
		if (kept > 0 && strcmp(v[kept - 1].text, v[i].text) == 0) {
			v[kept - 1].samples += v[i].samples;
			free(v[i].text);
			continue;
		}
		v[kept++] = v[i];
	}
	return kept;
}

/*
 * With call stacks, a Sample per stack over a Location per frame: read
 * back by the independent decoder, the stacks are exactly what `export
 * --format folded` prints for the same profile (its "_[k]" kernel suffix
 * taken off), each Sample has as many Locations as its stack has frames,
 * and pprof's cumulative samples of main are those of the stacks that
 * hold main: at least 90% of those of six, three and one, where all but
 * a stack now and then are (2% allowed: none of 1035 here), which takes
 * 49 samples for 4 standard errors.
 */
static void
test_pprof_stacks_match_folded(void **state)
{
	SCRATCH(prf, "stacks.prf");
	SCRATCH(pb, "stacks.pb.gz");
	char *prog[] = { workload, "split", E2E_CPU, NULL };
	char *folded_argv[] = { profil_bin, "export", "--format", "folded",
	    "-o", "-", prf, NULL };
	struct folded_stack *folded = NULL, *ours = NULL, *theirs = NULL;
	size_t nfolded = 0, nours = 0, ntheirs = 0, deep = 0;
	unsigned long long with_main = 0, cum_main = 0, leaves = 0;
	char *out, *save, *line, err[8192], cause[256], cpu[32];
	double need = e2e_samples_for_share(0.02, 4, 0.1 - 0.02);
	struct profil_profile *p;
	struct shares s;

	(void)state;
	record_and_export(&s, cpu, prog, prf, pb, 1, need, e2e_split_samples);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s", cause);
	assert_true(p->nstacks > 0);
	assert_int_equal(d.totals[0], p->samples);
	assert_int_equal(d.totals[1], p->samples * p->interval_ns);

	/* a Sample per stack, as deep as it: (samples, depth) pairs agree */
	assert_int_equal(d.nstacks, p->nstacks);
	for (size_t i = 0; i < p->nstacks; i++) {
		push_stack(&ours, &nours, "", p->stacks[i].count,
		    p->stacks[i].depth);
		push_stack(&theirs, &ntheirs, "", d.stacks[i].samples,
		    d.stacks[i].locations);
		deep += p->stacks[i].depth > 1;
	}
	qsort(ours, nours, sizeof *ours, by_text);
	qsort(theirs, ntheirs, sizeof *theirs, by_text);
	for (size_t i = 0; i < nours; i++)
		if (ours[i].samples != theirs[i].samples ||
		    ours[i].locations != theirs[i].locations)
			fail_msg("stacks (samples, frames): ours (%llu, %zu), "
			    "pprof's (%llu, %zu)", ours[i].samples,
			    ours[i].locations, theirs[i].samples,
			    theirs[i].locations);
	assert_true(deep > 0);
	free_stacks(ours, nours);
	free_stacks(theirs, ntheirs);
	theirs = NULL;
	ntheirs = 0;

	/* the stacks by name, as the folded export has them */
	if (capture(folded_argv, &out, err, sizeof err) != 0)
		fail_msg("export --format folded: %s", err);
	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *count = strrchr(line, ' '), *k;

		assert_non_null(count);
		*count++ = '\0';
		while ((k = strstr(line, "_[k]")) != NULL)
			memmove(k, k + 4, strlen(k + 4) + 1);
		push_stack(&folded, &nfolded, line, strtoull(count, NULL, 10), 0);
		if (has_frame(line, "main"))
			with_main += folded[nfolded - 1].samples;
		/* of the stacks unwound: one left to catch up has no main */
		if ((has_frame(line, "six") || has_frame(line, "three") ||
		    has_frame(line, "one")) &&
		    !has_frame(line, "[stack cut: recorder behind]"))
			leaves += folded[nfolded - 1].samples;
	}
	free(out);
	for (size_t i = 0; i < d.nstacks; i++)
		push_stack(&theirs, &ntheirs, d.stacks[i].text,
		    d.stacks[i].samples, 0);
	nfolded = sum_by_text(folded, nfolded);
	ntheirs = sum_by_text(theirs, ntheirs);
	for (size_t i = 0; i < nfolded || i < ntheirs; i++)
		if (i >= nfolded || i >= ntheirs ||
		    strcmp(folded[i].text, theirs[i].text) != 0 ||
		    folded[i].samples != theirs[i].samples)
			fail_msg("stack %zu: folded '%s' %llu, pprof '%s' %llu", i,
			    i < nfolded ? folded[i].text : "(none)",
			    i < nfolded ? folded[i].samples : 0,
			    i < ntheirs ? theirs[i].text : "(none)",
			    i < ntheirs ? theirs[i].samples : 0);
	free_stacks(folded, nfolded);
	free_stacks(theirs, ntheirs);

	/* main holds (nearly) every sample of six, three and one: -cum */
	for (size_t i = 0; i < d.ncum; i++)
		if (strcmp(d.cum[i].text, "main") == 0)
			cum_main = d.cum[i].samples;
	assert_int_equal(cum_main, with_main);
	if (with_main < 0.9 * leaves)
		fail_msg("main is on %llu stacks of the %llu with six, three "
		    "or one (sized for %.0f)", with_main, leaves, need);
	profil_profile_free(p);
}

/*
 * Code the compiler inlined shows as the function it came from, called
 * from the one it was inlined into at the line of the call (a Line per
 * frame, innermost first, as pprof's own symbolizer does), while by
 * symbol the counts are exactly the report's.
 */
static void
test_pprof_inlined_frames(void **state)
{
	SCRATCH(prf, "inl.prf");
	SCRATCH(pb, "inl.pb.gz");
	char *prog[] = { workload, "inlined", E2E_CPU, NULL };
	char want[PATH_MAX + 32], cpu[32];
	const struct pprof_function *f;
	unsigned long long at_call = 0;
	struct shares s;
	double outer;
	/*
	 * outer() at least 80% of the samples, at 95% of the program's time
	 * (the kernel the rest); inlined() 80% of outer's, all of it really
	 */
	double need = e2e_samples_for_share_above(0.95, 0.8);

	(void)state;
	record_and_export(&s, cpu, prog, prf, pb, 1, need, NULL);
	outer = samples_of(&s, "outer", NULL);
	if (outer < 0.8 * s.total)
		fail_msg("outer has %.0f of %.0f samples (%.0f wanted)", outer,
		    s.total, need);
	assert_int_equal(pprof_symbol_samples("outer"), (unsigned long long)outer);
	/* by default, as the report: the code is outer()'s, no Line of its own */
	if (pprof_function("inlined") != NULL || d.ninlined != 0)
		fail_msg("inlined() is a function of the default export");

	export_and_decode(prf, pb, 1);
	assert_int_equal(pprof_symbol_samples("outer"), (unsigned long long)outer);
	f = pprof_function("inlined");
	if (f == NULL || f->samples < 0.8 * outer)
		fail_msg("inlined() is not the leaf of outer()'s %.0f samples",
		    outer);
	snprintf(want, sizeof want, "%s/tests/programs/workload.c", srcdir);
	assert_string_equal(f->file, want);
	assert_int_equal(f->start_line, workload_line("inlined(void)", 1));
	snprintf(want, sizeof want, "%ld", workload_line("LOOP(1000000);", 0));
	assert_string_equal(f->lines, want);
	for (size_t i = 0; i < d.ninlined; i++)
		if (strcmp(d.inlined[i].leaf, "inlined") == 0) {
			assert_string_equal(d.inlined[i].caller, "outer");
			assert_int_equal(d.inlined[i].line,
			    workload_line("/* CALL */", 0));
			at_call += d.inlined[i].samples;
		}
	assert_int_equal(at_call, f->samples);

	/*
	 * The folded export and the call tree agree, by default and with
	 * --inline (the folded stacks had inlined() where the tree had not).
	 */
	for (int inl = 0; inl < 2; inl++) {
		char *fold[] = { profil_bin, "export", "--format", "folded",
		    "-o", "-", (char *)prf, inl ? "--inline" : NULL, NULL };
		char *tree[] = { profil_bin, "report", "--tree", (char *)prf,
		    inl ? "--inline" : NULL, NULL };
		static struct run r;

		run(&r, fold);
		assert_int_equal(r.status, 0);
		if ((strstr(r.out, ";outer;inlined ") != NULL) != inl)
			fail_msg("folded%s: %.1000s", inl ? " --inline" : "", r.out);
		run(&r, tree);
		assert_int_equal(r.status, 0);
		if ((strstr(r.out, " inlined") != NULL) != inl)
			fail_msg("tree%s: %.2000s", inl ? " --inline" : "", r.out);
	}
}

/*
 * Counts far beyond 32 bits stay exact; past int64 the export refuses,
 * with call stacks (a Sample per stack) or without (one per bucket).
 */
static void
pprof_large_values(int stacks)
{
	SCRATCH(small_prf, "small.prf");
	SCRATCH(big_prf, "big.prf");
	SCRATCH(over_prf, "over.prf");
	SCRATCH(big_pb, "big.pb.gz");
	char *prog[] = { workload, "split", "0.11", NULL };
	char *exp[] = { profil_bin, "export", "--format", "pprof", "-o",
	    big_pb, big_prf, NULL };
	char *exp_over[] = { profil_bin, "export", "--format", "pprof", "-o",
	    big_pb, over_prf, NULL };
	struct profil_profile *p;
	unsigned long long scale = 1000000000ull, samples, more = 0;
	size_t oi = 0;
	char cause[256];
	struct run r;

	need_decoder();
	record_stacks_or_not(small_prf, prog, stacks);
	p = profil_profile_read(small_prf, cause, sizeof cause);
	assert_non_null(p);
	assert_int_equal(p->nstacks > 0, stacks);
	/* x 1e9: totals need 5 to 8 bytes, cpu nanoseconds pass 2^53 */
	scale_profile(p, scale);
	samples = p->samples;
	assert_true(samples * p->interval_ns > (1ull << 53));
	assert_int_equal(profil_profile_save(p, big_prf, cause,
	    sizeof cause), 0);
	run(&r, exp);
	if (r.status != 0)
		fail_msg("export exited %d: %s", r.status, r.err);
	decode(big_pb);
	assert_int_equal(d.totals[0], samples);
	assert_int_equal(d.totals[1], samples * p->interval_ns);

	/*
	 * one Sample whose cpu nanoseconds overflow int64 (a stack ending in
	 * an object, or a bucket): refused, old file kept
	 */
	for (size_t i = 0; i < p->nstacks && more == 0; i++) {
		struct profil_stack *st = &p->stacks[i];

		oi = p->frames[st->frames[0]].object;
		if (oi < p->nobjects) {
			more = INT64_MAX / p->interval_ns + 1 - st->count;
			st->count += more;
			/* and in a slice of its timeline, which sums to it */
			for (size_t e = 0; e < p->ntimeline; e++)
				if (p->timeline[e].stack == i) {
					p->timeline[e].value += more;
					break;
				}
		}
	}
	for (size_t i = 0; i < p->nobjects && more == 0; i++)
		if (p->objects[i].nbuckets > 0) {
			oi = i;
			more = INT64_MAX / p->interval_ns + 1 -
			    p->objects[i].buckets[0].count;
		}
	assert_true(more > 0);
	p->objects[oi].buckets[0].count += more;
	p->objects[oi].samples += more;
	p->samples += more;
	add_unit_weights(p, more);
	if (p->nprocesses > 0)
		p->processes[0].samples += more;
	if (p->nthreads > 0)
		p->threads[0].samples += more;
	assert_int_equal(profil_profile_save(p, over_prf, cause,
	    sizeof cause), 0);
	profil_profile_free(p);
	run(&r, exp_over);
	assert_int_equal(r.status, 1);
	assert_one_error_line(&r);
	if (strstr(r.err, "too large") == NULL)	/* EOVERFLOW, not a bad file */
		fail_msg("not refused for the value: %s", r.err);
	decode(big_pb);
	assert_int_equal(d.totals[0], samples);
}

static void
test_pprof_large_values(void **state)
{
	(void)state;
	pprof_large_values(1);
	pprof_large_values(0);
}

/*
 * Wide buckets (-b 256) that straddle functions, in a profile without
 * stacks: each function gets in pprof the share of the samples the flat
 * report gives it (the bucket is shared by bytes), not the whole bucket
 * to the function at its start.  (With stacks, the Samples' leaves are
 * the sampled addresses themselves, not buckets.)
 */
static void
test_pprof_wide_buckets(void **state)
{
	SCRATCH(prf, "wide.prf");
	SCRATCH(pb, "wide.pb.gz");
	char *rec[] = { profil_bin, "record", "-q", "-F", "5000", "-b", "256",
	    "--no-call-graph", "-o", prf, workload, "split", "0.44", NULL };
	char *exp[] = { profil_bin, "export", "--format", "pprof", "-o", pb,
	    prf, NULL };
	struct shares s;
	struct run r;
	size_t compared = 0;

	(void)state;
	need_decoder();
	run(&r, rec);
	assert_int_equal(r.status, 0);
	run(&r, exp);
	assert_int_equal(r.status, 0);
	decode(pb);
	report(&s, prf);
	/* by symbol: pprof's leaf frames are the functions inlined there */
	for (size_t i = 0; i < d.nsyms; i++) {
		double want = samples_of(&s, d.syms[i].name, NULL);

		if (d.syms[i].name[0] == '[')
			continue;
		if ((double)d.syms[i].samples != want)
			fail_msg("%s: %llu samples in pprof, %.0f in the report\n%s",
			    d.syms[i].name, d.syms[i].samples, want, s.csv);
		compared++;
	}
	assert_true(compared >= 3);
	assert_int_equal(d.totals[0], (unsigned long long)s.total);
}

/* Usage errors exit 2, failures 1, each with one line and no file left. */
static void
test_pprof_errors(void **state)
{
	SCRATCH(e_prf, "e.prf");
	SCRATCH(e_pb, "e.pb.gz");
	SCRATCH(adir, "adir");
	SCRATCH(corrupt_prf, "corrupt.prf");
	SCRATCH(missing_prf, "missing.prf");
	SCRATCH(c_pb, "c.pb.gz");
	SCRATCH(dflt_pb, "profile.pb.gz");
	SCRATCH(gmon_out, "gmon.workload.out");
	char *prog[] = { workload, "split", "0.022", NULL };
	char *bad_format[] = { profil_bin, "export", "--format", "pprof2", "-o",
	    e_pb, e_prf, NULL };
	char *no_format[] = { profil_bin, "export", e_prf, NULL };
	char *no_dir[] = { profil_bin, "export", "--format", "pprof", "-o",
	    "/nonexistent/dir/e.pb.gz", e_prf, NULL };
	char *is_dir[] = { profil_bin, "export", "--format", "pprof", "-o",
	    adir, e_prf, NULL };
	char *corrupt[] = { profil_bin, "export", "--format", "pprof", "-o",
	    c_pb, corrupt_prf, NULL };
	char *missing[] = { profil_bin, "export", "--format", "pprof", "-o",
	    c_pb, missing_prf, NULL };
	char *deflt[] = { profil_bin, "export", "--format", "pprof",
	    e_prf, NULL };
	char *help[] = { profil_bin, "export", "--help", NULL };
	char *gmon[] = { profil_bin, "export", "--format", "gmon", "-o", tmpdir,
	    e_prf, NULL };
	char cwd[PATH_MAX];
	struct run r;

	(void)state;
	record_ok(e_prf, prog);

	run(&r, bad_format);
	assert_int_equal(r.status, 2);
	assert_one_error_line(&r);
	assert_non_null(strstr(r.err, "pprof2"));
	run(&r, no_format);
	assert_int_equal(r.status, 2);
	assert_one_error_line(&r);
	assert_int_equal(access(e_pb, F_OK), -1);

	run(&r, no_dir);
	assert_int_equal(r.status, 1);
	assert_one_error_line(&r);
	assert_non_null(strstr(r.err, "/nonexistent/dir/e.pb.gz"));

	/* rename cannot replace a directory: nothing left beside it */
	assert_int_equal(mkdir(adir, 0755), 0);
	run(&r, is_dir);
	assert_int_equal(r.status, 1);
	assert_one_error_line(&r);
	assert_int_equal(temporary_files(), 0);

	/* a damaged profile (one byte flipped, then a truncated one) */
	copy_flipping(e_prf, corrupt_prf, 100);
	run(&r, corrupt);
	assert_int_equal(r.status, 1);
	assert_one_error_line(&r);
	assert_int_equal(access(c_pb, F_OK), -1);
	assert_int_equal(truncate(corrupt_prf, 50), 0);
	run(&r, corrupt);
	assert_int_equal(r.status, 1);
	assert_one_error_line(&r);
	run(&r, missing);
	assert_int_equal(r.status, 1);
	assert_one_error_line(&r);
	assert_int_equal(access(c_pb, F_OK), -1);

	/* no -o: profile.pb.gz in the current directory, as --help says */
	run(&r, help);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "profile.pb.gz"));
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(tmpdir), 0);
	run(&r, deflt);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "profile.pb.gz\n");
	assert_int_equal(access(dflt_pb, R_OK), 0);

	/* gmon still takes a directory */
	run(&r, gmon);
	assert_int_equal(r.status, 0);
	assert_int_equal(access(gmon_out, R_OK), 0);
}

/* Go's time.Duration as it prints one (ms to minutes), into buf. */
static void
go_duration(uint64_t ns, char *buf, size_t size)
{
	int len;

	if (ns >= 60000000000ull || ns < 1000000)
		fail_msg("%llu ns: not a duration this test prints",
		    (unsigned long long)ns);
	if (ns < 1000000000)
		len = snprintf(buf, size, "%llu.%06llu",
		    (unsigned long long)(ns / 1000000),
		    (unsigned long long)(ns % 1000000));
	else
		len = snprintf(buf, size, "%llu.%09llu",
		    (unsigned long long)(ns / 1000000000),
		    (unsigned long long)(ns % 1000000000));
	while (buf[len - 1] == '0')
		buf[--len] = '\0';
	if (buf[len - 1] == '.')
		buf[--len] = '\0';
	snprintf(buf + len, size - (size_t)len, "%s", ns < 1000000000 ? "ms" : "s");
}

/*
 * The Time and Duration lines `go tool pprof -raw` prints of pb (Go's
 * own reader of profile.proto: time_nanos as a time in UTC, to the ns;
 * duration_nanos as a Duration cut to 4 characters) are p's start and
 * duration.
 */
static void
assert_go_time(const char *pb, int64_t start_ns, uint64_t duration_ns)
{
	char go[PATH_MAX] = "", *argv[] = { "/usr/bin/env", "TZ=UTC", go, "tool",
	    "pprof", "-raw", (char *)pb, NULL };
	char want[128], dur[64], err[8192], *out, *at;
	time_t sec = (time_t)(start_ns / 1000000000);
	long frac = (long)(start_ns % 1000000000);
	struct tm tm;
	FILE *f;
	int len;

	f = popen("command -v go", "r");
	if (f != NULL && fgets(go, sizeof go, f) == NULL)
		go[0] = '\0';
	if (f != NULL)
		pclose(f);
	go[strcspn(go, "\n")] = '\0';
	if (go[0] != '/' && getenv("CI") != NULL)
		fail_msg("go not found: .ci/run installs golang-go");
	if (go[0] != '/')
		SKIP("go not found (apt-get install golang-go): its pprof "
		    "reads the export's time");
	if (capture(argv, &out, err, sizeof err) != 0)
		fail_msg("go tool pprof -raw %s: %s", pb, err);
	gmtime_r(&sec, &tm);
	len = (int)strftime(want, sizeof want, "Time: %Y-%m-%d %H:%M:%S", &tm);
	if (frac > 0) {
		len += snprintf(want + len, sizeof want - (size_t)len, ".%09ld",
		    frac);
		while (want[len - 1] == '0')
			want[--len] = '\0';
	}
	snprintf(want + len, sizeof want - (size_t)len, " +0000 UTC\n");
	if (strstr(out, want) == NULL)
		fail_msg("go tool pprof -raw: no '%.*s' in:\n%.400s",
		    (int)strlen(want) - 1, want, out);
	go_duration(duration_ns, dur, sizeof dur);
	at = strstr(out, "Duration: ");
	assert_non_null(at);
	at += strlen("Duration: ");
	if (strncmp(at, dur, 4) != 0 || at[4] != '\n')
		fail_msg("go tool pprof -raw: Duration: %.*s, the profile's %s",
		    (int)strcspn(at, "\n"), at, dur);
	free(out);
}

/*
 * time_nanos and duration_nanos are the profile's start and duration, as
 * Go's pprof reads them: of a recording, of an --time window of it
 * (slices 10 to 30: its start 10 slices on, 20 long), and of a profile
 * whose start and duration are set here (2.5 s from a moment with
 * nanoseconds; 0.75 s, which pprof shows in ms).
 */
static void
test_pprof_time_and_duration(void **state)
{
	SCRATCH(prf, "time.prf");
	SCRATCH(pb, "time.pb.gz");
	SCRATCH(win_prf, "time-win.prf");
	SCRATCH(win_pb, "time-win.pb.gz");
	static const struct { int64_t start; uint64_t duration; } windows[] = {
		{ 1700000000123456789, 2500000000 },
		{ 1700000002000000000, 750000000 },
	};
	char *prog[] = { workload, "split", "0.05", NULL };
	char *exp[] = { profil_bin, "export", "--format", "pprof", "-o", win_pb,
	    win_prf, NULL };
	char window[96];
	char *cut[] = { profil_bin, "export", "--format", "pprof", window, "-o",
	    win_pb, prf, NULL };
	struct profil_profile *p;
	char cause[256];
	struct run r;

	(void)state;
	record_with("timer", prf, prog);	/* any engine: with a timeline */
	export_and_decode(prf, pb, 0);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s", cause);
	assert_go_time(pb, p->start_ns, p->duration_ns);
	/* export --time of slices 10 to 30 (whole: no rounding out) */
	if (p->nslices < 30 || p->ntimeline == 0)
		fail_msg("%s: a timeline of %llu slices", prf,
		    (unsigned long long)p->nslices);
	snprintf(window, sizeof window, "--time=%lluns..%lluns",
	    (unsigned long long)(10 * p->slice_ns),
	    (unsigned long long)(30 * p->slice_ns));
	run(&r, cut);
	if (r.status != 0)
		fail_msg("export %s: %s", window, r.err);
	assert_go_time(win_pb, p->start_ns + (int64_t)(10 * p->slice_ns),
	    20 * p->slice_ns);
	for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
		p->start_ns = windows[i].start;
		p->duration_ns = windows[i].duration;
		if (profil_profile_save(p, win_prf, cause, sizeof cause) < 0)
			fail_msg("%s", cause);
		run(&r, exp);
		assert_int_equal(r.status, 0);
		assert_go_time(win_pb, windows[i].start, windows[i].duration);
	}
	profil_profile_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pprof_matches_profile_and_report),
		cmocka_unit_test(test_pprof_without_stacks),
		cmocka_unit_test(test_pprof_stacks_match_folded),
		cmocka_unit_test(test_pprof_inlined_frames),
		cmocka_unit_test(test_pprof_large_values),
		cmocka_unit_test(test_pprof_wide_buckets),
		cmocka_unit_test(test_pprof_errors),
		cmocka_unit_test(test_pprof_time_and_duration),
	};

	return cmocka_run_group_tests(tests, export_setup, e2e_teardown);
}
