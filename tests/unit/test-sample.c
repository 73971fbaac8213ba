/*
 * test-sample.c - the recorder's one sample sink (cli/record/sink/sample.c)
 * alone: what it hands on for each kind of sample, to the builder, the
 * JIT names' wait, the unwinder, the wall time and the kernel's time,
 * each of them a stub here that writes down what it was given.  The
 * engines' own tests (e2e) run it on real programs; this one holds it
 * to its contract (sample.h) case by case: where a pc goes, what a
 * stack is made of, the timer engine's kernel share on top of the user
 * stack, a stack not taken said, a copy cut short said, and a thread's
 * time off the CPU told to the accounts in the order they expect.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../cli/record/sink/sample.c"

#include "harness.h"

/* What a stub was given: one line each, in the order of the calls. */
static char calls[4096];
static uint64_t stack_time;	/* the last stack's time, as given */

static void
note(const char *fmt, ...)
{
	size_t len = strlen(calls);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(calls + len, sizeof calls - len, fmt, ap);
	va_end(ap);
	len = strlen(calls);
	snprintf(calls + len, sizeof calls - len, "\n");
}

static void
frames_note(const char *what, const struct bframe *f, size_t n, uint64_t w)
{
	char line[512];
	size_t len = (size_t)snprintf(line, sizeof line, "%s w=%llu", what,
	    (unsigned long long)w);

	for (size_t i = 0; i < n && len < sizeof line - 40; i++)
		len += (size_t)snprintf(line + len, sizeof line - len, " %d:%llx",
		    f[i].obj, (unsigned long long)f[i].value);
	note("%s", line);
}

/* the builder */
void
builder_sample(struct builder *b, int obj, uint64_t off, uint64_t w,
    pid_t pid, pid_t tid)
{
	(void)b; (void)pid; (void)tid;
	note("sample %d:%llx w=%llu", obj, (unsigned long long)off,
	    (unsigned long long)w);
}

void
builder_kernel(struct builder *b, uint64_t ip, uint64_t w, pid_t pid,
    pid_t tid)
{
	(void)b; (void)pid; (void)tid;
	note("kernel %llx w=%llu", (unsigned long long)ip,
	    (unsigned long long)w);
}

void
builder_unknown(struct builder *b, uint64_t w, pid_t pid, pid_t tid)
{
	(void)b; (void)pid; (void)tid;
	note("unknown w=%llu", (unsigned long long)w);
}

void
builder_sample_stack(struct builder *b, const struct bframe *frames,
    size_t n, uint64_t w, pid_t pid, pid_t tid, uint64_t time)
{
	(void)b; (void)pid; (void)tid;
	stack_time = time;
	frames_note("stack", frames, n, w);
}

/*
 * jit: pcs from 0x1000 to 0x2000 are object 3's (file offset pc -
 * 0x1000), 0x5000 to 0x6000 code a runtime named (object 9), the rest
 * unknown; a sample with an unknown frame at 0x7000 or above waits.
 * (The sink's own place() is jit_place: this stub stands for it.)
 */
int
jit_place(const struct addr_space *space, uint64_t pc, int ever,
    struct bframe *f)
{
	(void)space; (void)ever;
	if (pc >= 0x1000 && pc < 0x2000) {
		*f = (struct bframe){ 3, pc - 0x1000 };
		return 1;
	}
	if (pc >= 0x5000 && pc < 0x6000) {
		*f = (struct bframe){ 9, pc - 0x5000 };
		return 1;
	}
	*f = (struct bframe){ BFRAME_UNKNOWN, pc };
	return 0;
}

int
jit_code_defer(struct jit_code *c, const struct bframe *frames, size_t n,
    uint64_t w, pid_t pid, pid_t tid, int flat)
{
	(void)c; (void)pid; (void)tid;
	for (size_t i = 0; i < n; i++)
		if (frames[i].obj == BFRAME_UNKNOWN && frames[i].value >= 0x7000) {
			note("defer w=%llu flat=%d", (unsigned long long)w, flat);
			return 1;
		}
	return 0;
}

/*
 * The unwinder: the leaf where the registers' pc is, then one caller
 * (0x1800) and a cut PROFIL_CUT_STACK, the stack copy's end.
 */
size_t
unwind_stack(struct unwind_space *s, pid_t tid,
    const uint64_t regs[ARCH_NREGS], uint64_t stack_addr, const void *stack,
    size_t size, struct bframe *out, size_t n, size_t max)
{
	(void)s; (void)tid; (void)stack_addr; (void)stack; (void)size;
	assert_true(max >= n + 3);
	jit_place(NULL, regs[ARCH_REG_PC], 0, &out[n++]);
	out[n++] = (struct bframe){ 3, 0x800 - 1 };
	out[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_STACK };
	return n;
}

