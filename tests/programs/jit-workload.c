/*
 * jit-workload.c - a program that generates machine code at run time and
 * tells profilers about it as JIT runtimes do (issue 18), for the
 * end-to-end tests of `profil record` (tests/e2e/test-jit.c).  Built plain:
 * nothing of profil's is linked in.
 *
 *   perfmap SECONDS   three generated functions, jit_six, jit_three and
 *                     "JS:*jit_one gen.js:3" (a name with a space, as
 *                     V8's), 6:3:1 of the CPU, each called from a C
 *                     function (call_six, call_three, call_one), and
 *                     jit_calls_c, called from call_back(), which calls
 *                     the C function c_leaf(): named in
 *                     /tmp/perf-PID.map, written before the code runs
 *   jitdump SECONDS   the same code named in a jitdump file
 *                     ($PROFIL_TEST_JITDIR, default /tmp, jit-PID.dump):
 *                     CODE_LOAD records with the code, DEBUG_INFO for
 *                     jit_one (gen.js, lines 10 to 13), and jit_three
 *                     moved (CODE_MOVE) to another address halfway
 *                     through, its old copy overwritten with int3
 *   reuse SECONDS     jitdump: jit_first for a third of the CPU, then
 *                     jit_second (other code) loaded at the same address
 *                     for the rest; prints "jit_first X jit_second Y"
 *   badmap SECONDS    perfmap's code and a map holding, among its good
 *                     lines, garbage, a size of 0, a range past 2^64, a
 *                     line without a name, one of 5000 bytes, one with a
 *                     NUL, a range over the whole address space written
 *                     first, and a last line without its newline; the map
 *                     is left in place
 *   stalemap SECONDS  perfmap's code and map, the map's time set an
 *                     hour back, as if left by an earlier process of the
 *                     same pid: a profiler must not believe it
 *   unwinding SECONDS jitdump's code with jit_six, jit_three and jit_one
 *                     built WITHOUT a frame pointer (rbp saved and zeroed,
 *                     a frame of 32 bytes), each CODE_LOAD after an
 *                     UNWINDING_INFO record (.eh_frame and .eh_frame_hdr
 *                     laid out after the code, as V8 writes them): only
 *                     the unwind tables tell their callers
 *   nounwind SECONDS  the same code without the UNWINDING_INFO records: a
 *                     profiler cannot find their callers, and must not
 *                     make one up
 *   forked SECONDS    perfmap in a process and in its forked child at
 *                     once, the same code at the same addresses, the
 *                     child's map (its own pid's) naming it child_six,
 *                     child_three, child_one; each prints its own line,
 *                     the child "child PID" too
 *
 * Names written late, as a JVM writes its map at exit (-XX:+DumpPerfMapAtExit)
 * or when told (jcmd PID Compiler.perfmap), and V8 its jitdump records
 * (buffered): the samples taken before are to be named all the same.
 *
 *   latemap SECONDS   perfmap's code, its map written at exit and left
 *                     there (the profiler reads it after the program
 *                     ended; the test removes it)
 *   midmap SECONDS    the map written when half the CPU is spent, removed
 *                     at exit: half the samples came before it
 *   latedump SECONDS  jitdump's code, move included, the file made and
 *                     mapped at the start (its header) and its records,
 *                     each with the time its code was loaded or moved,
 *                     written only at exit; the file is left there
 *   middump SECONDS   the same, the records of the first half (the loads)
 *                     written when half the CPU is spent, the move then
 *                     too; the file is removed at exit
 *   latereuse SECONDS reuse with its two CODE_LOADs at the same address
 *                     written at exit, each with its own time: only the
 *                     times tell which code a sample was in
 *   nomap SECONDS     perfmap's code, named nowhere
 *
 * Maps a profiler must not believe (perfmap's code, the map removed at
 * exit):
 *
 *   foreignmap SECONDS the map given to user nobody (65534; as root)
 *   openmap SECONDS   the map writable by anyone (mode 0666)
 *   linkmap SECONDS   /tmp/perf-PID.map a symlink to the map, written in
 *                     $PROFIL_TEST_JITDIR (default /tmp)
 *
 * A mode that leaves its file there appends its path to the file
 * $PROFIL_TEST_JITLIST, when set, for the test to remove.
 *
 * Each mode but reuse and latereuse prints "jit_six X jit_three Y jit_one Z c_leaf W"
 * (forked: the child "child_six ...") with the CPU seconds measured
 * around each call: the split to find.  Every mode prints "pid PID".
 * The map or dump file is removed at exit, except in badmap mode or
 * with PROFIL_TEST_KEEP_JIT=1 (for `perf report`, which reads the map
 * after the run): a profiler must keep the names it read.
 *
 * SECONDS is CPU time of the thread, as in tests/programs/workload.c: whole
 * passes (six, three, one, back: about 20 ms here) until the thread's CPU
 * clock reaches it, one pass at least.  The clock is read around each
 * call, no more often than every 1.5 ms here (jit_one's call: reading
 * it much more often costs CPU-timer signals on this kernel, as
 * tests/programs/workload.c says).  PROFIL_TEST_WORK_SCALE scales a pass's
 * work.
 *
 * Built without frame pointers; the generated code has them (push %rbp;
 * mov %rsp,%rbp), as V8's and the JVM's have, so a profiler unwinds it by
 * its frame pointer and the C code around it by its unwind tables.  The
 * code is written into a read-write mapping made executable afterwards
 * (mprotect): some systems refuse memory both writable and executable.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jit-eh.h"

static volatile unsigned long sink;
static double work_scale = 1;	/* PROFIL_TEST_WORK_SCALE */

