/*
 * stackring.c - the writer's side of the capture ring (stackring.h).
 * Async-signal-safety rules: no locks, no allocation, no stdio, raw
 * system calls only; memory of the program is read without ever
 * faulting (process_vm_readv).  The ring's geometry is the writer's own
 * copy (struct stackring): a program that writes over the ring's header
 * cannot send a capture outside it.
 */
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "sampler/stackring.h"

/*
 * Where this thread's stack was last found to end, so that the next copy
 * from below stops short of it: the top of a stack does not move.  A
 * copy from above it is from another stack (a coroutine's, or main's
 * again after one, or a signal stack): it is not cut there, and learns
 * that stack's end instead.  Initial-exec TLS: read from a signal
 * handler without a call into the loader.
 */
static __thread uintptr_t stack_end __attribute__((tls_model("initial-exec")));

#define PAGE 4096
#define MAX_PAGES 20		/* iovecs: a 64 KiB copy over 17 pages */

/*
 * Copy [from, from + n) up to the first page that cannot be read, by
 * process_vm_readv on ourselves: it stops there instead of faulting (a
 * fault would reach the program's own SIGSEGV handler, if it has one,
 * or kill a program that reset SIGSEGV to its default), a page to an
 * iovec so that it copies all it can.  Where that call is refused (a
 * seccomp filter), nothing is copied: the stack is cut at its leaf.
 * tid is the calling thread's, whose memory is the process's: the call
 * takes it as well as the pid, which would cost a getpid a sample.
 */
static uint64_t
copy_stack(unsigned char *dst, uintptr_t from, uint64_t n, uint32_t tid)
{
	struct iovec local[MAX_PAGES], remote[MAX_PAGES];
	uint64_t done = 0;
	int k = 0;
	long got;

	if (stack_end > from && from + n > stack_end)
		n = stack_end - from;
	while (done < n && k < MAX_PAGES) {
		uintptr_t at = from + done;
		uint64_t chunk = PAGE - at % PAGE;

		if (chunk > n - done)
			chunk = n - done;
		local[k] = (struct iovec){ dst + done, chunk };
		remote[k++] = (struct iovec){ (void *)at, chunk };
		done += chunk;
	}
	if (k == 0)
		return 0;
	got = syscall(SYS_process_vm_readv, tid ? (long)tid :
	    syscall(SYS_getpid), local, k, remote, k, 0);
	if (got < 0)
		return 0;
	if ((uint64_t)got < done)	/* the stack ends there */
		stack_end = from + (uint64_t)got;
	return (uint64_t)got;
}

int
stackring_open(struct stackring *ring, void *at, uint64_t bytes)
{
	const volatile struct stackring_shared *h = at;
	uint64_t nslots, slot_bytes, stack_size, slots_offset;

	if (bytes < sizeof *h || (uintptr_t)at % 64 != 0)
		return -1;
	/* once each: the program may be changing them as we look */
	nslots = h->nslots;
	slot_bytes = h->slot_bytes;
	stack_size = h->stack_size;
	slots_offset = h->slots_offset;
	if (nslots == 0 || (nslots & (nslots - 1)) != 0 ||
	    stack_size > STACKRING_MAX_STACK ||
	    slot_bytes != STACKRING_SLOT_BYTES(stack_size) ||
	    slots_offset < sizeof *h || slots_offset % 64 != 0 ||
	    slots_offset > bytes ||
	    nslots > (bytes - slots_offset) / slot_bytes)
		return -1;
	*ring = (struct stackring){ at, (unsigned char *)at + slots_offset,
	    nslots, slot_bytes, stack_size };
	return 0;
}

int
stackring_capture(struct stackring *r, const void *ucontext, uint32_t tag,
    uint32_t tid, uint64_t weight, uint64_t kernel_weight)
{
	struct stackring_shared *shared = r->shared;
	uint64_t h = atomic_load_explicit(&shared->head, memory_order_relaxed);
	struct stackring_slot *s;
	uint64_t regs[ARCH_NREGS], got;
	struct timespec ts;

	do {
		if (h - atomic_load_explicit(&shared->tail,
		    memory_order_acquire) >= r->nslots) {
			atomic_fetch_add_explicit(&shared->dropped, 1,
			    memory_order_relaxed);
			return -1;
		}
	} while (!atomic_compare_exchange_weak_explicit(&shared->head, &h,
	    h + 1, memory_order_acq_rel, memory_order_relaxed));
	s = stackring_slot(r, h);
	/* async-signal-safe (POSIX), and the vDSO's: no system call */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->time = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	arch_context_regs(ucontext, regs);
	memcpy(s->regs, regs, sizeof s->regs);
	s->tag = tag;
	s->tid = tid;
	s->stack_addr = regs[ARCH_REG_SP] - ARCH_RED_ZONE;
	got = copy_stack(s->data, (uintptr_t)(regs[ARCH_REG_SP] - ARCH_RED_ZONE),
	    r->stack_size, tid);
	s->size = got;
	/* nothing copied: the slot is published empty (weight 0), given up */
	s->weight = got ? weight : 0;
	s->kernel_weight = got ? kernel_weight : 0;
	atomic_store_explicit(&s->seq, h + 1, memory_order_release);
	return got ? 0 : -1;
}
