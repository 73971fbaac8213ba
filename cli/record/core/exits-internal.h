/*
 * exits-internal.h - what exits.c and exits-events.c share; exits.h is
 * their contract with launch.c.
 */
#ifndef PROFIL_RECORD_EXITS_INTERNAL_H
#define PROFIL_RECORD_EXITS_INTERNAL_H

#include <sys/types.h>

#include "hmap.h"

/*
 * The kernel's process events (the proc connector), subscribed to: the
 * socket, or -1 where they are refused.  They come in the first network
 * namespace only (not in a container with its own), to root only on
 * older kernels.  Open before the program forks: events are kept until
 * read.
 */
int exits_events_open(void);

/*
 * Read the events pending on fd: root's descendants as they fork
 * (processes, not threads) into *tree, a tgid's value 1, and as their
 * threads end, 2 + the wait status of the last to end (an exit_group's
 * or the fatal signal's, whichever thread ends last).  Other processes'
 * events are dropped.  *lost set if the socket's buffer overflowed.
 */
void exits_events_read(int fd, pid_t root, struct hmap *tree, int *lost);

#endif
