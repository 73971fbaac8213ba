/*
 * pprof-internal.h - what the files of the pprof export share; pprof.h is
 * their contract with the command.  Private to cli/export/pprof*.c.
 *
 *   pprof-build.c   the message being built: its string table, and its
 *                   Functions, Locations, Samples and Mappings
 *   pprof-flat.c    the Locations and Samples of the flat profile
 *   pprof-stacks.c  those of the call stacks
 *   pprof.c         the Profile message around them, gzipped to a file
 *
 * Ids are 1-based (0 means "none" in profile.proto), string 0 is "".
 */
#ifndef PROFIL_EXPORT_PPROF_INTERNAL_H
#define PROFIL_EXPORT_PPROF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <profil.h>

#include "intern.h"
#include "pbuf.h"
#include "pprof.h"

/* Field numbers of github.com/google/pprof proto/profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_MEMORY_START = 2, MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4, MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5,
};

/* Inlined functions deeper than this are cut at the outermost ones. */
#define PPROF_MAX_FRAMES 16

struct pprof_function {
	uint64_t name, system_name, filename;	/* string indices */
	int64_t start_line;
};

/* Zero-initialised but for p and nvalues; what the files below fill. */
struct pprof_builder {
	const struct profil_profile *p;
	struct intern strings;		/* the string table: string i */
	struct pprof_function *funcs;	/* function id i + 1 */
	size_t nfuncs, funcs_cap;
	uint64_t nlocations;
	size_t nvalues;			/* 2, or 3 with wall nanoseconds */
	struct pbuf samples, mappings, locations, msg, line;
};

/* ---- pprof-build.c ------------------------------------------------------ */

/* A new Function; its id. */
uint64_t pprof_add_function(struct pprof_builder *b, const char *symbol,
    const char *file, int start_line);

/*
 * count samples, or off_ns off the CPU, as values: [count, count *
 * interval] and for a wall profile its wall time, count * interval (on
 * the CPU) or off_ns; -1 with errno EOVERFLOW past int64.
 */
int pprof_sample_values(const struct pprof_builder *b, uint64_t count,
    uint64_t off_ns, uint64_t values[3]);

/*
 * Location id at addr of mapping (0: no mapping, no address), in nlines
 * frames: function ids (0: none, and no more) at lines (0: unknown),
 * innermost first, the last being the function the others were inlined
 * into.
 */
void pprof_emit_location(struct pprof_builder *b, uint64_t id,
    uint64_t mapping, uint64_t addr, const uint64_t *functions,
    const int *lines, size_t nlines);

/* A Sample of values at the n Locations of ids, leaf first. */
void pprof_emit_sample(struct pprof_builder *b, const uint64_t *ids, size_t n,
    const uint64_t values[3]);

/*
 * One Location with its Sample (the flat profile): count samples at
 * addr of mapping, in frames as pprof_emit_location has them.  0, or -1
 * with errno EOVERFLOW.
 */
int pprof_add_location(struct pprof_builder *b, uint64_t mapping,
    uint64_t addr, const uint64_t *functions, const int *lines,
    size_t nlines, uint64_t count);

/*
 * The Mapping of object oi over [lo, hi), whose has_* flags say whether
 * any of its Locations got a function, a file, a line, as pprof's own
 * symbolizer sets them.
 */
void pprof_add_mapping(struct pprof_builder *b, size_t oi, uint64_t lo,
    uint64_t hi, int has_functions, int has_filenames, int has_lines);

/* ---- pprof-flat.c, pprof-stacks.c ---------------------------------------- */

/*
 * Everything from the flat profile: the Locations and Samples of every
 * object's buckets with its Mapping, then the kernel's and the unknown
 * samples.  0, or -1 with errno EOVERFLOW.
 */
int pprof_add_flat(struct pprof_builder *b, const struct funcs *f);

/*
 * Everything from the stacks: a Location per profile frame, a Sample per
 * stack over its frames' Locations, leaf first, and every object's
 * Mapping (spanning its frames too: an object seen only in callers has
 * no code range of its own).  0, or -1 with errno EOVERFLOW.
 */
int pprof_add_stacks(struct pprof_builder *b, const struct funcs *f,
    const struct stacks *s);

#endif
