/*
 * export-checks.c - what the tests of `profil export` share
 * (export-checks.h): a command's whole output captured; the independent
 * pprof decoder (tests/js/pprof-decode.js) installed on first use, run,
 * and its records read into d; a recording made with call stacks or
 * without; one error line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "export-checks.h"
#include "harness.h"

static char node[PATH_MAX], decoder[PATH_MAX + 32];
char srcdir[PATH_MAX];
struct decoded d;
size_t want_types = 2;

int
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

int
export_setup(void **state)
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

void
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

void
free_stacks(struct folded_stack *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
}

void
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

void
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

unsigned long long
pprof_symbol_samples(const char *name)
{
	for (size_t i = 0; i < d.nsyms; i++)
		if (strcmp(d.syms[i].name, name) == 0)
			return d.syms[i].samples;
	return 0;
}

const struct pprof_function *
pprof_function(const char *name)
{
	for (size_t i = 0; i < d.nfuncs; i++)
		if (strcmp(d.funcs[i].name, name) == 0)
			return &d.funcs[i];
	return NULL;
}

void
assert_one_error_line(const struct run *r)
{
	const char *nl = strchr(r->err, '\n');

	if (strncmp(r->err, "profil: export: ", 16) != 0 || nl == NULL ||
	    nl[1] != '\0')
		fail_msg("want one 'profil: export:' line, got: %s", r->err);
}

void
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

void
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

int
has_frame(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *at = text; (at = strstr(at, name)) != NULL; at++)
		if ((at == text || at[-1] == ';') && (at[n] == ';' || at[n] == '\0'))
			return 1;
	return 0;
}

long
workload_line(const char *text, int at_start)
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
