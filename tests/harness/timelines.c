/*
 * timelines.c - the profiles of test-timelineview (timelines.h): two
 * threads whose every phase is known, sampled at 1 kHz into a timeline,
 * saved as profil writes them (draws are xorshift's: the same on every
 * run); and report --timeline's CSV read, for it and test-phases.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "csv-table.h"
#include "e2e.h"
#include "harness.h"
#include "profiles.h"
#include "timelines.h"

uint64_t made_slice_ns = 10 * MS;

#define NR_READ		0
#define NR_CLOCK_NANOSLEEP 230

/* The program's functions: object 0 at 0x1000 + 0x100 * i. */
enum { F_MAIN, F_A, F_B, F_C, F_LOAD, F_WORKER, F_NOISE, NNOISE = 5,
	NFUNCS = F_NOISE + NNOISE };
static const char *const func_names[NFUNCS] = { "main", "a", "b", "c",
	"load_config", "worker", "noise0", "noise1", "noise2", "noise3",
	"noise4" };
/* libc's (object 1) at 0x100 * (i + 1) */
enum { L_READ, L_SLEEP, L_START, L_CLOCK, NLIBC };
static const char *const libc_names[NLIBC] = { "read", "clock_nanosleep",
	"start_thread", "clock_gettime" };

/*
 * The stacks, leaf first; thread 1's before S_C.  S_RUN_A and S_RUN_CLOCK
 * are time runnable (MADE_PREEMPTED): in a(), and in clock_gettime()
 * called by b() for the pause of PAUSE_NS from PAUSE_AT.
 */
enum { S_A, S_B, S_READ, S_RUN_A, S_RUN_CLOCK, S_NOISE1,
	S_C = S_NOISE1 + NNOISE, S_SLEEP, S_NOISE2,
	NSTACKS = S_NOISE2 + NNOISE };
#define PAUSE_AT	(2000 * MS)
#define PAUSE_NS	(90 * MS)

static struct profil_frame
leaf(int f)
{
	return (struct profil_frame){ 0, 0x1010 + 0x100 * (uint64_t)f };
}

static struct profil_frame
call(int f)
{
	return (struct profil_frame){ 0, 0x1020 + 0x100 * (uint64_t)f };
}

static struct profil_frame
libc_call(int f)
{
	return (struct profil_frame){ 1, 0x120 + 0x100 * (uint64_t)f };
}

/* Stack s's frames into fr; its depth. */
static size_t
frames_of(int s, struct profil_frame *fr)
{
	if (s == S_A || s == S_B || (s >= S_NOISE1 && s < S_NOISE1 + NNOISE)) {
		fr[0] = leaf(s == S_A ? F_A : s == S_B ? F_B :
		    F_NOISE + s - S_NOISE1);
		fr[1] = call(F_MAIN);
		return 2;
	}
	if (s == S_READ) {
		fr[0] = (struct profil_frame){ PROFIL_FRAME_OFFCPU, NR_READ };
		fr[1] = libc_call(L_READ);
		fr[2] = call(F_LOAD);
		fr[3] = call(F_MAIN);
		return 4;
	}
	if (s == S_RUN_A || s == S_RUN_CLOCK) {
		fr[0] = (struct profil_frame){ PROFIL_FRAME_OFFCPU,
		    PROFIL_OFFCPU_RUNNABLE };
		if (s == S_RUN_A) {
			fr[1] = leaf(F_A);
			fr[2] = call(F_MAIN);
			return 3;
		}
		fr[1] = libc_call(L_CLOCK);
		fr[2] = call(F_B);
		fr[3] = call(F_MAIN);
		return 4;
	}
	if (s == S_SLEEP) {
		fr[0] = (struct profil_frame){ PROFIL_FRAME_OFFCPU,
		    NR_CLOCK_NANOSLEEP };
		fr[1] = libc_call(L_SLEEP);
		fr[2] = call(F_WORKER);
		fr[3] = libc_call(L_START);
		return 4;
	}
	fr[0] = leaf(s == S_C ? F_C : F_NOISE + s - S_NOISE2);
	fr[1] = call(F_WORKER);
	fr[2] = libc_call(L_START);
	return 3;
}

