/*
 * sigveil.c - the program's own view of the sampling signal (sigveil.h).
 *
 * The disposition the program set is kept under a sequence lock: the
 * signal handler reads it (sigveil_deliver) and must never wait for a
 * writer it interrupted, so writers block every signal while they hold
 * the lock.  Whether the program blocks the signal is per thread, as the
 * signal mask is.
 *
 * The wrappers are in the shared library only (not with PROFIL_WRAP, the
 * static library's flavour): there RTLD_NEXT finds the C library's
 * functions, or a sanitizer's that end in the C library's.  Our own
 * handler is installed past them (handler.c), so the veil never stands
 * in front of it; under ThreadSanitizer, whose interceptor comes first
 * and calls on through them, what comes through is its own handler,
 * taken for the program's as any other.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "sampler/interpose.h"
#include "sampler/sigmark.h"
#include "sampler/sigveil.h"

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef int sigmask_fn(int, const sigset_t *, sigset_t *);

static _Atomic int veiled;		/* the veiled signal; 0: none */
static struct sigaction program_act;	/* under act_seq */
static _Atomic unsigned act_seq;	/* odd while being written */
static atomic_flag act_writer = ATOMIC_FLAG_INIT;

#ifndef PROFIL_WRAP
/* What the program asked of this thread's mask for the veiled signal. */
static __thread int program_blocks __attribute__((tls_model("initial-exec")));
#endif

#ifdef PROFIL_WRAP
/* The static library has no wrappers: the C library's are the real ones. */
static sigaction_fn *real_sigaction_fn(void) { return sigaction; }
static sigmask_fn *real_sigmask_fn(void) { return pthread_sigmask; }
#else
typedef int sigtimedwait_fn(const sigset_t *, siginfo_t *,
    const struct timespec *);

static void *_Atomic real_sigaction_p, *_Atomic real_sigprocmask_p;
static void *_Atomic real_pthread_sigmask_p, *_Atomic real_sigtimedwait_p;
static void *_Atomic real_sigpending_p;

static sigaction_fn *
real_sigaction_fn(void)
{
	return (sigaction_fn *)interpose_next(&real_sigaction_p,
	    "sigaction");
}

static sigmask_fn *
real_sigprocmask_fn(void)
{
	return (sigmask_fn *)interpose_next(&real_sigprocmask_p,
	    "sigprocmask");
}

static sigmask_fn *
real_sigmask_fn(void)
{
	return (sigmask_fn *)interpose_next(&real_pthread_sigmask_p,
	    "pthread_sigmask");
}

static sigtimedwait_fn *
real_sigtimedwait_fn(void)
{
	return (sigtimedwait_fn *)interpose_next(&real_sigtimedwait_p,
	    "sigtimedwait");
}

__attribute__((constructor(101))) static void
resolve_real(void)
{
	real_sigaction_fn();
	real_sigprocmask_fn();
	real_sigmask_fn();
	real_sigtimedwait_fn();
	interpose_next(&real_sigpending_p, "sigpending");
}
#endif

static void
read_act(struct sigaction *out)
{
	unsigned seq;

	for (;;) {
		seq = atomic_load_explicit(&act_seq, memory_order_acquire);
		if (seq & 1) {
			sched_yield();	/* a writer on another thread */
			continue;
		}
		memcpy(out, &program_act, sizeof *out);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&act_seq, memory_order_relaxed) == seq)
			return;
	}
}

static void
write_act(const struct sigaction *in)
{
	sigset_t all, old;

	sigfillset(&all);
	real_sigmask_fn()(SIG_BLOCK, &all, &old);
	while (atomic_flag_test_and_set_explicit(&act_writer,
	    memory_order_acquire))
		sched_yield();
	atomic_fetch_add_explicit(&act_seq, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	memcpy(&program_act, in, sizeof program_act);
	atomic_fetch_add_explicit(&act_seq, 1, memory_order_release);
	atomic_flag_clear_explicit(&act_writer, memory_order_release);
	real_sigmask_fn()(SIG_SETMASK, &old, NULL);
}

void
sigveil_start(int signo)
{
#ifndef PROFIL_WRAP
	struct sigaction dfl;
	sigset_t one, old;
	int blocked;

	if (signo <= 0 || signo >= NSIG || atomic_load(&veiled) == signo)
		return;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	write_act(&dfl);
	sigemptyset(&one);
	sigaddset(&one, signo);
	blocked = real_sigmask_fn()(SIG_UNBLOCK, &one, &old) == 0 &&
	    sigismember(&old, signo) == 1;
	program_blocks = blocked;
	atomic_store(&veiled, signo);
#else
	(void)signo;	/* nothing to veil with: no wrappers here */
#endif
}

void
sigveil_fork_child(void)
{
	/* a writer on another thread of the parent never finishes here */
	atomic_flag_clear(&act_writer);
	if (atomic_load(&act_seq) & 1)
		atomic_fetch_add(&act_seq, 1);
}

int
sigveil_deliver(int sig, siginfo_t *info, void *ucontext)
{
	struct sigaction act;

	if (sig == 0 || atomic_load(&veiled) != sig)
		return 0;
#ifndef PROFIL_WRAP
	if (program_blocks) {
		/*
		 * The program has it blocked: hold it pending for the
		 * program (sigpending shows it, sigwait takes it), blocked
		 * for real from the handler's return until the program
		 * unblocks it; this thread goes unsampled meanwhile.
		 */
		sigaddset(&((ucontext_t *)ucontext)->uc_sigmask, sig);
		syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid),
		    sig, info);
		return 1;
	}
