/*
 * timer.c - the timer engine: libprofil injected into the program
 * (LD_PRELOAD) samples every thread with the library's own mechanism into
 * a pc histogram in memory shared with us (lib/agent/).  We watch which
 * code each process slot has mapped (/proc/PID/maps, while it lives) and
 * at the end resolve every pc to an object and file offset for the
 * builder.  A slot keeps every mapping seen in it; a pc that two of them
 * would put in different code (an address reused) is credited to no
 * object: [unknown], never a wrong one.
 *
 * Time in the kernel is the agent's estimate from each thread's system
 * time (lib/session.c), counted at [kernel] with no kernel functions; the
 * threads' samples are counted apart from the pcs, per thread
 * (builder_external_threads).  What it cannot do, and says: statically
 * linked or set-uid programs (the loader ignores LD_PRELOAD there).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "addrspace.h"
#include "agent/agent.h"
#include "sampler/budget.h"
#include "cli.h"
#include "hmap.h"
#include "record.h"
#include "sampler/stackring.h"
#include "jit.h"
#include "timer-slots.h"
#include "unwind.h"
#include "wall.h"
#include "wall-stat.h"

#define PCMAP_CAPACITY	(1u << 19)	/* distinct pcs: 8 MiB shared */
#define THREADS_CAPACITY (1u << 16)	/* threads with samples: 1 MiB */
#define SNAPSHOT_MS	20

#define STACK_SLOTS	256		/* captures the ring holds */
#define STACK_POLL_MS	5		/* how often we wake: the ring drained,
					   new processes' maps read */

/* The program file execvp would run. */
static int
resolve_program(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/') != NULL) {
		snprintf(out, size, "%s", name);
		return access(out, F_OK);
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(out, size, "%.*s/%s", (int)len, len ? path : ".", name);
		if (access(out, X_OK) == 0)
			return 0;
		path += len + (path[len] == ':');
	}
	return -1;
}

int
record_timer_check(char *const *argv, char *why, size_t why_size)
{
	char file[PATH_MAX];
	struct stat st;
	size_t n, i;
	int fd, dynamic = 0;
	Elf *elf;

	if (resolve_program(argv[0], file, sizeof file) < 0 || stat(file, &st) < 0)
		return 0;	/* the launch will say it is not found */
	if (st.st_mode & (S_ISUID | S_ISGID)) {
		snprintf(why, why_size, "%s is set-user-ID or set-group-ID: the "
		    "loader ignores LD_PRELOAD there, so the timer engine cannot "
		    "profile it", argv[0]);
		return -1;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF &&
	    elf_getphdrnum(elf, &n) == 0) {
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) != NULL &&
			    ph.p_type == PT_INTERP)
				dynamic = 1;
		}
		if (!dynamic)
			snprintf(why, why_size, "%s is statically linked: the "
			    "timer engine works by LD_PRELOAD, which cannot "
			    "reach it (the perf engine can)", argv[0]);
	} else {
		dynamic = 1;	/* a script: its interpreter is dynamic */
	}
	elf_end(elf);
	close(fd);
	return dynamic ? 0 : -1;
}

