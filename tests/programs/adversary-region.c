/*
 * adversary-region.c - a program that attacks the memory `profil record
 * -e timer` shares with it, for tests/adversarial/test-hostile.c.  Under the
 * timer engine the injected library maps a memfd ("profil-agent") that the
 * recorder reads: this program finds it in its own /proc/self/maps and
 * /proc/self/fd and, while it burns CPU, writes over it again and again.
 * Only the layout headers (agent.h, stackring.h) come from profil, to aim
 * the "bump" mode; nothing of it is linked in.
 *
 *   random SEED  fill the mapping with random bytes (xorshift from SEED)
 *   ones         fill it with all ones
 *   bump         every size, offset, index and counter of the layout
 *                bumped: huge capacities and offsets, the ring's head and
 *                tail moved, its captures published with huge sizes and
 *                weights, process slots naming init and the recorder
 *   truncate     ftruncate the memfd (its fd, and it reopened through
 *                /proc/self/fd) to 0, a page and 1 GiB; try to seal it
 *                against writes; then run `adversary-region child`, whose
 *                agent must still map the region (it exits 0)
 *   child        burn CHILD_MS of CPU, print nothing, exit 0
 *
 * Prints "region: MODE" once it has found the mapping ("region: none"
 * when run alone) and exits with status 7: the recorder must exit with
 * it too.  Invariant: the output never depends on what the attack did.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "sampler/stackring.h"

#define STATUS		7
#define ROUNDS		150	/* attacks, a burn of BURN_MS between */
#define BURN_MS		2.0
#define CHILD_MS	100.0

static unsigned char *base;	/* the mapping */
static size_t length;
static uint64_t rng = 88172645463325252ull;

static uint64_t
next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ms of this thread's CPU time, in a loop the profile can find. */
__attribute__((noinline)) static unsigned long
burn(double ms)
{
	volatile unsigned long local = 1;
	double until = thread_cpu() + ms / 1000;

	do
		for (int i = 0; i < 10000; i++)
			local = local * 6364136223846793005ul + (unsigned long)i;
	while (thread_cpu() < until);
	return local;
}

/* The agent's mapping of the region in /proc/self/maps: 0, or -1. */
static int
find_mapping(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	unsigned long start, end;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL)
		if (strstr(line, "memfd:profil-agent") != NULL &&
		    sscanf(line, "%lx-%lx", &start, &end) == 2) {
			base = (unsigned char *)start;
			length = end - start;
			break;
		}
	fclose(f);
	return base != NULL ? 0 : -1;
}

/* The memfd's number among our fds (the agent leaves it open), or -1. */
static int
find_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd = -1;

	if (d == NULL)
		return -1;
	while (fd < 0 && (e = readdir(d)) != NULL) {
		char path[300], target[256];
		ssize_t n;

		snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof target - 1);
		if (n > 0) {
			target[n] = '\0';
			if (strstr(target, "memfd:profil-agent") != NULL)
				fd = atoi(e->d_name);
		}
	}
	closedir(d);
	return fd;
}

static void
fill_random(void)
{
	for (size_t i = 0; i + 8 <= length; i += 8) {
		uint64_t v = next_random();

		memcpy(base + i, &v, 8);
	}
}

/* Each u64 of [at, at + n) set to v. */
static void
fill_u64(void *at, size_t n, uint64_t v)
{
	for (size_t i = 0; i + 8 <= n; i += 8)
		memcpy((char *)at + i, &v, 8);
}

/*
 * Aimed: the fields the recorder reads, each given a value that would
 * take it out of bounds, into a loop, or into a huge allocation.  The
 * layout as this program was built against; a region of another layout
 * gets the same writes where these fields were.
 */
