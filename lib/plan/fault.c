/*
 * fault.c - the SIGSEGV/SIGBUS handler that turns a fault inside our own
 * counter code into an error return and hands every other fault to the
 * program's handler (or the default action) untouched.
 * Invariant: a fault that is not ours must behave as if we were absent.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "plan/fault.h"

static struct sigaction previous_segv, previous_bus;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

/* Async-signal-safe: only sigaction(), raise() and the previous handler. */
static void
fault_handler(int sig, siginfo_t *info, void *ucontext)
{
	struct sigaction *previous;
	struct sigaction dfl;

	if (arch_fault_fixup(ucontext))
		return;

	previous = sig == SIGSEGV ? &previous_segv : &previous_bus;
	if (previous->sa_flags & SA_SIGINFO) {
		previous->sa_sigaction(sig, info, ucontext);
		return;
	}
	if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN) {
		previous->sa_handler(sig);
		return;
	}
	/*
	 * Default action: restore it and let the faulting instruction run
	 * again, so the core dump shows the program's own state.  A signal
	 * that was sent rather than caused by a fault would not come back
	 * by itself, so send it again.
	 */
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (info == NULL || info->si_code <= 0)
		raise(sig);
}

static int
install_one(int sig, struct sigaction *previous)
{
	struct sigaction current, ours;

	if (sigaction(sig, NULL, &current) < 0)
		return -1;
	if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == fault_handler)
		return 0;
	memset(&ours, 0, sizeof ours);
	ours.sa_sigaction = fault_handler;
	/*
	 * Run as the program's handler would: its mask, its SA_NODEFER.
	 * SA_ONSTACK always, so a stack-overflow handler keeps its alt stack.
	 */
	ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART |
	    (current.sa_flags & SA_NODEFER);
	ours.sa_mask = current.sa_mask;
	*previous = current;
	return sigaction(sig, &ours, NULL);
}

int
fault_install(void)
{
	int rc;

	pthread_mutex_lock(&install_lock);
	rc = install_one(SIGSEGV, &previous_segv);
	if (rc == 0)
		rc = install_one(SIGBUS, &previous_bus);
	pthread_mutex_unlock(&install_lock);
	return rc;
}

int
fault_probe(const void *p, size_t len, int write)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t at = (uintptr_t)p, last;

	if (len == 0)
		return 0;
	if (at + (len - 1) < at)
		return -1;	/* wraps around the address space */
	last = at + (len - 1);
	for (;;) {
		long rc = write ? profil_arch_probe_write((void *)at)
		    : profil_arch_probe_read((const void *)at);
		if (rc < 0)
			return -1;
		if (at == last)
			return 0;
		/* next page start, or the last byte if it is on this page */
		uintptr_t next = (at | (page - 1)) + 1;
		at = next == 0 || next > last ? last : next;
	}
}

void
fault_fork_child(void)
{
	pthread_mutex_init(&install_lock, NULL);
}
