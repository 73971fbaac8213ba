/*
 * wall-stat.h - the timer engine's source of time off the CPU (record
 * --wall without perf events, as in a container): no switch records, so
 * each thread's own counters tell how long it was blocked and runnable:
 * /proc/PID/task/TID/schedstat gives the time it ran and the time it
 * waited for a CPU, and the rest of the time between two readings it was
 * blocked.  The totals are measured; where the blocked time goes is the
 * thread's place when read (wall_look_now), exact for a thread that
 * stayed blocked at one place between two readings, sampled otherwise.
 *
 * Cost follows what happens: a thread is read every 5 ms while it runs,
 * and ever less often (every 20 ms, later with very many threads) while
 * it stays parked, its counters unchanged; the processes' threads are
 * listed every 200 ms.
 * A thread that lives and ends between two listings is not seen.
 */
#ifndef PROFIL_RECORD_WALL_STAT_H
#define PROFIL_RECORD_WALL_STAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/wall/wall.h"

struct wall_stat;

/*
 * Threads' time counts from start at the earliest (the program's exec:
 * before it, the recorder held it).
 */
struct wall_stat *wall_stat_new(struct wall *w, uint64_t start);
/*
 * At now (CLOCK_MONOTONIC ns): list the threads of pids (every 200 ms)
 * and read those due.  Call it every few milliseconds, with ended set
 * when a child may have ended and is not reaped yet (SIGCHLD came).
 */
void wall_stat_poll(struct wall_stat *ws, const pid_t *pids, size_t npids,
    uint64_t now, int ended);
/* Read every thread a last time and close; then wall_finish. */
void wall_stat_free(struct wall_stat *ws, uint64_t now);

#endif
