/*
 * same-output-perfrec.c - inputs for the perf records' fuzz target
 * (fuzz/fuzz-perfrec.c: a flags byte, then records) made of this
 * program's own mappings and of stacks it captures in itself, so that a
 * replay gives the recorder's builder, unwinder (real files, real CFI,
 * real stack bytes) and kernel time the same work at every run:
 * scripts/same-output.sh compares what two builds make of them.
 *
 *   same-output-perfrec DIR    writes DIR/gen-flat, gen-stacks,
 *                              gen-kernel, gen-children, gen-ktime,
 *                              gen-ktime-flat
 *
 * Processes: 100 (the target's program) with a thread 101, and a child
 * 102 that execs (its mappings given again); samples of each, some
 * unwound through the C library's qsort, some at no mapping, some in the
 * kernel; switches, lost and throttled records, exits.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <ucontext.h>

#define STACK_COPY	8192
#define MAX_CAPS	64
#define KERNEL_PC	0xffffffff81000000ull

struct cap {
	uint64_t regs[17];	/* perf's order: AX BX CX DX SI DI BP SP IP R8-15 */
	uint8_t stack[STACK_COPY];
	uint64_t copied;
};

static struct cap caps[MAX_CAPS];
static int ncaps;
static uint64_t stack_end;
static volatile unsigned sink;

struct map {
	uint64_t start, end, pgoff;
	char path[512];
};
static struct map maps[64];
static int nmaps;

static void
read_maps(void)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[1024];

	if (fp == NULL)
		exit(1);
	while (fgets(line, sizeof line, fp) != NULL) {
		unsigned long s, e, off;
		char perms[5], path[512] = "";

		if (sscanf(line, "%lx-%lx %4s %lx %*s %*s %511s", &s, &e, perms,
		    &off, path) < 4)
			continue;
		if (strcmp(path, "[stack]") == 0)
			stack_end = e;
		if (perms[2] != 'x' || (path[0] != '/' && strcmp(path, "[vdso]")))
			continue;
		if (nmaps < 64) {
			maps[nmaps] = (struct map){ s, e, off, "" };
			snprintf(maps[nmaps++].path, 512, "%s", path);
		}
	}
	fclose(fp);
}

/* The registers and stack here, as a perf sample of user mode has them. */
static __attribute__((noinline)) void
take(void)
{
	ucontext_t uc;
	struct cap *c;
	static const int at[17] = { REG_RAX, REG_RBX, REG_RCX, REG_RDX,
	    REG_RSI, REG_RDI, REG_RBP, REG_RSP, REG_RIP, REG_R8, REG_R9,
	    REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15 };

	if (ncaps == MAX_CAPS)
		return;
	getcontext(&uc);
	c = &caps[ncaps++];
	for (int i = 0; i < 17; i++)
		c->regs[i] = (uint64_t)uc.uc_mcontext.gregs[at[i]];
	c->copied = stack_end - c->regs[7];
	if (c->copied > STACK_COPY)
		c->copied = STACK_COPY;
	memcpy(c->stack, (const void *)c->regs[7], c->copied);
	sink++;
}

static __attribute__((noinline)) void
deep(int d)
{
	if (d > 0)
		deep(d - 1);
	else
		take();
	sink++;
}

static __attribute__((noinline)) void
shallow(void)
{
	take();
	sink++;
}

static int
by_value(const void *a, const void *b)
{
	static int once;

	if (!once++)
		take();
	return *(const int *)a - *(const int *)b;
}

static __attribute__((noinline)) void
sorting(void)
{
	int v[8] = { 5, 3, 7, 1, 8, 2, 6, 4 };

	qsort(v, 8, sizeof v[0], by_value);
	sink++;
}

/* ---- records ---- */
static uint8_t *out;
static size_t len, cap_bytes;
static uint64_t now = 1000000;

static void
put(const void *p, size_t n)
{
	if (len + n > cap_bytes) {
		cap_bytes = (len + n) * 2;
		if ((out = realloc(out, cap_bytes)) == NULL)
			exit(1);
	}
	memcpy(out + len, p, n);
	len += n;
}
static void put32(uint32_t v) { put(&v, 4); }
static void put64(uint64_t v) { put(&v, 8); }

static void
header(uint32_t type, uint16_t misc, size_t size)
{
	uint16_t s = (uint16_t)size;

	put32(type);
	put(&misc, 2);
	put(&s, 2);
}

static void
trailer(uint32_t pid, uint32_t tid)
{
	put32(pid);
	put32(tid);
	put64(now);
}

static void
mmap2(uint32_t pid, const struct map *m)
{
	size_t nlen = (strlen(m->path) + 8) & ~(size_t)7;
	char name[520] = "";
	struct stat st = { 0 };

	stat(m->path, &st);
	snprintf(name, sizeof name, "%s", m->path);
	header(10, 2, 8 + 8 + 24 + 24 + 8 + nlen + 16);
	put32(pid);
	put32(pid);
	put64(m->start);
	put64(m->end - m->start);
	put64(m->pgoff);
	put32(major(st.st_dev));
	put32(minor(st.st_dev));
	put64(st.st_ino);
	put64(0);
	put32(5);		/* PROT_READ | PROT_EXEC */
	put32(2);		/* MAP_PRIVATE */
	put(name, nlen);
	trailer(pid, pid);
}