/* A unit of work: about 2 ms here (4 cycles an iteration). */
#define UNIT 1500000ul

static unsigned long
scaled(unsigned long n)
{
	unsigned long k = (unsigned long)((double)n * work_scale + 0.5);

	return k > 0 ? k : 1;
}

static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

/* ---- the code generator -------------------------------------------------- */

/*
 * busy(n): n rounds of x = x * K + i, in a frame of its own; returns x.
 * The loop is 15 bytes, all of the time but a few instructions.
 */
#define BUSY_LOOP	21	/* the loop's offset, for DEBUG_INFO */
#define BUSY_LOOP_END	36	/* and the first byte after it */
static const unsigned char busy_code[] = {
	0x55,				/* push %rbp */
	0x48, 0x89, 0xe5,		/* mov %rsp,%rbp */
	0xb8, 0x01, 0x00, 0x00, 0x00,	/* mov $1,%eax: x */
	0x31, 0xc9,			/* xor %ecx,%ecx: i */
	0x48, 0xba,			/* movabs $K,%rdx (K: 8 bytes follow) */
	0x2d, 0x7f, 0x95, 0x4c, 0x2d, 0xf4, 0x51, 0x58,
	/* loop: */
	0x48, 0x0f, 0xaf, 0xc2,		/* imul %rdx,%rax */
	0x48, 0x01, 0xc8,		/* add %rcx,%rax */
	0x48, 0xff, 0xc1,		/* inc %rcx */
	0x48, 0x39, 0xf9,		/* cmp %rdi,%rcx */
	0x72, 0xf1,			/* jb loop (-15) */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};
#define BUSY_K		13	/* the offset of K in it */
_Static_assert(sizeof busy_code == BUSY_LOOP_END + 2, "busy_code's offsets");

/*
 * calls_c(n): c_leaf(n) from a frame of its own, and returns what it
 * returned: a JIT frame between two C ones.  Not a tail call: the frame
 * is popped after the call returns.  The stack is 16-aligned at the
 * call (8 on entry, 8 pushed), as the C function's ABI wants.
 */
#define CALLS_C_TARGET	6	/* the offset of c_leaf's address */
static const unsigned char calls_c_code[] = {
	0x55,				/* push %rbp */
	0x48, 0x89, 0xe5,		/* mov %rsp,%rbp */
	0x48, 0xb8,			/* movabs $c_leaf,%rax (8 bytes) */
	0, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0xd0,			/* call *%rax */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};

/*
 * nofp(n): busy() with no frame pointer: rbp saved and zeroed (a frame
 * pointer walk stops at it), 32 bytes of frame.  Its caller is known
 * only from its unwind table (unwind_table()).
 */
