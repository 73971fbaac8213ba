/*
 * timer-slots.c - the timer engine's processes and their mappings
 * (timer-slots.h).
 *
 * Invariant: a slot's maps are read only while they are its image's: an
 * exec'd image, or maps read while the process took a newer slot, are
 * left alone; and only a slot whose process descends from the recorder
 * is opened at all (the program writes the slots: a pid there is a claim).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "record/core/procfs.h"
#include "record/core/procmaps.h"
#include "record/jit/jit.h"
#include "record/unwind/unwind.h"
#include "timer-region.h"
#include "timer-slots.h"

struct collect {
	struct builder *b;
	struct addr_map *maps;		/* paths the builder's, not owned */
	size_t n, cap;
	char *dumps[4];			/* jitdump files mapped (jit.h), owned */
	size_t ndumps;
};

static void
collect_map(const struct procmap *pm, void *arg)
{
	struct collect *c = arg;

	if (procmaps_is_jitdump(pm->name) && c->ndumps < 4)
		c->dumps[c->ndumps++] = xstrdup(pm->name);
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 32;
		c->maps = xrealloc(c->maps, c->cap * sizeof *c->maps);
	}
	c->maps[c->n] = (struct addr_map){ pm->start, pm->end, pm->offset,
	    procmaps_is_object(pm->name) ? builder_object(c->b, pm->name, NULL, 0)
	    : -1, NULL };
	c->maps[c->n].path = (char *)builder_object_path(c->b, c->maps[c->n].obj);
	c->n++;
}

static void
collect_free(struct collect *c)
{
	free(c->maps);
	for (size_t i = 0; i < c->ndumps; i++)
		free(c->dumps[i]);
}

/* True if one of the mappings in c holds address pc. */
static int
maps_hold(const struct collect *c, uint64_t pc)
{
	for (size_t i = 0; i < c->n; i++)
		if (pc >= c->maps[i].start && pc < c->maps[i].end)
			return 1;
	return 0;
}

/*
 * True if a slot was taken after `since` (next_slot then) that is, or may
 * yet be, pid's: a dlclose or exec in pid may have changed its maps.
 */
static int
newer_slot(const struct agent_region *r, uint32_t since, pid_t pid)
{
	uint32_t now = atomic_load(&r->next_slot);

	for (uint32_t k = since; k < now && k < AGENT_MAX_PROCS; k++) {
		pid_t owner = (pid_t)atomic_load(&r->procs[k].pid);

		if (owner == 0 || owner == pid)
			return 1;
	}
	return 0;
}

/* The process's name as the kernel has it now, to the builder. */
static void
read_comm(struct builder *b, pid_t pid)
{
	char line[256];

	if (procfs_read_comm(pid, 0, line, sizeof line) == 0)
		builder_comm(b, pid, pid, line);
}

void
timer_slots_name_thread(struct builder *b, pid_t pid, pid_t tid)
{
	char line[256];

	/* (a tid not pid's, as a hostile capture may say, has no file) */
	if (procfs_read_comm(pid, tid, line, sizeof line) == 0)
		builder_comm(b, pid, tid, line);
}

/*
 * Read the executable mappings of a live process into its slot.  Maps
 * that lack the slot's libprofil code are of the image the process
 * exec'd since: the slot is over.  Maps read while the process took a
 * newer slot may already be the newer slot's: they are left for the
 * next round, which will know.
 */
static void
snapshot(struct builder *b, const struct agent_region *r,
    struct slot_maps *s)
{
	struct collect c = { b, NULL, 0, 0, { NULL }, 0 };
	uint32_t since = atomic_load(&r->next_slot);

	if (procmaps_each(s->pid, collect_map, &c) < 0) {
		s->gone = 1;
		return;
	}
	if (c.n == 0 || !maps_hold(&c, s->text) || newer_slot(r, since, s->pid)) {
		/* a zombie keeps what we knew; an exec'd image is another's */
		if (c.n != 0 && !maps_hold(&c, s->text))
			s->gone = 1;
		collect_free(&c);
		return;
	}
	for (size_t i = 0; i < c.n; i++)
		addr_space_map(s->space, c.maps[i].start, c.maps[i].end,
		    c.maps[i].pgoff, c.maps[i].obj, c.maps[i].path);
	for (size_t i = 0; i < c.ndumps; i++)
		jit_code_follow(s->space->jit, c.dumps[i]);
	collect_free(&c);
	read_comm(b, s->pid);
	/* its threads' names as they are now: a thread renames itself */
	builder_threads_each(b, s->pid, timer_slots_name_thread);
}

/*
 * Whether pid is a process the recorder may profile: one of its
 * descendants (we are a subreaper: an orphan's parent becomes us), or
 * one that has ended, of which nothing can be read.  *ppid gets its
 * parent where /proc says.  A parent that ends as we climb leaves its
 * child to us: climbed again.
 */
