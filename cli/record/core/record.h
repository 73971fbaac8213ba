/*
 * record.h - what `profil record` hands its engines, and what they give
 * back.  An engine runs the program to its end (or attaches to a pid),
 * feeding a builder; cmd-record.c owns options and messages, output.h the
 * file.
 */
#ifndef PROFIL_RECORD_H
#define PROFIL_RECORD_H

#include <signal.h>
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

/*
 * The options of `profil record` (argv as main gets it, argv[0] the
 * command's name).  Returns -1 when the command should go on (o->argv is
 * then set by the caller from optind), or the exit status to end with
 * (after --help, or a one-line message about a bad option).
 */
int record_parse(int argc, char **argv, struct record_opts *o,
    const char **output, pid_t *attach);

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
 * The program as a child stopped before exec: it execs when launch_go()
 * is called.  Signals the recorder watches are blocked in the recorder
 * and restored in the child.  The recorder is made a child subreaper, so
 * processes the program leaves behind (a daemon, `sh -c 'prog &'`) become
 * its children when their parent ends: it can tell they still run, wait
 * for them, and count their CPU time.
 */
struct launch {
	pid_t pid;
	int go_fd;			/* write a byte: exec now */
	int error_fd;			/* exec's errno arrives here, or EOF */
	sigset_t watched;		/* blocked in the recorder */
	int signal_fd;			/* signalfd for the watched signals */
	int exited;			/* the program has ended: */
	int status;			/*   its wait status */
	uint64_t cpu_ns;		/*   its CPU time, waited-for children in */
	uint64_t own_cpu_ns;		/*   the same without them */
	int stop;			/* we were asked to stop (SIGINT, ...) */
	/*
	 * The engine's builder, set after launch_prepare: how every process
	 * in it ended goes there, orphans we reap and descendants their
	 * parents reap alike (exits.h)
	 */
	struct builder *builder;
	struct exits *exits;
};
/*
 * Hold the signals the recorder watches from now on (a SIGTERM while it
 * prepares is then handled as later ones are, not fatal with the
 * temporary output file left behind); the program still starts with the
 * mask the recorder had before.
 */
void launch_hold_signals(void);
/* Returns the pid, or -1 with errno. */
int launch_prepare(struct launch *l, char **argv);
/* Let the child exec; returns 0, or the errno of a failed exec. */
int launch_go(struct launch *l);
/*
 * Handle the watched signals pending on l->signal_fd: reap the program
 * (sets l->exited, l->status and its CPU times) and orphans that ended,
 * learn how the program's other descendants ended (exits.h; both into
 * l->builder), pass on a SIGINT, SIGTERM, SIGHUP or SIGQUIT sent to the
 * recorder by another process (a terminal's Ctrl-C already reached the
 * program itself) and note in l->stop that one came.
 */
void launch_poll(struct launch *l);
/* 1 while processes the program started and left behind still run. */
int launch_descendants(const struct launch *l);
/* 1 if process pid exists and has not ended (not a zombie). */
int launch_alive(pid_t pid);
/*
 * After an engine's run: the program's status and the CPU time of what
 * was profiled into r (the program alone with --no-children), the
 * statuses of the descendants that ended last, and every process of r's
 * builder still running marked PROFIL_EXIT_RUNNING.
 */
void launch_finish(struct launch *l, const struct record_opts *o,
    struct record_result *r);
void launch_close(struct launch *l);

/* perf_event_paranoid, or 3 if unreadable. */
int perf_paranoid(void);
/*
 * The engines run the program (record_perf, record_timer) or attach to
 * running process pid until it exits or we are told to stop
 * (record_perf_attach), filling in r.  Each returns 0, or -1 with a
 * one-line cause in cause[] ("cannot start ls: ..."): they print
 * nothing, cmd-record.c says it.
 */
/* 0 if the perf engine can run here; -1 with a reason in why[]. */
int record_perf_check(char *why, size_t why_size);
int record_perf(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size);
int record_perf_attach(const struct record_opts *o, pid_t pid,
    struct record_result *r, char *cause, size_t cause_size);
/*
 * The command line of running process pid as a NULL-terminated vector of
 * malloc'd strings (its name where it has none: a kernel thread, a
 * zombie): what an attached profile's argv says.
 */
char **record_attach_argv(pid_t pid);

/* 0 if the timer engine can profile argv[0]; -1 with a reason in why[]. */
int record_timer_check(char *const *argv, char *why, size_t why_size);
int record_timer(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size);

#endif
