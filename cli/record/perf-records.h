/*
 * perf-records.h - the perf engine's records, read and applied as they
 * are drained: samples folded into the builder (with their stacks
 * unwound), side-band records (MMAP2, COMM, FORK, EXIT) kept in the
 * process table, LOST and THROTTLE counted.
 */
#ifndef PROFIL_RECORD_PERF_RECORDS_H
#define PROFIL_RECORD_PERF_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "perf-engine.h"

/*
 * Apply one whole record of size bytes (its header's size), contiguous,
 * to e; a record too short for its fields is ignored.
 */
void perf_records_apply(struct engine *e, const uint8_t *rec, size_t size);
/* A record's time (a sample's TIME, another's sample_id_all); 0: none. */
uint64_t perf_records_time(const uint8_t *rec, size_t size);

#endif
