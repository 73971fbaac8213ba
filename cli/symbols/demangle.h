/*
 * demangle.h - readable names for C++ (Itanium ABI) symbols, by the
 * demangler of the C++ runtime (libstdc++'s __cxa_demangle).
 */
#ifndef PROFIL_DEMANGLE_H
#define PROFIL_DEMANGLE_H

/* The demangled name, malloc'd; NULL when name is not a mangled one. */
char *demangle(const char *name);

#endif
