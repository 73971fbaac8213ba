/*
 * timer-unseen.c - the timer engine's processes that ran unseen
 * (timer-unseen.h): the recorder's descendants from /proc's children
 * files, their CPU time from their stat, and why an image carries no
 * live slot from its maps, environment and executable.
 * Invariant: CPU time counts as unseen only from the last look at which
 * the process's image had no live slot, never while one sampled it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "hmap.h"
#include "record/core/procfs.h"
#include "timer-unseen.h"

struct uproc {
	pid_t pid;
	uint64_t starttime;		/* with pid, which process it is */
	char comm[PROCFS_COMM_MAX];
	int live;			/* its image had a live slot last look */
	int off;			/* it was seen without one since */
	uint64_t since;			/* CPU ticks when last seen sampled */
	uint64_t last_off;		/*   when last seen without a slot */
	uint64_t unseen;		/* ticks unseen in earlier images */
	char why[160];			/* why this image is unseen, once known */
};

struct timer_unseen {
	char *library;			/* the injected library's file name */
	struct uproc *p;
	size_t n, cap;
	struct hmap index;		/* pid -> index + 1 */
	long ticks_per_s;
};

struct timer_unseen *
timer_unseen_new(const char *library)
{
	struct timer_unseen *u = xcalloc(1, sizeof *u);
	const char *slash = strrchr(library, '/');

	u->library = xstrdup(slash ? slash + 1 : library);
	/* the name up to ".so": libprofil.so.0 is mapped as libprofil.so.0.1.0 */
	if (strstr(u->library, ".so") != NULL)
		strstr(u->library, ".so")[3] = '\0';
	hmap_init(&u->index);
	u->ticks_per_s = sysconf(_SC_CLK_TCK);
	if (u->ticks_per_s <= 0)
		u->ticks_per_s = 100;
	return u;
}

void
timer_unseen_free(struct timer_unseen *u)
{
	if (u == NULL)
		return;
	free(u->library);
	free(u->p);
	hmap_free(&u->index);
	free(u);
}

/* Whether pid's image has a live slot: the library samples it. */
static int
sampled(const struct slot_maps *slots, pid_t pid)
{
	for (int i = AGENT_MAX_PROCS; i-- > 1;)
		if (slots[i].pid == pid && !slots[i].gone && !slots[i].refused)
			return 1;
	return 0;
}

/* Whether file (a /proc file of NUL- or newline-separated text) holds
   an entry beginning with prefix and containing word (NULL: any). */
static int
file_has(const char *path, const char *prefix, const char *word)
{
	static char buf[1 << 16];
	ssize_t n = procfs_read_small(path, buf, sizeof buf);
	size_t plen = strlen(prefix);

	if (n < 0)
		return -1;
	for (char *at = buf; at < buf + n; at += strlen(at) + 1) {
		char *nl;

		while ((nl = strchr(at, '\n')) != NULL) {
			*nl = '\0';
			if ((prefix[0] == '\0' || strncmp(at, prefix, plen) == 0) &&
			    (word == NULL || strstr(at, word) != NULL))
				return 1;
			at = nl + 1;
		}
		if ((prefix[0] == '\0' || strncmp(at, prefix, plen) == 0) &&
		    (word == NULL || strstr(at, word) != NULL))
			return 1;
	}
	return 0;
}

/*
 * Why process pid's image carries no live slot, into why: its library
 * not loaded (its environment without it, a static or set-uid program),
 * or loaded without the shared memory.  "" if nothing says.
 */
static void
find_why(const struct timer_unseen *u, pid_t pid, char *why, size_t size)
{
	char path[64];
	struct stat st;
	int mapped, preload, fd_env, interp;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	mapped = file_has(path, "", u->library);
	interp = file_has(path, "", "/ld-");
	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	preload = file_has(path, "LD_PRELOAD=", u->library);
	fd_env = file_has(path, AGENT_ENV_FD "=", NULL);
	snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
	why[0] = '\0';
	if (mapped < 0)
		return;		/* gone, or not ours to read */
	if (mapped == 0 && stat(path, &st) == 0 &&
	    (st.st_mode & (S_ISUID | S_ISGID)))
		snprintf(why, size, "it is set-user-ID or set-group-ID, and the "
		    "loader ignores LD_PRELOAD there");
	else if (mapped == 0 && interp == 0)
		snprintf(why, size, "it is statically linked, and LD_PRELOAD "
		    "cannot reach it (the perf engine can)");
	else if (mapped == 0 && preload == 0)
		snprintf(why, size, "it was started without profil's library "
		    "(LD_PRELOAD removed)");
	else if (mapped == 0)
		snprintf(why, size, "the loader did not load profil's library");
	else if (fd_env == 0)
		snprintf(why, size, "it was started without the descriptor of "
		    "profil's shared memory (" AGENT_ENV_FD " removed)");
	else
		snprintf(why, size, "profil's library found no shared memory "
		    "or no slot in it (its descriptor closed or replaced, or "
		    "%d processes already)", AGENT_MAX_PROCS - 1);
}

