/*
 * e2e.h - helpers of the end-to-end tests: run the built `profil`
 * command and the workloads beside the test binaries, in a scratch
 * directory made by e2e_setup and removed by e2e_teardown (cmocka group
 * fixtures).
 */
#ifndef PROFIL_TEST_E2E_H
#define PROFIL_TEST_E2E_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

/* Paths found by e2e_setup: build dir of the tests, the command, workloads. */
extern char bindir[PATH_MAX - 64], profil_bin[PATH_MAX], workload[PATH_MAX];
extern char workload_static[PATH_MAX], cxx_workload[PATH_MAX], tmpdir[];

struct run {
	int status;		/* exit code, or 128 + signal */
	char out[65536], err[8192];
};

enum { TO_GROUP, TO_RECORDER, TO_CHILD };

/*
 * Run argv (NULL-terminated) with stdin from input, in its own process
 * group; kill_after_ms > 0 sends sig to the group (or the recorder, or
 * its child) then.
 */
void run_full(struct run *r, char *const argv[], const char *input, int sig,
    int whom, unsigned kill_after_ms);
void run(struct run *r, char *const argv[]);

/*
 * argv as an ordinary user runs it: behind setpriv to nobody when the
 * tests run as root (the scratch directory opened to it), as it is
 * otherwise.  A static vector (one at a time); NULL where there is no
 * setpriv to run it with, which the caller skips on.
 */
char *const *e2e_as_user(char *const argv[]);

/*
 * Tests wait on a condition, never on a sleep.  Run argv as run() does,
 * calling act(pid, arg) about every 2 ms while it runs (pid: argv's)
 * until act returns nonzero, having done what the test waited to do (a
 * signal sent, a FIFO written); then wait for argv's end.  Fails the
 * test if argv ends first, or if act is not done within_s seconds on.
 */
void run_acting(struct run *r, char *const argv[],
    int (*act)(pid_t pid, void *arg), void *arg, double within_s);

/* What a test's condition looks at, in /proc: */
/* pid's first child, or 0. */
pid_t e2e_child_of(pid_t pid);
/* 1 if pid runs the program at path (has exec'd it). */
int e2e_runs(pid_t pid, const char *path);
/* pid's CPU time so far (the kernel's, in schedstat), or -1 (gone). */
double e2e_cpu_seconds(pid_t pid);
/* 1 if process holder has a pidfd of process pid open. */
int e2e_holds_pidfd(pid_t holder, pid_t pid);
/* 1 if process holder has a perf event open (a recorder's: attached). */
int e2e_holds_perf_event(pid_t holder);

/* NAME inside the scratch directory (8 rotating buffers). */
const char *tmp(const char *name);
/*
 * NAME in the scratch directory, in buf (PATH_MAX bytes): for paths that
 * must outlive the rotation of tmp()'s buffers.
 */
char *scratch(char *buf, const char *name);
/* 1 if there is a file at path. */
int exists(const char *path);

/*
 * A phase of tests/programs/phases.c as it timed it ("phase NAME START
 * END" on its stderr, err): seconds after start_ns (a profile's start).
 * Fails the test if err has no such line.
 */
struct e2e_phase {
	double t0, t1;
};
struct e2e_phase e2e_phase_of(const char *err, const char *name,
    int64_t start_ns);
/*
 * 1 if slice (of slice_s seconds, from the same start) meets phase ph
 * widened by a slice on each side: where a timeline may put what
 * happened in the phase.
 */
int e2e_in_phase(const struct e2e_phase *ph, double slice_s, uint32_t slice);

/* One line on stderr, from the named subcommand. */
void assert_one_line(const struct run *r, const char *command);

/*
 * p without its timeline: for a test that changes a recorded profile's
 * stacks and saves it (a timeline must sum to the stacks, or the file is
 * refused).
 */
struct profil_profile;
void e2e_drop_timeline(struct profil_profile *p);

/* Total samples of prf as `profil check` states them. */
unsigned long long checked_samples(const char *prf);

/* The folded stacks of prf (export --format folded -o -) in r. */
void e2e_folded(const char *prf, struct run *r);

/* The flat profile of prf as CSV, and its total sample count. */
struct shares {
	double total;
	/*
	 * the profile's error scale (e2e_error_scale): its counts are worth
	 * total / scale samples of equal weight (1 from report_run)
	 */
	double scale;
	char csv[65536];
};
void report(struct shares *s, const char *prf);
/* The same for a report command line of one's own (--format csv in it). */
void report_run(struct shares *s, char *const argv[]);
/* Samples of function in prf's flat CSV. */
double flat_samples(const char *prf, const char *function);

/*
 * The next field of a CSV line at *at (quoted or not: "" is a quote) into
 * buf (size bytes, cut to fit); *at moves past it and its comma.  0 at
 * the line's end.
 */
int csv_field(const char **at, char *buf, size_t size);
/* Samples of a function (or object when function is NULL) in the CSV. */
double samples_of(const struct shares *s, const char *function,
    const char *object);

