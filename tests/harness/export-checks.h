/*
 * export-checks.h - what the tests of `profil export` share
 * (export-checks.c): exports read back by an independent decoder (the
 * pprof-format npm package, via tests/js/pprof-decode.js) into d, to be
 * compared with the .prf file itself, with the flat report and with the
 * folded stacks export.
 */
#ifndef PROFIL_TEST_EXPORT_CHECKS_H
#define PROFIL_TEST_EXPORT_CHECKS_H

#include <limits.h>
#include <stddef.h>

#include "e2e.h"

/* char var[]: NAME in the scratch directory (tmp() reuses 8 buffers). */
#define SCRATCH(var, name) char var[PATH_MAX]; \
	snprintf(var, sizeof var, "%s/%s", tmpdir, name)
/* src into the char array dst, cut to fit. */
#define COPY(dst, src) snprintf(dst, sizeof dst, "%s", src)

/*
 * Run argv with its whole standard output into *out (malloc'd: run()
 * keeps 64 KiB, and stacks take more), its standard error into err (cut
 * to fit); its exit status.
 */
int capture(char *const argv[], char **out, char *err, size_t err_size);

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

/* The last file decoded (decode). */
extern struct decoded d;
/* The sample types a decoded file must have: 2, 3 for a wall profile. */
extern size_t want_types;
/* The source tree: the nearest directory above the tests holding ours. */
extern char srcdir[PATH_MAX];

/*
 * The group's setup (cmocka): e2e_setup, the source tree found, and the
 * node that runs the decoder, if any.
 */
int export_setup(void **state);

/*
 * Skip without Node.js (apt-get install nodejs npm), unless under CI
 * (CI set, as .ci/run has it), which installs it: there it fails.  Then
 * install the pinned decoder into BUILD/tests/js once, failing if that
 * fails.
 */
void need_decoder(void);

/* Free n stacks of v and v. */
void free_stacks(struct folded_stack *v, size_t n);

/* Append a stack to *v (n of them, growing by doubling). */
void push_stack(struct folded_stack **v, size_t *n, const char *text,
    unsigned long long samples, size_t locations);

/* Decode a pprof file into d; the decoder must accept it. */
void decode(const char *path);

/* Samples of the code of symbol name, inlined functions included. */
unsigned long long pprof_symbol_samples(const char *name);

/* The function record of name, or NULL. */
const struct pprof_function *pprof_function(const char *name);

/* stderr holds exactly one line, a profil export error. */
void assert_one_error_line(const struct run *r);

/*
 * `profil record -q -F 5000 [--no-call-graph] -o prf PROGRAM...`, which
 * must succeed: with call stacks (perf engine) or without.  The
 * program's argument E2E_CPU, if any, is replaced by cpu.
 */
void record_stacks_or_not_at(const char *prf, char **prog, int stacks,
    const char *cpu);

/* Export prf to pb as pprof (with --inline if inlines), decode it into d. */
void export_and_decode(const char *prf, const char *pb, int inlines);

/*
 * The number of the first line of tests/programs/workload.c holding
 * text (with at_start, starting with it); fails the test if none.
 */
long workload_line(const char *text, int at_start);

/* 1 if folded text (a;b;c) has a frame named name. */
int has_frame(const char *text, const char *name);

#endif
