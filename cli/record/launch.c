/*
 * launch.c - starting the profiled program: fork, wait for the recorder
 * to be ready, exec; report exec failures through a close-on-exec pipe.
 * The child's signal mask and dispositions are restored before exec, so
 * the program sees the environment it would see without us.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"

int
launch_prepare(struct launch *l, char **argv)
{
	int go[2], err[2];
	sigset_t old;

	memset(l, 0, sizeof *l);
	sigemptyset(&l->watched);
	sigaddset(&l->watched, SIGCHLD);
	sigaddset(&l->watched, SIGINT);
	sigaddset(&l->watched, SIGTERM);
	sigaddset(&l->watched, SIGHUP);
	sigaddset(&l->watched, SIGQUIT);
	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -1;
	}
	sigprocmask(SIG_BLOCK, &l->watched, &old);
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
		return -1;
	}
	l->go_fd = go[1];
	l->error_fd = err[0];
	return l->pid;
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

void
launch_signals(struct launch *l, int *done, int *status)
{
	struct signalfd_siginfo si;

	while (read(l->signal_fd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		/* sent by a process (kill), not by the terminal: pass it on */
		if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE ||
		    si.ssi_code == SI_TKILL)
			kill(l->pid, (int)si.ssi_signo);
	}
	if (!*done && waitpid(l->pid, status, WNOHANG) == l->pid)
		*done = 1;
}

void
launch_close(struct launch *l)
{
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->error_fd >= 0)
		close(l->error_fd);
	if (l->signal_fd >= 0)
		close(l->signal_fd);
	sigprocmask(SIG_UNBLOCK, &l->watched, NULL);
}