static int
off_stack(int s)
{
	return s == S_READ || s == S_SLEEP || s == S_RUN_A ||
	    s == S_RUN_CLOCK;
}

/* xorshift64*: the same draws on every run, whatever the C library. */
static uint64_t
next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1Dull;
}

/* What thread tid ran at t on the CPU (its stack), or -1: off it. */
static int
running(uint32_t tid, uint64_t t)
{
	if (tid == T1)
		return t < A_END ? S_A : t < R_END ? -1 : S_B;
	return t < S_END ? -1 : S_C;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
	uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? hi - lo : 0;
}

/*
 * The timeline of the truth into v[stack][slice]: a sample every 1 ms on
 * the CPU (with MADE_NOISE, every 0.5 to 1.5 ms, and one in ten in a
 * random noise function instead), and the time off the CPU, to the ns;
 * with MADE_PREEMPTED, thread 1 on the CPU a fifth of its a() and not
 * at all in its pause in b(), runnable the rest.
 */
static void
simulate(uint64_t v[NSTACKS][MAX_SLICES], int how, uint64_t seed)
{
	int noise = how & MADE_NOISE, preempted = how & MADE_PREEMPTED;

	memset(v, 0, sizeof(uint64_t) * NSTACKS * MAX_SLICES);
	for (int th = 0; th < 2; th++) {
		uint32_t tid = th == 0 ? T1 : T2;
		uint64_t t = MS / 2;

		while (t < SPAN_NS) {
			int s = running(tid, t);

			if (preempted && s == S_A && (t / MS) % 5 != 0)
				s = -1;		/* runnable */
			if (preempted && s == S_B && t >= PAUSE_AT &&
			    t < PAUSE_AT + PAUSE_NS)
				s = -1;
			if (s >= 0 && noise && next_random(&seed) % 10 == 0)
				s = (th == 0 ? S_NOISE1 : S_NOISE2) +
				    (int)(next_random(&seed) % NNOISE);
			if (s >= 0)
				v[s][t / SLICE_NS]++;
			t += noise ? MS / 2 + next_random(&seed) % MS : MS;
		}
	}
	for (uint64_t k = 0; k < (uint64_t)NSLICES; k++) {
		v[S_READ][k] = overlap(A_END, R_END, k * SLICE_NS,
		    (k + 1) * SLICE_NS);
		v[S_SLEEP][k] = overlap(0, S_END, k * SLICE_NS,
		    (k + 1) * SLICE_NS);
		if (!preempted)
			continue;
		v[S_RUN_A][k] = overlap(0, A_END, k * SLICE_NS,
		    (k + 1) * SLICE_NS) / 5 * 4;
		v[S_RUN_CLOCK][k] = overlap(PAUSE_AT, PAUSE_AT + PAUSE_NS,
		    k * SLICE_NS, (k + 1) * SLICE_NS);
	}
}

static void
add_symbols(struct profil_profile *p)
{
	p->nsymbols = NFUNCS + NLIBC;
	p->symbols = xcalloc(p->nsymbols, sizeof *p->symbols);
	for (int i = 0; i < NFUNCS; i++)
		p->symbols[i] = (struct profil_symbol){ 0, 0x1000 + 0x100 *
		    (uint64_t)i, 0x1100 + 0x100 * (uint64_t)i,
		    xstrdup(func_names[i]) };
	for (int i = 0; i < NLIBC; i++)
		p->symbols[NFUNCS + i] = (struct profil_symbol){ 1, 0x100 *
		    (uint64_t)(i + 1), 0x100 * (uint64_t)(i + 2),
		    xstrdup(libc_names[i]) };
}