/* the wall time and the kernel's time */
void
wall_cpu_sample(struct wall *w, pid_t pid, pid_t tid, uint64_t time,
    const struct bframe *frames, size_t n)
{
	(void)w; (void)pid; (void)tid;
	note("wall_cpu t=%llu n=%zu top=%d", (unsigned long long)time, n,
	    frames[0].obj);
}

void
kernel_time_sample(struct kernel_time *k, pid_t pid, pid_t tid,
    uint64_t time, uint64_t period, const struct bframe *frames, size_t n)
{
	(void)k; (void)pid; (void)tid; (void)frames;
	note("ktime_sample t=%llu p=%llu n=%zu", (unsigned long long)time,
	    (unsigned long long)period, n);
}

#define TIMED(name)							\
	void name(struct wall *w, pid_t pid, pid_t tid, uint64_t time)	\
	{ (void)w; (void)pid; (void)tid; note(#name " %llu",		\
	    (unsigned long long)time); }
#define KTIMED(name)							\
	void name(struct kernel_time *k, pid_t pid, pid_t tid,		\
	    uint64_t time)						\
	{ (void)k; (void)pid; (void)tid; note(#name " %llu",		\
	    (unsigned long long)time); }
TIMED(wall_thread_start)
TIMED(wall_thread_running)
TIMED(wall_thread_attach)
TIMED(wall_switch_in)
TIMED(wall_thread_exit)
KTIMED(kernel_time_start)
KTIMED(kernel_time_running)
KTIMED(kernel_time_attach)
KTIMED(kernel_time_switch_in)
KTIMED(kernel_time_switch_out)
KTIMED(kernel_time_exit)

void
wall_switch_out(struct wall *w, pid_t pid, pid_t tid, uint64_t time,
    int preempted)
{
	(void)w; (void)pid; (void)tid;
	note("wall_switch_out %llu preempted=%d", (unsigned long long)time,
	    preempted);
}

void
wall_add_blocked(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns, int exact)
{
	(void)w; (void)pid; (void)tid;
	note("blocked %llu exact=%d end=%llu", (unsigned long long)ns, exact,
	    (unsigned long long)end);
}

void
wall_add_unseen(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns)
{
	(void)end;
	(void)w; (void)pid; (void)tid;
	note("unseen %llu", (unsigned long long)ns);
}

void
wall_add_runnable(struct wall *w, pid_t pid, pid_t tid, uint64_t end,
    uint64_t ns)
{
	(void)end;
	(void)w; (void)pid; (void)tid;
	note("runnable %llu", (unsigned long long)ns);
}

void
wall_thread_counted(struct wall *w, pid_t pid, pid_t tid, uint64_t ns)
{
	(void)w; (void)pid; (void)tid;
	note("counted %llu", (unsigned long long)ns);
}

void
wall_thread_done(struct wall *w, pid_t pid, pid_t tid)
{
	(void)w; (void)pid; (void)tid;
	note("done");
}

/*
 * Stand-ins: a process's space with no JIT code (the sink reads its
 * jit, which the stubs take), and the others never looked inside,
 * aligned as any object is.
 */
static struct addr_space space_of;
static uint64_t opaque[3];
static struct addr_space *space = &space_of;
static struct unwind_space *uw = (struct unwind_space *)&opaque[0];
static struct wall *wall = (struct wall *)&opaque[1];
static struct kernel_time *ktime = (struct kernel_time *)&opaque[2];

static void
take(const struct sample_sink *k, const struct sample_place *at,
    const struct sample *s, const char *want)
{
	calls[0] = '\0';
	sample_take(k, at, s);
	if (strcmp(calls, want) != 0)
		fail_msg("gave:\n%s\nnot:\n%s", calls, want);
}

/* Flat samples: the pc placed once, each mode to its place. */
static void
test_flat(void **state)
{
	struct sample_sink k = { NULL, NULL, NULL };
	struct sample_place at = { space, NULL, 0 };
	struct sample s = { .pid = 7, .tid = 8, .weight = 2,
	    .mode = SAMPLE_USER, .pc = 0x1234 };

	(void)state;
	take(&k, &at, &s, "sample 3:234 w=2\n");
	s.pc = 0x5010;				/* named by its runtime */
	take(&k, &at, &s, "sample 9:10 w=2\n");
	s.pc = 0x3000;				/* nobody's: unknown now */
	take(&k, &at, &s, "unknown w=2\n");
	s.pc = 0x7000;				/* may be named later */
	take(&k, &at, &s, "defer w=2 flat=1\n");
	s.mode = SAMPLE_KERNEL;
	s.pc = 0xffffffff81000000ull;
	take(&k, &at, &s, "kernel ffffffff81000000 w=2\n");
	s.mode = SAMPLE_OTHER;			/* a guest's: never placed */
	s.pc = 0x1234;
	take(&k, &at, &s, "unknown w=2\n");
	/* the kernel's time where it is not sampled hears of each */
	k.ktime = ktime;
	s.mode = SAMPLE_USER;
	s.time = 50;
	s.period = 1000;
	take(&k, &at, &s, "ktime_sample t=50 p=1000 n=0\nsample 3:234 w=2\n");
	/* a process not read yet: unknown, not kept back */
	at.space = NULL;
	k.ktime = NULL;
	s.pc = 0x7000;
	take(&k, &at, &s, "unknown w=2\n");
}

