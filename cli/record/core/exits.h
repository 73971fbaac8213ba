/*
 * exits.h - how the program's descendants ended, when their own parents
 * reap them (cc1 and as by gcc, git's helpers by git): wait(2) tells the
 * parent only, and being a child subreaper helps with orphans alone.
 *
 * Where the kernel's process events may be read (the proc connector, in
 * the first network namespace only: not in a container with its own;
 * root only on older kernels, any user on newer ones, 6.18 here), every
 * descendant's exit comes with its wait status, however short it lived:
 * exact.  Besides, each process the
 * builder hears of is watched through a pidfd from then on.  From Linux
 * 6.15 the kernel keeps an ended process's wait status for its pidfds
 * (PIDFD_GET_INFO, PIDFD_INFO_EXIT), whoever reaped it: exact.  Before,
 * a process seen still a zombie has its status in /proc/PID/stat
 * (exit_code), read where the kernel shows it to us; one reaped first
 * stays PROFIL_EXIT_UNKNOWN ("ended").  So does a process that ended
 * before the recorder heard of it (its pidfd could not be opened): the
 * perf engine hears of a fork when it drains its rings (within 200 ms),
 * the timer engine of a process when its injected library starts.
 */
#ifndef PROFIL_RECORD_EXITS_H
#define PROFIL_RECORD_EXITS_H

#include <sys/types.h>

#include "builder.h"

struct exits;

/* Subscribes to the process events: before the program is forked. */
struct exits *exits_new(void);
/* The program's pid, once forked: its descendants are watched. */
void exits_root(struct exits *x, pid_t program);

/*
 * Watch the processes b heard of since the last call whose status it
 * does not know; then give b the status of each watched process that
 * has ended and been reaped (builder_exit_status) and stop watching it.
 * With final, also read the zombies' and stop watching every process.
 * Costs a poll(2) over the watched pidfds, and an ioctl per ended one.
 */
void exits_collect(struct exits *x, struct builder *b, int final);

/* Close every pidfd still open and free x (NULL: nothing). */
void exits_free(struct exits *x);

#endif
