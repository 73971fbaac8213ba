/*
 * thread_hook.c - our pthread_create, found before the C library's, so
 * that every new thread registers itself (threads_begin) before it runs
 * any of its own code.  The real pthread_create is the next definition in
 * the lookup order (RTLD_NEXT): the C library's, or a sanitizer's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "threads.h"

typedef int create_fn(pthread_t *, const pthread_attr_t *,
    void *(*)(void *), void *);

struct start {
	void *(*routine)(void *);
	void *arg;
};

static void *
start_thread(void *p)
{
	struct start start = *(struct start *)p;

	free(p);
	threads_begin();
	return start.routine(start.arg);
}

__attribute__((visibility("default"))) int
pthread_create(pthread_t *thread, const pthread_attr_t *attr,
    void *(*routine)(void *), void *arg)
{
	static create_fn *_Atomic real_create;
	create_fn *real = real_create;
	struct start *start;
	int rc;

	if (real == NULL) {
		real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
		if (real == NULL)
			return EAGAIN;
		real_create = real;
	}
	start = malloc(sizeof *start);
	if (start == NULL)
		return EAGAIN;
	start->routine = routine;
	start->arg = arg;
	rc = real(thread, attr, start_thread, start);
	if (rc != 0)
		free(start);
	return rc;
}