#endif
	read_act(&act);
	/* one pointer either way: SA_SIGINFO with a null one is the default */
	if (act.sa_handler == SIG_IGN)
		return 1;
	if (act.sa_handler == SIG_DFL) {
		/*
		 * A real-time signal's default action ends the process; ours
		 * would have, had we not been there.  Let the kernel do it.
		 */
		struct sigaction dfl;
		sigset_t one;

		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		atomic_store(&veiled, 0);
		real_sigaction_fn()(sig, &dfl, NULL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		raise(sig);
		real_sigmask_fn()(SIG_UNBLOCK, &one, NULL);
		return 1;	/* not reached */
	}
	if (act.sa_flags & SA_RESETHAND) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		write_act(&dfl);
	}
	if (act.sa_flags & SA_SIGINFO)
		act.sa_sigaction(sig, info, ucontext);
	else
		act.sa_handler(sig);
	return 1;
}

#ifndef PROFIL_WRAP
/* ---- the wrappers ------------------------------------------------------- */

int sigaction(int, const struct sigaction *, struct sigaction *);
int sigprocmask(int, const sigset_t *, sigset_t *);
int pthread_sigmask(int, const sigset_t *, sigset_t *);
sighandler_t bsd_signal(int, sighandler_t);

__attribute__((visibility("default"))) int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int v = atomic_load(&veiled);

	if (v == 0 || sig != v)
		return real_sigaction_fn()(sig, act, old);
	if (old != NULL)
		read_act(old);
	if (act != NULL)
		write_act(act);
	return 0;
}

/* signal() and its kin call the C library's sigaction inside it. */
static sighandler_t
veil_signal(int sig, sighandler_t handler, int flags)
{
	struct sigaction sa, old;

	if (handler == SIG_ERR) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (!(flags & SA_NODEFER))
		sigaddset(&sa.sa_mask, sig);
	read_act(&old);
	write_act(&sa);
	return old.sa_handler;
}

static sighandler_t
next_signal(const char *name, int sig, sighandler_t handler)
{
	static void *_Atomic fns[3];
	int i = name[0] == 's' ? 0 : name[0] == 'b' ? 1 : 2;
	sighandler_t (*fn)(int, sighandler_t) =
	    (sighandler_t (*)(int, sighandler_t))interpose_next(&fns[i], name);

	if (fn == NULL) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	return fn(sig, handler);
}

__attribute__((visibility("default"))) sighandler_t
signal(int sig, sighandler_t handler)
{
	int v = atomic_load(&veiled);

	if (v == 0 || sig != v)
		return next_signal("signal", sig, handler);
	return veil_signal(sig, handler, SA_RESTART);	/* BSD semantics */
}

__attribute__((visibility("default"))) sighandler_t
bsd_signal(int sig, sighandler_t handler)
{
	int v = atomic_load(&veiled);

	if (v == 0 || sig != v)
		return next_signal("bsd_signal", sig, handler);
	return veil_signal(sig, handler, SA_RESTART);
}

sighandler_t __sysv_signal(int, sighandler_t);

/* What signal() is in a strict ISO C program: one shot, not deferred. */
__attribute__((visibility("default"))) sighandler_t
__sysv_signal(int sig, sighandler_t handler)
{
	int v = atomic_load(&veiled);

	if (v == 0 || sig != v)
		return next_signal("__sysv_signal", sig, handler);
	return veil_signal(sig, handler, SA_RESETHAND | SA_NODEFER);
}

/*
 * Our samples, raised while this thread had the signal blocked for real
 * (holding a signal of the program's for it), wait pending beside it:
 * take them away before the program looks at what is pending, and put
 * the program's back (as many as fit here; the kernel queues at most
 * a few hundred real-time signals per user anyway).
 */
