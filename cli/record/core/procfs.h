/*
 * procfs.h - what the recorder reads of processes and threads in /proc,
 * read and parsed in one place: a task's stat (its name, state, parent,
 * CPU times and start), its schedstat (time on the CPU, waiting for one,
 * and times run) and its name (comm); a process's threads, and a
 * thread's children.  The parsers take the bytes as read, whatever they
 * are (a fuzz target feeds them anything): a field they cannot find
 * whole is an error, never a guess.
 */
#ifndef PROFIL_RECORD_PROCFS_H
#define PROFIL_RECORD_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCFS_COMM_MAX	64	/* bytes kept of a name, NUL included */

struct procfs_stat {
	/* the name between the first '(' and the last ')', cut to fit */
	char comm[PROCFS_COMM_MAX];
	char state;			/* R, S, D, T, t, Z, X, ... */
	pid_t ppid;			/* 0: none (init, a kernel thread) */
	uint64_t utime, stime;		/* clock ticks of its own */
	uint64_t cutime, cstime;	/* of the children it waited for */
	uint64_t starttime;		/* clock ticks after boot */
};

struct procfs_schedstat {
	uint64_t run_ns;		/* on the CPU */
	uint64_t wait_ns;		/* runnable, waiting for a CPU */
	uint64_t slices;		/* times it ran */
};

/*
 * A stat file's n bytes ("PID (NAME) STATE PPID ... STARTTIME ...") into
 * *st: 0, or -1 if a field up to starttime (the 22nd) is missing or not
 * a number that fits.
 */
int procfs_parse_stat(const char *buf, size_t n, struct procfs_stat *st);
/* A schedstat file's n bytes ("RUN WAIT SLICES"): 0, or -1. */
int procfs_parse_schedstat(const char *buf, size_t n,
    struct procfs_schedstat *s);

/*
 * /proc/PID/stat (tid 0), or /proc/PID/task/TID/stat, read and parsed:
 * 0, or -1 with errno (ENOENT, ESRCH: it has ended; EINVAL: unparsable).
 */
int procfs_read_stat(pid_t pid, pid_t tid, struct procfs_stat *st);
/*
 * An open schedstat file read again from its start (pread) and parsed:
 * 0, or -1 (the thread has ended).
 */
int procfs_read_schedstat(int fd, struct procfs_schedstat *s);
/*
 * The whole of a small file at path into buf (size bytes, NUL-ended):
 * its length, or -1 with errno.
 */
ssize_t procfs_read_small(const char *path, char *buf, size_t size);

/* A process's ids: real, effective, saved and filesystem. */
struct procfs_ids {
	unsigned long uid[4], gid[4];
};
/*
 * The Uid: and Gid: lines of /proc/PID/status into *ids: 0, or -1 if it
 * cannot be read or either line is not there whole.
 */
int procfs_read_ids(pid_t pid, struct procfs_ids *ids);

/*
 * The name of process pid (tid 0) or of its thread tid as the kernel has
 * it now (/proc/PID/comm, /proc/PID/task/TID/comm), its first line, into
 * buf (size bytes, the newline cut): 0, or -1 if it cannot be read or
 * is empty (buf is then "").
 */
int procfs_read_comm(pid_t pid, pid_t tid, char *buf, size_t size);
/*
 * The threads of process pid (/proc/PID/task), in the order listed: a
 * malloc'd array of *n tids, or NULL (*n is 0) if it cannot be read.
 */
pid_t *procfs_threads(pid_t pid, size_t *n);
/*
 * The children thread tid of process pid forked that have not been
 * reaped (/proc/PID/task/TID/children): a malloc'd array of *n pids, or
 * NULL (*n is 0) if it cannot be read.
 */
pid_t *procfs_children(pid_t pid, pid_t tid, size_t *n);

#endif
