/*
 * fuzz-perfrec.c - the perf engine's records
 * (cli/record/perf/perf-records.c) fed anything through
 * perf_records_apply, as the drain hands them over:
 * each whole, its header's size its own.  The input:
 *
 *   flags:u8 (1: call stacks taken, 2: the kernel sampled too,
 *   4: --no-children, 8: the kernel's time counted from the switches,
 *   as the engine does where only user mode is sampled)  then records: header (type:u32 misc:u16
 *   size:u16) and payload, each copied to a buffer of exactly its size
 *
 * A sample's period is made one the engine's events can have (the base
 * period shifted by 0 to BUDGET_MAX_SHIFT, from the input's), as the
 * kernel reports only the period an event was opened with.  Whatever the
 * records say, nothing reads outside them, and the profile the builder
 * makes of them is accepted by the reader.
 */
#include <linux/perf_event.h>

#include <errno.h>

#include "fuzz.h"
#include "hmap.h"
#include "record/core/builder.h"
#include "record/jit/jit.h"
#include "record/perf/perf-engine.h"
#include "record/perf/perf-procs.h"
#include "record/perf/perf-records.h"
#include "record/wall/kernel-time.h"
#include "sampler/budget.h"

#define PERIOD_NS	1000000ull

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t flags = size > 0 ? data[0] : 0;
	struct record_opts o = { .period_ns = PERIOD_NS,
	    .stack_size = flags & 1 ? 512 : 0, .follow_children = !(flags & 4) };
	struct record_result res = { .pid = 100,
	    .kernel_sampled = (flags & 2) != 0 };
	struct engine e = { .opts = &o, .result = &res };
	struct profil_profile *p;
	uint64_t end_ns = 0;

	e.b = builder_new(1);
	res.builder = e.b;
	if (o.stack_size)
		builder_stacks(e.b);
	hmap_init(&e.proc_index);
	jit_begin(e.b);
	if (flags & 8)
		e.ktime = kernel_time_new(PERIOD_NS, perf_records_kernel_time, &e);
	for (size_t i = 1; i + sizeof(struct perf_event_header) <= size; ) {
		struct perf_event_header h;
		uint8_t *rec;

		memcpy(&h, data + i, sizeof h);
		if (h.size < sizeof h || h.size > size - i)
			break;		/* the drain never hands these over */
		rec = malloc(h.size);
		if (rec == NULL)
			abort();
		memcpy(rec, data + i, h.size);
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 32) {
			uint64_t period;

			memcpy(&period, rec + sizeof h + 24, 8);
			period = PERIOD_NS << (period % (BUDGET_MAX_SHIFT + 1));
			memcpy(rec + sizeof h + 24, &period, 8);
		}
		perf_records_apply(&e, rec, h.size);
		if (perf_records_time(rec, h.size) > end_ns)
			end_ns = perf_records_time(rec, h.size);
		free(rec);
		i += h.size;
	}
	if (e.ktime != NULL) {	/* as perf_engine_kernel_time_finish */
		kernel_time_finish(e.ktime, end_ns);
		res.kernel_counted = kernel_time_counted(e.ktime);
		kernel_time_free(e.ktime);
		e.ktime = NULL;
	}
	/* as the engine ends: its processes' held-back samples handed over */
	perf_procs_free(&e);
	hmap_free(&e.proc_index);
	p = builder_finish(e.b);
	builder_free(e.b);
	jit_end(p, NULL);
	fuzz_profile_reads_back(p, PERIOD_NS, "perf");
	return 0;
}

/* Any records: nothing breaks (the kernel's records have no "bad"). */
const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	(void)name, (void)data, (void)size;
	return NULL;
}
