/*
 * timer.c - the timer engine: libprofil injected into the program
 * (LD_PRELOAD) samples every thread with the library's own mechanism into
 * a pc histogram in memory shared with us (lib/agent/agent.h, timer-region.h),
 * or, with call stacks, into a ring of captures there: a sample travels
 * one way, the histogram having only those whose capture failed.
 * We watch which code each process slot has mapped (/proc/PID/maps, while
 * it lives: timer-slots.h), drain its stack captures as they come
 * (timer-stacks.h) and at the end resolve every pc to an object and file
 * offset for the builder.  A slot keeps every mapping seen in it; a pc
 * that two of them would put in different code (an address reused) is
 * credited to no object: [unknown], never a wrong one.  Here: the checks,
 * the launch and the loop until the program ends.
 *
 * Time in the kernel is the agent's estimate from each thread's system
 * time (lib/session/session-kernel.c), counted at [kernel] with no kernel
 * functions; the threads' samples are counted apart from the pcs, per thread
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
#include <unistd.h>

#include <profil.h>

#include "agent/agent.h"
#include "cli.h"
#include "record/core/addrspace.h"
#include "record/core/clock.h"
#include "record/core/launch.h"
#include "record/core/periods.h"
#include "record/unwind/unwind.h"
#include "record/wall/wall.h"
#include "timer-region.h"
#include "timer-slots.h"
#include "timer-stacks.h"
#include "timer-unseen.h"
#include "timer.h"
#include "wall-stat.h"

#define SNAPSHOT_MS	20		/* how often slots' maps may be due
					   (timer_slots_snapshot_due), and
					   the descendants are looked at */
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

/*
 * libprofil.so beside us (build tree), in the directory make install put
 * it in (PROFIL_LIBDIR: /usr/lib/x86_64-linux-gnu in Debian's package),
 * or in ../lib (installed, and moved since).
 */
static int
find_library(char *out, size_t size)
{
	static const char *const rel[] = {
		"libprofil.so.0",
#ifdef PROFIL_LIBDIR
		PROFIL_LIBDIR "/libprofil.so.0",
#endif
		"../lib/libprofil.so.0",
	};
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

		if (rel[i][0] == '/')
			snprintf(candidate, sizeof candidate, "%s", rel[i]);
		else
			snprintf(candidate, sizeof candidate, "%s/%s", self, rel[i]);
		if (realpath(candidate, out) != NULL && access(out, R_OK) == 0)
			return 0;
	}
	return -1;
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

/* A run of the timer engine: what its steps share. */
struct timer_run {
	const struct record_opts *o;
	struct record_result *r;
	struct timer_region *region;
	struct slot_maps *slots;
	struct launch l;
	struct wall *w;			/* --wall: time off the CPU */
	struct wall_stat *ws;
	struct timer_unseen *unseen;
	uint64_t start;
	pid_t only;			/* with --no-children: the program's pid */
};

/*
 * The program started stopped before its exec (launch_prepare), with
 * libprofil (lib) and the region in its environment; ours is left as it
 * was.  0, or -1 with errno.
 */
static int
start_program(struct timer_run *t, const char *lib)
{
	char preload[PATH_MAX * 2], fdstr[16];
	const char *old_preload = getenv("LD_PRELOAD");
	char *saved_preload = old_preload ? xstrdup(old_preload) : NULL;
	int rc, saved_errno;

	/* the program (and what it runs) gets libprofil and the region */
	snprintf(preload, sizeof preload, "%s%s%s", lib,
	    saved_preload ? ":" : "", saved_preload ? saved_preload : "");
	snprintf(fdstr, sizeof fdstr, "%d", t->region->fd);
	setenv("LD_PRELOAD", preload, 1);
	setenv(AGENT_ENV_FD, fdstr, 1);
	rc = launch_prepare(&t->l, t->o->argv);
	saved_errno = errno;
	if (saved_preload)
		setenv("LD_PRELOAD", saved_preload, 1);
	else
		unsetenv("LD_PRELOAD");
	unsetenv(AGENT_ENV_FD);
	free(saved_preload);
	errno = saved_errno;
	return rc;
}

/*
 * A period ends at now (record --every): the counts the program kept
 * since the last (samples whose stack was not taken, threads' counts),
 * the time off the CPU cut, the profile written.
 */
static void
period(struct timer_run *t, uint64_t now)
{
	struct builder *b = t->r->builder;
	char cause[PATH_MAX + 128];

	/* every capture taken before now is the period's */
	timer_slots_open_new(b, t->region, t->slots, 1);
	if (t->region->ring.shared != NULL)
		while (timer_stacks_drain(b, t->region, t->slots, t->only, t->w,
		    0, now))
			;
	timer_region_resolve(b, t->region, t->slots, t->only, now);
	if (t->w != NULL)
		wall_cut(t->w, now);
	if (periods_write(t->o->periods, b, t->o, t->l.pid,
	    atomic_load(&t->region->shared->budget.taken),
	    atomic_load(&t->region->shared->budget.weight_sq), now, cause,
	    sizeof cause) < 0)
		cli_warn("cannot write a period's profile: %s", cause);
}

/*
 * Until the program ends; with --wait-all, until all it left ends.
 * A process that just started (an exec, a fork's first sample) has
 * its maps read at the next wake-up, every STACK_POLL_MS: a short
 * one (a compiler's `as`, an image that execs again at once) may be
 * gone by the next full reading, and its pcs in no object with it.
 */