static void
drop_pending_samples(int v)
{
	struct timespec zero = { 0, 0 };
	siginfo_t kept[64], info;
	sigset_t one;
	int n = 0;

	if (!program_blocks)
		return;		/* not blocked for real: nothing waits */
	sigemptyset(&one);
	sigaddset(&one, v);
	while (n < 64 && real_sigtimedwait_fn() != NULL &&
	    real_sigtimedwait_fn()(&one, &info, &zero) == v)
		if (!sigmark_is_sample(&info))
			kept[n++] = info;
	for (int i = 0; i < n; i++)
		syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid), v,
		    &kept[i]);
}

/*
 * Pass the mask on without the veiled signal; answer for it from what
 * this thread asked.  real returns what sigprocmask or pthread_sigmask
 * do (-1 and errno, or an error number).
 */
static int
veil_mask(sigmask_fn *real, int how, const sigset_t *set, sigset_t *old)
{
	int v = atomic_load(&veiled), prev = program_blocks, blocks = prev, rc;
	sigset_t copy, now;

	if (v == 0 || real == NULL)
		return real == NULL ? ENOSYS : real(how, set, old);
	if (set != NULL && (how == SIG_BLOCK || how == SIG_UNBLOCK ||
	    how == SIG_SETMASK)) {
		int mentioned = sigismember(set, v) == 1, really = 0;

		copy = *set;
		if (how == SIG_SETMASK)
			blocks = mentioned;
		else if (mentioned)
			blocks = how == SIG_BLOCK;
		/*
		 * Blocked for real only while it holds a signal of the
		 * program's (sigveil_deliver): as long as the program keeps
		 * it blocked, leave that as it is.
		 */
		if (blocks && prev && real(SIG_BLOCK, NULL, &now) == 0)
			really = sigismember(&now, v) == 1;
		if (how != SIG_UNBLOCK) {
			if (really)
				sigaddset(&copy, v);
			else
				sigdelset(&copy, v);
		}
		set = &copy;
		if (prev && !blocks) {
			/* what it holds reaches the program's handler now */
			drop_pending_samples(v);
			program_blocks = 0;
		}
	}
	rc = real(how, set, old);
	if (rc != 0) {
		program_blocks = prev;
		return rc;
	}
	if (old != NULL) {
		if (prev)
			sigaddset(old, v);
		else
			sigdelset(old, v);
	}
	program_blocks = blocks;
	return 0;
}

__attribute__((visibility("default"))) int
sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigmask_fn *real = real_sigprocmask_fn();

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return veil_mask(real, how, set, old);
}

__attribute__((visibility("default"))) int
pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return veil_mask(real_sigmask_fn(), how, set, old);
}

int sigpending(sigset_t *);
int sigtimedwait(const sigset_t *, siginfo_t *, const struct timespec *);
int sigwaitinfo(const sigset_t *, siginfo_t *);
int sigwait(const sigset_t *, int *);

__attribute__((visibility("default"))) int
sigpending(sigset_t *set)
{
	int (*real)(sigset_t *) = (int (*)(sigset_t *))interpose_next(
	    &real_sigpending_p, "sigpending");
	int v = atomic_load(&veiled);

	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (v != 0)
		drop_pending_samples(v);
	return real(set);
}

/*
 * The waits: what they take must not be one of our samples.  A sample
 * can still slip in between the drop and the wait; it is then dropped
 * and the wait made again (with its whole timeout: the time lost is the
 * few instructions in between).
 */
__attribute__((visibility("default"))) int
sigtimedwait(const sigset_t *set, siginfo_t *info,
    const struct timespec *timeout)
{
	int v = atomic_load(&veiled), sig;
	siginfo_t mine;

	if (real_sigtimedwait_fn() == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (info == NULL)
		info = &mine;
	do {
		if (v != 0 && sigismember(set, v) == 1)
			drop_pending_samples(v);
		sig = real_sigtimedwait_fn()(set, info, timeout);
	} while (v != 0 && sig == v && sigmark_is_sample(info));
	return sig;
}

__attribute__((visibility("default"))) int
sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return sigtimedwait(set, info, NULL);
}

__attribute__((visibility("default"))) int
sigwait(const sigset_t *set, int *sig)
{
	int got;

	do
		got = sigtimedwait(set, NULL, NULL);
	while (got < 0 && errno == EINTR);	/* sigwait is not interrupted */
	if (got < 0)
		return errno;
	*sig = got;
	return 0;
}
#endif
