/*
 * handler.c - the sampling signal handler and the choice of its signal.
 *
 * Async-signal-safety rules for sample_handler(): no malloc, no locks, no
 * stdio, no errno left changed; only atomics, and the two functions
 * handed to handler_install (the session's counting and the veil's
 * delivery), which keep the same rules.  It runs with every signal
 * blocked except the synchronous ones (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGTRAP): a fault in a counter update must reach fault.c, and no
 * program handler may run on top of it and call profil() (which waits
 * for handlers to finish).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "sampler/handler.h"
#include "sampler/interpose.h"
#include "sampler/sigmark.h"

static int chosen_signo = -1;
static pthread_mutex_t choose_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set before the handler is installed; read by it (atomic: lock-free). */
static handler_sample_fn *_Atomic on_sample_fn;
static handler_other_fn *_Atomic on_other_fn;

static void
sample_handler(int sig, siginfo_t *info, void *ucontext)
{
	int saved_errno = errno;
	handler_sample_fn *on_sample = atomic_load(&on_sample_fn);
	handler_other_fn *on_other = atomic_load(&on_other_fn);
	unsigned long weight;

	if (!sigmark_is_sample(info))
		weight = 0;	/* sent by someone else: not a sample */
	else if (info->si_code == SI_TIMER)
		weight = 1 + (info->si_overrun > 0 ? (unsigned long)info->si_overrun : 0);
	else
		weight = 1;
	if (weight > 0) {
		if (on_sample != NULL)
			on_sample(arch_context_pc(ucontext), weight, info,
			    ucontext);
	} else if (on_other != NULL) {
		on_other(sig, info, ucontext);	/* the program's, if veiled */
	}
	errno = saved_errno;
}

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);

/*
 * The sigaction the handler is installed with: the C library's, not the
 * veil's wrapper (sigveil.h), which stands in front of it for the
 * program, never for us.  Found past libprofil (RTLD_NEXT), as the veil
 * finds it; where that finds nothing (a static program, which has no
 * wrappers), the C library's by its name, as in libprofil.a (PROFIL_WRAP:
 * a static link has no veil, and no lookup is linked in).  Under
 * ThreadSanitizer, its interceptor instead, found by the name: it must
 * see our handler to run it only where instrumented code may run (it
 * holds a signal until then), and calls on through the veil's wrapper
 * with a handler of its own, as it does for the program's.
 */
#if defined(__SANITIZE_THREAD__) || defined(PROFIL_WRAP)
static sigaction_fn *real_sigaction(void) { return sigaction; }
#else
static void *_Atomic next_sigaction;

static sigaction_fn *
real_sigaction(void)
{
	sigaction_fn *fn = (sigaction_fn *)interpose_next(&next_sigaction,
	    "sigaction");

	return fn != NULL ? fn : sigaction;
}

/* Looked up early, as the veil's functions are (interpose.h). */
__attribute__((constructor(101))) static void
resolve_real(void)
{
	real_sigaction();
}
#endif

static int
is_sampler(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == sample_handler;
}

static int
signal_is_free(int signo)
{
	struct sigaction sa;

	if (real_sigaction()(signo, NULL, &sa) < 0)
		return 0;
	return is_sampler(&sa) ||
	    (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL);
}

static int
choose_signal(void)
{
	const char *env = secure_getenv("PROFIL_SIGNAL");
	int signo;

	if (env != NULL && *env != '\0') {
		char *end;
		long v = strtol(env, &end, 10);

		if (*end == '\0' && v >= SIGRTMIN && v <= SIGRTMAX)
			return (int)v;
	}
	/* Programs that use real-time signals mostly count up from SIGRTMIN. */
	for (signo = SIGRTMAX - 1; signo > SIGRTMIN + 2; signo--)
		if (signal_is_free(signo))
			return signo;
	errno = EBUSY;
	return -1;
}

int
handler_install(handler_sample_fn *on_sample, handler_other_fn *on_other)
{
	struct sigaction sa;
	int signo;

	pthread_mutex_lock(&choose_lock);
	atomic_store(&on_sample_fn, on_sample);
	atomic_store(&on_other_fn, on_other);
	if (chosen_signo < 0)
		chosen_signo = choose_signal();
	signo = chosen_signo;
	if (signo < 0) {
		pthread_mutex_unlock(&choose_lock);
		return -1;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = sample_handler;
	/* SA_RESTART: a sample never makes a system call fail with EINTR. */
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	sigdelset(&sa.sa_mask, SIGFPE);
	sigdelset(&sa.sa_mask, SIGILL);
	sigdelset(&sa.sa_mask, SIGTRAP);
	if (real_sigaction()(signo, &sa, NULL) < 0)
		signo = -1;
	pthread_mutex_unlock(&choose_lock);
	return signo;
}

/* After fork the child keeps the choice; reset the lock a thread may hold. */
void
handler_fork_child(void)
{
	pthread_mutex_init(&choose_lock, NULL);
}
