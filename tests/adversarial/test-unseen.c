/*
 * test-unseen.c - processes the timer engine cannot see (started without
 * its library, statically linked, without the descriptor of its shared
 * memory): `profil record -e timer` names each, with why, in one line,
 * and its CPU time as the kernel counted it (the profile's, from the
 * program's rusage); it gives no hint that cannot help ("raise -F"), and
 * says nothing of the kind where every process was seen.  As root and as
 * nobody.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"
#include <profil.h>

#define CPU_S		0.4	/* what the unseen program burns */

enum { AS_ROOT, AS_NOBODY };

/*
 * Record "sh -c SCRIPT" (with argv0, workload and workload-static in
 * $W and $S) with the timer engine as root or as nobody, the run in r,
 * the profile's CPU time in *cpu.  0, or -1 if nobody cannot run here.
 */
static int
record_sh(struct run *r, const char *script, int who, double *cpu)
{
	char dir[] = "/tmp/profil-unseen-XXXXXX", prf[64], line[3 * PATH_MAX];
	char *argv[20], cause[256];
	struct profil_profile *p;
	size_t k = 0;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(prf, sizeof prf, "%s/u.prf", dir);
	snprintf(line, sizeof line, "W=%s; S=%s; %s", workload, workload_static,
	    script);
	if (who == AS_NOBODY && (k = e2e_as_nobody(argv)) == 0)
		return -1;
	argv[k++] = profil_bin;
	argv[k++] = "record";
	argv[k++] = "-e";
	argv[k++] = "timer";
	argv[k++] = "-o";
	argv[k++] = prf;
	argv[k++] = "/bin/sh";
	argv[k++] = "-c";
	argv[k++] = line;
	argv[k] = NULL;
	run(r, argv);
	if (who == AS_NOBODY && strstr(r->err, "setpriv:") != NULL)
		return -1;
	print_message("%s: status %d\n%s", script, r->status, r->err);
	if (r->status != 0)
		fail_msg("%s: status %d: %s", script, r->status, r->err);
	if ((p = profil_profile_read(prf, cause, sizeof cause)) == NULL)
		fail_msg("%s: %s", prf, cause);
	*cpu = (double)p->cpu_ns / 1e9;
	profil_profile_free(p);
	unlink(prf);
	rmdir(dir);
	return 0;
}

/*
 * The run's line for a process named comm: its CPU seconds, which must
 * be within a clock tick or two (and 5%) of want, and its reason, which
 * must hold why.
 */
static void
expect_line(const struct run *r, const char *comm, const char *why,
    double want)
{
	char head[64];
	const char *at, *end;
	double s;
	int pid;

	snprintf(head, sizeof head, "(%s) ran ", comm);
	if ((at = strstr(r->err, head)) == NULL)
		fail_msg("no line for %s: %s", comm, r->err);
	while (at > r->err && at[-1] != '\n')
		at--;
	end = strchr(at, '\n');
	if (sscanf(at, "profil: record: warning: pid %d (", &pid) != 1 ||
	    sscanf(strstr(at, head) + strlen(head), "%lf s of CPU unsampled",
	    &s) != 1)
		fail_msg("a line not as said: %.*s", (int)(end - at), at);
	if (strstr(at, why) == NULL || strstr(at, why) > end)
		fail_msg("%s: not '%s': %.*s", comm, why, (int)(end - at), at);
	if (s < want - 0.02 - 0.05 * want || s > want + 0.02 + 0.05 * want)
		fail_msg("%s: %.3f s unsampled, it ran %.3f s: %.*s", comm, s,
		    want, (int)(end - at), at);
}

/* No hint whose remedy cannot reach what ran unseen. */
static void
expect_no_vain_hint(const struct run *r)
{
	if (strstr(r->err, "raise -F") != NULL ||
	    strstr(r->err, "shorter than a sampling period") != NULL)
		fail_msg("a hint that cannot help: %s", r->err);
}

/* The case: the program itself, its LD_PRELOAD removed. */
static void
test_preload_removed(void **state)
{
	static struct run r;
	char script[256];
	double cpu;

	(void)state;
	snprintf(script, sizeof script, "exec env -u LD_PRELOAD $W split %.1f",
	    CPU_S);
	for (int who = AS_ROOT; who <= AS_NOBODY; who++) {
		if (record_sh(&r, script, who, &cpu) < 0) {
			print_message("[ LIMIT    ] cannot run as nobody here\n");
			continue;
		}
		if (cpu < CPU_S)
			fail_msg("the program ran %.3f s, less than it burns", cpu);
		expect_line(&r, "workload", "it was started without profil's "
		    "library (LD_PRELOAD removed)", cpu);
		expect_no_vain_hint(&r);
	}
}

/* A child of the shell: statically linked; another without the fd. */
static void
test_static_and_no_descriptor(void **state)
{
	static struct run r;
	char script[256];
	double cpu;

	(void)state;
	snprintf(script, sizeof script, "$S split %.1f; env -u "
	    "PROFIL_AGENT_FD $W split %.1f; true", CPU_S, CPU_S);
	if (record_sh(&r, script, AS_ROOT, &cpu) < 0)
		fail_msg("cannot record");
	/* each burns CPU_S of its thread's clock, and a little to start */
	expect_line(&r, "workload-static", "it is statically linked", CPU_S +
	    0.01);
	expect_line(&r, "workload", "(PROFIL_AGENT_FD removed)", CPU_S +
	    0.01);
	expect_no_vain_hint(&r);
}

/* Everything seen: no such line. */
static void
test_all_seen_says_nothing(void **state)
{
	static struct run r;
	double cpu;

	(void)state;
	for (int who = AS_ROOT; who <= AS_NOBODY; who++) {
		if (record_sh(&r, "$W split 0.2; $W split 0.1; true", who,
		    &cpu) < 0)
			continue;
		if (strstr(r.err, "unsampled") != NULL)
			fail_msg("a process said unsampled: %s", r.err);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preload_removed),
		cmocka_unit_test(test_static_and_no_descriptor),
		cmocka_unit_test(test_all_seen_says_nothing),
	};

	if (getenv("PROFIL_TEST") != NULL)
		cmocka_set_test_filter(getenv("PROFIL_TEST"));
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
