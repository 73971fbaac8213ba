/*
 * launch.h - the program run by the recorder: started as a child stopped
 * before its exec, let go once the engine is ready for it, its signals
 * watched, it and the processes it leaves behind reaped, and how each
 * ended told to the builder (exits.h).
 */
#ifndef PROFIL_RECORD_LAUNCH_H
#define PROFIL_RECORD_LAUNCH_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"

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

#endif