void
save_made(const char *path, int how, uint64_t seed)
{
	static uint64_t v[NSTACKS][MAX_SLICES];
	static const struct profil_bucket no_buckets[1];
	struct profil_profile *p = new_profile(1);
	uint32_t index[NSTACKS];
	uint64_t samples[2] = { 0, 0 };
	size_t nentries = 0;
	char cause[256];

	simulate(v, how, seed);
	add_object(p, "/nonexistent/timeline/app", 0, 0x1000,
	    0x1000 + 0x100 * NFUNCS, 1, no_buckets, 0);
	add_object(p, "/nonexistent/timeline/libc.so.6", 0, 0x100,
	    0x100 * (NLIBC + 1), 1, no_buckets, 0);
	add_symbols(p);
	for (int s = 0; s < NSTACKS; s++) {
		struct profil_frame fr[4];
		size_t depth = frames_of(s, fr);
		uint64_t total = 0;

		for (int k = 0; k < NSLICES; k++)
			total += v[s][k];
		index[s] = UINT32_MAX;
		if (total == 0 || (off_stack(s) && !(how & MADE_WALL)))
			continue;
		index[s] = (uint32_t)p->nstacks;
		add_stack(p, PID, s < S_C ? T1 : T2, total, depth, fr);
		if (!off_stack(s))
			samples[s < S_C ? 0 : 1] += total;
	}
	p->threads = xcalloc(2, sizeof *p->threads);
	p->threads[0] = (struct profil_thread){ PID, T1, xstrdup("phases"),
	    samples[0] };
	p->threads[1] = (struct profil_thread){ PID, T2, xstrdup("worker"),
	    samples[1] };
	p->nthreads = 2;
	p->processes = xcalloc(1, sizeof *p->processes);
	p->processes[0] = (struct profil_process){ PID, 1, xstrdup("app"), 0,
	    p->samples };
	p->nprocesses = 1;
	p->cpu_ns = p->samples * p->interval_ns;
	p->duration_ns = SPAN_NS;
	p->taken = p->weight_sq = p->samples;
	if (how & MADE_WALL)
		make_wall(p, 5 * MS, 1000, 10, 0);
	if (!(how & MADE_NO_TIMELINE)) {
		p->slice_ns = SLICE_NS;
		p->nslices = NSLICES;
		p->timeline = xcalloc(NSTACKS * NSLICES, sizeof *p->timeline);
		/* stacks were numbered in the order of s: entries sorted */
		for (int s = 0; s < NSTACKS; s++)
			for (int k = 0; k < NSLICES && index[s] != UINT32_MAX;
			    k++)
				if (v[s][k] > 0)
					p->timeline[nentries++] =
					    (struct profil_timeline_entry){
					    index[s], (uint32_t)k, v[s][k] };
		p->ntimeline = nentries;
	}
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
}

void
save_flat(const char *path)
{
	static const struct profil_bucket buckets[] = { { 0x1110, 5 } };
	struct profil_profile *p = new_profile(1);
	char cause[256];

	add_object(p, "/nonexistent/timeline/app", 0, 0x1000,
	    0x1000 + 0x100 * NFUNCS, 1, buckets, 1);
	add_object(p, "/nonexistent/timeline/libc.so.6", 0, 0x100,
	    0x100 * (NLIBC + 1), 1, buckets, 0);
	add_symbols(p);
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
}

/* ---- the view's numbers ---------------------------------------------- */

/* argv's standard output into the file at path; its exit status. */
int
run_to_file(char *const argv[], const char *path)
{
	int status, fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	pid_t pid;

	assert_true(fd >= 0);
	if ((pid = fork()) == 0) {
		dup2(fd, STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The file at path, malloc'd and NUL-ended. */
char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = xcalloc((size_t)n + 1, 1);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/*
 * report --timeline --format csv of prf, with option (or NULL), parsed
 * into t: through a file, for a CSV of 2 threads of 1,250 slices is
 * more than a test's pipe reads.
 */
void
timeline_csv(struct csv *t, const char *prf, const char *option)
{
	char path[PATH_MAX];
	char *argv[] = { profil_bin, "report", "--timeline", "--format", "csv",
	    (char *)prf, (char *)option, option != NULL ? "1" : NULL, NULL };
	char *text;

	scratch(path, "timeline.csv");
	if (option != NULL && strcmp(option, "--limit") != 0)
		argv[7] = NULL;		/* an option without a value */
	assert_int_equal(run_to_file(argv, path), 0);
	text = slurp(path);
	csv_parse(t, text);
	free(text);
}
