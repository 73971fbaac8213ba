/*
 * gmon.h - `profil export --format gmon`: gmon.out files for GNU gprof.
 */
#ifndef PROFIL_EXPORT_GMON_H
#define PROFIL_EXPORT_GMON_H

#include <stddef.h>

#include <profil.h>

#include "cli.h"

/*
 * The gmon.OBJECT.out files of p (read from file) in directory dir: each
 * object's histogram and the calls p's stacks make within it, counted in
 * samples (gmon.c).  Each file's name, and its object's path, printed on
 * stdout as it is written; what gprof will lack (an object without a
 * symbol table, no object with samples) said through warn.  0, or -1 with
 * a cause: the files written before stay.
 */
int export_gmon(const struct profil_profile *p, const char *file,
    const char *dir, cli_warn_fn *warn, char *cause, size_t cause_size);

#endif
