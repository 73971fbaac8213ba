/*
 * wall-stat.c - time off the CPU from the threads' scheduler counters
 * (wall-stat.h).
 *
 * Invariant: between two readings of a thread, its wall time is split
 * into what schedstat says it ran (on the CPU: the samples' business),
 * waited for a CPU (runnable) and the rest (blocked), none counted twice.
 */
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "hmap.h"
#include "wall-stat.h"

#define FAST_NS		5000000ull	/* a thread that runs: every 5 ms */
#define SLOW_NS		200000000ull	/* a parked one: at most this late */
#define LIST_NS		200000000ull	/* the threads listed this often */

struct sthread {
	pid_t pid, tid;
	int fd;				/* its schedstat; -1: done */
	uint64_t at;			/* when last read */
	uint64_t run, wait, slices;	/* its counters then */
	int blocked;			/* blocked then (its place known) */
	uint64_t due, backoff;
	unsigned listed;		/* the listing that last saw it */
};

struct wall_stat {
	struct wall *w;
	struct sthread *t;
	size_t n, cap;
	struct hmap index;		/* tid -> index + 1 */
	uint64_t listed_at, start;
	unsigned listing;
	long ticks;			/* clock ticks a second, for starttime */
	int64_t sched_offset;		/* CLOCK_MONOTONIC - the scheduler's
					   clock, ns; INT64_MIN: unknown */
};

/* A field "NAME : VALUE" of a /proc .../sched file, in ms; -1: none. */
static double
sched_field(const char *path, const char *name)
{
	char buf[4096], *at;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((at = strstr(buf, name)) == NULL || (at = strchr(at, ':')) == NULL)
		return -1;
	return atof(at + 1);
}

/*
 * The scheduler's clock (se.exec_start in /proc/.../sched, CONFIG_SCHED_
 * DEBUG) against CLOCK_MONOTONIC: our own exec_start just after we were
 * switched in is now.  INT64_MIN where the file is not there.
 */
static int64_t
sched_clock_offset(void)
{
	struct timespec ts;
	double ms;

	sched_yield();
	ms = sched_field("/proc/thread-self/sched", "se.exec_start");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (ms <= 0)
		return INT64_MIN;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - (int64_t)(ms * 1e6);
}

/* When thread t last started running, CLOCK_MONOTONIC; 0 if unknown. */
static uint64_t
last_run_start(const struct wall_stat *ws, const struct sthread *t)
{
	char path[64];
	double ms;

	if (ws->sched_offset == INT64_MIN)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/sched", (int)t->pid,
	    (int)t->tid);
	if ((ms = sched_field(path, "se.exec_start")) <= 0)
		return 0;
	return (uint64_t)((int64_t)(ms * 1e6) + ws->sched_offset);
}

/*
 * Whether thread tid of pid is a zombie: its counters stopped for good.
 * Only a leader can be one (a process not yet reaped, or a leader that
 * ended before its threads); other threads are gone when they end.
 */
static int
zombie(pid_t pid, pid_t tid)
{
	char path[64], buf[512], *paren;
	int fd;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren == NULL || (paren[1] == ' ' && (paren[2] == 'Z' ||
	    paren[2] == 'X'));
}

struct wall_stat *
wall_stat_new(struct wall *w, uint64_t start)
{
	struct wall_stat *ws = xcalloc(1, sizeof *ws);

	ws->w = w;
	ws->start = start;
	ws->sched_offset = sched_clock_offset();
	hmap_init(&ws->index);
	ws->ticks = sysconf(_SC_CLK_TCK);
	if (ws->ticks <= 0)
		ws->ticks = 100;
	return ws;
}

/* The three counters of an open schedstat: 0, or -1 (the thread ended). */
static int
read_counters(int fd, uint64_t *run, uint64_t *wait, uint64_t *slices)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	unsigned long long a, b, c;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu", &a, &b, &c) != 3)
		return -1;
	*run = a;
	*wait = b;
	*slices = c;
	return 0;
}

/*
 * How long ago (ns) thread tid started, from its stat's starttime (clock
 * ticks after boot) and CLOCK_BOOTTIME; 0 if unknown.
 */
static uint64_t
age_ns(const struct wall_stat *ws, pid_t pid, pid_t tid)
{
	char path[64], buf[1024], *p;
	unsigned long long start;
	struct timespec now;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* after the name in parentheses: state is field 3, starttime 22 */
	if ((p = strrchr(buf, ')')) == NULL)
		return 0;
	for (field = 2; *p != '\0' && field < 22; p++)
		if (*p == ' ')
			field++;
	if (field != 22 || sscanf(p, "%llu", &start) != 1)
		return 0;
	clock_gettime(CLOCK_BOOTTIME, &now);
	{
		uint64_t up = (uint64_t)now.tv_sec * 1000000000u +
		    (uint64_t)now.tv_nsec;
		uint64_t born = start * (1000000000u / (uint64_t)ws->ticks);

		return up > born ? up - born : 0;
	}
}

/*
 * Account a reading at now of thread t's counters: what it was blocked
 * and runnable since the last, placed; then when to read it next.
 */
