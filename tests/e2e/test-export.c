/*
 * test-export.c - `profil export --format pprof` end to end: a recorded
 * workload exported, then read back by an independent decoder (the
 * pprof-format npm package, via tests/js/pprof-decode.js) and compared with
 * the .prf file itself (read with the library), with our flat report and,
 * for call stacks, with the folded stacks export; and `export --format
 * gmon`'s call arcs as GNU gprof reads them.
 * The decoder is installed into the build directory on first use.
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

static char srcdir[PATH_MAX], node[PATH_MAX], decoder[PATH_MAX + 32];

/* A stack as folded text (root;...;leaf), its samples and locations. */
struct folded_stack {
	char *text;
	unsigned long long samples;
	size_t locations;
};

/* What tests/js/pprof-decode.js prints (see its header). */
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
	char types[3][32], units[3][32], period_type[32], period_unit[32];
	char default_type[32], comments[4][1024];
	unsigned long long totals[3], period, time_ns, duration_ns, no_function;
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
	/* the stack and cum records, as many as there are (malloc'd) */
	struct folded_stack *stacks;
	size_t nstacks;
	struct folded_stack *cum;	/* text: a function name */
	size_t ncum;
	/* the values records: every value of each sample (a wall profile's) */
	struct { char frames[512]; unsigned long long v[3]; } values[64];
	size_t nvalues;
	char *raw;			/* the decoder's output */
};
static struct decoded d;
static size_t want_types = 2;	/* 3 for a wall profile */

