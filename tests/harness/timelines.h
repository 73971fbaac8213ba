/*
 * timelines.h - profiles made with known timelines, for test-timelineview
 * (timelines.c), and report --timeline's numbers read back.  The
 * profiles: one process (PID) of two threads.  Thread T1 runs a() until
 * A_END, is blocked in read(2), called by load_config through libc,
 * until R_END, then runs b(); thread T2 sleeps in clock_nanosleep,
 * called by worker, until S_END, then runs c().  The run is SPAN_NS
 * long, in slices of made_slice_ns.
 */
#ifndef PROFIL_TEST_TIMELINES_H
#define PROFIL_TEST_TIMELINES_H

#include <stdint.h>

#define MS		1000000ull
#define SPAN_NS		(2500 * MS)
/*
 * Slices of 10 ms unless set (the strips' tests count on it), or 2 ms as
 * a 2.5 s run's recorder has them.
 */
extern uint64_t made_slice_ns;
#define SLICE_NS	made_slice_ns
#define NSLICES		((int)(SPAN_NS / SLICE_NS))
#define MAX_SLICES	1250
#define PID		100
#define T1		100
#define T2		101
/* The truth, in ns after the start: inside slices 100, 150 and 120 */
#define A_END		1004500000ull
#define R_END		1507200000ull
#define S_END		1203100000ull

enum { MADE_WALL = 1, MADE_NOISE = 2, MADE_NO_TIMELINE = 4,
	MADE_PREEMPTED = 8 };

/*
 * The profile of the truth (simulate), saved to path: a wall profile
 * with MADE_WALL (else the CPU part alone), noisy with MADE_NOISE, on a
 * busy machine with MADE_PREEMPTED (thread 1 runnable four fifths of
 * its a(), and 90 ms in clock_gettime() called by b(), from 2 s), and
 * with MADE_NO_TIMELINE as profil wrote them before timelines.
 */
void save_made(const char *path, int how, uint64_t seed);

/*
 * The same program's profile without call stacks (record
 * --no-call-graph), saved to path: 5 samples in a(), no timeline.
 */
void save_flat(const char *path);

/* argv's standard output into the file at path; its exit status. */
int run_to_file(char *const argv[], const char *path);

/* The file at path, malloc'd and NUL-ended. */
char *slurp(const char *path);

/*
 * report --timeline --format csv of prf, with option (or NULL: none;
 * "--limit": --limit 1), parsed into t (csv-table.h): through a file,
 * for a CSV of 2 threads of 1,250 slices is more than a test's pipe
 * reads.
 */
struct csv;
void timeline_csv(struct csv *t, const char *prf, const char *option);

#endif