static const unsigned char nofp_code[] = {
	0x55,				/*  0 push %rbp */
	0x31, 0xed,			/*  1 xor %ebp,%ebp */
	0x48, 0x83, 0xec, 0x20,		/*  3 sub $0x20,%rsp */
	0xb8, 0x01, 0x00, 0x00, 0x00,	/*  7 mov $1,%eax */
	0x31, 0xc9,			/* 12 xor %ecx,%ecx */
	0x48, 0xba,			/* 14 movabs $K,%rdx */
	0x2d, 0x7f, 0x95, 0x4c, 0x2d, 0xf4, 0x51, 0x58,
	/* 24 loop: */
	0x48, 0x0f, 0xaf, 0xc2,		/* imul %rdx,%rax */
	0x48, 0x01, 0xc8,		/* add %rcx,%rax */
	0x48, 0xff, 0xc1,		/* inc %rcx */
	0x48, 0x39, 0xf9,		/* cmp %rdi,%rcx */
	0x72, 0xf1,			/* jb loop (-15) */
	0x48, 0x83, 0xc4, 0x20,		/* 39 add $0x20,%rsp */
	0x5d,				/* 43 pop %rbp */
	0xc3,				/* 44 ret */
};
_Static_assert(sizeof nofp_code == 45, "nofp_code's offsets");

typedef unsigned long (*jit_fn)(unsigned long n);

/* Slots of 64 bytes in one page of generated code. */
#define SLOT 64
enum { SIX, THREE, ONE, CALLS_C, MOVED, NSLOTS };

static unsigned char *code;	/* the page */
static size_t page;

static void
writable(int yes)
{
	if (mprotect(code, page, yes ? PROT_READ | PROT_WRITE :
	    PROT_READ | PROT_EXEC) < 0)
		die("jit-workload: mprotect");
}

/* c_leaf: C, with unwind tables, called from generated code only. */
__attribute__((noinline)) static unsigned long
c_leaf(unsigned long n)
{
	volatile unsigned long x = 1;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + i;
	return x;
}

/* busy() in a slot; k != 0: another multiplier (other code, same length) */
static void
emit_busy(int slot, uint64_t k)
{
	memcpy(code + slot * SLOT, busy_code, sizeof busy_code);
	if (k != 0)
		memcpy(code + slot * SLOT + BUSY_K, &k, sizeof k);
}

