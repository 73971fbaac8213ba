/*
 * test-export.c - `profil export --format pprof` end to end: a recorded
 * workload exported, then read back by an independent decoder (the
 * pprof-format npm package, via tests/pprof-decode.js) and compared with
 * the .prf file itself (read with the library) and with our flat report.
 * The decoder is installed into the build directory on first use.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"
#include <profil.h>

static char srcdir[PATH_MAX], node[PATH_MAX], decoder[PATH_MAX + 32];

/* What tests/pprof-decode.js prints (see its header). */
struct pprof_function {
	char name[256], file[PATH_MAX], lines[256];
	unsigned long long samples;
	long start_line;
};
struct pprof_mapping {
	char file[PATH_MAX], build_id[160];
	int has_functions, has_filenames, has_lines;
};
struct decoded {
	char types[2][32], units[2][32], period_type[32], period_unit[32];
	char default_type[32], comments[4][1024];
	unsigned long long totals[2], period, time_ns, duration_ns, no_function;
	size_t ntypes, nfuncs, nmaps, ncomments;
	struct pprof_function funcs[64];
	struct pprof_mapping maps[32];
	struct { char name[512]; unsigned long long samples; } syms[256];
	size_t nsyms, ninlined;
	struct {
		char leaf[256], caller[256];
		long line;
		unsigned long long samples;
	} inlined[16];
};
static struct decoded d;

/* The source tree: the nearest directory above the tests holding ours. */
static int
find_srcdir(void)
{
	char probe[PATH_MAX + 64];

	snprintf(srcdir, sizeof srcdir, "%s", bindir);
	while (strrchr(srcdir, '/') != NULL) {
		snprintf(probe, sizeof probe, "%s/tests/pprof-decode.js", srcdir);
		if (access(probe, R_OK) == 0)
			return 0;
		*strrchr(srcdir, '/') = '\0';
	}
	return -1;
}

static int
setup(void **state)
{
	FILE *f;

	if (e2e_setup(state) < 0 || find_srcdir() < 0)
		return -1;
	snprintf(decoder, sizeof decoder, "%s/tests/pprof-decode.js", srcdir);
	f = popen("command -v node", "r");
	if (f == NULL)
		return -1;
	if (fgets(node, sizeof node, f) == NULL)
		node[0] = '\0';
	node[strcspn(node, "\n")] = '\0';
	pclose(f);
	return 0;
}

/*
 * Skip without Node.js (apt-get install nodejs npm), unless under CI
 * (CI set, as .ci/run has it), which installs it: there it fails.  Then
 * install the pinned decoder into BUILD/tests/js once, failing if that
 * fails.
 */
static void
need_decoder(void)
{
	char cmd[6 * PATH_MAX], modules[PATH_MAX + 32];

	if (node[0] != '/' && getenv("CI") != NULL)
		fail_msg("node not found: the pprof decoder needs Node.js and npm");
	if (node[0] != '/')
		skip();
	snprintf(cmd, sizeof cmd,
	    "d=%s/js; mkdir -p $d && { cmp -s %s/tests/js/package-lock.json "
	    "$d/package-lock.json && [ -f $d/node_modules/pprof-format/package.json ]"
	    " || { cp %s/tests/js/package.json %s/tests/js/package-lock.json $d/ &&"
	    " npm ci --prefix $d --no-audit --no-fund >$d/npm.log 2>&1; }; } ||"
	    " { tail -5 $d/npm.log >&2; exit 1; }", bindir, srcdir, srcdir, srcdir);
	if (system(cmd) != 0)
		fail_msg("cannot install the pprof-format decoder (%s/js/npm.log)",
		    bindir);
	snprintf(modules, sizeof modules, "%s/js/node_modules", bindir);
	setenv("NODE_PATH", modules, 1);
}

/* Split line at tabs into at most max fields; their number. */
static int
split_fields(char *line, char **fields, int max)
{
	int n = 0;

	while (n < max) {
		fields[n++] = line;
		line = strchr(line, '\t');
		if (line == NULL)
			break;
		*line++ = '\0';
	}
	return n;
}

/* char var[]: NAME in the scratch directory (tmp() reuses 8 buffers). */
#define SCRATCH(var, name) char var[PATH_MAX]; \
	snprintf(var, sizeof var, "%s/%s", tmpdir, name)

