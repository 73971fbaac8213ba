/*
 * demangle.c - C++ names through the runtime's own demangler: the same
 * output as c++filt and gdb, kept up to date with the ABI by GCC.
 */
#include <stdlib.h>

#include "demangle.h"

/* libstdc++, <cxxabi.h>; C linkage. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

char *
demangle(const char *name)
{
	int status = -1;
	char *out;

	/* only Itanium-ABI names; a C name such as "Z" is left alone */
	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status != 0) {
		free(out);
		return NULL;
	}
	return out;
}
