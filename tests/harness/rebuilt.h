/*
 * rebuilt.h - a profile whose program was rebuilt since (rebuilt.c), the
 * fixture of test-names and test-archive: the names of a profile found
 * again away from the files it was recorded with are checked against
 * those it had when read with them.
 */
#ifndef PROFIL_TEST_REBUILT_H
#define PROFIL_TEST_REBUILT_H

#include <limits.h>

#include "e2e.h"

/*
 * The workload's source, the program's path (SCRATCH/bin/app), builds A
 * and B, the profile of A run at app.
 */
extern char source[PATH_MAX + 64], app[PATH_MAX], build_a[PATH_MAX];
extern char build_b[PATH_MAX], prf[PATH_MAX];
extern struct shares right;	/* the profile read with its own file */

/*
 * The group's setup (cmocka): build A, record it at app, read it right,
 * then put B (another build of the same source) at app: what was
 * profiled is no longer there.
 */
int rebuilt_setup(void **state);

/* cc the workload into out with the given build-id (hex; NULL: none). */
void build(const char *out, const char *build_id);
/* cp from to, making to's directory. */
void copy(const char *from, const char *to);

/* Every function of app has the samples it had when read right. */
void assert_named_right(const struct shares *s, const char *what);

#endif
