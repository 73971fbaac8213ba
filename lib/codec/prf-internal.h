/*
 * prf-internal.h - what the files of the .prf codec share with each other
 * and with nothing else (never installed; the format's constants are in
 * prf.h, its contract in docs/prf-format.md):
 *
 *   prf-encode.c          a profile into bytes (profil_profile_encode)
 *   prf-decode.c          bytes into a profile (profil_profile_parse):
 *                         the file header, then each record framed in
 *                         turn, then the end record
 *   prf-decode-records.c  each record's payload (the flat profile's
 *                         here, the others handed to their files)
 *   prf-decode-stacks.c   the stacks record
 *   prf-lines.c           the lines record, both ways
 *   prf-fp-frames.c       the fp frames record, both ways
 *   prf-timeline.c        the timeline record, both ways, and that it
 *                         adds up to the stacks
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
 * maybe none), the profile being built and its arrays' capacities, the
 * file's version, and which of the records that come once have come.
 */
struct decoder {
	struct rio_in in;
	char *cause;
	size_t cause_size;
	struct profil_profile *p;
	size_t objects_cap, threads_cap, processes_cap;
	uint32_t version;
	int seen_header, seen_weights, seen_refused;
};

/*
 * One record as the file frames it: where it starts, its tag, flags and
 * length, and its payload (pointing into the file's bytes).
 */
struct prf_record {
	size_t at;
	uint16_t tag, flags;
	uint32_t length;
	struct rio_in payload;
};

/* Why d refuses its file, printf-style, into d->cause if it has room. */
void prf_say(struct decoder *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Record r (any but the end) into d->p; an unknown one skipped if it
 * says it may be.  0, or -1 with the cause said (prf_say).
 */
int prf_decode_record(struct decoder *d, struct prf_record *r);

/* A record's tag as a refusal names it ("stacks"; "unknown"). */
const char *prf_tag_name(unsigned tag);

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
 * The timeline record, the same ways: when each stack's samples came.
 * prf_check_timeline, once every record is in: every stack's entries
 * add up to its count (or off_ns), thread by thread.  0, or -1 (said).
 */
void prf_encode_timeline(struct rio_out *out, const struct profil_profile *p);
int prf_decode_timeline(struct decoder *d, struct rio_in *in, const char **why);
int prf_check_timeline(struct decoder *d);

/*
 * Once the end record is read: the header's totals agree with the parts,
 * every kept name, line and stack frame belongs to an object of the
 * profile,
 * and the stacks add up to the flat profile.  0, or -1 with the cause
 * said (prf_say).
 */
int prf_check_totals(struct decoder *d);

#endif
