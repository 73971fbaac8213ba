/*
 * timer-stacks.c - the timer engine's call stacks (timer-stacks.h): the
 * captures of the region's ring, taken in order, unwound in the space of
 * their process and handed to the builder; the ring's tail moves past
 * each one, kept or not.  A capture is its sample's only record (the pc
 * histogram has only the samples whose capture failed): each one taken
 * must be counted, and none twice.
 */
#include <stdatomic.h>
#include <string.h>

#include "record/jit/jit.h"
#include "record/sink/sample.h"
#include "record/unwind/unwind.h"
#include "sampler/stackring.h"
#include "timer-stacks.h"

/*
 * The ring is drained every STACK_POLL_MS (timer.c), the maps read every
 * 20 to 160 ms (timer_slots_snapshot_due): a capture from a process
 * started (or a library loaded) since the last reading would be unwound
 * without its maps, its pc in no object ([unknown], "no unwind
 * information": 3-9 samples of gcc's `as` child, a 60 ms process).  Such
 * a capture has the maps read first, once a drain (*fresh; code in no
 * mapping at all stays unknown, and costs one reading each STACK_POLL_MS
 * at most).  c is the capture's header, copied out of the ring, and
 * stack its stack, copied too: the program may be writing over the slot
 * as we read it.
 */
/* The oldest a capture's time may be when drained (the recorder behind). */
#define CAPTURE_AGE_MAX	(60 * 1000000000ull)

static void
take(struct builder *b, struct timer_region *r, const struct stackring_slot *c,
    const unsigned char *stack, struct slot_maps *slots, pid_t only_pid,
    struct wall *w, int *fresh, uint64_t now)
{
	struct sample_sink k = { b, w, NULL };
	struct sample_place at;
	unsigned slot = c->tag;
	struct sample s;
	pid_t pid;

	if (!*fresh && timer_slots_map(&slots[slot], c->regs[ARCH_REG_PC]) ==
	    NULL) {
		timer_slots_snapshot_all(b, r, slots);
		*fresh = 1;
	}
	pid = slots[slot].pid;
	if (only_pid != 0 && pid != only_pid)
		return;
	if (slots[slot].space == NULL)
		slots[slot].space = addr_space_new(1);
	jit_attach(slots[slot].space, pid);
	if (slots[slot].uw == NULL)
		slots[slot].uw = unwind_space_new(pid, slots[slot].space);
	/* a capture is of user code; its kernel share rides on it */
	/*
	 * When, as the program's handler said: the program can write it, so
	 * a time that cannot be (after this drain, or before the last one's
	 * slowest) is taken as now.
	 */
	s = (struct sample){ .pid = pid, .tid = (pid_t)c->tid,
	    .time = c->time <= now && now - c->time < CAPTURE_AGE_MAX ?
	    c->time : now,
	    .weight = c->weight, .kernel = c->kernel_weight,
	    .mode = SAMPLE_USER, .pc = c->regs[ARCH_REG_PC], .stacks = 1,
	    .regs = c->regs, .sp = c->stack_addr, .copy = stack,
	    .copy_size = c->size, .ours = 1 };
	at = (struct sample_place){ slots[slot].space, slots[slot].uw, 0 };
	sample_take(&k, &at, &s);
	if (builder_thread_unnamed(b, pid, s.tid))
		timer_slots_name_thread(b, pid, s.tid);
}

/*
 * Ring slot t's capture, if it is published as t (acquire): copied out
 * and judged, then taken (*opened: new slots were looked for in this
 * drain, once at most).  0 if it is not published (yet), 1 if it was
 * taken, given up (weight 0: its sample is in the pc table) or refused.
 */
static int
take_published(struct builder *b, struct timer_region *r, uint64_t t,
    struct slot_maps *slots, pid_t only_pid, struct wall *w, int *fresh,
    int *opened, uint64_t now)
{
	const struct stackring_slot *s = stackring_slot(&r->ring, t);
	struct stackring_slot c;
	unsigned slot;

	if (atomic_load_explicit(&s->seq, memory_order_acquire) != t + 1)
		return 0;
	memcpy(&c, (const void *)s, sizeof c);
	if (c.weight == 0)
		return 1;	/* a capture given up, its sample counted by pc */
	slot = c.tag;
	/* a process may take its slot and sample between our looks */
	if (slot != 0 && slot < AGENT_MAX_PROCS && slots[slot].pid == 0 &&
	    !*opened) {
		timer_slots_open_new(b, r, slots, 1);
		*opened = 1;
	}
	if (slot == 0 || slot >= AGENT_MAX_PROCS || slots[slot].pid == 0 ||
	    slots[slot].refused || c.size > r->ring.stack_size ||
	    c.tid == 0 || c.tid > (1u << 22)) {
		r->refused++;
		return 1;
	}
	if (!timer_region_accept(r, &r->samples, c.weight, now))
		return 1;
	slots[slot].captured += c.weight;	/* its share, with -p */
	memcpy(r->stack, s->data, c.size);
	take(b, r, &c, r->stack, slots, only_pid, w, fresh, now);
	return 1;
}

int
timer_stacks_drain(struct builder *b, struct timer_region *r,
    struct slot_maps *slots, pid_t only_pid, struct wall *w, int last,
    uint64_t now)
{
	uint64_t t = r->tail, k;
	int fresh = 0;		/* the maps were read in this drain */
	int opened = 0;		/* new slots were looked for in it */

	for (k = 0; k < r->ring.nslots; k++, t++) {
		/* not written yet (or being written): next time */
		if (!take_published(b, r, t, slots, only_pid, w, &fresh,
		    &opened, now))
			break;
		r->tail = t + 1;
		atomic_store_explicit(&r->ring.shared->tail, t + 1,
		    memory_order_release);
	}
	if (!last)
		return k == r->ring.nslots;
	/*
	 * A writer that died between reserving its slot and publishing it
	 * (a thread ended by another's exit) stops the drain there for good,
	 * and the samples published after it are in the ring only.  Take
	 * them now, the tail left where it is, so that no writer can reuse
	 * their slots while they are read: a ring's worth at most, whatever
	 * the ring's head says.
	 */
	for (k = 0; k < r->ring.nslots; k++, t++)
		take_published(b, r, t, slots, only_pid, w, &fresh,
		    &opened, now);
	return 0;
}
