/*
 * sigveil.h - keep the sampling signal out of a program's sight.
 *
 * `profil record -e timer` injects libprofil into a program that knows
 * nothing of it, and a program that calls profil() has threads and
 * libraries that know nothing of it either.  Such code may block every
 * signal, reset every disposition, or put a handler on every signal;
 * done to our real-time signal, that would stop the samples (the
 * kernel's profil counted whatever the mask), kill the program at the
 * next one, or hand the samples to the program.  Once a session starts
 * the veil, the shared library's sigaction, signal, sigprocmask and
 * pthread_sigmask (found before the C library's) answer for the sampling
 * signal from a copy that only the program sees:
 *
 *   - its disposition is the program's to set and read back, while our
 *     handler stays installed; a signal of that number that is not a
 *     sample (sent by kill, sigqueue, a timer of the program's) is handed
 *     to the program's disposition: its handler, ignored, or the default
 *     action (termination, as for any real-time signal);
 *   - a thread that blocks it is shown it blocked, while the kernel does
 *     not block it, so samples go on; should a signal of the program's
 *     come then, it is put back pending and blocked for real until the
 *     program unblocks it (or takes it with sigwait): that thread goes
 *     unsampled meanwhile, and the samples it was sent then are taken
 *     away before the program looks (sigpending, sigtimedwait,
 *     sigwaitinfo, sigwait, which the library also stands in front of)
 *     or unblocks it.
 *
 * Not veiled: raw system calls, signalfd, and what a new thread is shown
 * of its mask (its copy starts unblocked, whatever its creator had
 * blocked).
 * Before sigveil_start, and in the static library (which has no
 * wrappers), everything passes straight to the C library.
 */
#ifndef PROFIL_SIGVEIL_H
#define PROFIL_SIGVEIL_H

#include <signal.h>

/*
 * From now on veil signo, whose handler is installed (the program's view
 * starts as the default disposition, unblocked).  Also unblocks signo in
 * the calling thread, as an exec may have brought it in blocked (the
 * program is shown it blocked).  Call once per process image.
 */
void sigveil_start(int signo);

/* In a forked child: release what a thread of the parent may have held. */
void sigveil_fork_child(void);

/*
 * In the sampling handler, for a signal that is not a sample: give it to
 * the program's disposition for it.  Returns 0 if the veil is not on (the
 * caller drops the signal), 1 if delivered.  Async-signal-safe.
 */
int sigveil_deliver(int sig, siginfo_t *info, void *ucontext);

#endif