static void
bump(unsigned round)
{
	static uint64_t stacks, counts, tcounts, capacity, tcapacity;
	static uint64_t so, sb, n, stack_size;
	struct agent_region *r = (struct agent_region *)base;

	if (round == 0) {	/* the layout, before it is bumped */
		stacks = r->stacks_offset;
		counts = r->counts_offset;
		tcounts = r->tcounts_offset;
		capacity = r->capacity;
		tcapacity = r->tcapacity;
		if (stacks != 0 && stacks < length &&
		    sizeof(struct stackring_shared) <= length - stacks) {
			struct stackring_shared *ring = (void *)(base + stacks);

			so = ring->slots_offset;
			sb = ring->slot_bytes;
			n = ring->nslots;
			stack_size = ring->stack_size;
		}
	}

	/* counts first, where the layout still says they are */
	if (counts < length && capacity <= (length - counts) / 8)
		fill_u64(base + counts, capacity * 8, ~0ull - round);
	if (tcounts < length && tcapacity <= (length - tcounts) / 8)
		fill_u64(base + tcounts, tcapacity * 8, 1ull << 63);
	if (stacks != 0 && stacks < length &&
	    sizeof(struct stackring_shared) <= length - stacks) {
		struct stackring_shared *ring = (struct stackring_shared *)(base + stacks);
		uint64_t t = atomic_load(&ring->tail);

		/* publish every slot as if written, with impossible contents */
		for (uint64_t k = 0; so < length - stacks && sb >= sizeof(struct
		    stackring_slot) && k < n && (k + 1) * sb <= length - stacks -
		    so; k++) {
			struct stackring_slot *s = (struct stackring_slot *)
			    ((char *)ring + so + ((t + k) & (n - 1)) * sb);

			s->tag = (uint32_t)next_random();
			s->tid = (uint32_t)next_random();
			s->weight = ~0ull >> (k % 3);
			s->kernel_weight = ~0ull;
			s->size = k % 2 ? ~0ull : stack_size + 8;
			s->stack_addr = next_random();
			atomic_store(&s->seq, t + k + 1);
		}
		atomic_store(&ring->head, t + (1ull << 40));
		atomic_store(&ring->tail, t + 12345);
		ring->nslots = 1ull << 62;
		ring->slot_bytes = ~0ull / 3;
		ring->stack_size = ~0ull;
		ring->slots_offset = ~0ull - 63;
		atomic_store(&ring->dropped, ~0ull);
	}
	r->lost = ~0ull;
	r->tlost = ~0ull;
	atomic_store(&r->budget.taken, ~0ull);
	atomic_store(&r->budget.weight_sq, 1);
	r->budget.samples = ~0ull;
	for (unsigned i = 1; i < 64; i++) {
		r->procs[i].ppid = (int32_t)next_random();
		r->procs[i].text = next_random();
		atomic_store(&r->procs[i].pid, i % 3 == 0 ? 1 : i % 3 == 1 ?
		    getppid() : (int32_t)next_random());
	}
	atomic_store(&r->next_slot, ~0u);
	r->capacity = 1ull << 62;
	r->keys_offset = ~0ull - 4095;
	r->counts_offset = length;
	r->tcapacity = ~0ull;
	r->tkeys_offset = length - 8;
	r->stacks_offset = round % 2 ? 0 : ~0ull - 63;
	r->stacks_bytes = ~0ull;
	r->size = round % 2 ? 0 : ~0ull;
}

/*
 * Change the memfd's size, through its fd and reopened (a new file
 * description of the same file), and add seals that would stop the
 * recorder or the agents of new processes: what succeeds is not said.
 */
static void
truncate_it(unsigned round)
{
	static const off_t sizes[] = { 0, 4096, 1l << 30 };
	int fd = find_fd(), again;
	char path[64];

	if (fd < 0)
		return;
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	again = open(path, O_RDWR | O_CLOEXEC);
	(void)!ftruncate(fd, sizes[round % 3]);
	if (again >= 0) {
		(void)!ftruncate(again, sizes[(round + 1) % 3]);
		(void)!fcntl(again, F_ADD_SEALS, F_SEAL_FUTURE_WRITE);
		close(again);
	}
	(void)!fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE);
}

/* `adversary-region child`, waited for: 0 if it exited 0. */
static int
run_child(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execl("/proc/self/exe", "adversary-region", "child", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "child") == 0) {
		burn(CHILD_MS);
		return 0;
	}
	if (strcmp(mode, "random") == 0 && argc > 2)
		rng = strtoull(argv[2], NULL, 10) * 2654435761u + 1;
	else if (strcmp(mode, "ones") != 0 && strcmp(mode, "bump") != 0 &&
	    strcmp(mode, "truncate") != 0) {
		fprintf(stderr, "adversary-region: unknown mode '%s'\n", mode);
		return 2;
	}
	burn(20);	/* samples, captures and slots for the attack to hit */
	if (find_mapping() < 0) {
		printf("region: none\n");
		burn(ROUNDS * BURN_MS);
		return STATUS;
	}
	printf("region: %s\n", mode);
	fflush(stdout);
	for (unsigned round = 0; round < ROUNDS; round++) {
		if (strcmp(mode, "random") == 0)
			fill_random();
		else if (strcmp(mode, "ones") == 0)
			memset(base, 0xff, length);
		else if (strcmp(mode, "bump") == 0)
			bump(round);
		else
			truncate_it(round);
		burn(BURN_MS);
	}
	if (strcmp(mode, "truncate") == 0 && run_child() < 0)
		printf("child failed\n");
	return STATUS;
}