/* The source tree: the nearest directory above the tests holding ours. */
static int
find_srcdir(void)
{
	char probe[PATH_MAX + 64];

	snprintf(srcdir, sizeof srcdir, "%s", bindir);
	while (strrchr(srcdir, '/') != NULL) {
		snprintf(probe, sizeof probe, "%s/tests/js/pprof-decode.js", srcdir);
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
	snprintf(decoder, sizeof decoder, "%s/tests/js/pprof-decode.js", srcdir);
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
		SKIP("node not found: the pprof decoder needs Node.js");
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

/*
 * Run argv with its whole standard output into *out (malloc'd: run()
 * keeps 64 KiB, and stacks take more), its standard error into err (cut
 * to fit); its exit status.
 */
static int
capture(char *const argv[], char **out, char *err, size_t err_size)
{
	SCRATCH(err_path, "capture.err");
	size_t len = 0, cap = 65536;
	int fds[2], status, fd;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fds[1], 1);
		if (fd >= 0)
			dup2(fd, 2);
		close(fds[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	*out = malloc(cap);
	assert_non_null(*out);
	while ((n = read(fds[0], *out + len, cap - 1 - len)) > 0 ||
	    (n < 0 && errno == EINTR)) {
		len += n > 0 ? (size_t)n : 0;
		if (len + 1 == cap) {
			cap *= 2;
			*out = realloc(*out, cap);
			assert_non_null(*out);
		}
	}
	(*out)[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	err[0] = '\0';
	if ((fd = open(err_path, O_RDONLY)) >= 0) {
		n = read(fd, err, err_size - 1);
		err[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void
free_stacks(struct folded_stack *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

/* Append a stack to *v (n of them, growing by doubling). */
static void
push_stack(struct folded_stack **v, size_t *n, const char *text,
    unsigned long long samples, size_t locations)
{
	if ((*n & (*n - 1)) == 0) {
		*v = realloc(*v, (*n ? 2 * *n : 1) * sizeof **v);
		assert_non_null(*v);
	}
	(*v)[*n].text = strdup(text);
	assert_non_null((*v)[*n].text);
	(*v)[*n].samples = samples;
	(*v)[(*n)++].locations = locations;
}

/* Decode a pprof file into d; the decoder must accept it. */
static void
decode(const char *path)
{
	char *argv[] = { node, decoder, (char *)path, NULL }, *save, *line;
	static char err[8192];
	int status;

	free_stacks(d.stacks, d.nstacks);
	free_stacks(d.cum, d.ncum);
	free(d.raw);
	memset(&d, 0, sizeof d);
	status = capture(argv, &d.raw, err, sizeof err);
	if (status != 0)
		fail_msg("decoder exited %d: %s", status, err);
	for (line = strtok_r(d.raw, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char *f[12];
		int n = split_fields(line, f, 12);

		if (strcmp(f[0], "sample_type") == 0 && n == 4 && d.ntypes < 3) {
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
		} else if (strcmp(f[0], "stack") == 0 && n == 4) {
			push_stack(&d.stacks, &d.nstacks, f[3],
			    strtoull(f[1], NULL, 10), strtoull(f[2], NULL, 10));
		} else if (strcmp(f[0], "values") == 0 && n == 3 &&
		    d.nvalues < 64) {
			COPY(d.values[d.nvalues].frames, f[2]);
			sscanf(f[1], "%llu,%llu,%llu", &d.values[d.nvalues].v[0],
			    &d.values[d.nvalues].v[1], &d.values[d.nvalues].v[2]);
			d.nvalues++;
		} else if (strcmp(f[0], "cum") == 0 && n == 3) {
			push_stack(&d.cum, &d.ncum, f[2], strtoull(f[1], NULL, 10), 0);
		}
	}
	assert_int_equal(d.ntypes, want_types);
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

/* The first line of tests/programs/workload.c holding text (at its start). */
static long
source_line_with(const char *text, int at_start)
{
	char path[PATH_MAX + 32], line[512];
	long n = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/tests/programs/workload.c", srcdir);
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

/* The line of tests/programs/workload.c that defines function name. */
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

/*
 * `profil record -q -F 5000 [--no-call-graph] -o prf PROGRAM...`, which
 * must succeed: with call stacks (perf engine) or without.  The
 * program's argument E2E_CPU, if any, is replaced by cpu.
 */
static void
record_stacks_or_not_at(const char *prf, char **prog, int stacks,
    const char *cpu)
{
	char *argv[32] = { profil_bin, "record", "-q", "-F", "5000", "-o",
	    (char *)prf };
	struct run r;
	int i = 7;

	if (stacks && !harness_perf_allowed())
		SKIP("perf events refused here: only the perf engine takes stacks");
	argv[i++] = stacks ? "--engine=perf" : "--no-call-graph";
	for (; *prog && i < 31; prog++)
		argv[i++] = strcmp(*prog, E2E_CPU) == 0 ? (char *)cpu : *prog;
	argv[i] = NULL;
	run(&r, argv);
	if (r.status != 0)
		fail_msg("record exited %d: %s", r.status, r.err);
}

static void
record_stacks_or_not(const char *prf, char **prog, int stacks)
{
	record_stacks_or_not_at(prf, prog, stacks, NULL);
}

/* Export prf to pb as pprof (with --inline if inlines), decode it into d. */
static void
export_and_decode(const char *prf, const char *pb, int inlines)
{
	char *exp[] = { profil_bin, "export", "--format", "pprof", "-o",
	    (char *)pb, (char *)prf, inlines ? "--inline" : NULL, NULL };
	char want[PATH_MAX + 2];
	struct run r;

	run(&r, exp);
	if (r.status != 0)
		fail_msg("export exited %d: %s", r.status, r.err);
	snprintf(want, sizeof want, "%s\n", pb);
	assert_string_equal(r.out, want);	/* it says where it wrote */
	decode(pb);
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

/* 1 if folded text (a;b;c) has a frame named name. */
static int
has_frame(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *at = text; (at = strstr(at, name)) != NULL; at++)
		if ((at == text || at[-1] == ';') && (at[n] == ';' || at[n] == '\0'))
			return 1;
	return 0;
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

/* ---- wall profiles (record --wall) ---------------------------------------- */

#define WALL_MS 1000000ull	/* the interval of the wall profile made here */

static void *
must(void *ptr)
{
	assert_non_null(ptr);
	return ptr;
}

/*
 * A wall profile made here, saved to path: program app (not on disk: its
 * names kept) with main, do_read and compute; 7 samples in main;compute
 * on the CPU, and off it: main;do_read;[off-cpu: read] 250000300 ns in
 * thread 1 and 300 in thread 2 (250000.6 us together: 250001 once
 * summed, 250000 if each were rounded alone), main;[off-cpu:
 * clock_nanosleep] 1499 ns (1 us) and main;do_read;[off-cpu:
 * clock_nanosleep] 499 ns (0 us: no line).  With cpu_only, the same
 * profile without the off-CPU stacks and as a CPU profile.
 */
static void
save_wall_profile(const char *path, int cpu_only)
{
	/* frames: 0 main (call), 1 do_read (call), 2 compute, 3 read, 4 sleep */
	static const struct profil_frame frames[] = { { 0, 0x1010 },
	    { 0, 0x1110 }, { 0, 0x1210 }, { PROFIL_FRAME_OFFCPU, 0 },
	    { PROFIL_FRAME_OFFCPU, 230 } };
	static const struct { uint32_t tid; uint64_t count, off_ns;
	    size_t depth; uint32_t frames[3]; } stacks[] = {
		{ 1, 7, 0, 2, { 2, 0 } },
		{ 1, 0, 250000300, 3, { 3, 1, 0 } },
		{ 2, 0, 300, 3, { 3, 1, 0 } },
		{ 1, 0, 1499, 2, { 4, 0 } },
		{ 1, 0, 499, 3, { 4, 1, 0 } },
	};
	static const char *const names[] = { "main", "do_read", "compute" };
	struct profil_profile *p = must(calloc(1, sizeof *p));
	struct profil_object *o;
	char cause[256];

	p->interval_ns = WALL_MS;
	p->bucket_bytes = 1;
	p->engine = must(strdup("perf"));
	p->argc = 1;
	p->argv = must(calloc(2, sizeof *p->argv));
	p->argv[0] = must(strdup("app"));
	p->duration_ns = 300 * WALL_MS;
	p->cpu_ns = 7 * WALL_MS;
	p->samples = 7;
	p->nobjects = 1;
	p->objects = o = must(calloc(1, sizeof *o));
	o->path = must(strdup("/nonexistent/wall/app"));
	o->lowpc = 0x1000;
	o->highpc = 0x1300;
	o->bucket_bytes = 1;
	o->samples = 7;
	o->nbuckets = 1;
	o->buckets = must(calloc(1, sizeof *o->buckets));
	o->buckets[0] = (struct profil_bucket){ 0x1210, 7 };
	p->nsymbols = 3;
	p->symbols = must(calloc(3, sizeof *p->symbols));
	for (size_t i = 0; i < 3; i++)
		p->symbols[i] = (struct profil_symbol){ 0, 0x1000 + 0x100 * i,
		    0x1100 + 0x100 * i, must(strdup(names[i])) };
	p->nframes = cpu_only ? 3 : 5;
	p->frames = must(calloc(p->nframes, sizeof *p->frames));
	memcpy(p->frames, frames, p->nframes * sizeof *p->frames);
	p->stacks = must(calloc(5, sizeof *p->stacks));
	for (size_t i = 0; i < (cpu_only ? 1 : 5); i++) {
		struct profil_stack *st = &p->stacks[p->nstacks++];

		st->pid = 1;
		st->tid = stacks[i].tid;
		st->count = stacks[i].count;
		st->off_ns = stacks[i].off_ns;
		st->depth = stacks[i].depth;
		st->frames = must(calloc(st->depth, sizeof *st->frames));
		memcpy(st->frames, stacks[i].frames, st->depth *
		    sizeof *st->frames);
	}
	if (!cpu_only) {
		p->wall = must(calloc(1, sizeof *p->wall));
		*p->wall = (struct profil_wall){ 5 * WALL_MS, 12, 3, 0 };
	}
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
}

/* stderr is one line, a warning of profil export holding all of want. */
static void
assert_one_warning(const struct run *r, const char *want)
{
	const char *nl = strchr(r->err, '\n');

	if (strncmp(r->err, "profil: export: warning: ", 25) != 0 ||
	    nl == NULL || nl[1] != '\0' || strstr(r->err, want) == NULL)
		fail_msg("want one warning with '%s', got: %s", want, r->err);
}

/*
 * Folded: microseconds of wall time, [off-cpu: NAME] leaves, each line's
 * total rounded once, lines of 0 left out, a note on stderr; --cpu: the
 * samples of the CPU part, as a CPU profile's export.
 */
static void
test_wall_folded(void **state)
{
	SCRATCH(prf, "wall.prf");
	char *wall[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    prf, NULL };
	char *cpu[] = { profil_bin, "export", "--format", "folded", "--cpu",
	    "-o", "-", prf, NULL };
	struct run r;

	(void)state;
	save_wall_profile(prf, 0);
	run(&r, wall);
	assert_int_equal(r.status, 0);
	/* 7 samples of 1 ms: 7000 us; '[' sorts before the letters */
	assert_string_equal(r.out,
	    "main;[off-cpu: clock_nanosleep] 1\n"
	    "main;compute 7000\n"
	    "main;do_read;[off-cpu: read] 250001\n");
	assert_one_warning(&r, "microseconds of wall time");
	run(&r, cpu);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "main;compute 7\n");
	assert_string_equal(r.err, "");
}

/*
 * pprof: samples, cpu, wall; wall the default; off-CPU Samples 0, 0,
 * off_ns at a [off-cpu: read] Function without a file; CPU Samples
 * count, count x interval twice.  --cpu: the CPU profile's two types.
 */
static void
test_wall_pprof(void **state)
{
	SCRATCH(prf, "wall.prf");
	SCRATCH(pb, "wall.pb.gz");
	SCRATCH(cpb, "wallcpu.pb.gz");
	char *cpu[] = { profil_bin, "export", "--format", "pprof", "--cpu",
	    "-o", cpb, prf, NULL };
	unsigned long long read_wall = 0, compute[3] = { 0, 0, 0 };
	const struct pprof_function *fn;
	struct run r;

	(void)state;
	need_decoder();
	save_wall_profile(prf, 0);
	want_types = 3;
	export_and_decode(prf, pb, 0);
	want_types = 2;
	assert_string_equal(d.types[0], "samples");
	assert_string_equal(d.types[1], "cpu");
	assert_string_equal(d.types[2], "wall");
	assert_string_equal(d.units[2], "nanoseconds");
	assert_string_equal(d.default_type, "wall");
	assert_int_equal(d.totals[0], 7);
	assert_int_equal(d.totals[1], 7 * WALL_MS);
	assert_int_equal(d.totals[2], 7 * WALL_MS + 250000300 + 300 + 1499 +
	    499);
	for (size_t i = 0; i < d.nvalues; i++) {
		if (strcmp(d.values[i].frames, "main;do_read;[off-cpu: read]") ==
		    0) {
			assert_int_equal(d.values[i].v[0], 0);
			assert_int_equal(d.values[i].v[1], 0);
			read_wall += d.values[i].v[2];
		} else if (strcmp(d.values[i].frames, "main;compute") == 0) {
			for (int k = 0; k < 3; k++)
				compute[k] += d.values[i].v[k];
		}
	}
	assert_int_equal(read_wall, 250000600);
	assert_int_equal(compute[0], 7);
	assert_int_equal(compute[1], 7 * WALL_MS);
	assert_int_equal(compute[2], 7 * WALL_MS);
	/* the off-CPU leaf is a function of its own, with no file */
	fn = pprof_function("[off-cpu: read]");
	assert_non_null(fn);
	assert_string_equal(fn->file, "");
	run(&r, cpu);
	assert_int_equal(r.status, 0);
	decode(cpb);
	assert_string_equal(d.default_type, "cpu");
	assert_int_equal(d.totals[0], 7);
	assert_int_equal(d.totals[1], 7 * WALL_MS);
	assert_null(pprof_function("[off-cpu: read]"));
}

/*
 * A wall profile whose time off the CPU comes to no whole interval (a
 * program that never waited but for its start) has off-CPU frames that
 * no stack of its view holds: report and export say nothing of the
 * [off-cpu] object (they warned "[off-cpu]: no file to read symbols
 * from").  Made here as record makes it (save_wall_profile's, every
 * block shortened to 300 ns), and recorded from a program that only
 * computes, in each engine.
 */
static void
test_wall_no_time_off_cpu_no_warning(void **state)
{
	SCRATCH(prf, "nooff.prf");
	SCRATCH(rec_prf, "nooff-rec.prf");
	SCRATCH(pb, "nooff.pb.gz");
	SCRATCH(folded, "nooff.folded");
	char *views[][9] = {
		{ profil_bin, "report", prf, NULL },
		{ profil_bin, "report", "--tree", prf, NULL },
		{ profil_bin, "report", "--objects", prf, NULL },
		{ profil_bin, "export", "--format", "pprof", "-o", pb, prf, NULL },
		{ profil_bin, "export", "--format", "folded", "-o", folded, prf,
		    NULL },
	};
	static const char *const engines[] = { "perf", "timer" };
	char cause[256], *prog[] = { workload, "split", "0.05", NULL };
	struct profil_profile *p;
	struct run r;

	(void)state;
	save_wall_profile(prf, 0);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].off_ns > 0)
			p->stacks[i].off_ns = 300;
	if (profil_profile_save(p, prf, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", prf, cause);
	profil_profile_free(p);
	for (size_t e = 0; e <= sizeof engines / sizeof engines[0]; e++) {
		if (e > 0) {
			char *rec[] = { profil_bin, "record", "-q", "--wall", "-e",
			    (char *)engines[e - 1], "-o", rec_prf, prog[0],
			    prog[1], prog[2], NULL };

			if (strcmp(engines[e - 1], "perf") == 0 &&
			    !harness_perf_allowed())
				continue;
			run(&r, rec);
			if (r.status != 0)
				fail_msg("record --wall -e %s: exit %d: %s",
				    engines[e - 1], r.status, r.err);
		}
		for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
			char *argv[9];

			memcpy(argv, views[v], sizeof argv);
			for (size_t k = 0; argv[k] != NULL; k++)
				if (argv[k] == prf && e > 0)
					argv[k] = rec_prf;
			run(&r, argv);
			if (r.status != 0)
				fail_msg("%s %s: exit %d: %s", argv[1], argv[2],
				    r.status, r.err);
			if (strstr(r.err, "[off-cpu]") != NULL)
				fail_msg("%s %s of %s: %s", argv[1], argv[2],
				    e ? engines[e - 1] : "a made profile", r.err);
		}
	}
}

/*
 * gmon: a wall profile gives the gmon.out of its CPU part, byte for byte
 * that of the same profile made without the off-CPU stacks, and says in
 * one line what it left out.  --cpu on a CPU profile: a usage error.
 */
static void
test_wall_gmon_and_usage(void **state)
{
	SCRATCH(prf, "wall.prf");
	SCRATCH(cpu_prf, "wallcpu.prf");
	SCRATCH(wdir, "wallgmon");
	SCRATCH(cdir, "cpugmon");
	SCRATCH(wout, "wallgmon/gmon.app.out");
	SCRATCH(cout, "cpugmon/gmon.app.out");
	char *wall[] = { profil_bin, "export", "--format", "gmon", "-o", wdir,
	    prf, NULL };
	char *cpu[] = { profil_bin, "export", "--format", "gmon", "-o", cdir,
	    cpu_prf, NULL };
	char *bad[] = { profil_bin, "export", "--format", "folded", "--cpu",
	    "-o", "-", cpu_prf, NULL };
	char cmd[3 * PATH_MAX];
	struct run r;

	(void)state;
	save_wall_profile(prf, 0);
	save_wall_profile(cpu_prf, 1);
	run(&r, wall);
	if (r.status != 0)
		fail_msg("gmon export exited %d: %s", r.status, r.err);
	assert_one_warning(&r, "off the CPU are left out");
	run(&r, cpu);
	if (r.status != 0)
		fail_msg("gmon export exited %d: %s", r.status, r.err);
	snprintf(cmd, sizeof cmd, "cmp -s %s %s", wout, cout);
	assert_int_equal(system(cmd), 0);
	run(&r, bad);
	assert_int_equal(r.status, 2);
	assert_one_error_line(&r);
	assert_non_null(strstr(r.err, "--cpu"));
}

/*
 * End to end: a program that sleeps 0.3 s in clock_nanosleep and
 * measures the sleep itself (tests/programs/wall-workload.c parts), recorded
 * with
 * --wall; its folded export's [off-cpu: clock_nanosleep] lines hold the
 * time it slept, in microseconds: at least the 0.3 s asked (the kernel
 * wakes it no sooner; a millisecond allowed for going off the CPU), at
 * most what it measured (which adds its wait for a CPU after the wake-up,
 * long on a loaded machine); and the pprof export's wall total at least
 * that.
 */
static void
test_wall_recorded_sleep(void **state)
{
	SCRATCH(prf, "sleep.prf");
	SCRATCH(folded, "sleep.folded");
	SCRATCH(pb, "sleep.pb.gz");
	char program[PATH_MAX + 32];
	char *rec[] = { profil_bin, "record", "-q", "--wall", "-o", prf,
	    program, "parts", "0.01", "0.3", "0", "0", NULL };
	char *exp[] = { profil_bin, "export", "--format", "folded", "-o",
	    folded, prf, NULL };
	unsigned long long us = 0, v;
	char line[8192], *sp;
	const char *at;
	double slept;
	struct run r;
	FILE *f;

	(void)state;
	if (!harness_perf_allowed())
		SKIP("perf events refused here: record --wall needs them");
	snprintf(program, sizeof program, "%s/wall-workload", bindir);
	run(&r, rec);
	if (r.status != 0)
		fail_msg("record --wall exited %d: %s", r.status, r.err);
	at = strstr(r.out, "sleep ");
	if (at == NULL || sscanf(at, "sleep %lf", &slept) != 1)
		fail_msg("the program said no sleep: %s", r.out);
	run(&r, exp);
	assert_int_equal(r.status, 0);
	f = fopen(folded, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL) {
		sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		v = strtoull(sp + 1, NULL, 10);
		if (strlen(line) >= 26 && strcmp(line + strlen(line) - 26,
		    "[off-cpu: clock_nanosleep]") == 0)
			us += v;
	}
	fclose(f);
	if (us < 299000 || (double)us > slept * 1e6 + 1000)
		fail_msg("%llu us in clock_nanosleep; asked 300000, it measured "
		    "%.0f", us, slept * 1e6);
	need_decoder();
	want_types = 3;
	export_and_decode(prf, pb, 0);
	want_types = 2;
	assert_true(d.totals[2] >= 299000000ull);
	assert_true(d.totals[2] >= d.totals[1]);
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
		cmocka_unit_test(test_gmon_call_arcs),
		cmocka_unit_test(test_pprof_errors),
		cmocka_unit_test(test_stdout_for_every_format),
		cmocka_unit_test(test_wall_folded),
		cmocka_unit_test(test_wall_pprof),
		cmocka_unit_test(test_wall_no_time_off_cpu_no_warning),
		cmocka_unit_test(test_wall_gmon_and_usage),
		cmocka_unit_test(test_wall_recorded_sleep),
	};

	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
