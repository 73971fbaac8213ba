/*
 * thread_hook.c - our pthread_create, found before the C library's, so
 * that while sampling is on every new thread gets its clock armed the
 * moment it exists.  The real pthread_create is the next definition in
 * the lookup order (RTLD_NEXT): the C library's, or a sanitizer's.
 *
 * The new thread's own start routine is left untouched (no trampoline):
 * a sanitizer may wrap it after us, and nothing may run on the thread
 * before the sanitizer has set it up.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "threads.h"

typedef int create_fn(pthread_t *, const pthread_attr_t *,
    void *(*)(void *), void *);

__attribute__((visibility("default"))) int
pthread_create(pthread_t *thread, const pthread_attr_t *attr,
    void *(*routine)(void *), void *arg)
{
	static create_fn *_Atomic real_create;
	create_fn *real = real_create;
	clockid_t clock;
	int rc;

	if (real == NULL) {
		real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
		if (real == NULL)
			return EAGAIN;
		real_create = real;
	}
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
