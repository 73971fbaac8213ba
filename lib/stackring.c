/*
 * stackring.c - the writer's side of the capture ring (stackring.h).
 * Async-signal-safety rules: no locks, no allocation, no stdio; memory of
 * the program is read only through the fault-safe copy of the arch layer.
 */
#include <stddef.h>
#include <string.h>

#include "arch.h"
#include "stackring.h"

/*
 * The lowest address this thread's stack copies faulted at, so that the
 * next copy stops short of it instead of faulting again (a fault costs a
 * signal): the top of the stack does not move.  Initial-exec TLS: read
 * from a signal handler without a call into the loader.
 */
static __thread uintptr_t stack_end __attribute__((tls_model("initial-exec")));

#define PAGE 4096

_Static_assert(ARCH_NREGS == STACKRING_NREGS, "one register set");

/* Copy [from, from + n) a page at a time, up to the first that faults. */
static uint64_t
copy_stack(unsigned char *dst, uintptr_t from, uint64_t n)
{
	uint64_t done = 0;

	if (stack_end != 0 && from + n > stack_end)
		n = stack_end > from ? stack_end - from : 0;
	while (done < n) {
		uintptr_t at = from + done;
		uint64_t chunk = PAGE - at % PAGE;

		if (chunk > n - done)
			chunk = n - done;
		if (profil_arch_copy(dst + done, (const void *)at, chunk) < 0) {
			stack_end = at - at % PAGE;
			break;
		}
		done += chunk;
	}
	return done;
}

int
stackring_capture(struct stackring *r, const void *ucontext, uint32_t tag,
    uint32_t tid, uint64_t weight, uint64_t kernel_weight)
{
	uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	struct stackring_slot *s;
	uint64_t regs[ARCH_NREGS];

	do {
		if (h - atomic_load_explicit(&r->tail, memory_order_acquire) >=
		    r->nslots) {
			atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
			return -1;
		}
	} while (!atomic_compare_exchange_weak_explicit(&r->head, &h, h + 1,
	    memory_order_acq_rel, memory_order_relaxed));
	s = (struct stackring_slot *)((char *)r + r->slots_offset +
	    (h & (r->nslots - 1)) * r->slot_bytes);
	arch_context_regs(ucontext, regs);
	memcpy(s->regs, regs, sizeof s->regs);
	s->tag = tag;
	s->tid = tid;
	s->weight = weight;
	s->kernel_weight = kernel_weight;
	s->stack_addr = regs[7] - STACKRING_RED_ZONE;
	s->size = copy_stack(s->data, (uintptr_t)s->stack_addr, r->stack_size);
	atomic_store_explicit(&s->seq, h + 1, memory_order_release);
	return 0;
}
