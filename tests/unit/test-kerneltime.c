/*
 * test-kerneltime.c - the kernel time counted where only user mode may be
 * sampled (cli/record/wall/kernel-time.c), alone: threads' switches and
 * delivered samples made up, and the counted samples that come out
 * checked against what the made-up clocks say: every period of a
 * thread's time on the CPU is one fire, delivered or counted, and
 * counted ones go under the frames the samples around them share.
 */
#include "../../cli/record/wall/kernel-time.c"
#include "../../cli/hmap.c"
#include "../../cli/util.c"

#include "harness.h"

#define P 1000000ull		/* the period: 1 ms */

struct placed {
	size_t n;
	struct bframe frames[8];
	uint64_t count, unit;
	pid_t tid;
};

static struct placed got[64];
static size_t ngot;

static void
sink(void *arg, const struct bframe *frames, size_t n, uint64_t count,
    uint64_t unit, pid_t pid, pid_t tid)
{
	struct placed *p = &got[ngot++];

	(void)arg;
	(void)pid;
	assert_true(ngot <= 64);
	assert_true(n <= 8);
	assert_int_equal(frames[0].obj, BFRAME_KERNEL);
	assert_int_equal(frames[0].value, PROFIL_KERNEL_UNSAMPLED);
	p->n = n - 1;
	memcpy(p->frames, frames + 1, (n - 1) * sizeof *frames);
	p->count = count;
	p->unit = unit;
	p->tid = tid;
}

static uint64_t
counted(pid_t tid)
{
	uint64_t n = 0;

	for (size_t i = 0; i < ngot; i++)
		if (got[i].tid == tid)
			n += got[i].count;
	return n;
}

static int
reset(void **state)
{
	(void)state;
	ngot = 0;
	return 0;
}

/* frames a, b, c (leaf first), objects 0 */
static const struct bframe A1 = { 0, 0x100 }, A3 = { 0, 0x103 };
static const struct bframe B5 = { 0, 0x205 }, B7 = { 0, 0x207 };
static const struct bframe C9 = { 0, 0x309 }, D2 = { 0, 0x402 };

/*
 * A thread on the CPU from 0 with fires every period: delivered at 1 and
 * 6, the rest in the kernel, to its exit at 10.5.  Fires 2-5 go half
 * and half to the two samples; 7-10 after the last one, with no stack
 * (where the code went after it is not known); the half period left is
 * carried, not counted.
 */
static void
test_the_fires_not_delivered_are_counted(void **state)
{
	struct kernel_time *k = kernel_time_new(P, sink, NULL);
	struct bframe s1[] = { A1, B5, C9 }, s6[] = { D2, B7, C9 };

	(void)state;
	kernel_time_start(k, 1, 1, 0);
	kernel_time_switch_in(k, 1, 1, 0);
	kernel_time_sample(k, 1, 1, 1 * P, P, s1, 3);
	assert_int_equal(counted(1), 0);
	kernel_time_sample(k, 1, 1, 6 * P, P, s6, 3);
	assert_int_equal(counted(1), 4);
	kernel_time_exit(k, 1, 1, 10 * P + P / 2);
	assert_int_equal(counted(1), 8);
	assert_int_equal(kernel_time_counted(k), 8);
	/* two with the first sample, at B5 C9: the stacks part at B */
	assert_int_equal(got[0].count, 2);
	assert_int_equal(got[0].n, 2);
	assert_int_equal(got[0].frames[0].value, B5.value);
	assert_int_equal(got[1].count, 2);
	assert_int_equal(got[1].frames[0].value, B7.value);
	/* after the last: no stack */
	assert_int_equal(got[2].n, 1);
	assert_int_equal(got[2].frames[0].obj, BFRAME_CUT);
	kernel_time_free(k);
}

/*
 * Time off the CPU has no fires: on for 3 periods, off for 7, on again
 * for 1.5 before its next sample: 4.5 periods, 1 delivered, 3 counted,
 * half a period carried; and that half counts at the end with the next.
 */
static void
test_time_off_the_cpu_has_no_fires(void **state)
{
	struct kernel_time *k = kernel_time_new(P, sink, NULL);
	struct bframe s[] = { A1, C9 };

	(void)state;
	kernel_time_start(k, 1, 2, 0);
	kernel_time_switch_in(k, 1, 2, 0);
	kernel_time_switch_out(k, 1, 2, 3 * P);
	kernel_time_switch_in(k, 1, 2, 10 * P);
	kernel_time_sample(k, 1, 2, 11 * P + P / 2, P, s, 2);
	assert_int_equal(counted(2), 3);
	kernel_time_exit(k, 1, 2, 12 * P);	/* 0.5 + 0.5 carried */
	assert_int_equal(counted(2), 4);
	kernel_time_free(k);
}

