/*
 * threads.c - the registry of sampled threads and their clocks.
 * Invariant: while sampling is on, every live thread known to us has a
 * clock armed, and only registry_lock holders change slots or clocks.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampler/threads.h"

struct thread_slot {
	pid_t tid;
	struct thread_clock clock;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_slot *slots;
static size_t nslots, slot_capacity;
static size_t reap_at = 16;		/* sweep dead threads past this many */
static atomic_int sampling;
static struct clock_spec sampling_spec;
static _Atomic uint64_t period_now;	/* sampling_spec's, or longer */
/*
 * The thread inside fork() holds registry_lock from prepare to the
 * parent/child handler; atfork handlers registered before ours run in
 * that window and may create threads (ThreadSanitizer's does).  That
 * thread must not wait for its own lock: it skips, and the child finds
 * such threads when it rescans.
 */
static atomic_int forking;
static pthread_t fork_owner;

static pid_t
current_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int
thread_alive(pid_t tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) == 0 || errno != ESRCH;
}

static struct thread_slot *
find_slot(pid_t tid)
{
	size_t i;

	for (i = 0; i < nslots; i++)
		if (slots[i].tid == tid)
			return &slots[i];
	return NULL;
}

static void
drop_slot(struct thread_slot *slot)
{
	if (slot->clock.mechanism)
		thread_clock_disarm(&slot->clock);
	*slot = slots[--nslots];
}

/* Release the clocks of threads that have exited.  Amortized O(1). */
static void
reap_dead(void)
{
	size_t i;

	for (i = 0; i < nslots;) {
		if (!thread_alive(slots[i].tid))
			drop_slot(&slots[i]);
		else
			i++;
	}
	reap_at = 2 * nslots + 16;
}

/* Arm a slot for tid (re-arming one left by a dead thread of that tid). */
static int
arm_slot(pid_t tid)
{
	struct thread_slot *slot = find_slot(tid);
	struct clock_spec spec;

	if (slot != NULL) {
		/* a new thread with a recycled tid: the old clock is stale */
		drop_slot(slot);
	}
	if (nslots == slot_capacity) {
		size_t capacity = slot_capacity ? slot_capacity * 2 : 16;
		struct thread_slot *grown = realloc(slots, capacity * sizeof *slots);

		if (grown == NULL) {
			errno = ENOMEM;
			return -1;
		}
		slots = grown;
		slot_capacity = capacity;
	}
	slot = &slots[nslots];
	slot->tid = tid;
	spec = sampling_spec;
	spec.period_ns = atomic_load(&period_now);
	if (thread_clock_arm(&spec, tid, &slot->clock) < 0)
		return -1;
	nslots++;
	return 0;
}

int
threads_sampling(void)
{
	return atomic_load(&sampling);
}

void
threads_add(pid_t tid)
{
	if (atomic_load(&forking) && pthread_equal(fork_owner, pthread_self()))
		return;
	pthread_mutex_lock(&registry_lock);
	if (atomic_load(&sampling)) {
		if (nslots >= reap_at)
			reap_dead();
		arm_slot(tid);
	}
	pthread_mutex_unlock(&registry_lock);
}

/* Arm every thread but self that exists now (some may exit meanwhile). */
static void
arm_other_threads(pid_t self)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *entry;

	while (dir != NULL && (entry = readdir(dir)) != NULL) {
		char *end;
		long tid = strtol(entry->d_name, &end, 10);

		if (entry->d_name[0] != '.' && *end == '\0' && tid > 0 &&
		    tid != self && find_slot((pid_t)tid) == NULL)
			arm_slot((pid_t)tid);
	}
	if (dir != NULL)
		closedir(dir);
	reap_at = 2 * nslots + 16;
}

int
threads_arm_all(const struct clock_spec *spec)
{
	pid_t self = current_tid();

	pthread_mutex_lock(&registry_lock);
	while (nslots > 0)
		drop_slot(&slots[0]);
	sampling_spec = *spec;
	atomic_store(&period_now, spec->period_ns);
	atomic_store(&sampling, 1);
	if (arm_slot(self) < 0) {
		int saved = errno;

		atomic_store(&sampling, 0);
		pthread_mutex_unlock(&registry_lock);
		errno = saved;
		return -1;
	}
	arm_other_threads(self);
	pthread_mutex_unlock(&registry_lock);
	return 0;
}

void
threads_set_period(uint64_t period_ns)
{
	uint64_t now = atomic_load(&period_now);

	while (now < period_ns &&
	    !atomic_compare_exchange_weak(&period_now, &now, period_ns))
		;
}

void
threads_disarm_all(void)
{
	pthread_mutex_lock(&registry_lock);
	atomic_store(&sampling, 0);
	while (nslots > 0)
		drop_slot(&slots[0]);
	pthread_mutex_unlock(&registry_lock);
}

unsigned
threads_armed(void)
{
	unsigned armed = 0;
	size_t i;

	pthread_mutex_lock(&registry_lock);
	for (i = 0; i < nslots; i++)
		if (thread_alive(slots[i].tid))
			armed++;
	pthread_mutex_unlock(&registry_lock);
	return armed;
}

void
threads_fork_prepare(void)
{
	pthread_mutex_lock(&registry_lock);
	fork_owner = pthread_self();
	atomic_store(&forking, 1);
}

void
threads_fork_parent(void)
{
	atomic_store(&forking, 0);
	pthread_mutex_unlock(&registry_lock);
}

/*
 * The child starts with one thread, the one that forked, under a new tid
 * (earlier atfork handlers may have added more).  It inherited the
 * parent's perf fds, not its timers: release those, then arm the child's
 * threads if sampling is on.
 */
void
threads_fork_child(void)
{
	size_t i;

	pthread_mutex_init(&registry_lock, NULL);
	atomic_store(&forking, 0);
	for (i = 0; i < nslots; i++)
		thread_clock_forget(&slots[i].clock);
	nslots = 0;
	if (atomic_load(&sampling) && arm_slot(current_tid()) == 0)
		arm_other_threads(current_tid());
}