/* pid seen now, with its stat: noted, followed. */
static void
look(struct timer_unseen *u, const struct slot_maps *slots, pid_t pid,
    const struct procfs_stat *st)
{
	uint64_t at = hmap_get(&u->index, (uint64_t)(uint32_t)pid);
	uint64_t ticks = st->utime + st->stime;
	struct uproc *p;

	if (at != 0 && u->p[at - 1].starttime != st->starttime)
		at = 0;		/* the pid was given to another process */
	if (at == 0) {
		if (u->n == u->cap) {
			u->cap = u->cap ? 2 * u->cap : 64;
			u->p = xrealloc(u->p, u->cap * sizeof *u->p);
		}
		p = &u->p[u->n];
		*p = (struct uproc){ .pid = pid, .starttime = st->starttime };
		at = ++u->n;
		hmap_add(&u->index, (uint64_t)(uint32_t)pid, at -
		    hmap_get(&u->index, (uint64_t)(uint32_t)pid));
	}
	p = &u->p[at - 1];
	snprintf(p->comm, sizeof p->comm, "%s", st->comm);
	if (sampled(slots, pid)) {
		/* unseen: up to the last look that found it without a slot */
		if (p->off && p->last_off > p->since)
			p->unseen += p->last_off - p->since;
		p->live = 1;
		p->off = 0;
		p->since = ticks;
		p->why[0] = '\0';
	} else {
		p->live = 0;
		p->off = 1;
		p->last_off = ticks;
		if (p->why[0] == '\0' && ticks > p->since)
			find_why(u, pid, p->why, sizeof p->why);
	}
}

/* pid and its descendants, looked at. */
static void
walk(struct timer_unseen *u, const struct slot_maps *slots, pid_t pid,
    int depth)
{
	size_t ntids;
	pid_t *tids = depth > 64 ? NULL : procfs_threads(pid, &ntids);

	if (tids == NULL)
		return;
	for (size_t i = 0; i < ntids; i++) {
		size_t n;
		pid_t *children = procfs_children(pid, tids[i], &n);

		for (size_t k = 0; k < n; k++) {
			struct procfs_stat st;

			if (procfs_read_stat(children[k], 0, &st) == 0) {
				look(u, slots, children[k], &st);
				walk(u, slots, children[k], depth + 1);
			}
		}
		free(children);
	}
	free(tids);
}

void
timer_unseen_poll(struct timer_unseen *u, const struct slot_maps *slots)
{
	walk(u, slots, getpid(), 0);
}

static int
most_first(const void *a, const void *b)
{
	const struct record_unseen *x = a, *y = b;

	return x->cpu_ns > y->cpu_ns ? -1 : x->cpu_ns < y->cpu_ns;
}

void
timer_unseen_finish(struct timer_unseen *u, pid_t pid, uint64_t cpu_ns,
    int only, uint64_t min_ns, struct record_result *r)
{
	uint64_t tick_ns = 1000000000ull / (uint64_t)u->ticks_per_s;

	for (size_t i = 0; i < u->n; i++) {
		const struct uproc *p = &u->p[i];
		uint64_t ns = p->unseen * tick_ns, last = p->last_off * tick_ns;
		struct record_unseen *x;

		if (only && p->pid != pid)
			continue;
		/* the program: its rusage, to the microsecond, not a tick */
		if (p->pid == pid && cpu_ns > last)
			last = cpu_ns;
		if (p->off && last > p->since * tick_ns)
			ns += last - p->since * tick_ns;
		if (ns < min_ns || ns == 0)
			continue;
		r->unseen = xrealloc(r->unseen, (r->nunseen + 1) *
		    sizeof *r->unseen);
		x = &r->unseen[r->nunseen++];
		*x = (struct record_unseen){ .pid = p->pid, .cpu_ns = ns };
		snprintf(x->comm, sizeof x->comm, "%s", p->comm);
		snprintf(x->why, sizeof x->why, "%s", p->why[0] ? p->why :
		    "why is not known (it ended before it could be looked at)");
		r->unseen_ns += ns;
	}
	if (r->nunseen > 1)
		qsort(r->unseen, r->nunseen, sizeof *r->unseen, most_first);
}
