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
 * order and moves tail on.  A sample travels one way: with its capture,
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
	uint64_t regs[ARCH_NREGS];	/* DWARF order (arch.h) */
	uint64_t stack_addr;		/* where the copy starts */
	uint64_t size;			/* bytes copied */
	unsigned char data[];		/* stack_size bytes of room */
};

struct stackring {
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
