/*
 * prffile.h - the .prf file `profil record` writes: its name, a temporary
 * file beside it made before the program runs (so that what refuses it is
 * said before, not after, the run), the header fields the run gives, and
 * the profile committed to it at the end (through cli/outfile.h, the one
 * way the command writes a file).  It prints nothing: cmd-record.c says
 * what went wrong.
 */
#ifndef PROFIL_RECORD_PRFFILE_H
#define PROFIL_RECORD_PRFFILE_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include <profil.h>

#include "outfile.h"
#include "record.h"

/*
 * tmpl (-o), or PROGRAM.prf in the current directory, %p expanded to pid;
 * absolute.  malloc'd.
 */
char *prffile_path(const char *tmpl, const char *program, pid_t pid);

/*
 * Create the temporary file beside path (with %p still 0 in it: only the
 * name changes at the end): path's directory must exist and be writable
 * now.  0, or -1 with a cause.  Until prffile_commit, any exit of the
 * recorder removes it.
 */
int prffile_open(struct outfile *out, const char *path, char *cause,
    size_t cause_size);

/* Remove the temporary file now, if there is one (and it is ours). */
void prffile_remove_pending(void);

/*
 * The header fields of p (fresh from builder_finish) that the run gives:
 * the interval and engine of o (chosen by then: not NULL), its command
 * line, the start (start, on CLOCK_REALTIME), and r's duration, CPU time
 * and weights.
 */
void prffile_header(struct profil_profile *p, const struct record_opts *o,
    const struct record_result *r, const struct timespec *start);

/*
 * p into the temporary file, renamed to path.  0, or -1 with a cause; the
 * temporary file is gone either way.
 */
int prffile_commit(struct outfile *out, const struct profil_profile *p,
    const char *path, char *cause, size_t cause_size);

#endif
