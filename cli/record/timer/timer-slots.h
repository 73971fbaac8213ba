/*
 * timer-slots.h - the timer engine's processes: each slot the injected
 * library took in the shared region (lib/agent/agent.h) is a process image,
 * whose executable mappings are read from /proc/PID/maps while it lives
 * and kept, with every one they replaced, for placing its pcs and
 * unwinding its stacks.
 */
#ifndef PROFIL_RECORD_TIMER_SLOTS_H
#define PROFIL_RECORD_TIMER_SLOTS_H

#include <stdint.h>
#include <sys/types.h>

#include "agent/agent.h"
#include "record/core/addrspace.h"
#include "record/core/builder.h"

struct timer_region;

/*
 * A process image the agent took a slot for.  Its space holds the
 * mappings as last read, and every one they replaced: its pcs are
 * placed at the end, without their times (addr_space_find_ever).
 */
struct slot_maps {
	pid_t pid;
	int gone;			/* maps no longer the slot's: stop reading */
	uint64_t text;			/* agent_proc.text */
	struct addr_space *space;	/* with its history; NULL until opened */
	struct unwind_space *uw;	/* with call stacks: its unwinder */
	uint64_t captured;		/* samples that came with a stack */
	uint64_t counted;		/* samples of the pc table (at the end) */
	uint64_t next_look_ns;		/* its maps are due to be read again */
	uint64_t look_every_ns;		/*   this long after the last reading */
	/*
	 * The slot names a process that is not the recorder's to profile
	 * (not one of its descendants), or its pid changed once filled: its
	 * records are refused, none read.
	 */
	int refused;
};

/*
 * Open the slots filled since the last look (their processes named and
 * forked in b); with fresh, read their maps at once too.  1 if any was
 * new.  A slot is opened once, for the pid it was filled with, and only
 * if that process descends from the recorder (or has ended: nothing of
 * it can be read then); otherwise, or if its pid changes later, it is
 * refused and counted so in r.
 */
int timer_slots_open_new(struct builder *b, struct timer_region *r,
    struct slot_maps *slots, int fresh);
/*
 * Thread tid of pid named in b as the kernel has it now, if it is still
 * there.  The agent writes no names: a thread is named when the
 * recorder first sees it (timer_stacks, the region's counts) and again
 * at each reading of its process's maps, so that one renamed after its
 * start (pthread_setname_np) has its new name.
 */
void timer_slots_name_thread(struct builder *b, pid_t pid, pid_t tid);
/* Open new slots, and read the maps of every live one. */
void timer_slots_snapshot_all(struct builder *b, struct timer_region *r,
    struct slot_maps *slots);
/*
 * Open new slots, and read the maps of the live ones that are due at
 * now (CLOCK_MONOTONIC).  A slot is due TIMER_SLOTS_LOOK_NS after its
 * last reading; with call stacks, that doubles, up to
 * TIMER_SLOTS_LOOK_MAX_NS, each time a reading finds its maps unchanged
 * (a capture whose pc lies in no mapping has them all read at once:
 * timer-stacks.c), and is back to the shortest when they change.
 */
#define TIMER_SLOTS_LOOK_NS	20000000ull
#define TIMER_SLOTS_LOOK_MAX_NS	160000000ull
void timer_slots_snapshot_due(struct builder *b, struct timer_region *r,
    struct slot_maps *slots, uint64_t now);
/*
 * The mapping that holds pc in slot s, at any time it was read, or NULL
 * if none does or if two that do would put it in different code (the
 * address was reused).
 */
const struct addr_map *timer_slots_map(const struct slot_maps *s,
    uint64_t pc);

#endif
