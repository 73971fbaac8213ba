/*
 * prf-internal.h - what the files of the .prf codec share with each other
 * and with nothing else (never installed; the format's constants are in
 * prf.h, its contract in docs/prf-format.md):
 *
 *   prf-encode.c          a profile into bytes (profil_profile_encode)
 *   prf-decode.c          bytes into a profile (profil_profile_parse):
 *                         the file header, then each record in turn
 *   prf-decode-stacks.c   the stacks record
 *   prf-lines.c           the lines record, both ways
 *   prf-fp-frames.c       the fp frames record, both ways
 *   prf-check.c           what must agree across records, after the end
 *   prf.c                 whole files: read, save; free a profile
 */
#ifndef PROFIL_PRF_INTERNAL_H
#define PROFIL_PRF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "profil.h"
#include "codec/rio.h"

/* One of include/profil.h's functions: everything else stays hidden. */
#define EXPORT __attribute__((visibility("default")))

/*
 * One parse: the bytes, where the cause of a refusal goes (the caller's,
 * maybe none), the profile being built and its arrays' capacities, and
 * the file's version.
 */
struct decoder {
	struct rio_in in;
	char *cause;
	size_t cause_size;
	struct profil_profile *p;
	size_t objects_cap, threads_cap, processes_cap;
	uint32_t version;
};

/* Why d refuses its file, printf-style, into d->cause if it has room. */
void prf_say(struct decoder *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The stacks record's payload in into d->p's frames and stacks.  0, or -1
 * with the reason in *why ("truncated" for a short record); whatever was
 * made is left in d->p for profil_profile_free.
 */
int prf_decode_stacks(struct decoder *d, struct rio_in *in, const char **why);

/*
 * The lines record: p's lines into out (the record's payload); its
 * payload in into d->p (0, or -1 with the reason in *why, what was made
 * left for profil_profile_free).  That each line's object is one of the
 * profile's is prf_check_totals'.
 */
void prf_encode_lines(struct rio_out *out, const struct profil_profile *p);
int prf_decode_lines(struct decoder *d, struct rio_in *in, const char **why);

/*
 * The fp frames record, the same ways: the frames whose callers were
 * found by frame pointer.  That each is a frame of the profile (the
 * record comes after the stacks) is prf_check_totals'.
 */
void prf_encode_fp_frames(struct rio_out *out, const struct profil_profile *p);
int prf_decode_fp_frames(struct decoder *d, struct rio_in *in, const char **why);

/*
 * Once the end record is read: the header's totals agree with the parts,
 * every kept name, line and stack frame belongs to an object of the
 * profile,
 * and the stacks add up to the flat profile.  0, or -1 with the cause
 * said (prf_say).
 */
int prf_check_totals(struct decoder *d);

#endif
