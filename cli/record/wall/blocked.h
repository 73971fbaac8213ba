/*
 * blocked.h - a blocked thread looked at from outside, without stopping
 * or signalling it: what it waits in and where, from
 * /proc/PID/task/TID/syscall (its system call and user stack pointer and
 * pc, as it entered the kernel), and the top of its stack, read with
 * process_vm_readv.  Both need the right to ptrace it (the recorder has
 * it over its own children; not over a set-uid or undumpable program).
 */
#ifndef PROFIL_RECORD_BLOCKED_H
#define PROFIL_RECORD_BLOCKED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct blocked_site {
	uint64_t code;		/* a system call, or PROFIL_OFFCPU_PAGE_FAULT,
				   _STOPPED (profil.h) */
	uint64_t sp, pc;
};

/*
 * Where thread tid of pid is blocked: 1 with *site, 0 if it is running
 * (or runnable), -1 with errno if it cannot be read (EACCES, EPERM: not
 * ours to read; ENOENT, ESRCH: it has ended).
 */
int blocked_site(pid_t pid, pid_t tid, struct blocked_site *site);

/*
 * Thread tid's state (its letter: R, S, D, T, t, Z, X, ...) and when it
 * started (clock ticks after boot), from /proc/PID/task/TID/stat, which
 * anyone may read: 0, or -1 if it is gone.
 */
int blocked_task_state(pid_t pid, pid_t tid, char *state,
    uint64_t *starttime);

/*
 * Up to size bytes of pid's memory from addr into buf: how many were
 * read (fewer where the stack ends), or -1 with errno.
 */
ssize_t blocked_read_stack(pid_t pid, uint64_t addr, void *buf, size_t size);

#endif
