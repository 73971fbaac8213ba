/*
 * demangle.c - C++ names through the runtime's own demangler: the same
 * output as c++filt and gdb, kept up to date with the ABI by GCC.
 *
 * libstdc++ is loaded with dlopen the first time a mangled name is
 * met, not linked: linked, every `profil` start (record included) paid
 * some 2.5 ms to load and relocate it here, for a call most runs of a
 * C program never make.  Without it, names stay mangled.
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "demangle.h"

/* <cxxabi.h>'s abi::__cxa_demangle; C linkage, stable since GCC 3 */
typedef char *cxa_demangle_fn(const char *mangled, char *out, size_t *len,
    int *status);

static cxa_demangle_fn *
demangler(void)
{
	static int tried;
	static cxa_demangle_fn *fn;
	void *lib;

	if (!tried) {
		tried = 1;
		lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (lib != NULL)
			fn = (cxa_demangle_fn *)dlsym(lib, "__cxa_demangle");
	}
	return fn;
}

char *
demangle(const char *name)
{
	cxa_demangle_fn *fn;
	int status = -1;
	char *out;

	/* only Itanium-ABI names; a C name such as "Z" is left alone */
	if (name[0] != '_' || name[1] != 'Z' || (fn = demangler()) == NULL)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
