/*
 * ownfds.h - the library's own file descriptors (the perf event fds of
 * its clocks), kept from a program that closes every descriptor.
 *
 * Daemons, shells' children and careful programs close every fd they did
 * not open; done to our perf event fds, that silently stops the sampling
 * of each thread that had one.  The shared library's close, close_range
 * and closefrom (found before the C library's) leave the fds marked here
 * open and tell the program they were closed; dup2 and dup3 onto one of
 * them drop the mark (the kernel then closes ours, and thread_clock.c
 * tells by the event id that the number is no longer ours).  Raw system
 * calls are not watched.  The static library has no wrappers: there a
 * mark changes nothing.
 *
 * Marks cover fds below OWNFDS_MAX; the functions are async-signal-safe.
 */
#ifndef PROFIL_OWNFDS_H
#define PROFIL_OWNFDS_H

#define OWNFDS_MAX 65536

/* fd is one of ours from now on. */
void ownfds_mark(int fd);

/* Close one of ours: drop the mark, then really close it. */
int ownfds_close(int fd);

#endif