/*
 * `profil record -q -F 5000 -e ENGINE -o prf PROGRAM...`, which must
 * succeed.  Under sanitizers (PROFIL_TEST_SANITIZED) the recorder is
 * several times slower: stacks copy 8 KiB, a test program of flat shares
 * that sets e2e_flat_when_sanitized takes none, and one may lower the rate.
 */
extern int e2e_flat_when_sanitized;
/* the rate then ("5000"), for a test program whose stacks must be unwound */
extern const char *e2e_rate_when_sanitized;
/* record_with's rate, for the commands written out in a test ("5000") */
char *e2e_rate_arg(void);
void record_with(const char *engine, const char *prf, char **program);
/* The same, the run (the program's output among it) left in r. */
void record_run(struct run *r, const char *engine, const char *prf,
    char **program);
void record_ok(const char *prf, char **program);

/*
 * Runs sized by the samples a check needs, not by an amount of work (the
 * workloads take CPU seconds: tests/programs/workload.c).  The rate record_run
 * samples at; the samples a share p needs for k standard errors to come
 * to `within` (a fraction: 0.025 for 2.5 points).
 */
double e2e_rate(void);
double e2e_samples_for_share(double p, double k, double within);

/*
 * Samples for at least `least` of them to fall in a share p, k standard
 * errors to spare: the n with p n - k sqrt(p (1 - p) n) = least.
 */
double e2e_samples_for_count(double least, double p, double k);

/*
 * Start-up and exit (exec, the loader, page faults) take samples outside
 * the program's code: 4 to 9 at 5 kHz here, E2E_STARTUP allowed.  The
 * samples for a share p of the program's own time to come out at least
 * `least` of all samples: half the room between them for 4 standard
 * errors, half for start-up's.
 */
#define E2E_STARTUP	20
double e2e_samples_for_share_above(double p, double least);

/* The samples of a flat profile in workload's six, three and one. */
double e2e_split_samples(const struct shares *s);

/*
 * argv (at most max - 1 entries and a NULL) from program, its E2E_CPU
 * arguments replaced by cpu.
 */
void e2e_program_for(char **argv, size_t max, char **program, char *cpu);

/*
 * The CPU seconds, as a workload's argument, for a program that uses
 * `per` CPU-seconds for each second asked (4 for 4 threads) to give
 * `samples` samples at record_run's rate, with room for start-up and the
 * recorder's own losses.  In rotating buffers, as tmp().
 */
const char *e2e_cpu_for(double samples, double per);

/*
 * record_run (engine, prf) of program, whose argument E2E_CPU stands for
 * the CPU seconds, sized for need samples as counted by count (NULL: all
 * of the flat profile's), as many as they are worth (count over the
 * profile's e2e_error_scale: the timer engine without perf events takes
 * one a tick, each weighing the intervals it stands for); the flat
 * profile in s, the run in r.  Short of need, it runs again, longer by
 * what was missing (3 runs at most, then fails): a check never goes
 * without the samples it asked for.  record_run of -e perf where perf
 * events are refused skips the test.
 */
#define E2E_CPU "@cpu"
/*
 * The sizing step of record_for, for a test that runs its program its own
 * way: the CPU seconds for the next run, given that one of cpu seconds
 * gave got of need samples (failing at the fourth run short of need).
 */
double e2e_longer(double cpu, double got, double need, int *runs);
void record_for(struct shares *s, struct run *r, const char *engine,
    const char *prf, char **program, double per, double need,
    double (*count)(const struct shares *));

/*
 * Multiply every count of p by k (samples, kernel, unknown, lost, each
 * object's and bucket's, the kernel record's, threads', processes',
 * stacks' and their timeline's, the samples taken and their squared
 * weights): the same profile, k times as long.
 */
struct profil_profile;
/*
 * n more samples of weight 1 in p's totals of samples taken and squared
 * weights (if p has them): for a test that adds samples to a profile.
 */
void add_unit_weights(struct profil_profile *p, uint64_t n);
/*
 * p's samples k times over, everywhere they are counted (objects,
 * threads, processes, stacks and their timeline, weights); its time off
 * the CPU as it was.
 */
void scale_profile(struct profil_profile *p, uint64_t k);

/*
 * The words that run what follows them as user nobody (setpriv, its
 * groups cleared) into argv: how many, or 0 when the test does not run
 * as root and cannot switch.  A run whose stderr then says "setpriv:"
 * could not switch either.
 */
size_t e2e_as_nobody(char **argv);

/*
 * The half-width of Wilson's 95% interval, in points, of the share k of
 * n counts worth n / scale samples of equal weight (scale 1: unweighted):
 * the error the views give a share of CPU samples, written out here for
 * the tests to check theirs against.  0 when n is 0.
 */
double e2e_wilson95(double k, double n, double scale);
/* A profile's error scale: its squared weights over its samples, or 1. */
double e2e_error_scale(const struct profil_profile *p);
/* The same of the profile in file prf, 1 if it cannot be read. */
double e2e_prf_error_scale(const char *prf);


/*
 * The group's setup (cmocka): the scratch directory made, the command and
 * the workloads found beside the test, POSIXLY_CORRECT unset (the tests
 * give options after operands, as GNU getopt reads them).
 */
int e2e_setup(void **state);
int e2e_teardown(void **state);

#endif
