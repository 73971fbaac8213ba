/*
 * session-pcmap.c - samples in no range of a plan that has a pcmap,
 * counted by thread, and either by pc or, with stacks, in a capture
 * (stackring.h), never both: the open-addressing tables and the ring
 * `profil record`'s timer engine shares with the program (plan.h,
 * agent.h).  Runs in the signal handler: the tables are touched only
 * through the fault-safe arch functions, and a fault turns the pcmap off
 * for good.
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

/*
 * Count user at pc and kernel at PLAN_PCMAP_KERNEL_PC in the pc table,
 * both under tag.  Returns how much of the two was counted (what found
 * no room was not), or -1 on a fault.
 */
static long
count_pcs(struct plan_pcmap *m, uint64_t tag, uintptr_t pc,
    unsigned long user, unsigned long kernel)
{
	unsigned long kept = 0;
	int rc;

	if ((uint64_t)pc >> 48 != 0 || (uint64_t)pc == PLAN_PCMAP_KERNEL_PC)
		return 0;		/* not a user-space pc we can tag */
	rc = user ? count_key(m->keys, m->counts, m->mask, tag | pc, user) : 1;
	if (rc < 0)
		return -1;
	if (rc == 0)
		return 0;
	kept = user;
	if (kernel > 0) {
		rc = count_key(m->keys, m->counts, m->mask,
		    tag | PLAN_PCMAP_KERNEL_PC, kernel);
		if (rc < 0)
			return -1;
		if (rc == 1)
			kept += kernel;
	}
	return (long)kept;
}

/*
 * A sample travels one way.  With stacks, its capture carries it whole
 * (user and kernel parts) to the recorder; only a sample whose capture
 * failed is counted in the pc table, where the recorder gives it with
 * no stack.  Without stacks, the pc table counts every sample.  The
 * thread table counts whatever either kept; what neither kept is lost.
 */
void
session_count_pc(struct plan_pcmap *m, uintptr_t pc, unsigned long user,
    unsigned long kernel, const void *ucontext)
{
	uint64_t tag = atomic_load(&pc_tag);
	unsigned long weight = user + kernel, kept;
	uint32_t tid = 0;
	long counted;

	if (atomic_load(&m->off))
		goto fault;
	/* a raw system call: no libc wrapper, no cached value to trust */
	if (m->tkeys != NULL || m->stacks != NULL)
		tid = (uint32_t)syscall(SYS_gettid);
	if (m->stacks != NULL && stackring_capture(m->stacks, ucontext,
	    (uint32_t)(tag >> 48), tid, weight, kernel) == 0) {
		kept = weight;
	} else {
		counted = count_pcs(m, tag, pc, user, kernel);
		if (counted < 0)
			goto fault;
		kept = (unsigned long)counted;
	}
	if (kept < weight) {
		/* no room: lost, the rest of the sample counts */
		atomic_fetch_add(&session_stats.saturated, weight - kept);
		if (profil_arch_add_u64(m->lost, weight - kept) < 0) {
			atomic_store(&m->off, 1);
			return;
		}
	}
	if (kept > 0 && m->tkeys != NULL) {
		int rc = count_key(m->tkeys, m->tcounts, m->tmask,
		    tag >> 16 | tid, kept);

		if (rc < 0 || (rc == 0 && profil_arch_add_u64(m->tlost, kept) < 0))
			goto fault;
	}
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
