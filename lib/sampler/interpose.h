/*
 * interpose.h - the definition a function of ours stands in front of.
 *
 * The shared library puts some functions before the C library's
 * (pthread_create, dlclose, the signal veil, the close family); each
 * calls on to the next definition in the lookup order (RTLD_NEXT): the C
 * library's, or a sanitizer's that ends there.  dlsym is not
 * async-signal-safe, so each module looks its functions up in a
 * constructor too, before a program handler can call them; the lookup
 * here also serves callers that come earlier still (another library's
 * constructor).
 */
#ifndef PROFIL_INTERPOSE_H
#define PROFIL_INTERPOSE_H

#include <dlfcn.h>
#include <stdatomic.h>

/* The next definition of name, looked up once into *slot; NULL if none. */
static inline void *
interpose_next(void *_Atomic *slot, const char *name)
{
	void *fn = atomic_load(slot);

	if (fn == NULL) {
		fn = dlsym(RTLD_NEXT, name);
		atomic_store(slot, fn);
	}
	return fn;
}

#endif