/* libprofil.so beside us (build tree) or in ../lib (installed). */
static int
find_library(char *out, size_t size)
{
	static const char *const rel[] = { "libprofil.so.0", "../lib/libprofil.so.0" };
	const char *env = getenv("PROFIL_LIBRARY");
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (env != NULL && *env != '\0') {
		snprintf(out, size, "%s", env);
		return access(out, R_OK);
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n < 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char candidate[PATH_MAX * 2];

		snprintf(candidate, sizeof candidate, "%s/%s", self, rel[i]);
		if (realpath(candidate, out) != NULL && access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

/*
 * The shared region: header, pc and thread tables, and with stack_size a
 * ring of stack captures (stackring.h) at the end.
 */
static struct agent_region *
make_region(int *fd_out, unsigned rate_hz, uint64_t samples,
    unsigned stack_size)
{
	size_t head = (sizeof(struct agent_region) + 4095) & ~(size_t)4095;
	size_t tables = head + 2 * (size_t)PCMAP_CAPACITY * 8 +
	    2 * (size_t)THREADS_CAPACITY * 8;
	size_t ring_head = (sizeof(struct stackring) + 63) & ~(size_t)63;
	size_t ring = stack_size ? ring_head + STACK_SLOTS *
	    STACKRING_SLOT_BYTES(stack_size) : 0;
	size_t size = tables + ring;
	struct agent_region *r;
	int fd = memfd_create("profil-agent", 0);	/* inherited through exec */

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	r = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	r->version = AGENT_VERSION;
	r->rate_hz = rate_hz;
	r->size = size;
	r->capacity = PCMAP_CAPACITY;
	r->keys_offset = head;
	r->counts_offset = head + (size_t)PCMAP_CAPACITY * 8;
	r->tcapacity = THREADS_CAPACITY;
	r->tkeys_offset = r->counts_offset + (size_t)PCMAP_CAPACITY * 8;
	r->tcounts_offset = r->tkeys_offset + (size_t)THREADS_CAPACITY * 8;
	r->mechanism = PROFIL_MECH_AUTO;
	r->budget.samples = samples;
	if (stack_size) {
		struct stackring *sr = (struct stackring *)((char *)r + tables);

		sr->nslots = STACK_SLOTS;
		sr->slot_bytes = STACKRING_SLOT_BYTES(stack_size);
		sr->stack_size = stack_size;
		sr->slots_offset = ring_head;
		r->stacks_offset = tables;
		r->stacks_bytes = ring;
	}
	atomic_store(&r->next_slot, 1);
	r->magic = AGENT_MAGIC;		/* last: the region is complete */
	*fd_out = fd;
	return r;
}

/*
 * The first index from i on (up to n) of a table of u64 at offset off
 * of the region's file that is in a page the agent wrote (whence
 * SEEK_DATA), or in one it never touched (SEEK_HOLE).  Untouched pages
 * are holes of the memfd, all zeros: reading them would allocate them,
 * 2,048 page faults for the 8 MiB pc table, 45 ms at the end of every
 * run here.  Where the file cannot say, every page is data.
 */
static uint64_t
table_seek(int fd, size_t off, uint64_t i, uint64_t n, int whence)
{
	off_t at;

	if (i >= n)
		return n;
	at = lseek(fd, (off_t)(off + i * 8), whence);
	if (at < 0)
		return errno == ENXIO && whence == SEEK_DATA ? n :
		    whence == SEEK_DATA ? i : n;
	if ((size_t)at <= off + i * 8)
		return i;
	at = (off_t)(((size_t)at - off) / 8);
	return (uint64_t)at < n ? (uint64_t)at : n;
}

/* Every thread's count, to its process (the slot's pid). */
static void
resolve_threads(struct builder *b, struct agent_region *r, int fd,
    struct slot_maps *slots, pid_t only_pid)
{
	const uint64_t *keys = (const uint64_t *)((char *)r + r->tkeys_offset);
	const uint64_t *counts = (const uint64_t *)((char *)r + r->tcounts_offset);

	for (uint64_t i = 0, end = 0; i < r->tcapacity; i++) {
		uint64_t key, count;
		unsigned slot;
		pid_t pid;

		if (i >= end) {
			i = table_seek(fd, r->tkeys_offset, i, r->tcapacity, SEEK_DATA);
			end = table_seek(fd, r->tkeys_offset, i, r->tcapacity, SEEK_HOLE);
			if (i >= r->tcapacity)
				break;
		}
		if ((key = keys[i]) == 0 || (count = counts[i]) == 0)
			continue;
		slot = (unsigned)(key >> 32);
		if (slot == 0 || slot >= AGENT_MAX_PROCS)
			continue;
		pid = slots[slot].pid ? slots[slot].pid : (pid_t)r->procs[slot].pid;
		if (only_pid != 0 && pid != only_pid)
			continue;
		builder_thread_samples(b, pid, (pid_t)(uint32_t)key, count);
	}
}

/*
 * The captures the ring holds, in order, unwound and counted with their
 * stacks (their samples too: the leaf is the flat profile's sample); the
 * samples each (slot, pc) so got go into stacked, for resolve.  With
 * only_pid (--no-children) those of other processes are left out.
 *
 * The ring is drained every STACK_POLL_MS, the maps read every
 * SNAPSHOT_MS: a capture from a process started (or a library loaded)
 * since the last reading would be unwound without its maps, its pc in no
 * object ([unknown], "no unwind information": 3-9 samples of gcc's `as`
 * child, a 60 ms process).  Such a capture has the maps read first, once
 * a drain (code in no mapping at all stays unknown, and costs one
 * reading each STACK_POLL_MS at most).
 */
static void
drain_stacks(struct builder *b, struct agent_region *r, struct slot_maps *slots,
    pid_t only_pid, struct hmap *stacked, struct wall *w)
{
	struct stackring *ring = (struct stackring *)((char *)r + r->stacks_offset);
	uint64_t t = atomic_load_explicit(&ring->tail, memory_order_relaxed);
	struct bframe frames[UNWIND_MAX_DEPTH + 3];
	uint64_t kernel;
	int fresh = 0;		/* the maps were read in this drain */

	for (;; t++) {
		const struct stackring_slot *s = (const void *)((char *)ring +
		    ring->slots_offset + (t & (ring->nslots - 1)) * ring->slot_bytes);
		unsigned slot = s->tag;
		pid_t pid;
		size_t n;

		/* not written yet (or being written): next time */
		if (atomic_load_explicit(&s->seq, memory_order_acquire) != t + 1)
			break;
		if (slot == 0 || slot >= AGENT_MAX_PROCS || s->weight == 0 ||
		    s->size > ring->stack_size)
			goto next;
		if (!fresh && timer_slots_map(&slots[slot], s->regs[16]) == NULL) {
			timer_slots_snapshot_all(b, r, slots);
			fresh = 1;
		}
		pid = slots[slot].pid ? slots[slot].pid : (pid_t)r->procs[slot].pid;
		if (only_pid != 0 && pid != only_pid)
			goto next;
		if (slots[slot].space == NULL)
			slots[slot].space = addr_space_new(1);
		jit_attach(slots[slot].space, pid);
		if (slots[slot].uw == NULL)
			slots[slot].uw = unwind_space_new(pid, slots[slot].space);
		/* room for a kernel frame on top, for the kernel's share */
		n = unwind_stack(slots[slot].uw, (pid_t)s->tid, s->regs,
		    s->stack_addr, s->data, s->size, frames + 1, 0,
		    UNWIND_MAX_DEPTH + 1);
		kernel = s->kernel_weight < s->weight ? s->kernel_weight : s->weight;
		if (s->weight > kernel) {
			if (!jit_code_defer(slots[slot].space->jit, frames + 1, n,
			    s->weight - kernel, pid, (pid_t)s->tid, 0))
				builder_sample_stack(b, frames + 1, n,
				    s->weight - kernel, pid, (pid_t)s->tid);
			hmap_add(stacked, (uint64_t)slot << 48 | (s->regs[16] &
			    ((1ull << 48) - 1)), s->weight - kernel);
		}
		if (kernel > 0) {
			/* in the kernel, called from where the thread is */
			frames[0] = (struct bframe){ BFRAME_KERNEL, 0 };
			if (!jit_code_defer(slots[slot].space->jit, frames, n + 1,
			    kernel, pid, (pid_t)s->tid, 0))
				builder_sample_stack(b, frames, n + 1, kernel, pid,
				    (pid_t)s->tid);
			hmap_add(stacked, (uint64_t)slot << 48 | AGENT_KERNEL_PC,
			    kernel);
		}
		if (w != NULL) {	/* where a preemption would hit */
			if (kernel > 0)
				wall_cpu_sample(w, pid, (pid_t)s->tid, 0,
				    frames, n + 1);
			else
				wall_cpu_sample(w, pid, (pid_t)s->tid, 0,
				    frames + 1, n);
		}
next:
		atomic_store_explicit(&ring->tail, t + 1, memory_order_release);
	}
}

/*
 * Every pc of the histogram, to its object and file offset; with only_pid
 * (--no-children) the samples of other processes are left out: the
 * children were sampled (they inherit the library), but not profiled.
 * With stacks, what the captures counted already (stacked) is not
 * counted again; samples whose capture found the ring full count with a
 * stack cut at once ("no stack taken").
 */
static void
resolve(struct builder *b, struct agent_region *r, int fd,
    struct slot_maps *slots, pid_t only_pid, const struct hmap *stacked)
{
	const uint64_t *keys = (const uint64_t *)((char *)r + r->keys_offset);
	const uint64_t *counts = (const uint64_t *)((char *)r + r->counts_offset);

	for (uint64_t i = 0, end = 0; i < r->capacity; i++) {
		uint64_t key, count, pc;
		unsigned slot;
		const struct addr_map *m;
		struct bframe f[2];
		pid_t pid;
		struct bframe jf;
		int named;

		if (i >= end) {
			i = table_seek(fd, r->keys_offset, i, r->capacity, SEEK_DATA);
			end = table_seek(fd, r->keys_offset, i, r->capacity, SEEK_HOLE);
			if (i >= r->capacity)
				break;
		}
		if ((key = keys[i]) == 0 || (count = counts[i]) == 0)
			continue;
		slot = (unsigned)(key >> 48);
		pc = key & ((1ull << 48) - 1);
		if (slot == 0 || slot >= AGENT_MAX_PROCS)
			continue;
		pid = slots[slot].pid ? slots[slot].pid : (pid_t)r->procs[slot].pid;
		if (only_pid != 0 && pid != only_pid)
			continue;
		m = pc == AGENT_KERNEL_PC ? NULL : timer_slots_map(&slots[slot], pc);
		named = pc != AGENT_KERNEL_PC && (m == NULL || m->obj < 0) &&
		    slots[slot].space != NULL &&
		    jit_code_locate(slots[slot].space->jit, pc, m != NULL, &jf);
		if (stacked != NULL) {
			uint64_t got = hmap_get(stacked, key);

			if (got >= count)
				continue;
			count -= got;
			f[0] = named ? jf : pc == AGENT_KERNEL_PC ?
			    (struct bframe){ BFRAME_KERNEL, 0 } :
			    m == NULL || m->obj < 0 ?
			    (struct bframe){ BFRAME_UNKNOWN, pc } :
			    (struct bframe){ m->obj, pc - m->start + m->pgoff };
			f[1] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_NOT_TAKEN };
			builder_sample_stack(b, f, 2, count, pid, pid);
		} else if (named) {
			builder_sample(b, jf.obj, jf.value, count, pid, pid);
		} else if (pc == AGENT_KERNEL_PC) {
			builder_kernel(b, 0, count, pid, pid);
		} else if (m == NULL || m->obj < 0) {
			builder_unknown(b, count, pid, pid);
		} else {
			builder_sample(b, m->obj, pc - m->start + m->pgoff, count,
			    pid, pid);
		}
	}
	builder_lost(b, r->lost);
	resolve_threads(b, r, fd, slots, only_pid);
}

/*
 * The weights record's figures (profil.h): the region counts every
 * sample of every process.  With --no-children the profile keeps only
 * the program's, so taken and the squared weights are scaled to its
 * share of all the counts: the same error scale, for its samples.
 */
static void
weights(const struct agent_region *r, const struct record_opts *o,
    pid_t only_pid, const struct slot_maps *slots, struct record_result *res)
{
	const uint64_t *keys = (const uint64_t *)((const char *)r + r->keys_offset);
	const uint64_t *counts = (const uint64_t *)((const char *)r +
	    r->counts_offset);
	double all = (double)r->lost, kept = (double)r->lost, share;
	uint64_t base = o->period_ns;

	res->taken = atomic_load(&r->budget.taken);
	res->weight_sq = atomic_load(&r->budget.weight_sq);
	res->slowest_ns = base << budget_shift(r->budget.samples, base,
	    res->taken);
	if (only_pid == 0)
		return;
	for (uint64_t i = 0; i < r->capacity; i++) {
		unsigned slot = (unsigned)(keys[i] >> 48);
		pid_t pid;

		if (keys[i] == 0 || slot == 0 || slot >= AGENT_MAX_PROCS)
			continue;
		all += (double)counts[i];
		pid = slots[slot].pid ? slots[slot].pid : (pid_t)r->procs[slot].pid;
		if (pid == only_pid)
			kept += (double)counts[i];
	}
	share = all > 0 ? kept / all : 1;
	res->taken = (uint64_t)((double)res->taken * share + 0.5);
	res->weight_sq = (uint64_t)((double)res->weight_sq * share + 0.5);
	if (res->weight_sq < res->taken)
		res->weight_sq = res->taken;
}

/* An orphan the program left behind has ended: we reaped it. */
static void
on_reap(void *arg, pid_t pid, int status)
{
	builder_exit_status(arg, pid, status);
}

/* --wall: the unwinder of process pid's live slot, or NULL. */
static struct unwind_space *
slot_unwinder(void *arg, pid_t pid)
{
	struct slot_maps *slots = arg;

	for (int i = AGENT_MAX_PROCS; i-- > 1;)
		if (slots[i].pid == pid && !slots[i].gone)
			return slots[i].uw;
	return NULL;
}

/* --wall: the live processes' threads read, as wall-stat.h says. */
static void
wall_poll(struct wall_stat *ws, const struct slot_maps *slots, pid_t only,
    uint64_t now, int ended)
{
	pid_t pids[AGENT_MAX_PROCS];
	size_t n = 0;

	for (int i = 1; i < AGENT_MAX_PROCS; i++) {
		int dup = 0;

		if (slots[i].pid == 0 || slots[i].gone ||
		    (only != 0 && slots[i].pid != only))
			continue;
		for (size_t k = 0; k < n; k++)
			dup |= pids[k] == slots[i].pid;
		if (!dup)
			pids[n++] = slots[i].pid;
	}
	wall_stat_poll(ws, pids, n, now, ended);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
record_timer(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size)
{
	char lib[PATH_MAX], preload[PATH_MAX * 2], fdstr[16];
	const char *old_preload = getenv("LD_PRELOAD");
	char *saved_preload = old_preload ? xstrdup(old_preload) : NULL;
	struct slot_maps *slots;
	struct agent_region *region;
	struct launch l;
	struct pollfd pfd;
	struct hmap stacked;	/* slot << 48 | pc -> samples with a stack */
	struct wall *w = NULL;	/* --wall: time off the CPU */
	struct wall_stat *ws = NULL;
	uint64_t start, last_snapshot = 0;
	pid_t only = 0;		/* with --no-children: the program's pid */
	int fd, rc;

	if (find_library(lib, sizeof lib) < 0) {
		snprintf(cause, cause_size, "cannot find libprofil.so.0 next "
		    "to the profil command (set PROFIL_LIBRARY to its path)");
		free(saved_preload);
		return -1;
	}
	region = make_region(&fd, o->rate_hz, o->samples, o->stack_size);
	if (region == NULL) {
		snprintf(cause, cause_size, "cannot create the shared profile "
		    "memory: %s", strerror(errno));
		free(saved_preload);
		return -1;
	}
	/* the program (and what it runs) gets libprofil and the region */
	snprintf(preload, sizeof preload, "%s%s%s", lib,
	    saved_preload ? ":" : "", saved_preload ? saved_preload : "");
	snprintf(fdstr, sizeof fdstr, "%d", fd);
	setenv("LD_PRELOAD", preload, 1);
	setenv(AGENT_ENV_FD, fdstr, 1);
	rc = launch_prepare(&l, o->argv);
	if (saved_preload)
		setenv("LD_PRELOAD", saved_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(AGENT_ENV_FD);
	free(saved_preload);
	if (rc < 0) {
		snprintf(cause, cause_size, "cannot start %s: %s", o->argv[0],
		    strerror(errno));
		return -1;
	}
	r->pid = l.pid;
	if (!o->follow_children)
		only = l.pid;
	builder_external_threads(r->builder);
	start = now_ns();
	r->exec_errno = launch_go(&l);
	slots = xcalloc(AGENT_MAX_PROCS, sizeof *slots);
	pfd = (struct pollfd){ l.signal_fd, POLLIN, 0 };
	l.on_reap = on_reap;
	l.reap_arg = r->builder;
	hmap_init(&stacked);
	if (o->wall) {
		w = wall_new(r->builder, STACK_POLL_MS * 1000000ull,
		    o->stack_size, slot_unwinder, slots);
		ws = wall_stat_new(w, start);
	}
	/*
	 * Until the program ends; with --wait-all, until all it left ends.
	 * A process that just started (an exec, a fork's first sample) has
	 * its maps read at the next wake-up, every STACK_POLL_MS: a short
	 * one (a compiler's `as`, an image that execs again at once) may be
	 * gone by the next full reading, and its pcs in no object with it.
	 */
	while (!l.exited || (o->wait_all && !l.stop && launch_descendants(&l))) {
		poll(&pfd, 1, STACK_POLL_MS);
		if (now_ns() - last_snapshot > SNAPSHOT_MS * 1000000ull) {
			timer_slots_snapshot_all(r->builder, region, slots);
			last_snapshot = now_ns();
		} else {
			timer_slots_open_new(r->builder, region, slots, 1);
		}
		if (region->stacks_offset)
			drain_stacks(r->builder, region, slots, only, &stacked,
			    w);
		/* before launch_poll reaps what ended: see wall_stat_poll */
		if (ws != NULL)
			wall_poll(ws, slots, only, now_ns(),
			    (pfd.revents & POLLIN) != 0);
		launch_poll(&l);
	}
	r->wall_ns = now_ns() - start;
	timer_slots_snapshot_all(r->builder, region, slots);	/* children still running */
	if (region->stacks_offset)
		drain_stacks(r->builder, region, slots, only, &stacked, w);
	if (w != NULL) {
		wall_stat_free(ws, start + r->wall_ns);
		wall_finish(w, start + r->wall_ns);
		r->wall_unreadable = wall_unreadable(w,
		    &r->wall_unreadable_errno);
		wall_free(w);
	}
	resolve(r->builder, region, fd, slots, only,
	    region->stacks_offset ? &stacked : NULL);
	weights(region, o, only, slots, r);
	hmap_free(&stacked);
	launch_finish(&l, o, r);
	launch_close(&l);
	for (int i = 0; i < AGENT_MAX_PROCS; i++) {
		unwind_space_free(slots[i].uw);
		addr_space_free(slots[i].space);
	}
	free(slots);
	munmap(region, region->size);
	close(fd);
	/* estimated from the threads' system time (lib/session/session.c) */
	r->kernel_sampled = 1;
	return 0;
}