static void
account(struct wall_stat *ws, struct sthread *t, uint64_t now, uint64_t run,
    uint64_t wait, uint64_t slices, uint64_t span)
{
	uint64_t ran = run > t->run ? run - t->run : 0;
	uint64_t waited = wait > t->wait ? wait - t->wait : 0;
	uint64_t blocked = span > ran + waited ? span - ran - waited : 0;
	int moved = slices != t->slices || ran > 0;

	wall_add_runnable(ws->w, t->pid, t->tid, waited);
	if (!moved && t->blocked) {
		/* parked at one place the whole time: exact; read it less */
		wall_add_blocked(ws->w, t->pid, t->tid, blocked, 1);
		t->backoff = t->backoff * 2 < SLOW_NS ? t->backoff * 2 : SLOW_NS;
	} else {
		uint64_t tail = 0, began;
		int now_blocked;

		/*
		 * It woke from a park at a known place: that place's time
		 * goes on until it was last switched in, less its wait for
		 * a CPU (exact where it woke, ran once and blocked again).
		 */
		if (t->blocked && span > 2 * FAST_NS &&
		    (began = last_run_start(ws, t)) > t->at) {
			tail = began - t->at;
			tail = tail > waited ? tail - waited : 0;
			tail = tail < blocked ? tail : blocked;
			wall_add_blocked(ws->w, t->pid, t->tid, tail, 0);
		}
		now_blocked = wall_look_now(ws->w, t->pid, t->tid);
		/* where it is now (or was last seen) stands for the rest */
		wall_add_blocked(ws->w, t->pid, t->tid, blocked - tail, 0);
		t->blocked = now_blocked == 1;
		t->backoff = FAST_NS;
	}
	t->run = run;
	t->wait = wait;
	t->slices = slices;
	t->at = now;
	t->due = now + t->backoff;
}

/* A thread first seen at now: its time since it started, then tracked. */
static void
add_thread(struct wall_stat *ws, pid_t pid, pid_t tid, uint64_t now)
{
	char path[64];
	struct sthread *t;
	uint64_t run, wait, slices, age;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid,
	    (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (read_counters(fd, &run, &wait, &slices) < 0) {
		close(fd);
		return;
	}
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? 2 * ws->cap : 64;
		ws->t = xrealloc(ws->t, ws->cap * sizeof *ws->t);
	}
	t = &ws->t[ws->n];
	*t = (struct sthread){ pid, tid, fd, now, 0, 0, 0, 0, 0, FAST_NS,
	    ws->listing };
	hmap_add(&ws->index, (uint64_t)(uint32_t)tid, ws->n + 1 -
	    hmap_get(&ws->index, (uint64_t)(uint32_t)tid));
	ws->n++;
	/* since it started (or the recording did): from zero counters */
	age = age_ns(ws, pid, tid);
	if (age > now - ws->start)
		age = now - ws->start;
	account(ws, t, now, run, wait, slices, age > run + wait ? age : run + wait);
}

/* Every thread of pids: new ones added, the others marked seen. */
static void
list_threads(struct wall_stat *ws, const pid_t *pids, size_t npids,
    uint64_t now)
{
	ws->listing++;
	for (size_t i = 0; i < npids; i++) {
		char path[64];
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof path, "/proc/%d/task", (int)pids[i]);
		if ((d = opendir(path)) == NULL)
			continue;
		while ((e = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atoi(e->d_name);
			uint64_t at;

			if (tid <= 0)
				continue;
			at = hmap_get(&ws->index, (uint64_t)(uint32_t)tid);
			/* (one done is not taken again: a zombie is listed) */
			if (at != 0 && ws->t[at - 1].pid == pids[i])
				ws->t[at - 1].listed = ws->listing;
			else
				add_thread(ws, pids[i], tid, now);
		}
		closedir(d);
	}
	ws->listed_at = now;
}

/*
 * Read thread t now; one that ended is done.  last: the recording ends,
 * the program with it: a thread gone was blocked until about now.
 */
static void
read_thread(struct wall_stat *ws, struct sthread *t, uint64_t now, int last)
{
	uint64_t run, wait, slices, began;
	int gone = read_counters(t->fd, &run, &wait, &slices) < 0;

	if (!gone && !(t->tid == t->pid && zombie(t->pid, t->tid))) {
		account(ws, t, now, run, wait, slices, now - t->at);
		return;
	}
	/*
	 * Ended.  Blocked when last read, it woke to end: its block lasted
	 * until it last ran (a zombie still tells when), or, at the end of
	 * the recording, until about now; else the time is no one's (left
	 * out rather than called blocked).
	 */
	if (t->blocked && !gone && (began = last_run_start(ws, t)) > t->at)
		wall_add_blocked(ws->w, t->pid, t->tid, began - t->at, 0);
	else if (t->blocked && last)
		wall_add_blocked(ws->w, t->pid, t->tid, now - t->at, 0);
	close(t->fd);
	t->fd = -1;
	wall_thread_done(ws->w, t->pid, t->tid);
}

void
wall_stat_poll(struct wall_stat *ws, const pid_t *pids, size_t npids,
    uint64_t now)
{
	if (ws->listing == 0 || now - ws->listed_at >= LIST_NS)
		list_threads(ws, pids, npids, now);
	for (size_t i = 0; i < ws->n; i++)
		if (ws->t[i].fd >= 0 && now >= ws->t[i].due)
			read_thread(ws, &ws->t[i], now, 0);
}

void
wall_stat_free(struct wall_stat *ws, uint64_t now)
{
	for (size_t i = 0; i < ws->n; i++)
		if (ws->t[i].fd >= 0) {
			read_thread(ws, &ws->t[i], now, 1);
			if (ws->t[i].fd >= 0)
				close(ws->t[i].fd);
		}
	free(ws->t);
	hmap_free(&ws->index);
	free(ws);
}
