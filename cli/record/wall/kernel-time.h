/*
 * kernel-time.h - the CPU time a thread spent in the kernel where only
 * user mode may be sampled (perf_event_paranoid 2: the perf engine's
 * events exclude the kernel), counted all the same.
 *
 * A thread's task clock fires every period of its time on the CPU, in
 * user mode or in the kernel; a fire in the kernel is dropped.  The
 * thread's switches measure its time on the CPU, so between two of its
 * delivered samples the fires are known, and those not delivered came
 * in the kernel.  Each goes to the stack of the nearer delivered sample
 * (the user code around the system call or fault), under a frame
 * [kernel: not sampled] (PROFIL_KERNEL_UNSAMPLED); after a thread's last
 * sample, to that sample's.  The totals are exact to a period a thread;
 * where in the user code the kernel was entered is what is sampled.
 */
#ifndef PROFIL_RECORD_KERNEL_TIME_H
#define PROFIL_RECORD_KERNEL_TIME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/core/builder.h"

struct kernel_time;

/*
 * Where the counted kernel samples go: count samples of unit base
 * periods each (a budget's longer periods), frames[0] the kernel frame.
 */
typedef void (*kernel_time_sink)(void *arg, const struct bframe *frames,
    size_t n, uint64_t count, uint64_t unit, pid_t pid, pid_t tid);

/*
 * period_ns: the base sampling period; times are the records' clock, in
 * ns.
 */
struct kernel_time *kernel_time_new(uint64_t period_ns,
    kernel_time_sink sink, void *arg);
void kernel_time_free(struct kernel_time *k);

/* A new thread (fork record): its clock starts at 0, off the CPU. */
void kernel_time_start(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time);
/* A thread running at time (its exec: its clock is enabled then). */
void kernel_time_running(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time);
/* A thread attached to at time, running or not: its first switch tells. */
void kernel_time_attach(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time);
void kernel_time_switch_in(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time);
void kernel_time_switch_out(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time);
/*
 * A delivered sample of period period_ns with its user stack (n may be
 * 0: no stack): the fires dropped since the thread's last one are
 * counted and placed.
 */
void kernel_time_sample(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time, uint64_t period_ns, const struct bframe *frames,
    size_t n);
/* The thread ended at time: the fires since its last sample, placed. */
void kernel_time_exit(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time);
/* The recording ends at time: every thread still there, as at its exit. */
void kernel_time_finish(struct kernel_time *k, uint64_t time);

/* The samples counted so far. */
uint64_t kernel_time_counted(const struct kernel_time *k);

#endif