static int
ours(pid_t pid, pid_t *ppid)
{
	pid_t self = getpid();

	if (pid <= 0 || pid == self)
		return 0;
	for (int attempt = 0; attempt < 3; attempt++) {
		pid_t at = pid;

		for (int depth = 0; depth < 1024 && at > 1; depth++) {
			struct procfs_stat st;

			if (procfs_read_stat(at, 0, &st) < 0) {
				if (at == pid)
					return errno == ENOENT || errno == ESRCH;
				break;		/* an ancestor ended: again */
			}
			if (at == pid)
				*ppid = st.ppid;
			if (st.ppid == self)
				return 1;
			at = st.ppid;
		}
		if (at <= 1)
			return 0;
	}
	return 0;
}

/*
 * Slot i has just been filled by pid: it ends pid's older slots.  A pid
 * not ours refuses the slot.
 */
static void
open_slot(struct builder *b, struct timer_region *tr, struct slot_maps *slots,
    uint32_t i, pid_t pid)
{
	const struct agent_region *r = tr->shared;
	pid_t ppid = (pid_t)r->procs[i].ppid;
	int known = 0;

	slots[i].pid = pid;
	if (!ours(pid, &ppid)) {
		slots[i].refused = 1;
		slots[i].gone = 1;
		tr->refused++;
		return;
	}
	slots[i].gone = 0;
	slots[i].text = r->procs[i].text;
	if (slots[i].space == NULL)
		slots[i].space = addr_space_new(1);
	jit_attach(slots[i].space, pid);
	if (tr->ring.shared != NULL && slots[i].uw == NULL)
		slots[i].uw = unwind_space_new(pid, slots[i].space);
	for (uint32_t k = 1; k < i; k++)
		if (slots[k].pid == pid && !slots[k].refused) {
			slots[k].gone = 1;	/* an exec or a dlclose */
			known = 1;
		}
	if (i > 1 && !known)
		builder_fork(b, pid, ppid);
	read_comm(b, pid);	/* a short process may end before a snapshot */
}

int
timer_slots_open_new(struct builder *b, struct timer_region *tr,
    struct slot_maps *slots, int fresh)
{
	const struct agent_region *r = tr->shared;
	uint32_t n = atomic_load(&r->next_slot);
	int any = 0;

	if (n > AGENT_MAX_PROCS)
		n = AGENT_MAX_PROCS;
	/* new slots first: the maps of the slots they end must not be read */
	for (uint32_t i = 1; i < n; i++) {
		pid_t pid = (pid_t)atomic_load(&r->procs[i].pid);

		if (pid == 0 || slots[i].pid == pid)
			continue;
		if (slots[i].pid == 0) {
			open_slot(b, tr, slots, i, pid);
			any = 1;
		} else if (!slots[i].refused) {
			/* a slot is filled once: its records are not its own */
			slots[i].refused = 1;
			slots[i].gone = 1;
			tr->refused++;
		}
	}
	for (uint32_t i = 1; i < n && any && fresh; i++)
		if (slots[i].pid != 0 && !slots[i].gone && slots[i].space->n == 0)
			snapshot(b, r, &slots[i]);
	return any;
}

void
timer_slots_snapshot_all(struct builder *b, struct timer_region *tr,
    struct slot_maps *slots)
{
	timer_slots_open_new(b, tr, slots, 0);
	for (uint32_t i = 1; i < AGENT_MAX_PROCS; i++)
		if (slots[i].pid != 0 && !slots[i].gone)
			snapshot(b, tr->shared, &slots[i]);
}

void
timer_slots_snapshot_due(struct builder *b, struct timer_region *tr,
    struct slot_maps *slots, uint64_t now)
{
	timer_slots_open_new(b, tr, slots, 0);
	for (uint32_t i = 1; i < AGENT_MAX_PROCS; i++) {
		struct slot_maps *s = &slots[i];
		unsigned generation;

		if (s->pid == 0 || s->gone || now < s->next_look_ns)
			continue;
		generation = s->space->generation;
		snapshot(b, tr->shared, s);
		if (s->look_every_ns == 0 || tr->ring.shared == NULL ||
		    s->space->generation != generation)
			s->look_every_ns = TIMER_SLOTS_LOOK_NS;
		else if (s->look_every_ns < TIMER_SLOTS_LOOK_MAX_NS)
			s->look_every_ns *= 2;
		s->next_look_ns = now + s->look_every_ns;
	}
}

/*
 * The mapping that holds pc in slot s, at any time it was read, or NULL
 * if none does or if two that do would put it in different code (the
 * address was reused).
 */
const struct addr_map *
timer_slots_map(const struct slot_maps *s, uint64_t pc)
{
	return s->space != NULL ? addr_space_find_ever(s->space, pc) : NULL;
}

