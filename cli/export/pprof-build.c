/*
 * pprof-build.c - the Profile message being built (pprof-internal.h): its
 * Functions, Locations, Samples and Mappings, encoded as they come, their
 * strings in its table (each once: intern.h).  Ids are 1-based (0 means
 * "none" in profile.proto), string 0 is "".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pprof-internal.h"

uint64_t
pprof_add_function(struct pprof_builder *b, const char *symbol,
    const char *file, int start_line)
{
	char *readable = funcs_display_name(symbol);
	struct pprof_function *f;

	if (b->nfuncs == b->funcs_cap) {
		b->funcs_cap = b->funcs_cap ? b->funcs_cap * 2 : 64;
		b->funcs = xrealloc(b->funcs, b->funcs_cap * sizeof *b->funcs);
	}
	f = &b->funcs[b->nfuncs];
	f->name = intern_add(&b->strings, readable ? readable : symbol, NULL);
	f->system_name = intern_add(&b->strings, symbol, NULL);
	f->filename = file ? intern_add(&b->strings, file, NULL) : 0;
	f->start_line = file ? start_line : 0;
	free(readable);
	return ++b->nfuncs;
}

int
pprof_sample_values(const struct pprof_builder *b, uint64_t count,
    uint64_t off_ns, uint64_t values[3])
{
	if (count > INT64_MAX / b->p->interval_ns || off_ns > INT64_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	values[0] = count;
	values[1] = count * b->p->interval_ns;
	values[2] = off_ns > 0 ? off_ns : values[1];
	return 0;
}

void
pprof_emit_location(struct pprof_builder *b, uint64_t id, uint64_t mapping,
    uint64_t addr, const uint64_t *functions, const int *lines, size_t nlines)
{
	pbuf_reset(&b->msg);
	pbuf_uint(&b->msg, LOCATION_ID, id);
	if (mapping != 0) {
		pbuf_uint(&b->msg, LOCATION_MAPPING_ID, mapping);
		pbuf_uint(&b->msg, LOCATION_ADDRESS, addr);
	}
	for (size_t i = 0; i < nlines && functions[i] != 0; i++) {
		pbuf_reset(&b->line);
		pbuf_uint(&b->line, LINE_FUNCTION_ID, functions[i]);
		if (lines[i] > 0)
			pbuf_int(&b->line, LINE_LINE, lines[i]);
		pbuf_message(&b->msg, LOCATION_LINE, &b->line);
	}
	pbuf_message(&b->locations, PROFILE_LOCATION, &b->msg);
}

void
pprof_emit_sample(struct pprof_builder *b, const uint64_t *ids, size_t n,
    const uint64_t values[3])
{
	pbuf_reset(&b->msg);
	pbuf_packed(&b->msg, SAMPLE_LOCATION_ID, ids, n);
	pbuf_packed(&b->msg, SAMPLE_VALUE, values, b->nvalues);
	pbuf_message(&b->samples, PROFILE_SAMPLE, &b->msg);
}

int
pprof_add_location(struct pprof_builder *b, uint64_t mapping,
    uint64_t addr, const uint64_t *functions, const int *lines, size_t nlines,
    uint64_t count)
{
	uint64_t id, values[3];

	if (pprof_sample_values(b, count, 0, values) < 0)
		return -1;
	id = ++b->nlocations;
	pprof_emit_location(b, id, mapping, addr, functions, lines, nlines);
	pprof_emit_sample(b, &id, 1, values);
	return 0;
}

void
pprof_add_mapping(struct pprof_builder *b, size_t oi, uint64_t lo,
    uint64_t hi, int has_functions, int has_filenames, int has_lines)
{
	const struct profil_object *o = &b->p->objects[oi];
	char hex[2 * sizeof o->build_id + 1];

	for (unsigned i = 0; i < o->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", o->build_id[i]);
	hex[2 * o->build_id_len] = '\0';
	pbuf_reset(&b->msg);
	pbuf_uint(&b->msg, MAPPING_ID, oi + 1);
	pbuf_uint(&b->msg, MAPPING_MEMORY_START, lo);
	pbuf_uint(&b->msg, MAPPING_MEMORY_LIMIT, hi);
	pbuf_uint(&b->msg, MAPPING_FILE_OFFSET, 0);
	pbuf_int(&b->msg, MAPPING_FILENAME,
	    (int64_t)intern_add(&b->strings, o->path, NULL));
	pbuf_int(&b->msg, MAPPING_BUILD_ID,
	    (int64_t)intern_add(&b->strings, hex, NULL));
	pbuf_uint(&b->msg, MAPPING_HAS_FUNCTIONS, (uint64_t)has_functions);
	pbuf_uint(&b->msg, MAPPING_HAS_FILENAMES, (uint64_t)has_filenames);
	pbuf_uint(&b->msg, MAPPING_HAS_LINE_NUMBERS, (uint64_t)has_lines);
	pbuf_message(&b->mappings, PROFILE_MAPPING, &b->msg);
}