#define COPY(dst, src) snprintf(dst, sizeof dst, "%s", src)

/* Decode a pprof file into d; the decoder must accept it. */
static void
decode(const char *path)
{
	char *argv[] = { node, decoder, (char *)path, NULL }, *save, *line;
	static struct run r;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("decoder exited %d: %s", r.status, r.err);
	memset(&d, 0, sizeof d);
	for (line = strtok_r(r.out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *f[12];
		int n = split_fields(line, f, 12);

		if (strcmp(f[0], "sample_type") == 0 && n == 4 && d.ntypes < 2) {
			COPY(d.types[d.ntypes], f[1]);
			COPY(d.units[d.ntypes], f[2]);
			d.totals[d.ntypes++] = strtoull(f[3], NULL, 10);
		} else if (strcmp(f[0], "period") == 0 && n == 4) {
			COPY(d.period_type, f[1]);
			COPY(d.period_unit, f[2]);
			d.period = strtoull(f[3], NULL, 10);
		} else if (strcmp(f[0], "default") == 0 && n == 2) {
			COPY(d.default_type, f[1]);
		} else if (strcmp(f[0], "time") == 0 && n == 3) {
			d.time_ns = strtoull(f[1], NULL, 10);
			d.duration_ns = strtoull(f[2], NULL, 10);
		} else if (strcmp(f[0], "mapping") == 0 && n == 10 && d.nmaps < 32) {
			struct pprof_mapping *m = &d.maps[d.nmaps++];

			COPY(m->file, f[5]);
			COPY(m->build_id, f[6]);
			m->has_functions = atoi(f[7]);
			m->has_filenames = atoi(f[8]);
			m->has_lines = atoi(f[9]);
		} else if (strcmp(f[0], "function") == 0 && n == 7 && d.nfuncs < 64) {
			struct pprof_function *fn = &d.funcs[d.nfuncs++];

			fn->samples = strtoull(f[1], NULL, 10);
			COPY(fn->name, f[2]);
			COPY(fn->file, f[4]);
			fn->start_line = atol(f[5]);
			COPY(fn->lines, f[6]);
		} else if (strcmp(f[0], "symbol") == 0 && n == 3 && d.nsyms < 256) {
			d.syms[d.nsyms].samples = strtoull(f[1], NULL, 10);
			COPY(d.syms[d.nsyms].name, f[2]);
			d.nsyms++;
		} else if (strcmp(f[0], "inlined") == 0 && n == 5 && d.ninlined < 16) {
			d.inlined[d.ninlined].samples = strtoull(f[1], NULL, 10);
			COPY(d.inlined[d.ninlined].leaf, f[2]);
			COPY(d.inlined[d.ninlined].caller, f[3]);
			d.inlined[d.ninlined].line = atol(f[4]);
			d.ninlined++;
		} else if (strcmp(f[0], "no_function") == 0 && n == 2) {
			d.no_function = strtoull(f[1], NULL, 10);
		} else if (strcmp(f[0], "comment") == 0 && n == 2 && d.ncomments < 4) {
			COPY(d.comments[d.ncomments++], f[1]);
		}
	}
	assert_int_equal(d.ntypes, 2);
}

/* Samples of the code of symbol name, inlined functions included. */
static unsigned long long
pprof_symbol_samples(const char *name)
{
	for (size_t i = 0; i < d.nsyms; i++)
		if (strcmp(d.syms[i].name, name) == 0)
			return d.syms[i].samples;
	return 0;
}

static const struct pprof_function *
pprof_function(const char *name)
{
	for (size_t i = 0; i < d.nfuncs; i++)
		if (strcmp(d.funcs[i].name, name) == 0)
			return &d.funcs[i];
	return NULL;
}

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

/* The first line of tests/workload.c holding text (at its start). */
static long
source_line_with(const char *text, int at_start)
{
	char path[PATH_MAX + 32], line[512];
	long n = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/tests/workload.c", srcdir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL) {
		char *at = strstr(line, text);

		n++;
		if (at != NULL && (!at_start || at == line)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("%s: no line with %s", path, text);
	return -1;
}

/* The line of tests/workload.c that defines function name. */
static long
source_line_of(const char *name)
{
	char pattern[64];

	snprintf(pattern, sizeof pattern, " void %s(void)", name);
	return source_line_with(pattern, 0);
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

/* stderr holds exactly one line, a profil export error. */
static void
assert_one_error_line(const struct run *r)
{
	const char *nl = strchr(r->err, '\n');

	if (strncmp(r->err, "profil: export: ", 16) != 0 || nl == NULL ||
	    nl[1] != '\0')
		fail_msg("want one 'profil: export:' line, got: %s", r->err);
}

/* Record prog into prf, export it to pb as pprof, decode it into d. */
static void
record_and_export(char **prog, const char *prf, const char *pb)
{
	char *exp[] = { profil_bin, "export", "--format", "pprof", "-o",
	    (char *)pb, (char *)prf, NULL };
	char want[PATH_MAX + 2];
	struct run r;

	need_decoder();
	record_ok(prf, prog);
	run(&r, exp);
	if (r.status != 0)
		fail_msg("export exited %d: %s", r.status, r.err);
	snprintf(want, sizeof want, "%s\n", pb);
	assert_string_equal(r.out, want);	/* it says where it wrote */
	decode(pb);
}

/* Export workload split: totals, functions, mapping, lines, comments. */
static void
test_pprof_matches_profile_and_report(void **state)
{
	SCRATCH(prf, "split.prf");
	SCRATCH(pb, "split.pb.gz");
	char *prog[] = { workload, "split", "60", NULL };
	static const char *const top[] = { "six", "three", "one" };
	struct profil_profile *p;
	char cause[256], id[160], want[PATH_MAX + 64], *save, *row;
	const struct pprof_mapping *m = NULL;
	const struct pprof_function *six;
	unsigned long long unnamed = 0;
	struct shares s;

	(void)state;
	record_and_export(prog, prf, pb);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s", cause);

	/* totals, exactly */
	assert_string_equal(d.types[0], "samples");
	assert_string_equal(d.units[0], "count");
	assert_string_equal(d.types[1], "cpu");
	assert_string_equal(d.units[1], "nanoseconds");
	assert_true(p->samples > 1000);
	assert_int_equal(d.totals[0], p->samples);
	assert_int_equal(d.totals[1], p->samples * p->interval_ns);
	assert_string_equal(d.period_type, "cpu");
	assert_string_equal(d.period_unit, "nanoseconds");
	assert_int_equal(d.period, p->interval_ns);
	assert_string_equal(d.default_type, "cpu");
	assert_int_equal(d.time_ns, (unsigned long long)p->start_ns);
	assert_int_equal(d.duration_ns, p->duration_ns);

	/* the flat profile: top three in order, each as our report has it */
	report(&s, prf);
	assert_int_equal((unsigned long long)s.total, p->samples);
	assert_true(d.nfuncs >= 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(d.funcs[i].name, top[i]);
		assert_int_equal(d.funcs[i].samples,
		    (unsigned long long)samples_of(&s, top[i], NULL));
	}
	/*
	 * and every other row: symbols by name (the report has no inlined
	 * functions; libc's debug information may give pprof some), [OBJECT]
	 * rows as no function
	 */
	row = strtok_r(strchr(s.csv, '\n') + 1, "\n", &save);
	for (; row != NULL; row = strtok_r(NULL, "\n", &save)) {
		char fn[512];
		double n;

		assert_int_equal(sscanf(row, "%511[^,],%*[^,],%lf", fn, &n), 2);
		if (fn[0] == '[' && strcmp(fn, "[kernel]") != 0 &&
		    strcmp(fn, "[unknown]") != 0)
			unnamed += (unsigned long long)n;
		else if (pprof_symbol_samples(fn) != (unsigned long long)n)
			fail_msg("%s: pprof %llu samples, report %.0f", fn,
			    pprof_symbol_samples(fn), n);
	}
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

	/* six() at its line of tests/workload.c (built with -g) */
	six = pprof_function("six");
	assert_non_null(six);
	snprintf(want, sizeof want, "%s/tests/workload.c", srcdir);
	assert_string_equal(six->file, want);
	assert_int_equal(six->start_line, source_line_of("six"));
	snprintf(want, sizeof want, "%ld", source_line_of("six"));
	assert_string_equal(six->lines, want);

	assert_int_equal(d.ncomments, 2);
	snprintf(want, sizeof want, "command: %s split 60", workload);
	assert_string_equal(d.comments[0], want);
	snprintf(want, sizeof want, "engine: %s", p->engine);
	assert_string_equal(d.comments[1], want);
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
	char *prog[] = { workload, "inlined", "300", NULL };
	char want[PATH_MAX + 32];
	const struct pprof_function *f;
	unsigned long long at_call = 0;
	struct shares s;
	double outer;

	(void)state;
	record_and_export(prog, prf, pb);
	report(&s, prf);
	outer = samples_of(&s, "outer", NULL);
	if (outer < 0.8 * s.total)
		fail_msg("outer has %.0f of %.0f samples", outer, s.total);
	assert_int_equal(pprof_symbol_samples("outer"), (unsigned long long)outer);

	f = pprof_function("inlined");
	if (f == NULL || f->samples < 0.8 * outer)
		fail_msg("inlined() is not the leaf of outer()'s samples");
	snprintf(want, sizeof want, "%s/tests/workload.c", srcdir);
	assert_string_equal(f->file, want);
	assert_int_equal(f->start_line, source_line_with("inlined(void)", 1));
	snprintf(want, sizeof want, "%ld", source_line_with("LOOP(1000000);", 0));
	assert_string_equal(f->lines, want);
	for (size_t i = 0; i < d.ninlined; i++)
		if (strcmp(d.inlined[i].leaf, "inlined") == 0) {
			assert_string_equal(d.inlined[i].caller, "outer");
			assert_int_equal(d.inlined[i].line,
			    source_line_with("/* CALL */", 0));
			at_call += d.inlined[i].samples;
		}
	assert_int_equal(at_call, f->samples);
}

/* Counts far beyond 32 bits stay exact; past int64 the export refuses. */
static void
test_pprof_large_values(void **state)
{
	SCRATCH(small_prf, "small.prf");
	SCRATCH(big_prf, "big.prf");
	SCRATCH(over_prf, "over.prf");
	SCRATCH(big_pb, "big.pb.gz");
	char *prog[] = { workload, "split", "10", NULL };
	char *exp[] = { profil_bin, "export", "--format", "pprof", "-o",
	    big_pb, big_prf, NULL };
	char *exp_over[] = { profil_bin, "export", "--format", "pprof", "-o",
	    big_pb, over_prf, NULL };
	struct profil_profile *p;
	unsigned long long scale = 1000000000ull, samples;
	char cause[256];
	struct run r;

	(void)state;
	need_decoder();
	record_ok(small_prf, prog);
	p = profil_profile_read(small_prf, cause, sizeof cause);
	assert_non_null(p);
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

	/* one bucket whose cpu nanoseconds overflow int64: refused, old file kept */
	for (size_t i = 0; i < p->nobjects; i++)
		if (p->objects[i].nbuckets > 0) {
			unsigned long long more = INT64_MAX / p->interval_ns + 1 -
			    p->objects[i].buckets[0].count;

			p->objects[i].buckets[0].count += more;
			p->objects[i].samples += more;
			p->samples += more;
			if (p->nprocesses > 0)
				p->processes[0].samples += more;
			if (p->nthreads > 0)
				p->threads[0].samples += more;
			break;
		}
	assert_int_equal(profil_profile_save(p, over_prf, cause,
	    sizeof cause), 0);
	profil_profile_free(p);
	run(&r, exp_over);
	assert_int_equal(r.status, 1);
	assert_one_error_line(&r);
	decode(big_pb);
	assert_int_equal(d.totals[0], samples);
}

/* Usage errors exit 2, failures 1, each with one line and no file left. */
/*
 * Wide buckets (-b 256) that straddle functions: each function gets in
 * pprof the share of the samples the flat report gives it (the bucket is
 * shared by bytes), not the whole bucket to the function at its start.
 */
static void
test_pprof_wide_buckets(void **state)
{
	SCRATCH(prf, "wide.prf");
	SCRATCH(pb, "wide.pb.gz");
	char *rec[] = { profil_bin, "record", "-q", "-F", "5000", "-b", "256",
	    "-o", prf, workload, "split", "40", NULL };
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
	char *prog[] = { workload, "split", "2", NULL };
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pprof_matches_profile_and_report),
		cmocka_unit_test(test_pprof_inlined_frames),
		cmocka_unit_test(test_pprof_large_values),
		cmocka_unit_test(test_pprof_wide_buckets),
		cmocka_unit_test(test_pprof_errors),
	};

	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
