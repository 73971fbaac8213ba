/*
 * agent.c - libprofil's side of `profil record -e timer` (see agent.h):
 * when PROFIL_AGENT_FD names a region, map it before the program's own
 * code runs and profile the whole process into it; take a new slot when
 * dlclose unmaps code.
 * Invariant: nothing here does anything unless the recorder asked for it;
 * the region's layout is read once, checked, and kept here (the program
 * can write over the region: never where a sample is put).
 */
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent.h"
#include "plan/fault.h"
#include "plan/plan.h"
#include "profil.h"
#include "session/session.h"
#include "sampler/stackring.h"

static struct agent_region *region;
static struct plan_pcmap pcmap;		/* the region's tables, as mapped */
static struct stackring ring;		/* its ring of captures, if any */

/* A process slot of our own; its number tags our pcs.  0 if none left. */
static int
take_slot(void)
{
	uint32_t slot = atomic_fetch_add(&region->next_slot, 1);

	if (slot == 0 || slot >= AGENT_MAX_PROCS)
		return 0;
	region->procs[slot].ppid = (int32_t)getppid();
	region->procs[slot].text = (uint64_t)(uintptr_t)take_slot;
	atomic_store(&region->procs[slot].pid, (int32_t)getpid());
	session_set_pc_tag((uint64_t)slot << 48);
	return (int)slot;
}

/* In a forked child (the session's hook): take a slot of its own. */
static void
fork_child(void)
{
	if (region != NULL && take_slot() == 0)
		session_stop();	/* no slot: better unprofiled than misfiled */
}

/* Objects the dynamic loader has unloaded so far in this process. */
static int
read_subs(struct dl_phdr_info *info, size_t size, void *subs)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) +
	    sizeof info->dlpi_subs)
		*(unsigned long long *)subs = info->dlpi_subs;
	return 1;	/* every entry carries the same counters */
}

static unsigned long long
unloaded_objects(void)
{
	unsigned long long subs = 0;

	dl_iterate_phdr(read_subs, &subs);
	return subs;
}

int
agent_dlclose(int (*real_dlclose)(void *), void *handle)
{
	unsigned long long before;
	int rc;

	if (region == NULL)
		return real_dlclose(handle);
	before = unloaded_objects();
	rc = real_dlclose(handle);
	if (unloaded_objects() != before)
		take_slot();	/* none left: pcs there go to [unknown] */
	return rc;
}

/* A table of n u64 at off that lies inside size bytes; n a power of 2. */
static int
table_fits(uint64_t off, uint64_t n, uint64_t size)
{
	return n != 0 && (n & (n - 1)) == 0 && off % 8 == 0 && off <= size &&
	    n <= (size - off) / 8;
}

/*
 * The capture ring's pages made present now, at start, not at the first
 * capture into each: a page fault there is the handler's, and would be
 * counted as the program's (its getrusage faults tell the kernel watch
 * when a tick came in one of the program's page faults: session-kernel.c).
 * A kernel without MADV_POPULATE_WRITE (before 5.14) leaves them to
 * fault as before.
 */
static void
populate(void *at, uint64_t offset, uint64_t bytes)
{
	uintptr_t from = ((uintptr_t)at + offset) & ~(uintptr_t)4095;
	uintptr_t to = (uintptr_t)at + offset + bytes;

#ifdef MADV_POPULATE_WRITE
	(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
	(void)madvise((void *)from, to - from, 23);
#endif
}

/*
 * Map the region the recorder made, and take its layout in: every
 * offset and size is read once, here, checked against the memfd's size,
 * and kept in pcmap and ring; the region's own fields are never read
 * again (the program, or a process before it, may write over them).
 */
static struct agent_region *
map_region(int fd)
{
	const volatile struct agent_region *v;
	struct agent_region *r;
	uint64_t size, capacity, keys, counts, tcapacity, tkeys, tcounts;
	uint64_t stacks_offset, stacks_bytes;
	struct stat st;

	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof *r)
		return NULL;
	size = (uint64_t)st.st_size;
	r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED)
		return NULL;
	v = r;
	capacity = v->capacity;
	keys = v->keys_offset;
	counts = v->counts_offset;
	tcapacity = v->tcapacity;
	tkeys = v->tkeys_offset;
	tcounts = v->tcounts_offset;
	stacks_offset = v->stacks_offset;
	stacks_bytes = v->stacks_bytes;
	if (v->magic != AGENT_MAGIC || v->version != AGENT_VERSION ||
	    v->size != size || !table_fits(keys, capacity, size) ||
	    !table_fits(counts, capacity, size) ||
	    !table_fits(tkeys, tcapacity, size) ||
	    !table_fits(tcounts, tcapacity, size) ||
	    (stacks_offset != 0 && (stacks_offset > size ||
	    stacks_bytes > size - stacks_offset ||
	    stackring_open(&ring, (char *)r + stacks_offset,
	    stacks_bytes) < 0))) {
		munmap(r, size);
		return NULL;
	}
	pcmap.keys = (uint64_t *)((char *)r + keys);
	pcmap.counts = (uint64_t *)((char *)r + counts);
	pcmap.mask = capacity - 1;
	pcmap.tkeys = (uint64_t *)((char *)r + tkeys);
	pcmap.tcounts = (uint64_t *)((char *)r + tcounts);
	pcmap.tmask = tcapacity - 1;
	if (stacks_offset != 0) {
		pcmap.stacks = &ring;
		populate(r, stacks_offset, stacks_bytes);
	}
	return r;
}

__attribute__((constructor)) static void
agent_init(void)
{
	const char *env = secure_getenv(AGENT_ENV_FD);
	struct plan *plan;
	unsigned rate_hz;
	char *end;
	long fd;

	if (env == NULL || *env == '\0')
		return;
	fd = strtol(env, &end, 10);
	if (*end != '\0' || fd < 0 || fd > 1 << 20)
		return;
	region = map_region((int)fd);
	if (region == NULL)
		return;		/* the program runs, unprofiled */
	session_on_fork_child(fork_child);
	if (fault_install() < 0)
		return;
	pcmap.lost = &region->lost;
	pcmap.tlost = &region->tlost;
	pcmap.kernel_time = 1;	/* the recorder counts it as the kernel's */
	if (take_slot() == 0)
		return;
	plan = plan_new(0);
	if (plan == NULL)
		return;
	plan->pcmap = &pcmap;
	/*
	 * Asked for more than the library samples at, sample at its most
	 * rather than not at all.  (The session veils the sampling signal
	 * from the program.)
	 */
	rate_hz = region->rate_hz;
	session_start(plan, rate_hz > PROFIL_MAX_HZ ? PROFIL_MAX_HZ : rate_hz,
	    region->mechanism, 0, &region->budget);
}
