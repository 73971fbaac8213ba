/*
 * gmon.h - `profil export --format gmon`: gmon.out files for GNU gprof.
 */
#ifndef PROFIL_EXPORT_GMON_H
#define PROFIL_EXPORT_GMON_H

#include <profil.h>

/*
 * The gmon.OBJECT.out files of p (read from file) in directory dir: each
 * object's histogram and the calls p's stacks make within it, counted in
 * samples (gmon.c).  Their names printed on stdout; the exit status
 * (errors said on stderr).
 */
int export_gmon(const struct profil_profile *p, const char *file,
    const char *dir);

#endif
