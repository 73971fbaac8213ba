/*
 * exits-events.c - the kernel's process events (exits-internal.h): every
 * fork and every exit, with its wait status, however short the process
 * and whoever reaps it, for a recorder that may read them (root).
 * Invariant: only root's descendants are kept, judged by the forks seen
 * in order, so that a pid reused by another process is not taken.
 */
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "exits-internal.h"

#define EVENTS_BUFFER	(4 << 20)	/* 40,000 events and more */

int
exits_events_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK,
	    .nl_groups = CN_IDX_PROC };
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) listen_msg;
	int fd, size = EVENTS_BUFFER;

	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    NETLINK_CONNECTOR);
	if (fd < 0)
		return -1;
	addr.nl_pid = 0;	/* the kernel picks our port */
	if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
		close(fd);
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	memset(&listen_msg, 0, sizeof listen_msg);
	listen_msg.nl.nlmsg_len = sizeof listen_msg;
	listen_msg.nl.nlmsg_type = NLMSG_DONE;
	listen_msg.cn.id.idx = CN_IDX_PROC;
	listen_msg.cn.id.val = CN_VAL_PROC;
	listen_msg.cn.len = sizeof listen_msg.op;
	listen_msg.op = PROC_CN_MCAST_LISTEN;
	if (send(fd, &listen_msg, sizeof listen_msg, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The value of key set to v (hmap counts: added, the old one taken). */
static void
set(struct hmap *m, uint64_t key, uint64_t v)
{
	hmap_add(m, key, v - hmap_get(m, key));
}

static void
apply(const struct proc_event *ev, pid_t root, struct hmap *tree)
{
	uint64_t parent, child, ended;

	switch (ev->what) {
	case PROC_EVENT_FORK:
		parent = (uint64_t)ev->event_data.fork.parent_tgid;
		child = (uint64_t)ev->event_data.fork.child_tgid;
		/* a new process of the tree (a thread keeps its tgid) */
		if (ev->event_data.fork.child_pid == ev->event_data.fork.child_tgid &&
		    ((pid_t)parent == root || hmap_get(tree, parent) != 0))
			set(tree, child, 1);
		break;
	case PROC_EVENT_EXIT:
		ended = (uint64_t)ev->event_data.exit.process_tgid;
		if ((pid_t)ended == root || hmap_get(tree, ended) != 0)
			set(tree, ended, 2 + (uint64_t)(ev->event_data.exit.exit_code &
			    0xffff));
		break;
	default:
		break;
	}
}

void
exits_events_read(int fd, pid_t root, struct hmap *tree, int *lost)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));

	for (;;) {
		struct sockaddr_nl from;
		socklen_t from_len = sizeof from;
		ssize_t n = recvfrom(fd, buf, sizeof buf, 0,
		    (struct sockaddr *)&from, &from_len);
		struct nlmsghdr *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			*lost = 1;	/* the events since are still read */
			continue;
		}
		if (n <= 0)
			return;
		if (from_len < sizeof from || from.nl_pid != 0)
			continue;	/* the kernel's only: no process's */
		for (nl = (struct nlmsghdr *)buf; NLMSG_OK(nl, (size_t)n);
		    nl = NLMSG_NEXT(nl, n)) {
			const struct cn_msg *cn = NLMSG_DATA(nl);
			struct proc_event ev;

			if (nl->nlmsg_type != NLMSG_DONE ||
			    nl->nlmsg_len < NLMSG_LENGTH(sizeof *cn + sizeof ev) ||
			    cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
			    cn->len < sizeof ev)
				continue;
			/* at 36 bytes in: not aligned for its 64-bit fields */
			memcpy(&ev, cn->data, sizeof ev);
			apply(&ev, root, tree);
		}
	}
}