static void
generate(void)
{
	uintptr_t target = (uintptr_t)c_leaf;

	page = (size_t)sysconf(_SC_PAGESIZE);
	code = mmap(NULL, page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		die("jit-workload: mmap");
	memset(code, 0xcc, page);	/* int3 between the functions */
	emit_busy(SIX, 0);
	emit_busy(THREE, 0);
	emit_busy(ONE, 0);
	memcpy(code + CALLS_C * SLOT, calls_c_code, sizeof calls_c_code);
	memcpy(code + CALLS_C * SLOT + CALLS_C_TARGET, &target, sizeof target);
	writable(0);
}

/* Where main calls each; jit_three's changes when it moves. */
static jit_fn jit_six, jit_three, jit_one, jit_calls_c;

static void
point_at_slots(void)
{
	jit_six = (jit_fn)(void *)(code + SIX * SLOT);
	jit_three = (jit_fn)(void *)(code + THREE * SLOT);
	jit_one = (jit_fn)(void *)(code + ONE * SLOT);
	jit_calls_c = (jit_fn)(void *)(code + CALLS_C * SLOT);
}

/* ---- the C callers: work after each call, so no call becomes a jump ------ */

__attribute__((noinline)) static void
call_six(unsigned long n)
{
	sink += jit_six(n);
	sink++;
}

__attribute__((noinline)) static void
call_three(unsigned long n)
{
	sink += jit_three(n);
	sink++;
}

__attribute__((noinline)) static void
call_one(unsigned long n)
{
	sink += jit_one(n);
	sink++;
}

__attribute__((noinline)) static void
call_back(unsigned long n)
{
	sink += jit_calls_c(n);
	sink++;
}

/*
 * One pass of six units in jit_six, three in jit_three, one in jit_one,
 * two in c_leaf (under jit_calls_c), each timed on the thread's clock
 * into cpu[0..3].
 */
static void
pass(double cpu[4])
{
	double t0 = thread_cpu(), t1, t2, t3, t4;

	call_six(scaled(6 * UNIT));
	t1 = thread_cpu();
	call_three(scaled(3 * UNIT));
	t2 = thread_cpu();
	call_one(scaled(UNIT));
	t3 = thread_cpu();
	call_back(scaled(2 * UNIT));
	t4 = thread_cpu();
	cpu[0] += t1 - t0;
	cpu[1] += t2 - t1;
	cpu[2] += t3 - t2;
	cpu[3] += t4 - t3;
}

/*
 * Passes until the thread has had `seconds` more of CPU; at the CPU
 * time `midway` (from the start; < 0: never), midway_fn() once.
 */
static void
passes(double seconds, double cpu[4], double midway, void (*midway_fn)(void))
{
	double start = thread_cpu(), now;

	do {
		pass(cpu);
		now = thread_cpu();
		if (midway >= 0 && now - start >= midway) {
			midway_fn();
			midway = -1;
		}
	} while (now - start < seconds);
}

static void
print_split(const char *prefix, const double cpu[4])
{
	printf("%s_six %.6f %s_three %.6f %s_one %.6f c_leaf %.6f\n", prefix,
	    cpu[0], prefix, cpu[1], prefix, cpu[2], cpu[3]);
	fflush(stdout);
}

/* ---- the perf map -------------------------------------------------------- */

static char map_path[64];
static int keep;	/* PROFIL_TEST_KEEP_JIT */

static FILE *
open_map(void)
{
	FILE *f;

	snprintf(map_path, sizeof map_path, "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map_path, "w");
	if (f == NULL)
		die(map_path);
	return f;
}

/* A line as V8 writes it (START SIZE NAME, hex without 0x), flushed. */
static void
map_line(FILE *f, int slot, size_t size, const char *name)
{
	fprintf(f, "%lx %zx %s\n",
	    (unsigned long)(uintptr_t)(code + slot * SLOT), size, name);
	fflush(f);
}

/* The map of prefix_six, ... ("jit": jit_one has V8's form of name). */
static void
write_map(const char *prefix)
{
	FILE *f = open_map();
	char name[64];

	snprintf(name, sizeof name, "%s_six", prefix);
	map_line(f, SIX, sizeof busy_code, name);
	snprintf(name, sizeof name, "%s_three", prefix);
	map_line(f, THREE, sizeof busy_code, name);
	if (strcmp(prefix, "jit") == 0)
		snprintf(name, sizeof name, "JS:*jit_one gen.js:3");
	else
		snprintf(name, sizeof name, "%s_one", prefix);
	map_line(f, ONE, sizeof busy_code, name);
	map_line(f, CALLS_C, sizeof calls_c_code, "jit_calls_c");
	fclose(f);
}

static void
remove_map(void)
{
	if (!keep && map_path[0] != '\0')
		unlink(map_path);
}

/* A file left for the profiler to read after the end: listed to remove. */
static void
leave(const char *path)
{
	const char *list = getenv("PROFIL_TEST_JITLIST");
	FILE *f;

	if (list == NULL || (f = fopen(list, "a")) == NULL)
		return;
	fprintf(f, "%s\n", path);
	fclose(f);
}

static void
write_jit_map(void)
{
	write_map("jit");
}

/*
 * The bad map: every kind of line the reader must refuse, between good
 * ones, and a range over all of user space written first (older than
 * every line after it: it must name nothing they name, and nothing that
 * is not generated code, such as c_leaf in this program).  The last line,
 * jit_one's, has no newline: the writer is gone when it is read.
 */
static void
write_bad_map(void)
{
	FILE *f = open_map();
	char longline[5000];

	fprintf(f, "1000 7ffffffff000 huge_span\n");
	fprintf(f, "this is not a map line\n");
	fprintf(f, "zzzz 10 bad_start\n");
	fprintf(f, "%lx 0 size_zero\n", (unsigned long)(uintptr_t)code);
	fprintf(f, "ffffffffffffff00 1000 past_the_end\n");
	fprintf(f, "%lx 40\n", (unsigned long)(uintptr_t)code);
	memset(longline, 'x', sizeof longline - 1);
	longline[sizeof longline - 1] = '\0';
	fprintf(f, "%lx 40 %s\n", (unsigned long)(uintptr_t)code, longline);
	fprintf(f, "%lx 40 with", (unsigned long)(uintptr_t)code);
	fputc('\0', f);
	fprintf(f, "nul\n");
	fprintf(f, "\n");
	map_line(f, SIX, sizeof busy_code, "jit_six");
	/* an optional 0x is taken (perfmap.h) */
	fprintf(f, "0x%lx 0x%zx jit_three\n",
	    (unsigned long)(uintptr_t)(code + THREE * SLOT), sizeof busy_code);
	map_line(f, CALLS_C, sizeof calls_c_code, "jit_calls_c");
	fprintf(f, "%lx %zx jit_one",
	    (unsigned long)(uintptr_t)(code + ONE * SLOT), sizeof busy_code);
	fclose(f);
}

/* ---- the jitdump file (jitdump.h; perf's jitdump-specification.txt) ------ */

enum { JIT_CODE_LOAD = 0, JIT_CODE_MOVE = 1, JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_UNWINDING_INFO = 4 };

struct jd_header {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};

struct jd_prefix {
	uint32_t id, total_size;
	uint64_t timestamp;
};

struct jd_load {
	struct jd_prefix p;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
	/* then the name, NUL-ended, and the code */
};

struct jd_move {
	struct jd_prefix p;
	uint32_t pid, tid;
	uint64_t vma, old_code_addr, new_code_addr, code_size, code_index;
};

struct jd_debug {
	struct jd_prefix p;
	uint64_t code_addr, nr_entry;
	/* then the entries: addr u64, line u32, discrim u32, file name */
};

struct jd_unwind {
	struct jd_prefix p;
	uint64_t unwinding_size, eh_frame_hdr_size, mapped_size;
	/* then .eh_frame, .eh_frame_hdr, padding to 8 */
};

static int dump_fd = -1;
static char dump_path[4096];
static uint64_t code_index;
/* records held back (a runtime that writes late: V8 buffers them) */
static int dump_late;
static unsigned char *held;
static size_t nheld;

static void
dump_write(const void *buf, size_t n)
{
	if (dump_late) {
		if ((held = realloc(held, nheld + n)) == NULL)
			die("jit-workload: realloc");
		memcpy(held + nheld, buf, n);
		nheld += n;
		return;
	}
	if (write(dump_fd, buf, n) != (ssize_t)n)
		die("jit-workload: write jitdump");
}

/* The records held back, written; what comes after is written at once. */
static void
dump_flush(void)
{
	dump_late = 0;
	dump_write(held, nheld);
	nheld = 0;
}

/*
 * The protocol of a runtime: the file made, the header written, one page
 * of it mapped executable (a profiler learns of the file from that
 * mapping), then records appended with write() as code comes and goes.
 */
static void
open_dump(void)
{
	const char *dir = getenv("PROFIL_TEST_JITDIR");
	struct jd_header h = { 0x4A695444, 1, sizeof h, EM_X86_64, 0,
	    (uint32_t)getpid(), mono_ns(), 0 };

	snprintf(dump_path, sizeof dump_path, "%s/jit-%d.dump",
	    dir != NULL ? dir : "/tmp", (int)getpid());
	dump_fd = open(dump_path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (dump_fd < 0)
		die(dump_path);
	/* the header at once, even when the records come late (as V8) */
	if (write(dump_fd, &h, sizeof h) != (ssize_t)sizeof h)
		die("jit-workload: write jitdump");
	if (mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, dump_fd, 0) ==
	    MAP_FAILED)
		die("jit-workload: mmap jitdump");
}

static void
dump_load(int slot, size_t size, const char *name)
{
	uint64_t addr = (uint64_t)(uintptr_t)(code + slot * SLOT);
	size_t len = strlen(name) + 1;
	struct jd_load r = { { JIT_CODE_LOAD, (uint32_t)(sizeof r + len + size),
	    mono_ns() }, (uint32_t)getpid(), (uint32_t)syscall(SYS_gettid),
	    addr, addr, size, code_index++ };

	dump_write(&r, sizeof r);
	dump_write(name, len);
	dump_write(code + slot * SLOT, size);
}

/*
 * jit_one's lines in gen.js: 10 its prologue, 11 the set-up, 12 the loop,
 * 13 the epilogue.  Before its CODE_LOAD, as perf's JVMTI agent writes
 * them; the file named once, then "\xff": the entry before's.
 */
static void
dump_debug_info(int slot)
{
	static const struct { unsigned off; uint32_t line; } at[] = {
		{ 0, 10 }, { 4, 11 }, { BUSY_LOOP, 12 }, { BUSY_LOOP_END, 13 },
	};
	uint64_t addr = (uint64_t)(uintptr_t)(code + slot * SLOT);
	unsigned char buf[256], *p = buf + sizeof(struct jd_debug);
	struct jd_debug r;

	for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
		uint64_t a = addr + at[i].off;
		uint32_t discrim = 0;
		const char *file = i == 0 ? "gen.js" : "\xff";

		memcpy(p, &a, 8);
		memcpy(p + 8, &at[i].line, 4);
		memcpy(p + 12, &discrim, 4);
		memcpy(p + 16, file, strlen(file) + 1);
		p += 16 + strlen(file) + 1;
	}
	r = (struct jd_debug){ { JIT_CODE_DEBUG_INFO, (uint32_t)(p - buf),
	    mono_ns() }, addr, sizeof at / sizeof at[0] };
	memcpy(buf, &r, sizeof r);
	dump_write(buf, (size_t)(p - buf));
}

/* An UNWINDING_INFO record for the CODE_LOAD of size bytes after it. */
static void
dump_unwind(size_t size)
{
	unsigned char eh[80], pad[8] = { 0 };
	size_t n = unwind_table(size, eh);
	size_t total = (sizeof(struct jd_unwind) + n + 7) & ~(size_t)7;
	struct jd_unwind r = { { JIT_CODE_UNWINDING_INFO, (uint32_t)total,
	    mono_ns() }, n, 20, n };

	dump_write(&r, sizeof r);
	dump_write(eh, n);
	dump_write(pad, total - sizeof r - n);
}

static void
remove_dump(void)
{
	if (!keep && dump_path[0] != '\0')
		unlink(dump_path);
}

/*
 * Halfway through jitdump mode: jit_three's code copied to a slot of its
 * own, the move announced, the old copy made int3 (nothing runs there
 * any more), and jit_three called at its new address from then on.
 */
static uint64_t three_index;

static void
move_three(void)
{
	uint64_t from = (uint64_t)(uintptr_t)(code + THREE * SLOT);
	uint64_t to = (uint64_t)(uintptr_t)(code + MOVED * SLOT);
	struct jd_move r = { { JIT_CODE_MOVE, sizeof r, 0 },
	    (uint32_t)getpid(), (uint32_t)syscall(SYS_gettid), to, from, to,
	    sizeof busy_code, three_index };

	writable(1);
	memcpy(code + MOVED * SLOT, code + THREE * SLOT, sizeof busy_code);
	memset(code + THREE * SLOT, 0xcc, SLOT);
	writable(0);
	r.p.timestamp = mono_ns();
	dump_write(&r, sizeof r);
	jit_three = (jit_fn)(void *)(code + MOVED * SLOT);
}

/* ---- the modes ----------------------------------------------------------- */

static void
perfmap_mode(double seconds)
{
	double cpu[4] = { 0 };

	generate();
	point_at_slots();
	write_map("jit");
	passes(seconds, cpu, -1, NULL);
	print_split("jit", cpu);
	remove_map();
}

/* jitdump mode's loads, and the move halfway (before it: midway_fn). */
static void
jitdump_run(double seconds, void (*midway_fn)(void), double cpu[4])
{
	generate();
	point_at_slots();
	open_dump();
	dump_load(SIX, sizeof busy_code, "jit_six");
	three_index = code_index;
	dump_load(THREE, sizeof busy_code, "jit_three");
	dump_debug_info(ONE);
	dump_load(ONE, sizeof busy_code, "jit_one");
	dump_load(CALLS_C, sizeof calls_c_code, "jit_calls_c");
	passes(seconds, cpu, seconds / 2, midway_fn);
}

static void
jitdump_mode(double seconds)
{
	double cpu[4] = { 0 };

	jitdump_run(seconds, move_three, cpu);
	print_split("jit", cpu);
	remove_dump();
}

/* middump's midway: what was held written, then the move (at once). */
static void
flush_and_move(void)
{
	dump_flush();
	move_three();
}

/* jitdump's records held back until the end (late) or half the CPU. */
static void
late_jitdump_mode(double seconds, int late)
{
	double cpu[4] = { 0 };

	dump_late = 1;
	jitdump_run(seconds, late ? move_three : flush_and_move, cpu);
	if (late) {
		dump_flush();
		leave(dump_path);
	}
	print_split("jit", cpu);
	if (!late)
		remove_dump();
}

/*
 * perfmap's code and its map, made what a profiler must not believe:
 * another user's (chown), anyone's to write (chmod), or behind a symlink.
 */
static void
untrusted_map_mode(double seconds, const char *how)
{
	const char *dir = getenv("PROFIL_TEST_JITDIR");
	char real[4096];
	double cpu[4] = { 0 };

	generate();
	point_at_slots();
	write_map("jit");
	if (strcmp(how, "foreign") == 0 && chown(map_path, 65534, 65534) < 0)
		die("jit-workload: chown");
	if (strcmp(how, "open") == 0 && chmod(map_path, 0666) < 0)
		die("jit-workload: chmod");
	if (strcmp(how, "link") == 0) {
		snprintf(real, sizeof real, "%s/real-%d.map", dir != NULL ? dir :
		    "/tmp", (int)getpid());
		if (rename(map_path, real) < 0 || symlink(real, map_path) < 0)
			die("jit-workload: symlink");
	}
	passes(seconds, cpu, -1, NULL);
	print_split("jit", cpu);
	remove_map();
	if (strcmp(how, "link") == 0 && !keep)
		unlink(real);
}

/* perfmap's code, its map written at the end (late), halfway, or never. */
static void
late_map_mode(double seconds, const char *when)
{
	double cpu[4] = { 0 };

	generate();
	point_at_slots();
	passes(seconds, cpu, strcmp(when, "mid") == 0 ? seconds / 2 : -1,
	    write_jit_map);
	if (strcmp(when, "late") == 0) {
		write_jit_map();
		leave(map_path);
	}
	print_split("jit", cpu);
	if (strcmp(when, "mid") == 0)
		remove_map();
}

/*
 * jit_six, jit_three and jit_one without frame pointers, named in a
 * jitdump file, with their unwind tables or (tables == 0) without.
 */
static void
unwinding_mode(double seconds, int tables)
{
	static const char *const names[] = { "jit_six", "jit_three", "jit_one" };
	double cpu[4] = { 0 };

	generate();
	writable(1);
	for (int slot = SIX; slot <= ONE; slot++)
		memcpy(code + slot * SLOT, nofp_code, sizeof nofp_code);
	writable(0);
	point_at_slots();
	open_dump();
	for (int slot = SIX; slot <= ONE; slot++) {
		if (tables)
			dump_unwind(sizeof nofp_code);
		dump_load(slot, sizeof nofp_code, names[slot - SIX]);
	}
	dump_load(CALLS_C, sizeof calls_c_code, "jit_calls_c");
	passes(seconds, cpu, -1, NULL);
	print_split("jit", cpu);
	remove_dump();
}

__attribute__((noinline)) static void
call_slot(unsigned long n)
{
	sink += jit_six(n);
	sink += 2;	/* not call_six's code, or the two are folded into one */
}

/*
 * jit_first in slot SIX for a third of the CPU, then jit_second (another
 * multiplier: other code of the same length) loaded over it for the rest,
 * in calls of one unit timed one by one.
 */
static void
reuse_mode(double seconds, int late)
{
	double start, first = 0, second = 0, t0, t1;

	generate();
	point_at_slots();
	dump_late = late;
	open_dump();
	dump_load(SIX, sizeof busy_code, "jit_first");
	start = thread_cpu();
	do {
		t0 = thread_cpu();
		call_slot(scaled(UNIT));
		t1 = thread_cpu();
		first += t1 - t0;
	} while (t1 - start < seconds / 3);
	writable(1);
	emit_busy(SIX, 0x9e3779b97f4a7c15ul);
	writable(0);
	dump_load(SIX, sizeof busy_code, "jit_second");
	do {
		t0 = thread_cpu();
		call_slot(scaled(UNIT));
		t1 = thread_cpu();
		second += t1 - t0;
	} while (t1 - start < seconds);
	if (late) {
		dump_flush();
		leave(dump_path);
	}
	printf("jit_first %.6f jit_second %.6f\n", first, second);
	if (!late)
		remove_dump();
}

static void
badmap_mode(double seconds)
{
	double cpu[4] = { 0 };

	generate();
	point_at_slots();
	write_bad_map();
	passes(seconds, cpu, -1, NULL);
	print_split("jit", cpu);
}

static void
stalemap_mode(double seconds)
{
	struct timespec hour_ago[2];
	double cpu[4] = { 0 };

	generate();
	point_at_slots();
	write_map("jit");
	clock_gettime(CLOCK_REALTIME, &hour_ago[0]);
	hour_ago[0].tv_sec -= 3600;
	hour_ago[1] = hour_ago[0];
	if (utimensat(AT_FDCWD, map_path, hour_ago, 0) != 0)
		die("jit-workload: utimensat");
	passes(seconds, cpu, -1, NULL);
	print_split("jit", cpu);
	remove_map();
}

/*
 * perfmap in two processes at once: the child inherits the code at the
 * same addresses and names it in a map of its own pid.
 */
static void
forked_mode(double seconds)
{
	double cpu[4] = { 0 };
	pid_t child;

	generate();
	point_at_slots();
	write_map("jit");
	fflush(stdout);
	child = fork();
	if (child < 0)
		die("jit-workload: fork");
	if (child == 0) {
		printf("child %d\n", (int)getpid());
		write_map("child");
		passes(seconds, cpu, -1, NULL);
		print_split("child", cpu);
		remove_map();
		exit(0);
	}
	passes(seconds, cpu, -1, NULL);
	waitpid(child, NULL, 0);
	print_split("jit", cpu);
	remove_map();
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *scale = getenv("PROFIL_TEST_WORK_SCALE");
	double seconds = argc > 2 ? atof(argv[2]) : 0;

	if (scale != NULL && (work_scale = atof(scale)) <= 0) {
		fprintf(stderr, "jit-workload: bad PROFIL_TEST_WORK_SCALE '%s'\n",
		    scale);
		return 2;
	}
	keep = getenv("PROFIL_TEST_KEEP_JIT") != NULL &&
	    strcmp(getenv("PROFIL_TEST_KEEP_JIT"), "1") == 0;
	printf("pid %d\n", (int)getpid());
	/*
	 * A map of our pid is an earlier process's, killed before it took
	 * its own away: gone, so that what each mode writes (or not, in
	 * nomap) is all the recorder finds.  (Pids wrap around; CI ran into
	 * one, and the recorder rightly said "older than process": not the
	 * line nomap's test looks for.)
	 */
	{
		char stale[64];

		snprintf(stale, sizeof stale, "/tmp/perf-%d.map", (int)getpid());
		unlink(stale);
	}
	if (strcmp(mode, "perfmap") == 0)
		perfmap_mode(seconds);
	else if (strcmp(mode, "jitdump") == 0)
		jitdump_mode(seconds);
	else if (strcmp(mode, "reuse") == 0)
		reuse_mode(seconds, 0);
	else if (strcmp(mode, "latereuse") == 0)
		reuse_mode(seconds, 1);
	else if (strcmp(mode, "latemap") == 0)
		late_map_mode(seconds, "late");
	else if (strcmp(mode, "midmap") == 0)
		late_map_mode(seconds, "mid");
	else if (strcmp(mode, "nomap") == 0)
		late_map_mode(seconds, "never");
	else if (strcmp(mode, "foreignmap") == 0)
		untrusted_map_mode(seconds, "foreign");
	else if (strcmp(mode, "openmap") == 0)
		untrusted_map_mode(seconds, "open");
	else if (strcmp(mode, "linkmap") == 0)
		untrusted_map_mode(seconds, "link");
	else if (strcmp(mode, "latedump") == 0)
		late_jitdump_mode(seconds, 1);
	else if (strcmp(mode, "middump") == 0)
		late_jitdump_mode(seconds, 0);
	else if (strcmp(mode, "badmap") == 0)
		badmap_mode(seconds);
	else if (strcmp(mode, "stalemap") == 0)
		stalemap_mode(seconds);
	else if (strcmp(mode, "unwinding") == 0)
		unwinding_mode(seconds, 1);
	else if (strcmp(mode, "nounwind") == 0)
		unwinding_mode(seconds, 0);
	else if (strcmp(mode, "forked") == 0)
		forked_mode(seconds);
	else {
		fprintf(stderr, "jit-workload: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
