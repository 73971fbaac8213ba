/*
 * agent.c - libprofil's side of `profil record -e timer` (see agent.h):
 * when PROFIL_AGENT_FD names a region, map it before the program's own
 * code runs and profile the whole process into it; take a new slot when
 * dlclose unmaps code.
 * Invariant: nothing here does anything unless the recorder asked for it.
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
static struct plan_pcmap pcmap;

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

/* A stack ring that lies inside the region, with slots that fit it. */
static int
stack_ring_sound(const struct agent_region *r)
{
	const struct stackring *ring;

	if (r->stacks_offset % 64 != 0 || r->stacks_offset > r->size ||
	    r->stacks_bytes > r->size - r->stacks_offset ||
	    r->stacks_bytes < sizeof *ring)
		return 0;
	ring = (const struct stackring *)((const char *)r + r->stacks_offset);
	return ring->nslots != 0 && (ring->nslots & (ring->nslots - 1)) == 0 &&
	    ring->slot_bytes == STACKRING_SLOT_BYTES(ring->stack_size) &&
	    ring->slots_offset >= sizeof *ring && ring->slots_offset % 64 == 0 &&
	    ring->slots_offset <= r->stacks_bytes &&
	    ring->nslots <= (r->stacks_bytes - ring->slots_offset) /
	    ring->slot_bytes;
}

static struct agent_region *
map_region(int fd)
{
	struct agent_region *r;
	struct stat st;

	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof *r)
		return NULL;
	r = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	if (r == MAP_FAILED)
		return NULL;
	if (r->magic != AGENT_MAGIC || r->version != AGENT_VERSION ||
	    r->size != (uint64_t)st.st_size || r->capacity == 0 ||
	    (r->capacity & (r->capacity - 1)) != 0 ||
	    r->keys_offset + r->capacity * 8 > r->size ||
	    r->counts_offset + r->capacity * 8 > r->size ||
	    r->tcapacity == 0 || (r->tcapacity & (r->tcapacity - 1)) != 0 ||
	    r->tkeys_offset + r->tcapacity * 8 > r->size ||
	    r->tcounts_offset + r->tcapacity * 8 > r->size ||
	    (r->stacks_offset != 0 && !stack_ring_sound(r))) {
		munmap(r, (size_t)st.st_size);
		return NULL;
	}
	return r;
}

__attribute__((constructor)) static void
agent_init(void)
{
	const char *env = secure_getenv(AGENT_ENV_FD);
	struct plan *plan;
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
	pcmap.keys = (uint64_t *)((char *)region + region->keys_offset);
	pcmap.counts = (uint64_t *)((char *)region + region->counts_offset);
	pcmap.mask = region->capacity - 1;
	pcmap.lost = &region->lost;
	pcmap.tkeys = (uint64_t *)((char *)region + region->tkeys_offset);
	pcmap.tcounts = (uint64_t *)((char *)region + region->tcounts_offset);
	pcmap.tmask = region->tcapacity - 1;
	pcmap.tlost = &region->tlost;
	pcmap.kernel_time = 1;	/* the recorder counts it as the kernel's */
	if (region->stacks_offset != 0)
		pcmap.stacks = (struct stackring *)((char *)region +
		    region->stacks_offset);
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
	session_start(plan, region->rate_hz > PROFIL_MAX_HZ ? PROFIL_MAX_HZ :
	    region->rate_hz, region->mechanism, 0, &region->budget);
}
