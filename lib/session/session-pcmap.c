/*
 * session-pcmap.c - samples in no range of a plan that has a pcmap,
 * counted by pc (and by thread, with their stacks captured) in the
 * open-addressing tables `profil record`'s timer engine shares with the
 * program (plan.h, agent.h).  Runs in the signal handler: the tables are
 * touched only through the fault-safe arch functions, and a fault turns
 * the pcmap off for good.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"
#include "sampler/stackring.h"
#include "session/session-internal.h"
#include "session/session.h"

static _Atomic uint64_t pc_tag = 1ull << 48;	/* see plan_pcmap */

/*
 * Multiplicative hash of a key, tag (process slot) bits included: folded
 * down first, or every process's copy of a pc would share one probe
 * sequence (the product's bits 20 and up do not depend on bits 44 and up
 * of the key) and a few hundred processes would run it out.
 */
static uint64_t
pcmap_slot(uint64_t key, uint64_t mask)
{
	key ^= key >> 32;
	return (key * 0x9e3779b97f4a7c15ull >> 20) & mask;
}

/*
 * Add weight to key's count in an open-addressing table in shared memory
 * (fault-safe accesses).  1 if counted, 0 if no room, -1 on a fault.
 */
static int
count_key(uint64_t *keys, uint64_t *counts, uint64_t mask, uint64_t key,
    unsigned long weight)
{
	uint64_t i = pcmap_slot(key, mask);

	for (int probe = 0; probe < PLAN_PCMAP_PROBES; probe++, i = (i + 1) & mask) {
		uint64_t found = 0;
		long rc = profil_arch_cas_u64(&keys[i], &found, key);

		if (rc < 0)
			return -1;
		if (rc == 1 || found == key)
			return profil_arch_add_u64(&counts[i], weight) < 0 ? -1 : 1;
	}
	return 0;
}

void
session_count_pc(struct plan_pcmap *m, uintptr_t pc, unsigned long weight,
    int by_tick, const void *ucontext, unsigned long *kernel_out)
{
	uint64_t tag = atomic_load(&pc_tag), key = tag | (uint64_t)pc;
	unsigned long kernel = m->kernel_time ?
	    session_kernel_weight(weight, by_tick) : 0;
	unsigned long user = by_tick ? weight - kernel : weight;
	int rc;

	*kernel_out = kernel;

	if (atomic_load(&m->off))
		goto fault;
	if ((uint64_t)pc >> 48 != 0 || (uint64_t)pc == PLAN_PCMAP_KERNEL_PC)
		goto no_room;		/* not a user-space pc we can tag */
	rc = user ? count_key(m->keys, m->counts, m->mask, key, user) : 1;
	if (rc == 1 && kernel > 0)
		rc = count_key(m->keys, m->counts, m->mask,
		    tag | PLAN_PCMAP_KERNEL_PC, kernel);
	if (rc < 0)
		goto fault;
	if (rc == 0)
		goto no_room;
	weight = user + kernel;
	if (m->tkeys != NULL || m->stacks != NULL) {
		/* a raw system call: no libc wrapper, no cached value to trust */
		uint32_t tid = (uint32_t)syscall(SYS_gettid);
		uint64_t tkey = tag >> 16 | tid;

		if (m->tkeys != NULL) {
			rc = count_key(m->tkeys, m->tcounts, m->tmask, tkey, weight);
			if (rc < 0)
				goto fault;
			if (rc == 0 && profil_arch_add_u64(m->tlost, weight) < 0)
				goto fault;
		}
		/* a full ring drops the stack, not the sample */
		if (m->stacks != NULL)
			stackring_capture(m->stacks, ucontext, (uint32_t)(tag >> 48),
			    tid, weight, kernel);
	}
	return;
no_room:
	atomic_fetch_add(&session_stats.saturated, weight);
	if (profil_arch_add_u64(m->lost, weight) < 0)
		atomic_store(&m->off, 1);
	return;
fault:
	/* the shared memory went away: stop touching it */
	atomic_store(&m->off, 1);
	atomic_fetch_add(&session_stats.faulted, weight);
}

void
session_set_pc_tag(uint64_t tag)
{
	atomic_store(&pc_tag, tag);
}
