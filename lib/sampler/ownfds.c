/*
 * ownfds.c - marks for the library's own fds and, in the shared library,
 * the close family in front of the C library's (ownfds.h).
 *
 * A mark is one bit; the close wrappers test it with one atomic load, so
 * a program that never profiles pays nothing more.  A marked fd that is
 * no longer a perf event (the program replaced it by a raw dup2) loses
 * its mark at the program's close, which then really closes it.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sampler/interpose.h"
#include "sampler/ownfds.h"

static _Atomic uint64_t marks[OWNFDS_MAX / 64];

static void
unmark(int fd)
{
	if (fd >= 0 && fd < OWNFDS_MAX)
		atomic_fetch_and(&marks[fd / 64], ~((uint64_t)1 << (fd % 64)));
}

void
ownfds_mark(int fd)
{
	if (fd >= 0 && fd < OWNFDS_MAX)
		atomic_fetch_or(&marks[fd / 64], (uint64_t)1 << (fd % 64));
}

#ifdef PROFIL_WRAP
int
ownfds_close(int fd)
{
	unmark(fd);
	return close(fd);
}
#else
static int
marked(int fd)
{
	return fd >= 0 && fd < OWNFDS_MAX &&
	    (atomic_load_explicit(&marks[fd / 64], memory_order_relaxed) >>
	    (fd % 64) & 1);
}

typedef int close_fn(int);
typedef int close_range_fn(unsigned, unsigned, int);
typedef int dup2_fn(int, int);
typedef int dup3_fn(int, int, int);

static void *_Atomic real_close_p, *_Atomic real_close_range_p;
static void *_Atomic real_dup2_p, *_Atomic real_dup3_p;

__attribute__((constructor(101))) static void
resolve_real(void)
{
	interpose_next(&real_close_p, "close");
	interpose_next(&real_close_range_p, "close_range");
	interpose_next(&real_dup2_p, "dup2");
	interpose_next(&real_dup3_p, "dup3");
}

static int
real_close(int fd)
{
	close_fn *fn = (close_fn *)interpose_next(&real_close_p, "close");

	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return fn(fd);
}

int
ownfds_close(int fd)
{
	unmark(fd);
	return real_close(fd);
}

/* Still a perf event: the mark still stands for one of ours. */
static int
still_perf(int fd)
{
	uint64_t id;

	return ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0;
}

int close(int);
int close_range(unsigned, unsigned, int);
void closefrom(int);
int dup2(int, int);
int dup3(int, int, int);

__attribute__((visibility("default"))) int
close(int fd)
{
	if (marked(fd)) {
		if (still_perf(fd))
			return 0;	/* ours: the program may think it closed */
		unmark(fd);
	}
	return real_close(fd);
}

/* The first marked fd in [fd, last], or -1. */
static int
next_marked(unsigned fd, unsigned last)
{
	for (; fd <= last && fd < OWNFDS_MAX; fd++) {
		uint64_t word = atomic_load_explicit(&marks[fd / 64],
		    memory_order_relaxed) >> (fd % 64);

		if (word == 0) {
			fd |= 63;	/* nothing more in this word */
			continue;
		}
		fd += (unsigned)__builtin_ctzll(word);
		if (fd <= last)
			return (int)fd;
	}
	return -1;
}

__attribute__((visibility("default"))) int
close_range(unsigned first, unsigned last, int flags)
{
	close_range_fn *fn = (close_range_fn *)interpose_next(&real_close_range_p,
	    "close_range");
	int at;

	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	/* marking close-on-exec closes nothing; ours have it already */
	if (first > last || (flags & CLOSE_RANGE_CLOEXEC) ||
	    (at = next_marked(first, last)) < 0)
		return fn(first, last, flags);
	if (flags & CLOSE_RANGE_UNSHARE) {
		if (unshare(CLONE_FILES) < 0)
			return -1;
		flags &= ~CLOSE_RANGE_UNSHARE;
	}
	/* close around ours */
	while (at >= 0) {
		if ((unsigned)at > first && fn(first, (unsigned)at - 1, flags) < 0)
			return -1;
		if (!still_perf(at)) {
			unmark(at);
			real_close(at);
		}
		if ((unsigned)at == last)
			return 0;
		first = (unsigned)at + 1;
		at = next_marked(first, last);
	}
	return fn(first, last, flags);
}

/* glibc's calls its own close_range inside; this one calls ours. */
__attribute__((visibility("default"))) void
closefrom(int lowfd)
{
	if (lowfd < 0)
		lowfd = 0;
	if (close_range((unsigned)lowfd, ~0u, 0) < 0) {
		/* no close_range in this kernel: close what is open, one by one */
		long max = sysconf(_SC_OPEN_MAX);

		for (long fd = lowfd; fd < max; fd++)
			close((int)fd);
	}
}

__attribute__((visibility("default"))) int
dup2(int oldfd, int newfd)
{
	dup2_fn *fn = (dup2_fn *)interpose_next(&real_dup2_p, "dup2");

	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (oldfd != newfd)
		unmark(newfd);	/* the program's now; ours is closed */
	return fn(oldfd, newfd);
}

__attribute__((visibility("default"))) int
dup3(int oldfd, int newfd, int flags)
{
	dup3_fn *fn = (dup3_fn *)interpose_next(&real_dup3_p, "dup3");

	if (fn == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (oldfd != newfd)
		unmark(newfd);
	return fn(oldfd, newfd, flags);
}
#endif
