/*
 * pprof.h - a profile in pprof's format: the Profile message of
 * github.com/google/pprof proto/profile.proto, gzip-compressed, which
 * pprof, Pyroscope, Parca and Grafana read.
 *
 * Two sample types, samples/count and cpu/nanoseconds (count times the
 * sampling interval), period cpu/nanoseconds = the interval.  A wall
 * profile (record --wall) has a third, wall/nanoseconds, the default
 * type: a CPU stack's wall time is its CPU time, an off-CPU stack's
 * (leaf "[off-cpu: read]", a Function without file or Mapping) its
 * off_ns, with 0 samples and 0 cpu.  One Mapping
 * per object of the profile, at its link-time addresses (no run-time
 * addresses are recorded): memory_start/limit = lowpc/highpc (widened to
 * the object's stack frames), file offset 0, build_id in lowercase hex.
 *
 * With call stacks: one Location per frame of the profile (mapping and
 * address; a Line per function there, innermost inlined one first when s
 * was named with inlines, each with its file and line where known) and
 * one Sample per stack, its Locations leaf first.  Without: one Location (and one Sample) per
 * bucket with samples, at the bucket's link-time address.  Kernel and
 * unknown code are Locations without a Mapping, in Functions named as
 * the report names them ([kernel] and [unknown] where nothing better is
 * known), so the sample values add up to p->samples either way.
 */
#ifndef PROFIL_EXPORT_PPROF_H
#define PROFIL_EXPORT_PPROF_H

#include <profil.h>

#include "pbuf.h"
#include "model/funcs.h"
#include "model/stacks.h"

/* What `profil export --format pprof` writes when no -o is given. */
#define EXPORT_PPROF_DEFAULT_PATH "profile.pb.gz"

/*
 * Append p, as an uncompressed Profile message, to out.  f is built on p
 * (funcs_build, or funcs_build_inline for a Line per inlined function):
 * its symbol tables (an object without one has Locations with addresses
 * only) and kernel names.  s, the names of p's stacks (stacks_name on p
 * and f, with or without inlines as f), or NULL: then, as when p has no
 * stacks, the Samples are the flat profile's.  Returns 0, or -1 with
 * errno EOVERFLOW if a value does not fit profile.proto's int64.
 */
int export_pprof_encode(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, struct pbuf *out);

/*
 * Write p, gzipped, to path through outfile.h (which says what path may
 * be, and makes the write atomic), or with path "-" to standard output.
 * Returns 0, or -1 with a cause (a value too large for int64 among
 * them); path is then as it was and no temporary file is left.
 */
int export_pprof_save(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, const char *path, char *cause, size_t cause_size);

#endif
