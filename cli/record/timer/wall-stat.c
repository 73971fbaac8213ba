/*
 * wall-stat.c - time off the CPU from the threads' scheduler counters
 * (wall-stat.h).
 *
 * Invariant: between two readings of a thread, its wall time is split
 * into what schedstat says it ran (on the CPU: the samples' business),
 * waited for a CPU (runnable) and the rest (blocked), none counted twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "hmap.h"
#include "record/core/procfs.h"
#include "record/sink/sample.h"
#include "record/wall/blocked.h"
#include "wall-stat.h"

#define FAST_NS		5000000ull	/* a thread that runs: every 5 ms */
#define SLOW_NS		5000000ull	/* a parked one: at most this late, */
#define READS_PER_S	20000		/*   or later, to read no more */
#define LIST_NS		200000000ull	/* the threads listed this often */

struct sthread {
	pid_t pid, tid;
	int fd;				/* its schedstat; -1: done */
	uint64_t at;			/* when last read */
	uint64_t run, wait, slices;	/* its counters then */
	uint64_t ran;			/* since it was first read */
	int64_t ahead;			/* counted on the CPU or runnable
					   past the wall time that passed */
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
	size_t listed_pids;		/* the processes listed last time */
	long ticks;			/* clock ticks a second, for starttime */
	size_t live;			/* threads read, not done */
	uint64_t seed;			/* for spreading the readings */
	pid_t woke;			/* a process one of whose parked
					   threads woke, in this poll */
};

/*
 * Whether thread tid of pid is a zombie: its counters stopped for good.
 * Only a leader can be one (a process not yet reaped, or a leader that
 * ended before its threads); other threads are gone when they end.
 */
static int
zombie(pid_t pid, pid_t tid)
{
	char state;
	uint64_t start;

	return blocked_task_state(pid, tid, &state, &start) < 0 ||
	    state == 'Z' || state == 'X';
}

struct wall_stat *
wall_stat_new(struct wall *w, uint64_t start)
{
	struct wall_stat *ws = xcalloc(1, sizeof *ws);
	struct rlimit rl;

	ws->w = w;
	ws->start = start;
	/* a file a thread, kept open: as many as we may */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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
	struct procfs_schedstat s;

	if (procfs_read_schedstat(fd, &s) < 0)
		return -1;
	*run = s.run_ns;
	*wait = s.wait_ns;
	*slices = s.slices;
	return 0;
}

/*
 * How long ago (ns) thread tid started, from its stat's starttime (clock
 * ticks after boot, the time cut down to one) and CLOCK_BOOTTIME: half a
 * tick later than the tick, where it started on average (at the tick,
 * a thread that never blocked had 5 ms blocked, on average, before its
 * first instruction); 0 if unknown.
 */
static uint64_t
age_ns(const struct wall_stat *ws, pid_t pid, pid_t tid)
{
	struct timespec now;
	uint64_t start, up, born;
	char state;

	if (blocked_task_state(pid, tid, &state, &start) < 0 || start == 0)
		return 0;
	clock_gettime(CLOCK_BOOTTIME, &now);
	up = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	born = start * (1000000000u / (uint64_t)ws->ticks) +
	    500000000u / (uint64_t)ws->ticks;
	return up > born ? up - born : 0;
}

/*
 * How late a parked thread may be read: 5 ms, as a running one (where
 * it woke from a park is placed to within half the time between two
 * readings, and read every 20 ms, three Python threads sleeping 10 ms
 * under a lock had 8% of their sleep put in their lock waits; 1-5% at
 * 5 ms), or later where there are
 * so many threads that reading each that often would pass READS_PER_S
 * (20,000 reads, some 30 ms of CPU a second): 1,000 parked threads are
 * read every 50 ms.  A park's end is placed to within half of it.
 */
static uint64_t
slowest(const struct wall_stat *ws)
{
	uint64_t ns = (uint64_t)ws->live * (1000000000ull / READS_PER_S);

	return ns > SLOW_NS ? ns : SLOW_NS;
}

/*
 * Account a reading at now of thread t's counters: what it was blocked
 * and runnable since the last, placed; then when to read it next.
 */
/*
 * A reading's interval of t, ns long ending at end, to the sink (kind:
 * blocked ...).
 */
static void
tell(const struct wall_stat *ws, const struct sthread *t,
    enum sample_kind kind, uint64_t end, uint64_t ns, int exact)
{
	struct sample_sink k = { NULL, ws->w, NULL };
	struct sample s = { .kind = kind, .pid = t->pid, .tid = t->tid,
	    .time = end, .ns = ns, .exact = exact };