static void
follow(struct timer_run *t)
{
	struct builder *b = t->r->builder;
	struct pollfd pfd = { t->l.signal_fd, POLLIN, 0 };
	uint64_t last_snapshot = 0;
	int more = 0;

	while (!t->l.exited || (t->o->wait_all && !t->l.stop &&
	    launch_descendants(&t->l))) {
		/* a ring's worth was taken last time: more may be waiting */
		poll(&pfd, 1, more ? 0 : periods_poll_ms(t->o->periods,
		    record_now_ns(), STACK_POLL_MS));
		if (record_now_ns() - last_snapshot > SNAPSHOT_MS * 1000000ull) {
			timer_slots_snapshot_due(b, t->region, t->slots,
			    record_now_ns());
			timer_unseen_poll(t->unseen, t->slots);
			last_snapshot = record_now_ns();
		} else {
			timer_slots_open_new(b, t->region, t->slots, 1);
		}
		if (t->region->ring.shared != NULL)
			more = timer_stacks_drain(b, t->region, t->slots,
			    t->only, t->w, 0, record_now_ns());
		/* before launch_poll reaps what ended: see wall_stat_poll */
		if (t->ws != NULL)
			wall_poll(t->ws, t->slots, t->only, record_now_ns(),
			    (pfd.revents & POLLIN) != 0);
		if (t->o->periods != NULL &&
		    periods_due(t->o->periods, record_now_ns()))
			period(t, record_now_ns());
		launch_poll(&t->l);
	}
}

/*
 * The program has ended: the last readings, everything to the builder
 * and to r, and the run's state freed.
 */
static void
finish(struct timer_run *t)
{
	const struct record_opts *o = t->o;
	struct record_result *r = t->r;

	r->wall_ns = record_now_ns() - t->start;
	/* children still running */
	timer_slots_snapshot_all(r->builder, t->region, t->slots);
	if (t->region->ring.shared != NULL)
		timer_stacks_drain(r->builder, t->region, t->slots, t->only,
		    t->w, 1, record_now_ns());
	if (t->w != NULL) {
		wall_stat_free(t->ws, t->start + r->wall_ns);
		wall_finish(t->w, t->start + r->wall_ns);
		r->wall_unreadable = wall_unreadable(t->w,
		    &r->wall_unreadable_errno);
	}
	timer_region_resolve(r->builder, t->region, t->slots, t->only,
	    record_now_ns());
	timer_region_weights(t->region, o, t->only, t->slots, r);
	r->refused = t->region->refused;
	launch_finish(&t->l, o, r);
	/* what ran for 10 ms, or two periods, without being sampled */
	timer_unseen_finish(t->unseen, t->l.pid, t->l.own_cpu_ns, t->only != 0,
	    o->period_ns * 2 > 10000000 ? o->period_ns * 2 : 10000000, r);
	timer_unseen_free(t->unseen);
	launch_close(&t->l);
	for (int i = 0; i < AGENT_MAX_PROCS; i++) {
		unwind_space_free(t->slots[i].uw);
		addr_space_free(t->slots[i].space);
	}
	free(t->slots);
	/* every sample in the builder now, JIT code's held back too */
	if (t->w != NULL) {
		wall_fill_cpu(t->w);
		wall_free(t->w);
	}
	timer_region_free(t->region);
	/* estimated from the threads' system time (lib/session/session-kernel.c) */
	r->kernel_sampled = 1;
}

int
record_timer(const struct record_opts *o, struct record_result *r,
    char *cause, size_t cause_size)
{
	struct timer_run t = { .o = o, .r = r };
	char lib[PATH_MAX];

	if (find_library(lib, sizeof lib) < 0) {
		snprintf(cause, cause_size, "cannot find libprofil.so.0 next "
		    "to the profil command (set PROFIL_LIBRARY to its path)");
		return -1;
	}
	t.region = timer_region_new(o->rate_hz, o->samples, o->stack_size,
	    o->period_ns, record_now_ns());
	if (t.region == NULL) {
		snprintf(cause, cause_size, "cannot create the shared profile "
		    "memory: %s", strerror(errno));
		return -1;
	}
	if (start_program(&t, lib) < 0) {
		snprintf(cause, cause_size, "cannot start %s: %s", o->argv[0],
		    strerror(errno));
		timer_region_free(t.region);
		return -1;
	}
	r->pid = t.l.pid;
	if (!o->follow_children)
		t.only = t.l.pid;
	builder_external_threads(r->builder);
	t.start = record_now_ns();
	r->exec_errno = launch_go(&t.l);
	t.slots = xcalloc(AGENT_MAX_PROCS, sizeof *t.slots);
	t.unseen = timer_unseen_new(lib);
	t.l.builder = r->builder;
	if (o->wall) {
		t.w = wall_new(r->builder, STACK_POLL_MS * 1000000ull,
		    o->stack_size, o->period_ns, slot_unwinder, t.slots);
		t.ws = wall_stat_new(t.w, t.start);
	}
	follow(&t);
	finish(&t);
	return 0;
}

const struct record_engine record_engine_timer = {
	"timer", record_timer_check, record_timer, NULL,
	"time in the kernel estimated from system time, no kernel functions",
};
