/*
 * threads.c - the registry of threads and their sampling clocks.
 * Invariant: while sampling is on, every registered live thread has a
 * clock armed, and only registry_lock holders change slots or clocks.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "threads.h"

struct thread_slot {
	pid_t tid;
	int hooked;			/* created through the hook: its exit
					   releases the slot */
	struct thread_clock clock;	/* mechanism 0: not armed */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct thread_slot *slots;
static size_t nslots, slot_capacity;
static int sampling;			/* new threads get armed */
static struct clock_spec sampling_spec;
static pid_t forking_tid;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static pid_t
current_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
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

/* The slot for tid, added if new; NULL if memory ran out. */
static struct thread_slot *
add_slot(pid_t tid)
{
	struct thread_slot *slot = find_slot(tid);

	if (slot != NULL)
		return slot;
	if (nslots == slot_capacity) {
		size_t capacity = slot_capacity ? slot_capacity * 2 : 16;
		struct thread_slot *grown = realloc(slots, capacity * sizeof *slots);

		if (grown == NULL)
			return NULL;
		slots = grown;
		slot_capacity = capacity;
	}
	slot = &slots[nslots++];
	memset(slot, 0, sizeof *slot);
	slot->tid = tid;
	slot->clock.fd = -1;
	return slot;
}

static void
remove_slot(struct thread_slot *slot)
{
	*slot = slots[--nslots];
}

static void
thread_exit(void *unused)
{
	struct thread_slot *slot;

	(void)unused;
	pthread_mutex_lock(&registry_lock);
	slot = find_slot(current_tid());
	if (slot != NULL) {
		if (slot->clock.mechanism)
			thread_clock_disarm(&slot->clock);
		remove_slot(slot);
	}
	pthread_mutex_unlock(&registry_lock);
}

static void
make_exit_key(void)
{
	pthread_key_create(&exit_key, thread_exit);
}

void
threads_begin(void)
{
	struct thread_slot *slot;

	pthread_once(&exit_key_once, make_exit_key);
	pthread_mutex_lock(&registry_lock);
	slot = add_slot(current_tid());
	if (slot != NULL) {
		slot->hooked = 1;
		if (sampling && !slot->clock.mechanism)
			thread_clock_arm(&sampling_spec, slot->tid, &slot->clock);
	}
	pthread_mutex_unlock(&registry_lock);
	/* Any non-NULL value makes thread_exit() run when the thread ends. */
	pthread_setspecific(exit_key, (void *)1);
}

/* Register the threads that exist now (created before us, or by clone). */
static void
discover_threads(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *entry;

	if (dir == NULL)
		return;
	while ((entry = readdir(dir)) != NULL) {
		char *end;
		long tid = strtol(entry->d_name, &end, 10);

		if (entry->d_name[0] != '.' && *end == '\0' && tid > 0)
			add_slot((pid_t)tid);
	}
	closedir(dir);
}

int
threads_arm_all(const struct clock_spec *spec)
{
	pid_t self = current_tid();
	size_t i;
	int rc = 0;

	pthread_mutex_lock(&registry_lock);
	discover_threads();
	if (add_slot(self) == NULL) {
		pthread_mutex_unlock(&registry_lock);
		errno = ENOMEM;
		return -1;
	}
	sampling = 1;
	sampling_spec = *spec;
	for (i = 0; i < nslots;) {
		struct thread_slot *slot = &slots[i];

		if (slot->clock.mechanism)
			thread_clock_disarm(&slot->clock);
		if (thread_clock_arm(spec, slot->tid, &slot->clock) == 0) {
			i++;
		} else if (slot->tid == self) {
			rc = -1;
			break;
		} else {
			remove_slot(slot);	/* the thread has exited */
		}
	}
	pthread_mutex_unlock(&registry_lock);
	if (rc < 0) {
		int saved = errno;
		threads_disarm_all();
		errno = saved;
	}
	return rc;
}

void
threads_disarm_all(void)
{
	size_t i;

	pthread_mutex_lock(&registry_lock);
	sampling = 0;
	for (i = 0; i < nslots;) {
		if (slots[i].clock.mechanism)
			thread_clock_disarm(&slots[i].clock);
		/* Threads we only discovered are found again at the next start. */
		if (!slots[i].hooked)
			remove_slot(&slots[i]);
		else
			i++;
	}
	pthread_mutex_unlock(&registry_lock);
}

unsigned
threads_armed(void)
{
	unsigned armed = 0;
	size_t i;

	pthread_mutex_lock(&registry_lock);
	for (i = 0; i < nslots; i++)
		if (slots[i].clock.mechanism)
			armed++;
	pthread_mutex_unlock(&registry_lock);
	return armed;
}

void
threads_fork_prepare(void)
{
	pthread_mutex_lock(&registry_lock);
	forking_tid = current_tid();
}

void
threads_fork_parent(void)
{
	pthread_mutex_unlock(&registry_lock);
}

/*
 * The child has one thread, the one that forked, under a new tid.  It
 * inherited the parent's perf fds (not its timers): release those, keep
 * that one thread, and arm it if sampling is on.
 */
void
threads_fork_child(void)
{
	struct thread_slot *parent_slot = find_slot(forking_tid);
	int hooked = parent_slot != NULL && parent_slot->hooked;
	struct thread_slot *slot;
	size_t i;

	pthread_mutex_init(&registry_lock, NULL);
	for (i = 0; i < nslots; i++)
		thread_clock_forget(&slots[i].clock);
	nslots = 0;
	slot = add_slot(current_tid());
	if (slot == NULL)
		return;
	slot->hooked = hooked;
	if (sampling)
		thread_clock_arm(&sampling_spec, slot->tid, &slot->clock);
}
