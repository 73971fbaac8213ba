/*
 * bare-sampler.c - the floor under profil's perf engine: the same kernel
 * sampling of a program (a task-clock event per CPU, inherited, enabled
 * at exec, a ring per CPU), with a collector that throws every record
 * away unread.  What a run costs under it is what the interrupts, and
 * with -s the kernel's stack copies, cost: nothing of ours.
 *
 * usage: bare-sampler [-F HZ] [-s STACK_BYTES] PROGRAM [ARGS...]
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CPUS	256
#define RING_PAGES	512		/* as profil's stack rings: 2 MiB */

int
main(int argc, char **argv)
{
	struct perf_event_attr a;
	struct pollfd pfd[MAX_CPUS];
	struct perf_event_mmap_page *meta[MAX_CPUS];
	unsigned long hz = 1000, stack = 0;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int go[2], opt, status;
	pid_t pid;
	char c;

	while ((opt = getopt(argc, argv, "+F:s:")) != -1) {
		if (opt == 'F')
			hz = strtoul(optarg, NULL, 10);
		else if (opt == 's')
			stack = strtoul(optarg, NULL, 10);
		else
			return 2;
	}
	if (optind >= argc || hz == 0 || ncpus < 1 || ncpus > MAX_CPUS) {
		fprintf(stderr, "usage: bare-sampler [-F HZ] [-s STACK] PROGRAM...\n");
		return 2;
	}
	if (pipe(go) < 0)
		return 1;
	if ((pid = fork()) == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	close(go[0]);
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000000ul / hz;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (stack) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = 0x1ffull | 0xffull << 16;	/* profil's set */
		a.sample_stack_user = (uint32_t)stack;
	}
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.exclude_hv = 1;
	a.watermark = 1;
	a.wakeup_watermark = RING_PAGES * 4096 / 4;
	for (long i = 0; i < ncpus; i++) {
		int fd = (int)syscall(SYS_perf_event_open, &a, pid, (int)i, -1,
		    PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			perror("perf_event_open");
			kill(pid, SIGKILL);
			return 1;
		}
		meta[i] = mmap(NULL, (RING_PAGES + 1) * page,
		    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (meta[i] == MAP_FAILED) {
			perror("mmap");
			kill(pid, SIGKILL);
			return 1;
		}
		pfd[i] = (struct pollfd){ fd, POLLIN, 0 };
	}
	if (write(go[1], "g", 1) != 1)
		return 1;
	close(go[1]);
	for (int open = (int)ncpus; open > 0;) {
		poll(pfd, (nfds_t)ncpus, 100);
		for (long i = 0; i < ncpus; i++) {
			uint64_t head = __atomic_load_n(&meta[i]->data_head,
			    __ATOMIC_ACQUIRE);

			__atomic_store_n(&meta[i]->data_tail, head,
			    __ATOMIC_RELEASE);
			if (pfd[i].fd >= 0 && (pfd[i].revents & POLLHUP)) {
				pfd[i].fd = -1;	/* the program has ended */
				open--;
			}
		}
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
