/*
 * test-hostile.c - a program that writes over the memory the timer
 * engine shares with it (tests/programs/adversary-region.c: random bytes, all
 * ones, every size, offset, index and counter bumped, the memfd
 * truncated), recorded with `profil record -e timer` as root and as
 * nobody: the recorder must survive, exit with the program's status,
 * write a profile `profil check` accepts, count what it refused (and
 * check say so), invent no CPU time (the kernel's count of the
 * processes' CPU time is the truth) and stay small.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"
#include <profil.h>

#define STATUS		7	/* adversary-region's */
#define MAX_RSS_KB	(256 * 1024)	/* the recorder's, and the program's */

static char adversary[PATH_MAX];

enum { AS_ROOT, AS_NOBODY };
enum { MAY_REFUSE, MUST_REFUSE };

/*
 * Record adversary-region MODE [ARG] with extra options (NULL-ended, at
 * most 4), as root or as nobody, and judge it.
 */
static void
attack(const char *mode, const char *arg, int who, int refuse,
    const char *const *extra)
{
	static struct run r;	/* too big for the stack */
	char dir[] = "/tmp/profil-hostile-XXXXXX", prf[64], want[64];
	char *argv[24], *check[] = { profil_bin, "check", prf, NULL };
	char cause[256];
	struct profil_profile *p;
	struct rusage ru;
	size_t k = 0, processes = 0;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(prf, sizeof prf, "%s/a.prf", dir);
	if (who == AS_NOBODY && (k = e2e_as_nobody(argv)) == 0)
		SKIP("not root: cannot run the recorder as nobody");
	argv[k++] = profil_bin;
	argv[k++] = "record";
	argv[k++] = "-e";
	argv[k++] = "timer";
	argv[k++] = "-o";
	argv[k++] = prf;
	for (size_t i = 0; extra != NULL && extra[i] != NULL; i++)
		argv[k++] = (char *)extra[i];
	argv[k++] = adversary;
	argv[k++] = (char *)mode;
	if (arg != NULL)
		argv[k++] = (char *)arg;
	argv[k] = NULL;
	run(&r, argv);
	if (who == AS_NOBODY && strstr(r.err, "setpriv:") != NULL)
		SKIP("cannot run the recorder as nobody here");
	print_message("%s%s, %s: status %d\n%s", mode, extra && extra[0] ?
	    " (with options)" : "", who == AS_ROOT ? "root" : "nobody",
	    r.status, r.err);
	if (r.status != STATUS)
		fail_msg("%s: the recorder exited %d, the program %d: %s", mode,
		    r.status, STATUS, r.err);
	snprintf(want, sizeof want, "region: %s\n", mode);
	if (strstr(r.out, want) == NULL)
		fail_msg("%s: the program did not find the region: %s", mode,
		    r.out);
	if (strstr(r.out, "child failed") != NULL)
		fail_msg("%s: the program's child failed: %s", mode, r.out);
	if (strstr(r.err, "died of signal") != NULL)
		fail_msg("%s: the program was killed: %s", mode, r.err);
	/* samples went missing because the program wrote over them */
	if (strstr(r.err, "could not be true") != NULL &&
	    (strstr(r.err, "raise") != NULL ||
	    strstr(r.err, "shorter than a sampling period") != NULL))
		fail_msg("%s: a remedy that cannot help: %s", mode, r.err);
	getrusage(RUSAGE_CHILDREN, &ru);
	if (ru.ru_maxrss > MAX_RSS_KB)
		fail_msg("%s: %ld KiB resident at most, more than %d", mode,
		    ru.ru_maxrss, MAX_RSS_KB);

	run(&r, check);
	if (r.status != 0)
		fail_msg("%s: profil check: %s", mode, r.err);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	if (refuse == MUST_REFUSE && p->refused == 0)
		fail_msg("%s: nothing refused, written over all the same: %s",
		    mode, r.out);
	if (p->refused > 0) {
		char line[96];

		snprintf(line, sizeof line, "%llu records refused",
		    (unsigned long long)p->refused);
		if (strstr(r.out, line) == NULL)
			fail_msg("%s: check does not say '%s': %s", mode, line,
			    r.out);
	}
	/*
	 * Samples stand for CPU time the processes had (the kernel's count,
	 * from their rusage): each at most a period of it, give or take the
	 * ticks a timer's count rounds up.
	 */
	if ((double)p->samples * (double)p->interval_ns >
	    2.0 * (double)p->cpu_ns + 1024.0 * (double)p->interval_ns)
		fail_msg("%s: %llu samples of %llu ns, for %.3f s of CPU", mode,
		    (unsigned long long)p->samples,
		    (unsigned long long)p->interval_ns, (double)p->cpu_ns / 1e9);
	for (size_t i = 0; i < p->nprocesses; i++)
		processes += p->processes[i].samples > 0;
	/* the program could not seal the region against its children */
	if (strcmp(mode, "truncate") == 0 && processes < 2)
		fail_msg("%s: %zu processes with samples, want the child's too",
		    mode, processes);
	profil_profile_free(p);
	unlink(prf);
	rmdir(dir);
}

static void
test_random_bytes(void **state)
{
	(void)state;
	attack("random", "1", AS_ROOT, MUST_REFUSE, NULL);
	attack("random", "2", AS_NOBODY, MUST_REFUSE, NULL);
}

static void
test_all_ones(void **state)
{
	(void)state;
	attack("ones", NULL, AS_ROOT, MUST_REFUSE, NULL);
	attack("ones", NULL, AS_NOBODY, MUST_REFUSE, NULL);
}

static void
test_fields_bumped(void **state)
{
	(void)state;
	attack("bump", NULL, AS_ROOT, MUST_REFUSE, NULL);
	attack("bump", NULL, AS_NOBODY, MUST_REFUSE, NULL);
}

static void
test_truncated(void **state)
{
	(void)state;
	attack("truncate", NULL, AS_ROOT, MAY_REFUSE, NULL);
	attack("truncate", NULL, AS_NOBODY, MAY_REFUSE, NULL);
}

/* The region under the options that read more of it. */
static void
test_with_wall_and_budget(void **state)
{
	static const char *const wall[] = { "--wall", NULL };
	static const char *const budget[] = { "--samples", "1000", NULL };
	static const char *const flat[] = { "--no-call-graph", NULL };

	(void)state;
	attack("bump", NULL, AS_ROOT, MUST_REFUSE, wall);
	attack("random", "3", AS_ROOT, MUST_REFUSE, budget);
	attack("bump", NULL, AS_NOBODY, MUST_REFUSE, flat);
}

static int
setup(void **state)
{
	if (e2e_setup(state) != 0)
		return -1;
	snprintf(adversary, sizeof adversary, "%s/adversary-region", bindir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_all_ones),
		cmocka_unit_test(test_fields_bumped),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_with_wall_and_budget),
	};

	if (getenv("PROFIL_TEST") != NULL)
		cmocka_set_test_filter(getenv("PROFIL_TEST"));
	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