/*
 * Two samples of one function, called from one place: the code between
 * them may have returned and called anything, so their kernel time goes
 * under the caller, never under the leaf.  Two samples at one pc: the
 * same.
 */
static void
test_leaves_that_part_give_their_caller(void **state)
{
	struct kernel_time *k = kernel_time_new(P, sink, NULL);
	struct bframe s1[] = { A1, B5, C9 }, s2[] = { A3, B5, C9 };

	(void)state;
	kernel_time_running(k, 1, 3, 0);
	kernel_time_sample(k, 1, 3, 1 * P, P, s1, 3);
	kernel_time_sample(k, 1, 3, 4 * P, P, s2, 3);
	kernel_time_sample(k, 1, 3, 7 * P, P, s2, 3);
	assert_int_equal(counted(3), 4);
	for (size_t i = 0; i < ngot; i++) {
		assert_int_equal(got[i].n, 2);
		assert_int_equal(got[i].frames[0].value, B5.value);
		assert_int_equal(got[i].frames[1].value, C9.value);
	}
	kernel_time_free(k);
}

/*
 * A switch drained late (older than one applied) is not applied: a
 * switch out at 5 applied after the switch in at 8 would count 5-8 on
 * the CPU.  A thread attached to while blocked (its first switch a
 * switch in) ran nothing before it; one attached while running (first
 * a switch out) ran from the attach.
 */
static void
test_late_switches_and_attached_threads(void **state)
{
	struct kernel_time *k = kernel_time_new(P, sink, NULL);
	struct bframe s[] = { A1, C9 };

	(void)state;
	kernel_time_start(k, 1, 4, 0);
	kernel_time_switch_in(k, 1, 4, 0);
	kernel_time_switch_in(k, 1, 4, 8 * P);	/* already on: nothing */
	kernel_time_switch_out(k, 1, 4, 5 * P);	/* out of order: not taken */
	kernel_time_sample(k, 1, 4, 9 * P, P, s, 2);
	assert_int_equal(counted(4), 8);

	kernel_time_attach(k, 2, 5, 100 * P);
	kernel_time_switch_in(k, 2, 5, 150 * P);	/* blocked until now */
	kernel_time_sample(k, 2, 5, 151 * P, P, s, 2);
	assert_int_equal(counted(5), 0);

	kernel_time_attach(k, 2, 6, 100 * P);
	kernel_time_switch_out(k, 2, 6, 104 * P);	/* ran from the attach */
	kernel_time_switch_in(k, 2, 6, 200 * P);
	kernel_time_sample(k, 2, 6, 201 * P, P, s, 2);
	assert_int_equal(counted(6), 4);
	kernel_time_free(k);
}

/*
 * A budget's longer period: each counted fire stands for its units of
 * the base period; and a tid used again after its thread's end is a
 * thread of its own, its clock from 0.
 */
static void
test_budget_units_and_tids_used_again(void **state)
{
	struct kernel_time *k = kernel_time_new(P, sink, NULL);
	struct bframe s[] = { A1, C9 };

	(void)state;
	kernel_time_start(k, 1, 7, 0);
	kernel_time_switch_in(k, 1, 7, 0);
	kernel_time_sample(k, 1, 7, 4 * P, 4 * P, s, 2);
	kernel_time_sample(k, 1, 7, 16 * P, 4 * P, s, 2);
	assert_int_equal(counted(7), 2);	/* fires at 8 and 12 */
	assert_int_equal(got[ngot - 1].unit, 4);
	kernel_time_exit(k, 1, 7, 16 * P);
	ngot = 0;
	kernel_time_start(k, 3, 7, 20 * P);
	kernel_time_switch_in(k, 3, 7, 20 * P);
	kernel_time_sample(k, 3, 7, 21 * P, P, s, 2);
	assert_int_equal(counted(7), 0);
	kernel_time_free(k);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_the_fires_not_delivered_are_counted,
		    reset),
		cmocka_unit_test_setup(test_time_off_the_cpu_has_no_fires, reset),
		cmocka_unit_test_setup(test_leaves_that_part_give_their_caller,
		    reset),
		cmocka_unit_test_setup(test_late_switches_and_attached_threads,
		    reset),
		cmocka_unit_test_setup(test_budget_units_and_tids_used_again,
		    reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