	sample_take(&k, NULL, &s);
}

static void
account(struct wall_stat *ws, struct sthread *t, uint64_t now, uint64_t run,
    uint64_t wait, uint64_t slices, uint64_t span)
{
	uint64_t ran = run > t->run ? run - t->run : 0;
	uint64_t waited = wait > t->wait ? wait - t->wait : 0;
	int64_t rest = (int64_t)span - (int64_t)(ran + waited) - t->ahead;
	uint64_t blocked = rest > 0 ? (uint64_t)rest : 0, first;
	int moved = slices != t->slices || ran > 0;

	/*
	 * A running thread's counters are brought up to date at its ticks
	 * and switches: read between two, they are up to a tick behind, and
	 * the next reading has that tick on top of its span.  What a
	 * reading counts past its span is taken from the next one's time
	 * blocked, not dropped (dropped, the later reading's gain was
	 * counted blocked: 0.05 s of a 0.5 s run that never blocked).
	 */
	t->ahead = rest < 0 ? -rest : 0;
	t->ran += ran;
	/*
	 * When (the timeline): a thread parked at the last reading was
	 * blocked from then, so its time blocked comes first, then what it
	 * ran; blocked again now, the rest of it is now's.
	 */
	first = t->at + blocked < now ? t->at + blocked : now;
	tell(ws, t, SAMPLE_RUNNABLE, now, waited, 0);
	if (!moved && t->blocked) {
		/* parked at one place the whole time: exact; read it less */
		tell(ws, t, SAMPLE_BLOCKED, first, blocked, 1);
		t->backoff = t->backoff * 2 < slowest(ws) ? t->backoff * 2 :
		    slowest(ws);
	} else {
		uint64_t tail = 0;
		int now_blocked;

		if (t->blocked && t->backoff > FAST_NS)
			ws->woke = t->pid;	/* its siblings may have too */

		/*
		 * It woke from a park at a known place, and blocked again or
		 * runs: when it woke is not known (the scheduler's clock in
		 * /proc sched drifts from ours by a CPU's steal time, tens of
		 * ms on a VM), so as likely any time: half the blocked time
		 * is the park's, the other half where it is now (sampled).
		 */
		if (t->blocked) {
			tail = blocked / 2;
			tell(ws, t, SAMPLE_BLOCKED, t->at + tail, tail, 0);
		}
		now_blocked = wall_look_now(ws->w, t->pid, t->tid);
		/*
		 * Blocked now: where it is stands for the rest.  Running:
		 * the rest was blocked somewhere it is no longer (a lock on
		 * its way, after the park), not at the park: placed as its
		 * unseen blocks are.
		 */
		if (now_blocked == 1)
			tell(ws, t, SAMPLE_BLOCKED, now, blocked - tail, 0);
		else
			tell(ws, t, SAMPLE_UNSEEN, first, blocked - tail, 0);
		t->blocked = now_blocked == 1;
		t->backoff = FAST_NS;
	}
	t->run = run;
	t->wait = wait;
	t->slices = slices;
	t->at = now;
	/*
	 * Read again in half to one and a half times backoff: threads seen
	 * together are not read in step, so the halves guessed for the
	 * ends of their parks (woken together, to end) err both ways and
	 * cancel, rather than all the same way.
	 */
	ws->seed = ws->seed * 6364136223846793005ull + 1442695040888963407ull;
	t->due = now + t->backoff / 2 + (ws->seed >> 33) % (t->backoff + 1);
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
	*t = (struct sthread){ .pid = pid, .tid = tid, .fd = fd, .at = now,
	    .backoff = FAST_NS, .listed = ws->listing };
	hmap_add(&ws->index, (uint64_t)(uint32_t)tid, ws->n + 1 -
	    hmap_get(&ws->index, (uint64_t)(uint32_t)tid));
	ws->n++;
	ws->live++;
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
		size_t n;
		pid_t *tids = procfs_threads(pids[i], &n);

		for (size_t k = 0; k < n; k++) {
			uint64_t at = hmap_get(&ws->index,
			    (uint64_t)(uint32_t)tids[k]);

			/* (one done is not taken again: a zombie is listed) */
			if (at != 0 && ws->t[at - 1].pid == pids[i])
				ws->t[at - 1].listed = ws->listing;
			else
				add_thread(ws, pids[i], tids[k], now);
		}
		free(tids);
	}
	ws->listed_at = now;
	ws->listed_pids = npids;
}

