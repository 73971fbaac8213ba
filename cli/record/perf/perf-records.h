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
#include <sys/types.h>

#include "perf-engine.h"
#include "record/core/builder.h"

/*
 * Apply one whole record of size bytes (its header's size), contiguous,
 * to e; a record too short for its fields is ignored.
 */
void perf_records_apply(struct engine *e, const uint8_t *rec, size_t size);
/*
 * kernel-time.h's sink for e (an engine): count samples of unit base
 * periods at frames, as taken, into the builder.
 */
void perf_records_kernel_time(void *arg, const struct bframe *frames,
    size_t n, uint64_t count, uint64_t unit, pid_t pid, pid_t tid);
/* A record's time (a sample's TIME, another's sample_id_all); 0: none. */
uint64_t perf_records_time(const uint8_t *rec, size_t size);

#endif
