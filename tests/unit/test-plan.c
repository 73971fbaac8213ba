/*
 * test-plan.c - plans (sorting, overlap refusal, lookup) and the fault-safe
 * counter updates they rely on (saturation, unwritable memory).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "harness.h"
#include "arch.h"
#include "plan/fault.h"
#include "plan/plan.h"

static struct plan_range
range(uintptr_t lo, uintptr_t last)
{
	struct plan_range r = { 0 };

	r.lowpc = lo;
	r.lastpc = last;
	r.offset = lo;
	r.scale = 0x10000;
	r.granule_shift = 1;
	r.counter_bytes = 2;
	return r;
}

static void
test_seal_sorts_and_finds(void **state)
{
	struct plan *p = plan_new(3);
	struct plan_range a = range(0x3000, 0x3fff), b = range(0x1000, 0x1fff),
	    c = range(0x2000, 0x2fff);

	(void)state;
	plan_add(p, &a);
	plan_add(p, &b);
	plan_add(p, &c);
	assert_int_equal(plan_seal(p), 0);
	assert_true(plan_find(p, 0x0fff) == NULL);
	assert_true(plan_find(p, 0x1000)->lowpc == 0x1000);
	assert_true(plan_find(p, 0x2fff)->lowpc == 0x2000);
	assert_true(plan_find(p, 0x3000)->lowpc == 0x3000);
	assert_true(plan_find(p, 0x4000) == NULL);
	plan_free(p);
}

static void
test_seal_refuses_overlap(void **state)
{
	struct plan *p = plan_new(2);
	struct plan_range a = range(0x1000, 0x1fff), b = range(0x1fff, 0x2fff);

	(void)state;
	plan_add(p, &a);
	plan_add(p, &b);
	errno = 0;
	assert_int_equal(plan_seal(p), -1);
	assert_int_equal(errno, EINVAL);
	plan_free(p);
}

static void
test_add_u16_saturates_and_counts_loss(void **state)
{
	uint16_t c = 65530;
	uint32_t w = 0xfffffff0u;

	(void)state;
	assert_int_equal(fault_install(), 0);
	assert_int_equal(profil_arch_add_u16(&c, 3), 0);
	assert_int_equal(c, 65533);
	assert_int_equal(profil_arch_add_u16(&c, 7), 5);	/* 2 fit, 5 lost */
	assert_int_equal(c, 65535);
	assert_int_equal(profil_arch_add_u16(&c, 1), 1);
	assert_int_equal(c, 65535);
	assert_int_equal(profil_arch_add_u32(&w, 0x10), 1);
	assert_true(w == 0xffffffffu);
}

static void
test_add_on_unwritable_memory_returns_minus_one(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uint16_t *ro = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(ro != MAP_FAILED);
	ro[0] = 7;
	assert_int_equal(fault_install(), 0);
	assert_int_equal(mprotect(ro, (size_t)page, PROT_READ), 0);
	assert_int_equal(profil_arch_add_u16(ro, 1), -1);
	assert_int_equal(ro[0], 7);
	assert_int_equal(fault_probe(ro, 2, 1), -1);
	assert_int_equal(fault_probe(ro, 2, 0), 0);
	assert_int_equal(munmap(ro, (size_t)page), 0);
	assert_int_equal(profil_arch_add_u32((uint32_t *)ro, 1), -1);
	assert_int_equal(fault_probe(ro, 2, 0), -1);
	assert_int_equal(fault_probe(NULL, 1, 1), -1);
}

static void
test_probe_covers_every_page(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(p != MAP_FAILED);
	assert_int_equal(fault_install(), 0);
	assert_int_equal(fault_probe(p, 3 * (size_t)page, 1), 0);
	/* a hole in the middle page is found */
	assert_int_equal(mprotect(p + page, (size_t)page, PROT_NONE), 0);
	assert_int_equal(fault_probe(p, 3 * (size_t)page, 1), -1);
	assert_int_equal(fault_probe(p, (size_t)page, 1), 0);
	assert_int_equal(fault_probe(p + 2 * page, (size_t)page, 1), 0);
	munmap(p, 3 * (size_t)page);
}

/* A fault that is not ours still reaches the program's own handler. */
static void
segv_body(void)
{
	volatile uintptr_t where = 16;
	volatile int *bad = (volatile int *)where;

	/* as in a program of its own: no cmocka crash handler in front */
	signal(SIGSEGV, SIG_DFL);
	CHECK(fault_install() == 0, "install");
	*bad = 1;	/* default action: the child dies of SIGSEGV */
	CHECK(0, "survived a real segfault");
}

static void
test_foreign_fault_keeps_default_action(void **state)
{
	(void)state;
	/* harness reports a signal death as a failure; expect exactly that */
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		segv_body();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSEGV);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seal_sorts_and_finds),
		cmocka_unit_test(test_seal_refuses_overlap),
		cmocka_unit_test(test_add_u16_saturates_and_counts_loss),
		cmocka_unit_test(test_add_on_unwritable_memory_returns_minus_one),
		cmocka_unit_test(test_probe_covers_every_page),
		cmocka_unit_test(test_foreign_fault_keeps_default_action),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