/*
 * Read thread t now; one that ended is done.  reaped_soon: a process
 * ended just now (SIGCHLD), so a zombie ended about now.
 */
static void
read_thread(struct wall_stat *ws, struct sthread *t, uint64_t now,
    int reaped_soon)
{
	uint64_t run, wait, slices, ended;
	int gone = read_counters(t->fd, &run, &wait, &slices) < 0;

	if (!gone && !(t->tid == t->pid && zombie(t->pid, t->tid))) {
		account(ws, t, now, run, wait, slices, now - t->at);
		return;
	}
	/*
	 * Ended.  A zombie still has its counters: its last span, to when
	 * it ended, is split as any other, blocked where it was last seen.
	 * One
	 * gone without a trace (a thread other than the leader) ended at
	 * some time since its last reading, as likely at any: if it was
	 * parked then, half that time is its park's (an estimate right on
	 * average: 1,000 threads woken at once to end lose none of their
	 * parks, each off by half a reading at most).
	 */
	/*
	 * A zombie whose SIGCHLD just came ended about now; another, as
	 * likely at any time since its last reading: half way.  But one
	 * running at its last reading ran to its end, as a thread that
	 * ends does: it ended when its counters say (a recorder late to
	 * the SIGCHLD, on a loaded machine, counted its lateness blocked:
	 * 38 ms of a 1.2 s run).
	 */
	ended = reaped_soon ? now : t->at + (now - t->at) / 2;
	if (!gone && !t->blocked) {
		uint64_t ran = run > t->run ? run - t->run : 0;
		uint64_t waited = wait > t->wait ? wait - t->wait : 0;

		if (t->at + ran + waited < ended)
			ended = t->at + ran + waited;
	}
	if (!gone && ended > t->at) {
		uint64_t ran = run > t->run ? run - t->run : 0;
		uint64_t waited = wait > t->wait ? wait - t->wait : 0;
		int64_t rest = (int64_t)(ended - t->at) -
		    (int64_t)(ran + waited) - t->ahead;

		t->ran += ran;
		tell(ws, t, SAMPLE_RUNNABLE, ended, waited, 0);
		if (rest > 0)
			tell(ws, t, SAMPLE_BLOCKED, ended, (uint64_t)rest, 0);
	}
	else if (gone && t->blocked)
		tell(ws, t, SAMPLE_BLOCKED, t->at + (now - t->at) / 2,
		    (now - t->at) / 2, 0);
	close(t->fd);
	t->fd = -1;
	ws->live--;
	tell(ws, t, SAMPLE_COUNTED, now, t->ran, 0);
}

void
wall_stat_poll(struct wall_stat *ws, const pid_t *pids, size_t npids,
    uint64_t now, int ended)
{
	/*
	 * Listed again at once when a process came or went, or one ended:
	 * a program whose agent took its slot after the first listing, and
	 * ended within LIST_NS, was never read (its threads' time only
	 * what its samples said: 0.09 s of a 0.17 s life, on loaded runs).
	 */
	if (ws->listing == 0 || npids != ws->listed_pids || ended ||
	    now - ws->listed_at >= LIST_NS)
		list_threads(ws, pids, npids, now);
	ws->woke = 0;
	for (size_t i = 0; i < ws->n; i++) {
		struct sthread *t = &ws->t[i];

		/*
		 * A process ended: a parked leader read now, while it is a
		 * zombie (its counters are still there until it is reaped).
		 */
		if (t->fd >= 0 && (now >= t->due || (ended &&
		    t->tid == t->pid && zombie(t->pid, t->tid))))
			read_thread(ws, t, now, ended);
	}
	/*
	 * A parked thread woke: threads parked together are often woken
	 * together (a broadcast, a pool's shutdown), and read now each is
	 * caught running or blocked anew, its park ended to a reading, not
	 * gone before its next one with half its last span guessed.
	 */
	if (ws->woke != 0) {
		pid_t pid = ws->woke;

		for (size_t i = 0; i < ws->n; i++) {
			struct sthread *t = &ws->t[i];

			if (t->fd >= 0 && t->pid == pid && t->blocked &&
			    t->at != now)
				read_thread(ws, t, now, 0);
		}
	}
}

void
wall_stat_free(struct wall_stat *ws, uint64_t now)
{
	for (size_t i = 0; i < ws->n; i++)
		if (ws->t[i].fd >= 0) {
			read_thread(ws, &ws->t[i], now, 0);
			if (ws->t[i].fd >= 0)
				close(ws->t[i].fd);
		}
	free(ws->t);
	hmap_free(&ws->index);
	free(ws);
}