/*
 * With stacks: the kernel's chain (its markers left out, callers one
 * byte back), then the user's frames; the accounts told after the
 * builder, the whole stack.
 */
static void
test_stacks(void **state)
{
	uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL, 0xffff0010,
	    0xffff0020, (uint64_t)PERF_CONTEXT_USER };
	uint64_t regs[ARCH_NREGS] = { 0 };
	struct sample_sink k = { NULL, wall, ktime };
	struct sample_place at = { space, uw, 0 };
	struct sample s = { .pid = 7, .tid = 8, .weight = 1, .time = 9,
	    .period = 1000, .mode = SAMPLE_KERNEL, .pc = 0xffff0010,
	    .stacks = 1, .chain = chain, .nchain = 4, .regs = regs,
	    .copy_size = 100, .copy_asked = 100, .ours = 1 };

	(void)state;
	regs[ARCH_REG_PC] = 0x1100;
	take(&k, &at, &s, "stack w=1 -2:ffff0010 -2:ffff001f 3:100 3:7ff "
	    "-3:2\nwall_cpu t=9 n=5 top=-2\nktime_sample t=9 p=1000 n=5\n");
	/* a copy the kernel cut short: the stack's end was not read */
	s.copy_size = 60;
	k = (struct sample_sink){ NULL, NULL, NULL };
	take(&k, &at, &s, "stack w=1 -2:ffff0010 -2:ffff001f 3:100 3:7ff "
	    "-3:7\n");
	/* the recorder behind: where the pc is, and a cut saying so */
	s.behind = 1;
	take(&k, &at, &s, "stack w=1 -2:ffff0010 -2:ffff001f 3:100 -3:6\n");
	/* no registers: a process of ours says its stack was not taken */
	s.behind = 0;
	s.regs = NULL;
	take(&k, &at, &s, "stack w=1 -2:ffff0010 -2:ffff001f -3:5\n");
	s.mode = SAMPLE_USER;
	s.pc = 0x1200;
	take(&k, &at, &s, "stack w=1 3:200 -3:5\n");
	/* a kernel thread (not ours) has no user part to miss */
	s.mode = SAMPLE_KERNEL;
	s.ours = 0;
	s.nchain = 0;
	s.pc = 0xffff0030;
	take(&k, &at, &s, "stack w=1 -2:ffff0030\n");
}

/*
 * The timer engine's capture: its weight less its kernel share under
 * the user stack, the share under a kernel frame on top of it; the
 * wall time hears of the stack with that frame.  A stack in code that
 * may yet be named waits, both parts.
 */
static void
test_kernel_share(void **state)
{
	uint64_t regs[ARCH_NREGS] = { 0 };
	struct sample_sink k = { NULL, wall, NULL };
	struct sample_place at = { space, uw, 0 };
	struct sample s = { .pid = 7, .tid = 8, .weight = 4, .kernel = 1,
	    .mode = SAMPLE_USER, .stacks = 1, .regs = regs, .ours = 1 };

	(void)state;
	regs[ARCH_REG_PC] = 0x1100;
	take(&k, &at, &s, "stack w=3 3:100 3:7ff -3:2\n"
	    "stack w=1 -2:0 3:100 3:7ff -3:2\n"
	    "wall_cpu t=0 n=4 top=-2\n");
	/* a share past the weight is the weight, all of it the kernel's */
	s.kernel = 9;
	take(&k, &at, &s, "stack w=4 -2:0 3:100 3:7ff -3:2\n"
	    "wall_cpu t=0 n=4 top=-2\n");
	s.kernel = 0;
	take(&k, &at, &s, "stack w=4 3:100 3:7ff -3:2\n"
	    "wall_cpu t=0 n=3 top=3\n");
	regs[ARCH_REG_PC] = 0x7100;
	s.kernel = 1;
	take(&k, &at, &s, "defer w=3 flat=0\ndefer w=1 flat=0\n"
	    "wall_cpu t=0 n=4 top=-2\n");
}

