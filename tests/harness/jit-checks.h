/*
 * jit-checks.h - what the end-to-end tests of generated code share
 * (tests/e2e/test-jit.c, tests/e2e/test-jitlate.c):
 * tests/programs/jit-workload.c run under `profil record` for the samples a
 * check needs, what the program said it measured (the CPU of each generated
 * function, on its own clock), and the checks of a profile against that.
 * Shares are held to the program's measure within 4 standard errors of the
 * sample count (and half a point for what is not sampling's); too few samples
 * fail, never pass.
 */
#ifndef PROFIL_TEST_JIT_CHECKS_H
#define PROFIL_TEST_JIT_CHECKS_H

#include <limits.h>
#include <stddef.h>

#include "e2e.h"

/* build/tests/jit-workload (jit_checks_setup). */
extern char jit_wl[PATH_MAX];

/* e2e_setup, and jit_wl found: a cmocka group fixture. */
int jit_checks_setup(void **state);

/*
 * The split's check: 3 points at most for the widest share, as
 * test-record holds workload's 6:3:1; a function moved or reused and
 * named for half its time is off by 10 points or more.
 */
#define SPLIT_POINTS	3.0

/*
 * Of the program's samples, what the three generated functions of a
 * pass have: 10 of its 12 units, c_leaf's loop (a volatile) slower, 83%
 * here; 80% counted when sizing a run.
 */
#define JIT_SHARE	0.8

/*
 * Generated functions whose CPU the program measured: the names the
 * profile must give them, the C function that calls each, and the CPU
 * of the rest of the program's passes (c_leaf).
 */
struct jit_split {
	int n;
	const char *name[3], *caller[3];
	double cpu[3], other;
};

/* The number after "key " in out, key at a line's start or after a space. */
double said(const char *out, const char *key);
/* workload's line "PREFIX_six X PREFIX_three Y PREFIX_one Z c_leaf W" */
void split_said(struct jit_split *sp, const char *out, const char *prefix,
    const char *const names[3]);

/* The samples of prf, and how many counts a sample weighs for precision. */
void profile_counts(const char *prf, double *samples, double *scale);
double weight_scale(const char *prf);
/* Whether fn names the function js as a word ("JS:*hotA /x.js:3"). */
int names_js(const char *fn, const char *js);
/* Samples of the flat profile's functions that name js so. */
double samples_of_js(const struct shares *s, const char *js);
/* The flat profile's top rows, for a failure to show. */
const char *top_rows(const struct shares *s);

/*
 * The generated code's samples are named: of those in user code, the
 * share the program measured in the functions, less 2% and 4 standard
 * errors and start-up's, carry their names.
 */
void assert_named(const struct shares *s, const struct jit_split *sp,
    double scale, const char *what);
/* Every sample of a generated function has [jit] for its object. */
void assert_jit_object(const struct shares *s, const struct jit_split *sp,
    const char *what);
/* Their shares of their samples are what the program measured. */
void assert_split_as_measured(const struct shares *s,
    const struct jit_split *sp, double scale, double points,
    const char *what);

/* The folded stacks of prf (a buffer of their own, until the next call). */
const char *folded(const char *prf, struct run *r);
/* One stack of the folded export: frames outermost first, and its count. */
struct fstack {
	char buf[16384];
	const char *f[512];
	int n;
	double count;
};

int next_stack(const char **at, struct fstack *st);
int has_frame(const struct fstack *st, const char *fn, int prefix);
int ends_with(const struct fstack *st, const char *const *tail, int k);
/* A stack left unwound for the recorder to catch up: not the unwinder's. */
int behind(const struct fstack *st);
/* The samples a check that 90% of some stacks are whole needs. */
double most_need(void);
void assert_most(double whole, double all, const char *what,
    const char *which, const char *stacks);
/*
 * 90% of the stacks with a generated function as their leaf read
 * main;...;CALLER;FUNCTION, and (calls_c) 90% of c_leaf's read
 * main;...;call_back;jit_calls_c;c_leaf.
 */
void assert_jit_stacks_in(const char *stacks, const struct jit_split *sp,
    int calls_c, const char *what);
void assert_jit_stacks(const char *prf, const struct jit_split *sp,
    int calls_c, const char *what);

/* A runtime's program recorded as record_for does, its rows of 0.1%+ in s. */
void record_runtime(struct shares *s, struct run *r, const char *engine,
    const char *prf, char **prog, double need);
/* name on the PATH, into path (size bytes); 0 if there is none. */
int find_program(const char *name, char *path, size_t size);
/* Skip the perf engine's test where perf events are refused. */
void need_perf(const char *engine);
/* The program's file is gone (it removes it at exit): fail if not. */
void assert_gone(const char *path, const char *what);
/* jit-workload MODE for the CPU that need samples take (record_for). */
void record_mode(struct shares *s, struct run *r, const char *engine,
    const char *prf, const char *mode, double per, double need);
/* The samples the generated code's split needs of the whole run. */
double split_need(double points);

#endif
