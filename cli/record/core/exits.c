/*
 * exits.c - the exit status of the program's descendants, whoever reaps
 * them (exits.h): the kernel's process events where we may read them
 * (exits-events.c), and a pidfd per process from when the builder hears
 * of it.  Invariant: a status is given to the builder only when it is
 * the process's own: from an event of the kernel's, from its pidfd, or
 * from /proc while that pidfd proves the zombie read is still the
 * process it was opened on.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "exits-internal.h"
#include "exits.h"
#include "procfs.h"

/*
 * PIDFD_GET_INFO (Linux 6.13; PIDFD_INFO_EXIT 6.15), whose header the
 * build machine may lack: the first version of the structure, which the
 * kernel extends at its end.
 */
struct exits_pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid;
	uint32_t fsuid, fsgid;
	int32_t exit_code;
};
#define EXITS_GET_INFO		_IOWR(0xFF, 11, struct exits_pidfd_info)
#define EXITS_INFO_PID		(1ull << 0)
#define EXITS_INFO_EXIT		(1ull << 3)

struct exits {
	size_t seen;		/* the builder's processes looked at */
	pid_t *pids;		/* watched, with their pidfds */
	struct pollfd *fds;
	size_t n, cap;
	/* the kernel's process events, where we may have them */
	int events_fd;
	pid_t root;
	struct hmap tree;	/* tgid -> 1, or 2 + its wait status */
	int events_lost;
};

struct exits *
exits_new(void)
{
	struct exits *x = xcalloc(1, sizeof *x);

	x->events_fd = exits_events_open();
	hmap_init(&x->tree);
	return x;
}

void
exits_root(struct exits *x, pid_t program)
{
	x->root = program;
}

/* What the process events say of the builder's processes not known yet. */
static void
apply_events(struct exits *x, struct builder *b)
{
	pid_t *pids;
	size_t n;

	pids = builder_unfinished(b, &n);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = hmap_get(&x->tree, (uint64_t)pids[i]);

		if (v >= 2)
			builder_exit_status(b, pids[i], (int)(v - 2));
	}
	free(pids);
}

/* The pidfd's info for mask; 0, or -1 (no such ioctl: before 6.13). */
static int
pidfd_info(int fd, uint64_t mask, struct exits_pidfd_info *info)
{
	memset(info, 0, sizeof *info);
	info->mask = mask;
	return ioctl(fd, EXITS_GET_INFO, info);
}

/*
 * At most a quarter of the descriptors we may open: the rest are for
 * the engines (events, rings, files), which must not run short for this.
 */
static size_t
most_watched(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1024;
	return (size_t)rl.rlim_cur / 4;
}

/* Watch p, unless it is gone, or its pid is another process's by now. */
static void
watch(struct exits *x, const struct builder_process *p)
{
	struct exits_pidfd_info info;
	int fd;

	if (x->n >= most_watched())
		return;
	fd = (int)syscall(SYS_pidfd_open, p->pid, 0);
	if (fd < 0)
		return;		/* ended and reaped already: not known */
	/* a parent neither its own nor us (its subreaper): the pid reused */
	if (p->ppid != 0 && pidfd_info(fd, EXITS_INFO_PID, &info) == 0 &&
	    (info.mask & EXITS_INFO_PID) && info.ppid != 0 &&
	    (pid_t)info.ppid != p->ppid && (pid_t)info.ppid != getpid()) {
		close(fd);
		return;
	}
	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		x->pids = xrealloc(x->pids, x->cap * sizeof *x->pids);
		x->fds = xrealloc(x->fds, x->cap * sizeof *x->fds);
	}
	x->pids[x->n] = p->pid;
	x->fds[x->n++] = (struct pollfd){ fd, POLLIN, 0 };
}

/* Whether all four of pid's user ids are ours, and its group ids. */
static int
all_ids_ours(pid_t pid)
{
	struct procfs_ids ids;

	if (procfs_read_ids(pid, &ids) < 0)
		return 0;
	for (int i = 0; i < 4; i++)
		if (ids.uid[i] != getuid() || ids.gid[i] != getgid())
			return 0;
	return 1;
}

/*
 * The wait status of zombie pid, whose pidfd is fd, from the exit_code
 * field of /proc/PID/stat, its last: the kernel shows it to those who
 * may read the process (root; else its user and group, all four ids),
 * and 0 to others, which is why they are not asked.  0, or -1.
 */
static int
zombie_status(pid_t pid, int fd, int *status)
{
	char path[64], buf[1024], *paren, *last;

	if (geteuid() != 0 && !all_ids_ours(pid))
		return -1;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (procfs_read_small(path, buf, sizeof buf) <= 0)
		return -1;
	if ((paren = strrchr(buf, ')')) == NULL || paren[1] != ' ' ||
	    paren[2] != 'Z' || (last = strrchr(paren, ' ')) == NULL)
		return -1;
	/* still there after the read: the zombie read was fd's process */
	if (syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) < 0)
		return -1;
	*status = atoi(last + 1);
	return 0;
}

void
exits_collect(struct exits *x, struct builder *b, int final)
{
	struct builder_process *fresh;
	size_t nfresh, i, kept = 0;
	int ready;

	if (x->events_fd >= 0) {
		exits_events_read(x->events_fd, x->root, &x->tree,
		    &x->events_lost);
		if (final)
			apply_events(x, b);
	}
	fresh = builder_new_processes(b, &x->seen, &nfresh);
	for (i = 0; i < nfresh; i++)
		watch(x, &fresh[i]);
	free(fresh);
	if (x->n == 0)
		return;
	if ((ready = poll(x->fds, x->n, 0)) < 0)
		for (i = 0; i < x->n; i++)
			x->fds[i].revents = 0;
	if (ready <= 0 && !final)
		return;
	for (i = 0; i < x->n; i++) {
		struct exits_pidfd_info info;
		int fd = x->fds[i].fd, status, done = final;

		/* POLLIN: every thread ended (a leader alone is no end) */
		if (x->fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
			done = 1;
			if (pidfd_info(fd, EXITS_INFO_EXIT, &info) == 0 &&
			    (info.mask & EXITS_INFO_EXIT))
				builder_exit_status(b, x->pids[i], info.exit_code);
			else if (zombie_status(x->pids[i], fd, &status) == 0)
				builder_exit_status(b, x->pids[i], status);
			else if (!final &&
			    syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) == 0)
				done = 0;	/* a zombie: reaped later */
		}
		if (done) {
			close(fd);
			continue;
		}
		x->pids[kept] = x->pids[i];
		x->fds[kept++] = x->fds[i];
	}
	x->n = kept;
}

void
exits_free(struct exits *x)
{
	if (x == NULL)
		return;
	for (size_t i = 0; i < x->n; i++)
		close(x->fds[i].fd);
	if (x->events_fd >= 0)
		close(x->events_fd);
	hmap_free(&x->tree);
	free(x->pids);
	free(x->fds);
	free(x);
}
