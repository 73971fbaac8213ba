/*
 * record.h - what `profil record` hands its engines, and what they give
 * back.  An engine runs the program to its end (or attaches to a pid),
 * feeding a builder; cmd-record.c owns options and messages, output.h the
 * file, launch.h the running of the program.
 */
#ifndef PROFIL_RECORD_H
#define PROFIL_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "builder.h"

enum { ENGINE_AUTO, ENGINE_PERF, ENGINE_TIMER };

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
	int engine;
	int follow_children;
	int wait_all;			/* go on until every descendant ends */
	int wall;			/* --wall: time off the CPU too */
	int quiet;
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
#endif
