/*
 * wall.h - where the threads' time off the CPU went (record --wall): an
 * engine reports every thread's context switches as they happened (the
 * perf engine's PERF_RECORD_SWITCH), and asks now and then that the
 * threads blocked since be looked at (blocked.h: their system call and
 * stack, read without disturbing them).  Each interval off the CPU is
 * measured exactly by the switches; where it goes:
 *
 *   - blocked and looked at during the interval: to the stack it was
 *     blocked at, under [off-cpu: WHAT] (measured);
 *   - blocked, too short to be looked at: to the thread's blocked
 *     stacks in proportion to the looks that found it in short blocks
 *     there (sampled; the profile says how much and on how many looks),
 *     or [off-cpu: blocked] with no stack if none did;
 *   - preempted (runnable): to the stack of its last CPU sample, under
 *     [off-cpu: runnable] (sampled: where a preemption hits).
 *
 * A thread blocked for the whole run is looked at once; one that blocks
 * a hundred thousand times a second is looked at once a poll.  The
 * results go to the builder at each thread's end and at wall_finish.
 */
#ifndef PROFIL_RECORD_WALL_H
#define PROFIL_RECORD_WALL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/core/builder.h"

struct wall;
struct unwind_space;

/* The unwinder of process pid, or NULL (then stacks are not unwound). */
typedef struct unwind_space *(*wall_unwinder)(void *arg, pid_t pid);

/*
 * Times are CLOCK_MONOTONIC nanoseconds (the perf events' clock);
 * threads are looked at every poll_ns or so, reading stack_size bytes
 * of their stacks; a CPU sample stands for period_ns.
 */
struct wall *wall_new(struct builder *b, uint64_t poll_ns,
    unsigned stack_size, uint64_t period_ns, wall_unwinder unwinder,
    void *arg);
void wall_free(struct wall *w);

/* A new thread (or process): runnable from time until it first runs. */
void wall_thread_start(struct wall *w, pid_t pid, pid_t tid, uint64_t time);
/* A thread running at time, first seen so (the program at its exec). */
void wall_thread_running(struct wall *w, pid_t pid, pid_t tid, uint64_t time);
/*
 * A thread found running at an attach, at time: blocked since then, or
 * running, as its first switch or look tells.
 */
void wall_thread_attach(struct wall *w, pid_t pid, pid_t tid, uint64_t time);
void wall_switch_out(struct wall *w, pid_t pid, pid_t tid, uint64_t time,
    int preempted);
void wall_switch_in(struct wall *w, pid_t pid, pid_t tid, uint64_t time);
void wall_thread_exit(struct wall *w, pid_t pid, pid_t tid, uint64_t time);
/*
 * A CPU sample of the thread at time (0: unknown) with its stack: where
 * a preemption hits; and proof that the thread runs, should its switch
 * in have been lost.
 */
void wall_cpu_sample(struct wall *w, pid_t pid, pid_t tid, uint64_t time,
    const struct bframe *frames, size_t n);

/*
 * Look at the threads blocked and not looked at since they blocked
 * (the engine calls it after applying the switches up to now), and read
 * the kernel's count of the time of those that ran or switched since
 * their last reading (their schedstat: time on the CPU and runnable),
 * which their time off the CPU is made to agree with at their end.
 */
void wall_look(struct wall *w);
/* Whether a look is due at now (poll_ns since the last). */
int wall_look_due(const struct wall *w, uint64_t now);

/* End: threads still off the CPU until end; everything to the builder. */
void wall_finish(struct wall *w, uint64_t end);
/*
 * A period ends at now (record --every): the intervals off the CPU cut
 * there (a thread blocked at a place it was seen at stays placed there),
 * and every thread's time so far to the builder, as at its end, but
 * for its agreement with the kernel's count (made at its end, with
 * what is left).  The builder's counts are then the caller's to reset.
 */
void wall_cut(struct wall *w, uint64_t now);
/*
 * Once every CPU sample is in the builder: the time on the CPU the
 * kernel counted for a thread and its samples do not stand for (the
 * kernel's work at its switches, mostly) goes to its sites off the CPU,
 * in proportion to its intervals there, as [kernel: not sampled] under
 * their user stacks.  So each thread's time on the CPU is the kernel's
 * count, and with its time off it, its life.
 */
void wall_fill_cpu(struct wall *w);

/*
 * For a source without switch records (the timer engine, wall-stat.h),
 * which knows how long a thread was blocked or runnable between two
 * readings of its counters, not when:
 *
 * Look at the thread now: 1 if it is blocked (where, kept as its place
 * from now on), 0 if running (its place stays the last one seen), -1 if
 * it cannot be read.
 */
int wall_look_now(struct wall *w, pid_t pid, pid_t tid);
/*
 * (Each interval below ends at end, the records' clock: its time in the
 * profile's timeline.)
 *
 * ns of the thread's time blocked, at its place: exact if it was seen
 * there before and after without running in between, else sampled
 * (where blocks were seen stands for where they were).  With no place
 * seen yet, as its unseen blocks are (wall_finish).
 */
void wall_add_blocked(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns, int exact);
/*
 * ns of the thread's time blocked somewhere not seen: placed at the end
 * as its unseen blocks are (where its short blocks were seen).
 */
void wall_add_unseen(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns);
/* ns of the thread's time runnable: at its last CPU sample (sampled). */
void wall_add_runnable(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns);
/*
 * The thread's time on the CPU in all, as the kernel counted it (for
 * wall_fill_cpu), told before it is done.
 */
void wall_thread_counted(struct wall *w, pid_t pid, pid_t tid,
    uint64_t run_ns);
/* The thread has ended (or is no longer followed): its time is done. */
void wall_thread_done(struct wall *w, pid_t pid, pid_t tid);

/*
 * A process whose blocked threads could not be read (EACCES, EPERM):
 * its pid and the errno, or 0 if there was none.
 */
pid_t wall_unreadable(const struct wall *w, int *err);

#endif
