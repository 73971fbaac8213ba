/*
 * fault.h - surviving a counter buffer that is not (or no longer) writable.
 *
 * fault_install() puts a SIGSEGV/SIGBUS handler in front of the program's
 * own: a fault inside the arch counter functions (arch.h) makes that
 * function return -1; any other fault goes on to the handler that was
 * there before, or to the default action, exactly as without us.
 */
#ifndef PROFIL_FAULT_H
#define PROFIL_FAULT_H

#include <stddef.h>

/* Install the handler if it is not already first.  0, or -1 and errno. */
int fault_install(void);

/*
 * 0 if every byte of [p, p + len) can be written (write != 0) or read,
 * -1 otherwise.  Touches one byte per page, changing nothing.  Needs
 * fault_install().
 */
int fault_probe(const void *p, size_t len, int write);

/* In a forked child: reset the lock another thread may have held. */
void fault_fork_child(void);

#endif