static void
comm(uint32_t pid, uint32_t tid, const char *name, int exec)
{
	char c[16] = "";

	snprintf(c, sizeof c, "%s", name);
	header(3, exec ? 0x2000 : 0, 8 + 8 + 16 + 16);
	put32(pid);
	put32(tid);
	put(c, 16);
	trailer(pid, tid);
}

static void
task(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	header(type, 0, 8 + 24 + 16);
	put32(pid);
	put32(ppid);
	put32(tid);
	put32(ptid);
	put64(now);
	trailer(pid, tid);
}

static void
switched(uint32_t pid, uint32_t tid, int out_, int preempt)
{
	header(14, (uint16_t)((out_ ? 0x2000 : 0) | (preempt ? 0x4000 : 0)),
	    8 + 16);
	trailer(pid, tid);
}

/*
 * A sample: flags as the target's; c a capture (NULL: none, no
 * registers), kernel > 0 that many kernel frames first (misc KERNEL).
 */
static void
sample(unsigned flags, uint32_t pid, uint32_t tid, uint64_t ip,
    const struct cap *c, int kernel, uint64_t period)
{
	size_t size = 8 + 32;
	int stacks = flags & 1, ksampled = flags & 2;

	if (stacks && ksampled)
		size += 8 + 8 * (size_t)(kernel ? kernel + 3 : 0);
	if (stacks)
		size += 8 + (c ? 17 * 8 : 0) + 8 + (c ? STACK_COPY + 8 : 0);
	header(9, kernel ? 1 : 2, size);
	put64(kernel ? KERNEL_PC + 0x40 * (uint64_t)kernel : ip);
	put32(pid);
	put32(tid);
	put64(now);
	put64(period);
	if (stacks && ksampled) {
		put64(kernel ? (uint64_t)kernel + 3 : 0);
		if (kernel) {
			put64((uint64_t)-128);		/* PERF_CONTEXT_KERNEL */
			for (int k = 0; k < kernel; k++)
				put64(KERNEL_PC + 0x100 * (uint64_t)(k + 1));
			put64((uint64_t)-512);		/* PERF_CONTEXT_USER */
			put64(ip);
		}
	}
	if (stacks) {
		put64(c ? 2 : 0);		/* PERF_SAMPLE_REGS_ABI_64 */
		if (c)
			put(c->regs, sizeof c->regs);
		put64(c ? STACK_COPY : 0);
		if (c) {
			put(c->stack, STACK_COPY);
			put64(c->copied);
		}
	}
	now += 1000000;
}

static void
write_input(const char *dir, const char *name, unsigned flags)
{
	char path[4096];
	FILE *fp;
	uint8_t f = (uint8_t)flags;

	len = 0;
	now = 1000000;
	put(&f, 1);
	comm(100, 100, "same-output", 1);
	for (int i = 0; i < nmaps; i++)
		mmap2(100, &maps[i]);
	task(7, 100, 100, 101, 100);		/* a thread */
	switched(100, 100, 0, 0);
	switched(100, 101, 0, 0);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < ncaps; i++) {
			uint32_t tid = i % 3 == 2 ? 101 : 100;
			const struct cap *c = &caps[i];

			sample(flags, 100, tid, c->regs[8], c,
			    i % 7 == 3 ? 1 + i % 4 : 0, (uint64_t)(i + round) % 3);
			if (i % 5 == 4) {
				switched(100, tid, 1, i % 10 == 9);
				now += 3000000;
				switched(100, tid, 0, 0);
			}
		}
		sample(flags, 100, 100, 0x10, NULL, 0, 0);	/* no mapping */
		sample(flags, 100, 101, maps[0].start + 0x10, NULL, 0, 1);
	}
	/* a child that execs: its own image, the same files */
	task(7, 102, 100, 102, 100);
	switched(102, 102, 0, 0);
	comm(102, 102, "child", 1);
	for (int i = 0; i < nmaps; i++)
		mmap2(102, &maps[i]);
	for (int i = 0; i < ncaps; i += 2)
		sample(flags, 102, 102, caps[i].regs[8], &caps[i], 0, 0);
	header(2, 0, 8 + 16 + 16);		/* lost */
	put64(1);
	put64(7);
	trailer(100, 100);
	header(5, 0, 8 + 24);			/* throttled */
	put64(now);
	put64(0);
	put64(0);
	switched(102, 102, 1, 0);
	task(4, 102, 100, 102, 100);
	switched(100, 101, 1, 0);
	task(4, 100, 100, 101, 100);
	switched(100, 100, 1, 0);
	task(4, 100, 100, 100, 100);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fp = fopen(path, "wb")) == NULL || fwrite(out, 1, len, fp) != len ||
	    fclose(fp) != 0) {
		perror(path);
		exit(1);
	}
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fputs("usage: same-output-perfrec DIR\n", stderr);
		return 2;
	}
	read_maps();
	for (int d = 0; d < 12; d++)
		deep(d);
	for (int i = 0; i < 4; i++)
		shallow();
	sorting();
	write_input(argv[1], "gen-flat", 0);
	write_input(argv[1], "gen-stacks", 1);
	write_input(argv[1], "gen-kernel", 3);
	write_input(argv[1], "gen-children", 5);
	write_input(argv[1], "gen-ktime", 9);
	write_input(argv[1], "gen-ktime-flat", 8);
	return 0;
}
