/*
 * blocked.c - blocked threads read from /proc and their memory
 * (blocked.h).  Nothing here stops, signals or ptraces the thread: its
 * system call goes on undisturbed (a signal would end poll, epoll_wait,
 * nanosleep and others with EINTR, whatever SA_RESTART says).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <profil.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "blocked.h"
#include "record/core/procfs.h"

int
blocked_task_state(pid_t pid, pid_t tid, char *state, uint64_t *starttime)
{
	struct procfs_stat st;

	if (procfs_read_stat(pid, tid, &st) < 0)
		return -1;
	*state = st.state;
	*starttime = st.starttime;
	return 0;
}

/* Whether the thread is stopped (a signal, a debugger). */
static int
stopped(pid_t pid, pid_t tid)
{
	char state;
	uint64_t start;

	return blocked_task_state(pid, tid, &state, &start) == 0 &&
	    (state == 'T' || state == 't');
}

int
blocked_site(pid_t pid, pid_t tid, struct blocked_site *site)
{
	char path[64], buf[256];
	long long nr;
	uint64_t a[6];
	int n;

	snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", (int)pid,
	    (int)tid);
	if (procfs_read_small(path, buf, sizeof buf) < 0)
		return -1;
	if (strncmp(buf, "running", 7) == 0)
		return 0;
	/* "NR ARG1 .. ARG6 SP PC", or "-1 SP PC" outside a system call */
	n = sscanf(buf, "%lld %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
	    " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64, &nr, &a[0], &a[1],
	    &a[2], &a[3], &a[4], &a[5], &site->sp, &site->pc);
	if (n == 3 && nr == -1) {
		site->sp = a[0];
		site->pc = a[1];
		site->code = PROFIL_OFFCPU_PAGE_FAULT;
	} else if (n == 9 && nr >= 0) {
		site->code = (uint64_t)nr;
	} else {
		errno = EINVAL;
		return -1;
	}
	/*
	 * Stopped (a signal, a debugger): on its way back from a system
	 * call the thread still shows it, though it waits in no call.
	 */
	if (stopped(pid, tid))
		site->code = PROFIL_OFFCPU_STOPPED;
	return 1;
}

ssize_t
blocked_read_stack(pid_t pid, uint64_t addr, void *buf, size_t size)
{
	struct iovec local = { buf, size };
	struct iovec remote = { (void *)(uintptr_t)addr, size };

	/* where the stack ends within, the pages before it (a partial read) */
	return process_vm_readv(pid, &local, 1, &remote, 1, 0);
}
