/*
 * timer-slots.c - the timer engine's processes and their mappings
 * (timer-slots.h).
 *
 * Invariant: a slot's maps are read only while they are its image's: an
 * exec'd image, or maps read while the process took a newer slot, are
 * left alone.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jit.h"
#include "procmaps.h"
#include "timer-slots.h"
#include "unwind.h"

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

	if (jit_dump_path(pm->name) && c->ndumps < 4)
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
newer_slot(struct agent_region *r, uint32_t since, pid_t pid)
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
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return;
	if (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		builder_comm(b, pid, pid, line);
	}
	fclose(f);
}

/*
 * Read the executable mappings of a live process into its slot.  Maps
 * that lack the slot's libprofil code are of the image the process
 * exec'd since: the slot is over.  Maps read while the process took a
 * newer slot may already be the newer slot's: they are left for the
 * next round, which will know.
 */
static void
snapshot(struct builder *b, struct agent_region *r, struct slot_maps *s)
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
}

/* Slot i has just been filled by pid: it ends pid's older slots. */
static void
open_slot(struct builder *b, struct agent_region *r, struct slot_maps *slots,
    uint32_t i, pid_t pid)
{
	int known = 0;

	slots[i].pid = pid;
	slots[i].gone = 0;
	slots[i].text = r->procs[i].text;
	if (slots[i].space == NULL)
		slots[i].space = addr_space_new(1);
	jit_attach(slots[i].space, pid);
	if (r->stacks_offset != 0 && slots[i].uw == NULL)
		slots[i].uw = unwind_space_new(pid, slots[i].space);
	for (uint32_t k = 1; k < i; k++)
		if (slots[k].pid == pid) {
			slots[k].gone = 1;	/* an exec or a dlclose */
			known = 1;
		}
	if (i > 1 && !known)
		builder_fork(b, pid, (pid_t)r->procs[i].ppid);
	read_comm(b, pid);	/* a short process may end before a snapshot */
}

/*
 * Open the slots filled since the last look; with fresh, read their maps
 * at once too.  1 if any was new.
 */
int
timer_slots_open_new(struct builder *b, struct agent_region *r,
    struct slot_maps *slots, int fresh)
{
	uint32_t n = atomic_load(&r->next_slot);
	int any = 0;

	if (n > AGENT_MAX_PROCS)
		n = AGENT_MAX_PROCS;
	/* new slots first: the maps of the slots they end must not be read */
	for (uint32_t i = 1; i < n; i++) {
		pid_t pid = (pid_t)atomic_load(&r->procs[i].pid);

		if (pid != 0 && slots[i].pid != pid) {
			open_slot(b, r, slots, i, pid);
			any = 1;
		}
	}
	for (uint32_t i = 1; i < n && any && fresh; i++)
		if (slots[i].pid != 0 && !slots[i].gone && slots[i].space->n == 0)
			snapshot(b, r, &slots[i]);
	return any;
}

void
timer_slots_snapshot_all(struct builder *b, struct agent_region *r, struct slot_maps *slots)
{
	uint32_t n = atomic_load(&r->next_slot);

	if (n > AGENT_MAX_PROCS)
		n = AGENT_MAX_PROCS;
	timer_slots_open_new(b, r, slots, 0);
	for (uint32_t i = 1; i < n; i++)
		if (slots[i].pid != 0 && !slots[i].gone)
			snapshot(b, r, &slots[i]);
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

