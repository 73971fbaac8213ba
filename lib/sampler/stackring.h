/*
 * stackring.h - call-stack captures handed from the sampling signal
 * handler to `profil record`'s recorder (the timer engine), through a
 * ring in the memory they share.  A capture is the interrupted thread's
 * registers and the top of its stack, which the recorder unwinds: the
 * handler only copies, it never unwinds (nothing it could call for that
 * is async-signal-safe).
 *
 * Many handlers write (threads, processes), one recorder reads.  A
 * writer reserves a slot by compare-and-swap on head, fills it, and
 * publishes it by storing its sequence number; the reader takes slots in
 * order and moves tail on.  The program can write over all of it: each
 * side keeps the ring's geometry to itself (struct stackring), so that
 * what the program writes can make captures wrong, never a write or a
 * read outside the ring.  A sample travels one way: with its capture,
 * or, when the capture fails (a full ring, a stack that could not be
 * copied), counted by pc alone (session-pcmap.c), never both.
 */
#ifndef PROFIL_STACKRING_H
#define PROFIL_STACKRING_H

#include <stdatomic.h>
#include <stdint.h>

#include "arch.h"

struct stackring_slot {
	_Atomic uint64_t seq;		/* n + 1 once ring slot n is written */
	uint32_t tag;			/* the writer's process slot */
	uint32_t tid;
	uint64_t weight;		/* samples the capture stands for (0:
					   none, a capture given up), */
	uint64_t kernel_weight;		/*   of them in the kernel */
	uint64_t time;			/* when: CLOCK_MONOTONIC, ns */
	uint64_t regs[ARCH_NREGS];	/* DWARF order (arch.h) */
	uint64_t stack_addr;		/* where the copy starts */
	uint64_t size;			/* bytes copied */
	unsigned char data[];		/* stack_size bytes of room */
};

/*
 * The ring's header, at the start of its memory; the slots follow at
 * slots_offset.  In shared memory the program can write as it likes: a
 * side reads its geometry once, when it lays the ring out or opens it,
 * and never again (struct stackring).
 */
struct stackring_shared {
	_Atomic uint64_t head;		/* next slot to reserve */
	_Atomic uint64_t tail;		/* next slot the reader takes */
	uint64_t nslots;		/* a power of 2 */
	uint64_t slot_bytes;		/* apart; header and stack_size */
	uint64_t stack_size;		/* bytes of stack a capture may take */
	_Atomic uint64_t dropped;	/* captures that found no free slot */
	uint64_t slots_offset;		/* of slot 0, from the ring */
};

/* Bytes a slot takes for stack_size bytes of stack. */
#define STACKRING_SLOT_BYTES(stack_size) \
	((sizeof(struct stackring_slot) + (stack_size) + 63) & ~(uint64_t)63)
/* Bytes of the header, slot 0's offset as stackring_layout puts it. */
#define STACKRING_HEAD_BYTES \
	((sizeof(struct stackring_shared) + 63) & ~(uint64_t)63)
/* Bytes of a ring of nslots slots of stack_size bytes of stack. */
#define STACKRING_BYTES(nslots, stack_size) \
	(STACKRING_HEAD_BYTES + (nslots) * STACKRING_SLOT_BYTES(stack_size))
/* The most stack a capture may take: what a slot's size field allows. */
#define STACKRING_MAX_STACK	(1u << 20)

/*
 * One side's hold on a ring (the writer's, in the program's handler; the
 * reader's, in the recorder): its geometry as this side laid it out or
 * found it when it opened the ring, never read from the shared memory
 * again.  Every slot address comes from these numbers and an index
 * masked by them, so whatever the program writes over the ring, a slot
 * lies inside it and its stack_size bytes of stack inside the slot.
 */
struct stackring {
	struct stackring_shared *shared;
	unsigned char *slots;		/* slot 0 */
	uint64_t nslots;		/* a power of 2 */
	uint64_t slot_bytes;		/* >= STACKRING_SLOT_BYTES(stack_size) */
	uint64_t stack_size;		/* <= STACKRING_MAX_STACK */
};

/*
 * Lay out a ring of nslots slots (a power of 2) of stack_size bytes of
 * stack (at most STACKRING_MAX_STACK) at `at`, STACKRING_BYTES of zeroed
 * memory aligned to 64, and hold it in ring.
 */
static inline void
stackring_layout(struct stackring *ring, void *at, uint64_t nslots,
    uint64_t stack_size)
{
	struct stackring_shared *h = (struct stackring_shared *)at;

	h->nslots = nslots;
	h->slot_bytes = STACKRING_SLOT_BYTES(stack_size);
	h->stack_size = stack_size;
	h->slots_offset = STACKRING_HEAD_BYTES;
	*ring = (struct stackring){ h, (unsigned char *)at + h->slots_offset,
	    nslots, h->slot_bytes, stack_size };
}

/*
 * Hold the ring whose header is at `at`, in the `bytes` bytes from there
 * (the header read once): 0, or -1 if it describes no ring that fits.
 */
int stackring_open(struct stackring *ring, void *at, uint64_t bytes);

/* Ring slot n (modulo the ring's size): inside the ring, always. */
static inline struct stackring_slot *
stackring_slot(const struct stackring *ring, uint64_t n)
{
	return (struct stackring_slot *)(ring->slots +
	    (n & (ring->nslots - 1)) * ring->slot_bytes);
}

/*
 * Capture the thread interrupted in ucontext: its registers and up to
 * stack_size bytes of its stack from its stack pointer's red zone up,
 * stopping where the stack ends.  Returns 0 if the capture carries the
 * sample (weight, kernel_weight of it) to the reader; -1 if it does not,
 * and the caller must count the sample itself: the ring was full
 * (counted in dropped), or not a byte of the stack could be copied (the
 * slot is published with weight 0, which the reader skips).
 * Async-signal-safe.
 */
int stackring_capture(struct stackring *r, const void *ucontext, uint32_t tag,
    uint32_t tid, uint64_t weight, uint64_t kernel_weight);

#endif
