/*
 * timer-stacks.c - the timer engine's call stacks (timer-stacks.h): the
 * captures of the region's ring, taken in order, unwound in the space of
 * their process and handed to the builder; the ring's tail moves past
 * each one, kept or not.  A capture is its sample's only record (the pc
 * histogram has only the samples whose capture failed): each one taken
 * must be counted, and none twice.
 */
#include <stdatomic.h>

#include "jit.h"
#include "sampler/stackring.h"
#include "timer-stacks.h"
#include "unwind.h"

/* The capture in ring slot t (mod the ring's size). */
static const struct stackring_slot *
ring_slot(const struct stackring *ring, uint64_t t)
{
	return (const void *)((const char *)ring + ring->slots_offset +
	    (t & (ring->nslots - 1)) * ring->slot_bytes);
}

/*
 * The ring is drained every STACK_POLL_MS, the maps read every
 * SNAPSHOT_MS (timer.c): a capture from a process started (or a library
 * loaded) since the last reading would be unwound without its maps, its
 * pc in no object ([unknown], "no unwind information": 3-9 samples of
 * gcc's `as` child, a 60 ms process).  Such a capture has the maps read
 * first, once a drain (*fresh; code in no mapping at all stays unknown,
 * and costs one reading each STACK_POLL_MS at most).
 */
static void
take(struct builder *b, struct agent_region *r, const struct stackring *ring,
    const struct stackring_slot *s, struct slot_maps *slots, pid_t only_pid,
    struct wall *w, int *fresh)
{
	struct bframe frames[UNWIND_MAX_DEPTH + 3];
	unsigned slot = s->tag;
	uint64_t kernel;
	pid_t pid;
	size_t n;

	/* weight 0: a capture given up, its sample counted by pc */
	if (slot == 0 || slot >= AGENT_MAX_PROCS || s->weight == 0)
		return;
	slots[slot].captured += s->weight;	/* its share, with -p */
	if (s->size > ring->stack_size)
		return;
	if (!*fresh && timer_slots_map(&slots[slot], s->regs[ARCH_REG_PC]) == NULL) {
		timer_slots_snapshot_all(b, r, slots);
		*fresh = 1;
	}
	pid = slots[slot].pid ? slots[slot].pid : (pid_t)r->procs[slot].pid;
	if (only_pid != 0 && pid != only_pid)
		return;
	if (slots[slot].space == NULL)
		slots[slot].space = addr_space_new(1);
	jit_attach(slots[slot].space, pid);
	if (slots[slot].uw == NULL)
		slots[slot].uw = unwind_space_new(pid, slots[slot].space);
	/* room for a kernel frame on top, for the kernel's share */
	n = unwind_stack(slots[slot].uw, (pid_t)s->tid, s->regs,
	    s->stack_addr, s->data, s->size, frames + 1, 0,
	    UNWIND_MAX_DEPTH + 1);
	kernel = s->kernel_weight < s->weight ? s->kernel_weight : s->weight;
	if (s->weight > kernel &&
	    !jit_code_defer(slots[slot].space->jit, frames + 1, n,
	    s->weight - kernel, pid, (pid_t)s->tid, 0))
		builder_sample_stack(b, frames + 1, n, s->weight - kernel, pid,
		    (pid_t)s->tid);
	if (kernel > 0) {
		/* in the kernel, called from where the thread is */
		frames[0] = (struct bframe){ BFRAME_KERNEL, 0 };
		if (!jit_code_defer(slots[slot].space->jit, frames, n + 1,
		    kernel, pid, (pid_t)s->tid, 0))
			builder_sample_stack(b, frames, n + 1, kernel, pid,
			    (pid_t)s->tid);
	}
	if (w != NULL) {	/* where a preemption would hit */
		if (kernel > 0)
			wall_cpu_sample(w, pid, (pid_t)s->tid, 0, frames, n + 1);
		else
			wall_cpu_sample(w, pid, (pid_t)s->tid, 0, frames + 1, n);
	}
}

void
timer_stacks_drain(struct builder *b, struct agent_region *r,
    struct slot_maps *slots, pid_t only_pid, struct wall *w, int last)
{
	struct stackring *ring = (struct stackring *)((char *)r + r->stacks_offset);
	uint64_t t = atomic_load_explicit(&ring->tail, memory_order_relaxed);
	uint64_t head;
	int fresh = 0;		/* the maps were read in this drain */

	for (;; t++) {
		const struct stackring_slot *s = ring_slot(ring, t);

		/* not written yet (or being written): next time */
		if (atomic_load_explicit(&s->seq, memory_order_acquire) != t + 1)
			break;
		take(b, r, ring, s, slots, only_pid, w, &fresh);
		atomic_store_explicit(&ring->tail, t + 1, memory_order_release);
	}
	if (!last)
		return;
	/*
	 * A writer that died between reserving its slot and publishing it
	 * (a thread ended by another's exit) stops the drain there for good,
	 * and the samples published after it are in the ring only.  Take
	 * them now, the tail left where it is, so that no writer can reuse
	 * their slots while they are read.
	 */
	head = atomic_load_explicit(&ring->head, memory_order_acquire);
	for (; t < head; t++) {
		const struct stackring_slot *s = ring_slot(ring, t);

		if (atomic_load_explicit(&s->seq, memory_order_acquire) == t + 1)
			take(b, r, ring, s, slots, only_pid, w, &fresh);
	}
}
