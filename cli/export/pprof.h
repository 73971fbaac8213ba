/*
 * pprof.h - a profile in pprof's format: the Profile message of
 * github.com/google/pprof proto/profile.proto, gzip-compressed, which
 * pprof, Pyroscope, Parca and Grafana read.
 *
 * Two sample types, samples/count and cpu/nanoseconds (count times the
 * sampling interval), period cpu/nanoseconds = the interval.  One Mapping
 * per object of the profile, at its link-time addresses (no run-time
 * addresses are recorded): memory_start/limit = lowpc/highpc, file offset
 * 0, build_id in lowercase hex.  One Location (and one Sample) per bucket
 * with samples, at the bucket's link-time address, with one Line naming
 * its function when the object's symbols are known.  Kernel and unknown
 * samples are Locations without a Mapping, in Functions named [kernel]
 * and [unknown], so the sample values add up to p->samples.
 */
#ifndef PROFIL_EXPORT_PPROF_H
#define PROFIL_EXPORT_PPROF_H

#include <profil.h>

#include "pbuf.h"
#include "symbols/symbols.h"

/* What `profil export --format pprof` writes when no -o is given. */
#define EXPORT_PPROF_DEFAULT_PATH "profile.pb.gz"

/*
 * Append p, as an uncompressed Profile message, to out.  tabs holds one
 * symbol table per object of p (symtab_open); an entry may be NULL, and
 * that object's Locations then carry addresses only.  Returns 0, or -1
 * with errno EOVERFLOW if a value does not fit profile.proto's int64.
 */
int export_pprof_encode(const struct profil_profile *p,
    struct symtab *const *tabs, struct pbuf *out);

/*
 * Write p, gzipped, to path through outfile.h (which says what path may
 * be, and makes the write atomic).  Returns 0, or -1 with a cause (a
 * value too large for int64 among them); path is then as it was and no
 * temporary file is left.
 */
int export_pprof_save(const struct profil_profile *p,
    struct symtab *const *tabs, const char *path, char *cause,
    size_t cause_size);

#endif