/* Frames placed already: the kernel's time counted from switches. */
static void
test_placed(void **state)
{
	struct bframe f[2] = { { BFRAME_KERNEL, PROFIL_KERNEL_UNSAMPLED },
		{ 3, 0x10 } };
	struct sample_sink k = { NULL, wall, ktime };
	struct sample_place at = { space, uw, 0 };
	struct sample s = { .pid = 7, .tid = 8, .weight = 5,
	    .mode = SAMPLE_KERNEL, .stacks = 1, .frames = f, .nframes = 2 };
	char want[128];

	(void)state;
	/* as they are, and no account hears of them again */
	snprintf(want, sizeof want, "stack w=5 -2:%x 3:10\n",
	    PROFIL_KERNEL_UNSAMPLED);
	take(&k, &at, &s, want);
	s.stacks = 0;
	snprintf(want, sizeof want, "kernel %x w=5\n", PROFIL_KERNEL_UNSAMPLED);
	take(&k, &at, &s, want);
}

/*
 * A thread's time off the CPU: each event to both accounts, in the
 * order each has always been told (the kernel's time first at a switch
 * and an exec, the wall's first at a start, an attach and an exit);
 * an account the engine does not keep hears nothing.
 */
static void
test_events(void **state)
{
	struct sample_sink k = { NULL, wall, ktime };
	struct sample s = { .pid = 7, .tid = 8, .time = 5 };

	(void)state;
	s.kind = SAMPLE_START;
	take(&k, NULL, &s, "wall_thread_start 5\nkernel_time_start 5\n");
	s.kind = SAMPLE_RUNNING;
	take(&k, NULL, &s, "kernel_time_running 5\nwall_thread_running 5\n");
	s.kind = SAMPLE_ATTACH;
	take(&k, NULL, &s, "wall_thread_attach 5\nkernel_time_attach 5\n");
	s.kind = SAMPLE_SWITCH_OUT;
	s.preempted = 1;
	take(&k, NULL, &s, "kernel_time_switch_out 5\n"
	    "wall_switch_out 5 preempted=1\n");
	s.kind = SAMPLE_SWITCH_IN;
	take(&k, NULL, &s, "kernel_time_switch_in 5\nwall_switch_in 5\n");
	s.kind = SAMPLE_EXIT;
	take(&k, NULL, &s, "wall_thread_exit 5\nkernel_time_exit 5\n");
	s.ns = 300;
	s.kind = SAMPLE_BLOCKED;
	s.exact = 1;
	take(&k, NULL, &s, "blocked 300 exact=1 end=5\n");
	s.kind = SAMPLE_UNSEEN;
	take(&k, NULL, &s, "unseen 300\n");
	s.kind = SAMPLE_RUNNABLE;
	take(&k, NULL, &s, "runnable 300\n");
	s.kind = SAMPLE_COUNTED;
	take(&k, NULL, &s, "counted 300\ndone\n");
	k = (struct sample_sink){ NULL, NULL, ktime };
	s.kind = SAMPLE_SWITCH_OUT;
	take(&k, NULL, &s, "kernel_time_switch_out 5\n");
	s.kind = SAMPLE_BLOCKED;
	take(&k, NULL, &s, "");
	k = (struct sample_sink){ NULL, wall, NULL };
	s.kind = SAMPLE_EXIT;
	take(&k, NULL, &s, "wall_thread_exit 5\n");
}

/*
 * A stack reaches the builder with its time (the timeline's), or, from
 * an engine that did not say when, the time it came (the records'
 * clock); an interval off the CPU with its end.
 */
static void
test_times(void **state)
{
	struct sample_sink k = { NULL, NULL, NULL };
	struct sample_place at = { space, NULL, 0 };
	struct bframe placed[] = { { 3, 0x10 }, { 3, 0x20 } };
	struct sample s = { .pid = 7, .tid = 8, .weight = 1, .time = 4242,
	    .mode = SAMPLE_USER, .stacks = 1, .frames = placed, .nframes = 2 };
	uint64_t before, after;

	(void)state;
	sample_take(&k, &at, &s);
	assert_int_equal(stack_time, 4242);
	s.time = 0;
	before = record_now_ns();
	sample_take(&k, &at, &s);
	after = record_now_ns();
	assert_true(stack_time >= before && stack_time <= after);
	k.wall = wall;
	s = (struct sample){ .kind = SAMPLE_BLOCKED, .pid = 7, .tid = 8,
	    .ns = 300 };
	before = record_now_ns();
	calls[0] = '\0';
	sample_take(&k, NULL, &s);
	after = record_now_ns();
	{
		unsigned long long end = 0;

		assert_int_equal(sscanf(calls, "blocked 300 exact=0 end=%llu",
		    &end), 1);
		assert_true(end >= before && end <= after);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_kernel_share),
		cmocka_unit_test(test_placed),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
