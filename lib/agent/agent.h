/*
 * agent.h - the memory `profil record`'s timer engine shares with the
 * profiled processes, and the agent in libprofil that fills it.
 *
 * The recorder creates the region (a memfd), puts libprofil in the
 * program's LD_PRELOAD and the fd number in PROFIL_AGENT_FD.  In every
 * process that loads libprofil with that variable set (the program, its
 * forked children, programs it execs), the agent maps the region, takes a
 * process slot, and samples every thread with the library's mechanism
 * into the region's pc histogram, keyed by slot and pc, or, with call
 * stacks, into its ring of captures (each sample in one of the two,
 * never both).  The counts live in the region, so a crash or SIGKILL
 * loses nothing; the recorder maps pcs to objects through /proc/PID/maps.
 *
 * A slot stands for one address space as long as no code leaves it: a
 * process takes a new one when it forks, when it execs (the new image's
 * agent), and when dlclose unmaps an object (whose addresses the next
 * dlopen may reuse).  So a slot's pcs never name two pieces of code, and
 * the recorder stops reading the maps of a slot once a newer slot has
 * the same pid.
 *
 * Layer: a client of the session (above it, below thread_hook, whose
 * dlclose calls in here).  A forked child takes its slot through the
 * hook the agent registers with session_on_fork_child.
 */
#ifndef PROFIL_AGENT_H
#define PROFIL_AGENT_H

#include <stdatomic.h>
#include <stdint.h>

#include "plan/plan.h"
#include "sampler/budget.h"

#define AGENT_ENV_FD		"PROFIL_AGENT_FD"
#define AGENT_MAGIC		0x4741706c69666f72ull	/* "rofilpAG" */
#define AGENT_VERSION		6	/* 6: a captured sample is not in
					   the pc histogram */
#define AGENT_MAX_PROCS		4096	/* slots 1..4095; tag = slot << 48 */
/*
 * The pc at which a slot's samples of time in the kernel are counted
 * (the share of the threads' system time between their samples): the
 * pcmap's (plan.h), named here for the recorder that reads the region.
 */
#define AGENT_KERNEL_PC		PLAN_PCMAP_KERNEL_PC

struct agent_proc {
	_Atomic int32_t pid;		/* 0: slot not (yet) filled */
	int32_t ppid;
	/*
	 * An address in libprofil's code in the slot's process image (set
	 * before pid): maps that do not map it there are of another image.
	 */
	uint64_t text;
};

struct agent_region {
	uint64_t magic;
	uint32_t version;
	uint32_t rate_hz;
	uint64_t size;			/* bytes of the whole region */
	/*
	 * The pc histogram: with call stacks, only the samples whose capture
	 * failed (the others travel in the ring, never here); without, all.
	 */
	uint64_t capacity;		/* pc histogram slots, a power of 2 */
	uint64_t keys_offset, counts_offset;	/* from the region start */
	uint64_t lost;			/* samples kept nowhere: no room */
	/*
	 * The same samples per thread: key (slot << 32) | tid, counted for
	 * each sample kept (histogram or ring); tlost those without room.
	 */
	uint64_t tcapacity, tkeys_offset, tcounts_offset;
	uint64_t tlost;
	_Atomic uint32_t next_slot;
	int32_t mechanism;		/* enum profil_mechanism */
	/*
	 * Call stacks (0: none taken): a stackring.h ring at this offset, of
	 * stacks_bytes, where each sample's registers and stack top go for
	 * the recorder to unwind; a sample captured there is counted there
	 * only, its weight with it.
	 */
	uint64_t stacks_offset, stacks_bytes;
	/*
	 * Every sample of every process is counted here (taken, its weight
	 * squared); with budget.samples set by the recorder, the run's
	 * sampling slows down as budget.h says, rate_hz the start.
	 */
	struct budget budget;
	struct agent_proc procs[AGENT_MAX_PROCS];
};

/*
 * dlclose(handle) through real_dlclose, the C library's; returns what it
 * returns.  If that unmapped code, the next dlopen may put other code at
 * its addresses, so the process goes on under a new slot (without a free
 * slot it keeps the old one, and the recorder credits pcs whose code
 * changed to no object rather than to the wrong one).  Called by the
 * dlclose of the shared library (thread_hook.c).
 */
int agent_dlclose(int (*real_dlclose)(void *), void *handle);

#endif
