/*
 * launch.c - starting the profiled program: fork, wait for the recorder
 * to be ready, exec; report exec failures through a close-on-exec pipe.
 * The child's signal mask and dispositions are restored before exec, so
 * the program sees the environment it would see without us.  Then
 * reaping: the program, and (as a child subreaper) what it leaves
 * behind; how its other descendants ended comes through exits.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exits.h"
#include "launch.h"
#include "procfs.h"

/* The signal mask the recorder had before launch_hold_signals, if called. */
static sigset_t held_from;
static int held;

static void
watched_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
}

void
launch_hold_signals(void)
{
	sigset_t set;

	watched_signals(&set);
	if (!held)
		sigprocmask(SIG_BLOCK, &set, &held_from);
	held = 1;
}

int
launch_prepare(struct launch *l, char **argv)
{
	int go[2], err[2];
	sigset_t old;

	memset(l, 0, sizeof *l);
	l->exits = exits_new();		/* its events from before the fork */
	/* orphans of the program become ours, not init's (Linux 3.4) */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	watched_signals(&l->watched);
	if (pipe2(go, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		goto fail;
	}
	sigprocmask(SIG_BLOCK, &l->watched, &old);
	if (held)
		old = held_from;	/* the program gets what we had at first */
	l->signal_fd = signalfd(-1, &l->watched, SFD_CLOEXEC | SFD_NONBLOCK);
	l->pid = fork();
	if (l->pid == 0) {
		char byte;
		int e;

		sigprocmask(SIG_SETMASK, &old, NULL);
		close(go[1]);
		close(err[0]);
		/* wait until the recorder is ready; EOF means it gave up */
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof e) != sizeof e)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	if (l->pid < 0) {
		int saved = errno;

		close(go[1]);
		close(err[0]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		errno = saved;
		goto fail;
	}
	l->go_fd = go[1];
	l->error_fd = err[0];
	exits_root(l->exits, l->pid);
	return l->pid;
fail:
	{
		int saved = errno;

		exits_free(l->exits);
		l->exits = NULL;
		errno = saved;
		return -1;
	}
}

int
launch_go(struct launch *l)
{
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, "g", 1) != 1)
		return errno;
	close(l->go_fd);
	l->go_fd = -1;
	do
		n = read(l->error_fd, &e, sizeof e);
	while (n < 0 && errno == EINTR);
	close(l->error_fd);
	l->error_fd = -1;
	return n == (ssize_t)sizeof e ? e : 0;
}

/*
 * The program's own CPU time and that of the children it waited for, in
 * clock ticks, read while it is a zombie (its times are still there).
 */
static int
own_and_children_ticks(pid_t pid, double *own, double *children)
{
	struct procfs_stat st;

	if (procfs_read_stat(pid, 0, &st) < 0)
		return -1;
	*own = (double)(st.utime + st.stime);
	*children = (double)(st.cutime + st.cstime);
	return 0;
}

static uint64_t
rusage_ns(const struct rusage *ru)
{
	return (uint64_t)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) *
	    1000000000u + (uint64_t)(ru->ru_utime.tv_usec +
	    ru->ru_stime.tv_usec) * 1000u;
}

/* The program has ended: its status and CPU times, then reap it. */
static void
reap_program(struct launch *l)
{
	struct rusage ru;
	double own, children;

	/*
	 * Its rusage holds the children it waited for; its own share comes
	 * from /proc in clock ticks (10 ms), precise enough to tell.
	 */
	if (own_and_children_ticks(l->pid, &own, &children) < 0 ||
	    own + children == 0) {
		own = 1;
		children = 0;
	}
	if (wait4(l->pid, &l->status, WNOHANG, &ru) != l->pid)
		return;
	l->exited = 1;
	l->cpu_ns = rusage_ns(&ru);
	l->own_cpu_ns = (uint64_t)((double)l->cpu_ns * own / (own + children));
}

void
launch_poll(struct launch *l)
{
	struct signalfd_siginfo si;
	siginfo_t info;
	int status;
	pid_t pid;

	while (read(l->signal_fd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		l->stop = 1;
		/* sent by a process (kill), not by the terminal: pass it on */
		if (!l->exited && (si.ssi_code == SI_USER ||
		    si.ssi_code == SI_QUEUE || si.ssi_code == SI_TKILL))
			kill(l->pid, (int)si.ssi_signo);
	}
	/*
	 * Who has ended, without reaping: the program must be reaped by
	 * reap_program, after its times are read.
	 */
	for (;;) {
		info.si_pid = 0;
		if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 ||
		    info.si_pid == 0)
			break;
		pid = info.si_pid;
		if (pid == l->pid) {
			reap_program(l);
		} else if (waitpid(pid, &status, WNOHANG) == pid &&
		    l->builder != NULL) {
			builder_exit_status(l->builder, pid, status);
		}
	}
	/* the others, reaped by their parents */
	if (l->builder != NULL)
		exits_collect(l->exits, l->builder, 0);
}

int
launch_descendants(const struct launch *l)
{
	siginfo_t info;

	(void)l;
	/* children, none of them ended: 0 and si_pid 0; none at all: ECHILD */
	info.si_pid = 0;
	return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

int
launch_alive(pid_t pid)
{
	struct procfs_stat st;

	return procfs_read_stat(pid, 0, &st) == 0 && st.state != 'Z' &&
	    st.state != 'X';
}

/* Marks pid as still running in the profile, under its name now. */
static void
still_running(struct builder *b, pid_t pid)
{
	char comm[64];

	builder_exit_status(b, pid, PROFIL_EXIT_RUNNING);
	/* its name now: it may have exec'd since we last heard */
	if (procfs_read_comm(pid, 0, comm, sizeof comm) == 0)
		builder_comm(b, pid, pid, comm);
}

/*
 * The orphans the program left, reparented to us (we are a subreaper):
 * running, whether or not the engine has heard of them yet (the timer
 * engine hears of a process when its agent starts, after its exec; on a
 * loaded machine a child forked just before the program ended had not
 * got that far).
 */
static void
running_orphans(struct builder *b)
{
	size_t n;
	pid_t *pids = procfs_children(getpid(), getpid(), &n);

	for (size_t i = 0; i < n; i++)
		if (launch_alive(pids[i]))
			still_running(b, pids[i]);
	free(pids);
}

void
launch_finish(struct launch *l, const struct record_opts *o,
    struct record_result *r)
{
	struct rusage ru;
	pid_t *pids;
	size_t n;

	r->status = l->status;
	if (!o->follow_children)
		r->cpu_ns = l->own_cpu_ns;
	else if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		r->cpu_ns = rusage_ns(&ru);	/* orphans we reaped included */
	builder_exit_status(r->builder, l->pid, l->status);
	exits_collect(l->exits, r->builder, 1);
	pids = builder_unfinished(r->builder, &n);
	for (size_t i = 0; i < n; i++)
		if (launch_alive(pids[i]))
			still_running(r->builder, pids[i]);
	free(pids);
	if (o->follow_children)
		running_orphans(r->builder);
}

void
launch_close(struct launch *l)
{
	exits_free(l->exits);
	l->exits = NULL;
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->error_fd >= 0)
		close(l->error_fd);
	if (l->signal_fd >= 0)
		close(l->signal_fd);
	sigprocmask(SIG_UNBLOCK, &l->watched, NULL);
}
