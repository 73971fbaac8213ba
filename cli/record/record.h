/*
 * record.h - what `profil record` hands its engines, and what they give
 * back.  An engine runs the program to its end (or attaches to a pid),
 * feeding a builder; cmd-record.c owns options, the file and messages.
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
	unsigned rate_hz;
	unsigned bucket_bytes;
	int engine;
	int follow_children;
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

struct record_result {
	struct builder *builder;
	pid_t pid;			/* the program's pid */
	int status;			/* its wait status */
	int exec_errno;			/* nonzero: it could not be started */
	uint64_t cpu_ns;		/* CPU time of the program and children */
	uint64_t wall_ns;
	int kernel_sampled;		/* kernel-mode samples were allowed */
};

/*
 * The program as a child stopped before exec: it execs when launch_go()
 * is called.  Signals the recorder watches are blocked in the recorder
 * and restored in the child.  Returns the pid, or -1 with errno.
 */
struct launch {
	pid_t pid;
	int go_fd;			/* write a byte: exec now */
	int error_fd;			/* exec's errno arrives here, or EOF */
	sigset_t watched;		/* blocked in the recorder */
	int signal_fd;			/* signalfd for the watched signals */
};
int launch_prepare(struct launch *l, char **argv);
/* Let the child exec; returns 0, or the errno of a failed exec. */
int launch_go(struct launch *l);
/*
 * Handle the watched signals pending on l->signal_fd: reap the child
 * (sets *done and *status when it has ended) and pass on a SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT sent to the recorder by another process (a
 * terminal's Ctrl-C already reached the program itself).
 */
void launch_signals(struct launch *l, int *done, int *status);
void launch_close(struct launch *l);

/* perf_event_paranoid, or 3 if unreadable. */
int perf_paranoid(void);
/* 0 if the perf engine can run here; -1 with a reason in why[]. */
int record_perf_check(char *why, size_t why_size);
int record_perf(const struct record_opts *o, struct record_result *r);
/* Attach to running process pid until it exits or we are told to stop. */
int record_perf_attach(const struct record_opts *o, pid_t pid,
    struct record_result *r);

/* 0 if the timer engine can profile argv[0]; -1 with a reason in why[]. */
int record_timer_check(char *const *argv, char *why, size_t why_size);
int record_timer(const struct record_opts *o, struct record_result *r);

#endif
