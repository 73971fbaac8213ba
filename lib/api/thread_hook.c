/*
 * thread_hook.c - our pthread_create, found before the C library's, so
 * that while sampling is on every new thread gets its clock armed the
 * moment it exists.  The real pthread_create is the next definition in
 * the lookup order (RTLD_NEXT): the C library's, or a sanitizer's.
 *
 * Built a second time with PROFIL_WRAP for libprofil.a: a static link has
 * no RTLD_NEXT, so there the hook is __wrap_pthread_create, used when the
 * program is linked with -Wl,--wrap=pthread_create (pkg-config --static
 * adds it); without that flag the program calls the C library directly.
 *
 * The new thread's own start routine is left untouched (no trampoline):
 * a sanitizer may wrap it after us, and nothing may run on the thread
 * before the sanitizer has set it up.
 *
 * The shared library also puts a dlclose in front of the C library's,
 * for the agent of `profil record -e timer` (agent.h), which only the
 * shared library can be.  The static one must not: it would replace the
 * C library's in a static program, which has no RTLD_NEXT.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "agent/agent.h"
#include "sampler/interpose.h"
#include "sampler/threads.h"

typedef int create_fn(pthread_t *, const pthread_attr_t *,
    void *(*)(void *), void *);

#ifdef PROFIL_WRAP
#define HOOK_NAME __wrap_pthread_create
extern create_fn __real_pthread_create __attribute__((weak));
#else
#define HOOK_NAME pthread_create
#endif

static create_fn *
real_pthread_create(void)
{
#ifdef PROFIL_WRAP
	return __real_pthread_create;
#else
	static void *_Atomic real_create;

	return (create_fn *)interpose_next(&real_create, "pthread_create");
#endif
}

int HOOK_NAME(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

__attribute__((visibility("default"))) int
HOOK_NAME(pthread_t *thread, const pthread_attr_t *attr,
    void *(*routine)(void *), void *arg)
{
	create_fn *real = real_pthread_create();
	clockid_t clock;
	int rc;

	if (real == NULL)
		return EAGAIN;	/* cannot happen: linked against a C library */
	rc = real(thread, attr, routine, arg);
	/*
	 * The thread's CPU clock id encodes its tid (the kernel's
	 * MAKE_THREAD_CPUCLOCK): ~(clock >> 3).  If the thread is already
	 * gone, arming fails quietly.
	 */
	if (rc == 0 && threads_sampling() &&
	    pthread_getcpuclockid(*thread, &clock) == 0)
		threads_add((pid_t)~(clock >> 3));
	return rc;
}

#ifndef PROFIL_WRAP
typedef int dlclose_fn(void *);

__attribute__((visibility("default"))) int
dlclose(void *handle)
{
	static void *_Atomic real_close;
	dlclose_fn *real = (dlclose_fn *)interpose_next(&real_close, "dlclose");

	if (real == NULL)
		return -1;	/* cannot happen: linked against libdl */
	return agent_dlclose(real, handle);
}
#endif
