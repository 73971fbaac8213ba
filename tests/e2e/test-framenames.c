/*
 * test-framenames.c - frames named where the program has no symbol for
 * them, end to end: a stripped program's functions by their call-frame
 * entries (OBJECT+0xSTART, one name per function), PLT stubs by their GOT
 * slots ("labs@plt", called from main).
 */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

/*
 * A stripped program with no debug file: its functions are named by
 * their call-frame entries, OBJECT+0xSTART, one name per function, so a
 * name in its stacks inside an entry's range (as binutils' readelf lists
 * them) is that entry's start.  A name per row of the CFI table (from
 * one push or pop to the next) split a caller's time over several names
 * (xz's encoder loop: 40% of the samples under one, its 69% under ten).
 * Code no entry covers (crtstuff's, built without) is a guess, not held
 * to this.
 */
static void
test_stripped_functions_named_by_their_entry(void **state)
{
	const char *bin = tmp("wl-bare"), *prf = tmp("bare.prf");
	char *prog[] = { (char *)bin, "paths", "0.167", NULL };
	char cmd[3 * PATH_MAX], line[512];
	uint64_t starts[4096], ends[4096];
	size_t nstarts = 0;
	int names = 0, callers = 0;
	struct run r;
	FILE *f;

	(void)state;
	snprintf(cmd, sizeof cmd, "cp %s %s && strip --strip-all %s",
	    workload, bin, bin);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "readelf --debug-dump=frames %s", bin);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL && nstarts < 4096) {
		const char *pc = strstr(line, " FDE ");

		if (pc != NULL && (pc = strstr(pc, "pc=")) != NULL &&
		    strstr(pc, "..") != NULL) {
			starts[nstarts] = strtoull(pc + 3, NULL, 16);
			ends[nstarts++] = strtoull(strstr(pc, "..") + 2, NULL, 16);
		}
	}
	assert_int_equal(pclose(f), 0);
	assert_true(nstarts > 10);
	record_ok(prf, prog);
	e2e_folded(prf, &r);
	for (const char *at = r.out; (at = strstr(at, "wl-bare+0x")) != NULL;
	    at++) {
		uint64_t start = strtoull(at + 10, NULL, 16);
		size_t i;

		for (i = 0; i < nstarts && !(starts[i] <= start &&
		    start < ends[i]); i++)
			;
		if (i == nstarts)
			continue;
		if (start != starts[i])
			fail_msg("%.40s: inside the call-frame entry %#llx..%#llx",
			    at, (unsigned long long)starts[i],
			    (unsigned long long)ends[i]);
		names++;
		/* a caller: another frame follows it on the line */
		callers += strchr(at, ';') != NULL &&
		    strchr(at, ';') < strchr(at, '\n');
	}
	/* enough to tell (a sanitized run: 12 names, 9 of them callers) */
	if (names < 5 || callers < 3)
		fail_msg("%d names of the stripped program, %d as callers:\n%s",
		    names, callers, r.out);
}

/*
 * PLT stubs have no symbol: a program calling labs() in a loop spends a
 * share in "labs@plt", named from the stub's GOT slot and .rela.plt, and
 * called from main.  The stub's share depends on where the machine's
 * interrupts land in a six-instruction loop: 0.4% to 11% of the samples
 * in runs here (13 of 3023 at the least), once 0.06%.  The program loops
 * for the CPU seconds it is given, reading its clock through a pointer
 * (no other stub in it), and is run until 5 stub samples are seen.
 */
static void
test_plt_stubs_named(void **state)
{
	const char *src = tmp("plt.c"), *bin = tmp("plt"), *prf = tmp("plt.prf");
	char *callers[] = { profil_bin, "report", "--callers", "labs@plt",
	    "--format", "csv", (char *)prf, NULL };
	char ms[32];
	char *rec[] = { profil_bin, "record", "-q", "-F", "5000", "-o",
	    (char *)prf, (char *)bin, ms, NULL };
	char cmd[3 * PATH_MAX];
	struct shares s, c;
	double stub = 0, all = 0, here, cpu;
	struct run r;
	FILE *f;

	(void)state;
	f = fopen(src, "w");
	assert_non_null(f);
	fputs("#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
	    "static int (*volatile cpu_clock)(clockid_t, struct timespec *) =\n"
	    "    clock_gettime;\nint main(int argc, char **argv)\n{\n"
	    "\tstruct timespec ts;\n\tlong s = 0, i = 0, ms = 0;\n"
	    "\tfor (const char *d = argv[1]; *d; d++)\n"
	    "\t\tms = ms * 10 + *d - '0';\n\tdo {\n"
	    "\t\tfor (long n = i + 10000000; i < n; i++)\n"
	    "\t\t\ts += labs(i - 5);\n"
	    "\t\tcpu_clock(CLOCK_PROCESS_CPUTIME_ID, &ts);\n"
	    "\t} while (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 < ms);\n"
	    "\tprintf(\"%ld\\n\", s);\n\treturn 0;\n}\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof cmd, "cc -O2 -fno-builtin -fPIE -pie -o %s %s", bin,
	    src);
	assert_int_equal(system(cmd), 0);
	/*
	 * 5 kHz even when sanitized.  Stubs must be named whenever they are
	 * sampled, not sampled often: the first run is sized for 5 at 0.4%,
	 * the next for what is missing at the share seen so far (4 times as
	 * long when none was), 5 runs at most.  The program takes whole
	 * milliseconds, read without a call (no stub of strtod's either).
	 */
	cpu = 1.15 * (5 / 0.004) / 5000;
	for (int tries = 0; tries < 5 && stub < 5; tries++) {
		snprintf(ms, sizeof ms, "%.0f", 1000 * cpu);
		run(&r, rec);
		assert_int_equal(r.status, 0);
		report(&s, prf);
		here = samples_of(&s, "labs@plt", "plt");
		stub += here;
		all += s.total;
		cpu *= stub > 0 ? fmin(4, fmax(1, 1.15 * (5 - stub) * all /
		    stub / 5000 / cpu)) : 4;
		/*
		 * every sample of the program named: the stub's are not left
		 * as an address ("plt+0x1030") or unnamed code, whatever else
		 * a sample happens on (start-up and exit code is rare, but
		 * named: CI once saw a row beside main and the stub)
		 */
		for (const char *row = strchr(s.csv, '\n') + 1; *row;
		    row = strchr(row, '\n') + 1) {
			char fn[512], obj[512];

			if (sscanf(row, "%511[^,],%511[^,],", fn, obj) == 2 &&
			    strcmp(obj, "plt") == 0 && (fn[0] == '[' ||
			    strstr(fn, "+0x") != NULL))
				fail_msg("an unnamed sample of the program: %s\n%s",
				    fn, s.csv);
		}
		if (here == 0)
			continue;
		report_run(&c, callers);
		/* every caller unwound is main (a loaded recorder leaves some) */
		assert_true(samples_of(&c, "main", "plt") == c.total -
		    samples_of(&c, "[stack cut: recorder behind]", NULL));
	}
	if (stub < 5)
		fail_msg("%.0f labs@plt samples of %.0f in 5 runs, 5 needed; the "
		    "last:\n%s", stub, all, s.csv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stripped_functions_named_by_their_entry),
		cmocka_unit_test(test_plt_stubs_named),
	};

	/* sanitized, the recorder unwinds 1 kHz of stacks, not 5 (TSan's:
	   50 of 3,062 samples unwound at 5 kHz, all 996 at 1 kHz) */
	e2e_rate_when_sanitized = "1000";
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
