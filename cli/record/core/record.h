/*
 * record.h - an engine of `profil record`, what it is handed and what it
 * gives back.  An engine runs the program to its end (or attaches to a
 * pid), feeding a builder; cmd-record.c holds the table of engines and
 * owns options and messages, prffile.h the file, launch.h the running of
 * the program.
 */
#ifndef PROFIL_RECORD_H
#define PROFIL_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "builder.h"

struct record_engine;
struct periods;

struct record_opts {
	char **argv;			/* program and arguments */
	unsigned rate_hz;		/* samples per CPU-second, about */
	uint64_t period_ns;		/* CPU time between samples, exactly */
	uint64_t samples;		/* --samples: a budget
					   (lib/sampler/budget.h), rate_hz
					   and period_ns where it starts;
					   0: a fixed rate */
	unsigned stack_size;		/* bytes of stack copied for call
					   stacks; 0: no call stacks */
	unsigned bucket_bytes;
	const struct record_engine *engine;	/* NULL: auto (cmd-record.c) */
	int follow_children;
	int wait_all;			/* go on until every descendant ends */
	int wall;			/* --wall: time off the CPU too */
	int quiet;
	int no_timeline;		/* --no-timeline: sums only */
	struct periods *periods;	/* --every: a profile a period, or
					   NULL (periods.h) */
};

/* A process whose CPU time the engine could not see (timer engine). */
struct record_unseen {
	pid_t pid;
	char comm[64];
	uint64_t cpu_ns;		/* of its CPU time, unseen */
	char why[160];			/* "it was started without ..." */
};

struct record_result {
	struct builder *builder;
	pid_t pid;			/* the program's pid */
	int status;			/* its wait status */
	int exec_errno;			/* nonzero: it could not be started */
	uint64_t cpu_ns;		/* CPU time of what was profiled: the
					   program, and its children unless
					   --no-children */
	uint64_t wall_ns;
	int kernel_sampled;		/* kernel-mode samples were allowed */
	uint64_t kernel_counted;	/* else: samples counted as the
					   kernel's from the threads' clocks
					   (kernel-time.h) */
	uint64_t throttled;		/* times the kernel throttled sampling */
	/* the profile's weights record (profil.h): what was taken, how */
	uint64_t taken, weight_sq, slowest_ns;
	/*
	 * Records of the memory the program shares with the recorder (the
	 * timer engine's region) that could not be true: refused, unread
	 */
	uint64_t refused;
	/* processes that ran unseen (timer-unseen.h), most CPU first */
	struct record_unseen *unseen;
	size_t nunseen;
	uint64_t unseen_ns;		/* their CPU time, summed */
	/* --wall: a process whose blocked stacks could not be read, why */
	pid_t wall_unreadable;
	int wall_unreadable_errno;
};

/*
 * An engine, as cmd-record.c's table of them has it (the way cli/profil.c
 * has its commands): `-e NAME` picks it, and auto the first that can run
 * here.  check (argv the program) returns 0, or -1 with a reason in
 * why[]; run runs the program to its end (with --wait-all, all it leaves
 * behind) and attach (NULL: it cannot) a running process until it exits
 * or we are told to stop, filling in r: 0, or -1 with a one-line cause in
 * cause[] ("cannot start ls: ..."); they print nothing, cmd-record.c
 * says it.
 */
struct record_engine {
	const char *name;		/* the profile's engine too */
	int (*check)(char *const *argv, char *why, size_t why_size);
	int (*run)(const struct record_opts *o, struct record_result *r,
	    char *cause, size_t cause_size);
	int (*attach)(const struct record_opts *o, pid_t pid,
	    struct record_result *r, char *cause, size_t cause_size);
	/* what it gives up, said when auto falls back to it (NULL: never) */
	const char *fallback_note;
};

#endif
