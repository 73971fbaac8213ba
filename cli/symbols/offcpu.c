/*
 * offcpu.c - names and kinds of off-CPU frames (offcpu.h).
 */
#include <profil.h>
#include <stdio.h>
#include <string.h>

#include "offcpu.h"
#include "syscall-names.h"

static const char *
syscall_name(uint64_t nr)
{
	size_t lo = 0, hi = sizeof syscall_names / sizeof syscall_names[0];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syscall_names[mid].nr == nr)
			return syscall_names[mid].name;
		if (syscall_names[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *
offcpu_what(uint64_t code)
{
	static char unnamed[32];
	const char *name;

	switch (code) {
	case PROFIL_OFFCPU_PAGE_FAULT: return "page fault";
	case PROFIL_OFFCPU_RUNNABLE: return "runnable";
	case PROFIL_OFFCPU_STOPPED: return "stopped";
	case PROFIL_OFFCPU_BLOCKED: return "blocked";
	}
	if (code <= PROFIL_OFFCPU_SYSCALL_MAX && (name = syscall_name(code)))
		return name;
	snprintf(unnamed, sizeof unnamed, code <= PROFIL_OFFCPU_SYSCALL_MAX ?
	    "syscall %llu" : "unknown %#llx", (unsigned long long)code);
	return unnamed;
}

const char *
offcpu_frame_name(uint64_t code, char *buf, size_t size)
{
	snprintf(buf, size, "[off-cpu: %s]", offcpu_what(code));
	return buf;
}

static int
one_of(const char *name, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(name, *list) == 0)
			return 1;
	return 0;
}

int
offcpu_kind(uint64_t code)
{
	static const char *const io[] = { "read", "write", "pread64",
		"pwrite64", "readv", "writev", "preadv", "pwritev", "preadv2",
		"pwritev2", "sendfile", "splice", "tee", "vmsplice", "fsync",
		"fdatasync", "sync", "syncfs", "sync_file_range", "open",
		"openat", "openat2", "close", "recvfrom", "recvmsg", "recvmmsg",
		"sendto", "sendmsg", "sendmmsg", "accept", "accept4",
		"connect", "io_uring_enter", "io_getevents", "io_pgetevents",
		"copy_file_range", "fallocate", "ftruncate", "getdents64",
		"ioctl", "msync", NULL };
	static const char *const poll[] = { "poll", "ppoll", "select",
		"pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2", NULL };
	static const char *const lock[] = { "futex", "futex_waitv", "flock",
		"fcntl", "semop", "semtimedop", "mq_timedreceive",
		"mq_timedsend", "msgrcv", "msgsnd", NULL };
	static const char *const sleep[] = { "nanosleep", "clock_nanosleep",
		"pause", "rt_sigsuspend", "rt_sigtimedwait", "sched_yield",
		NULL };
	static const char *const child[] = { "wait4", "waitid", NULL };
	const char *name;

	switch (code) {
	case PROFIL_OFFCPU_PAGE_FAULT: return OFFCPU_FAULT;
	case PROFIL_OFFCPU_RUNNABLE: return OFFCPU_RUNNABLE;
	}
	if (code > PROFIL_OFFCPU_SYSCALL_MAX ||
	    (name = syscall_name(code)) == NULL)
		return OFFCPU_OTHER;
	if (one_of(name, io))
		return OFFCPU_IO;
	if (one_of(name, poll))
		return OFFCPU_POLL;
	if (one_of(name, lock))
		return OFFCPU_LOCK;
	if (one_of(name, sleep))
		return OFFCPU_SLEEP;
	if (one_of(name, child))
		return OFFCPU_CHILD;
	return OFFCPU_OTHER;
}

const char *
offcpu_kind_name(int kind)
{
	static const char *const names[OFFCPU_NKINDS] = { "I/O", "polling",
		"locks", "sleep", "children", "page faults", "runnable",
		"other waiting" };

	return kind >= 0 && kind < OFFCPU_NKINDS ? names[kind] : "other waiting";
}
