/*
 * test-exportwall.c - `profil export` of wall profiles (record --wall),
 * end to end: the folded stacks and pprof's three sample types (pprof
 * read back by the independent decoder, export-checks.h) hold the time
 * off the CPU as the profile does; gmon, which has no place for it, says
 * so; a real recording's sleep comes out as the program measured it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"
#include <profil.h>

#include "export-checks.h"

/* ---- wall profiles (record --wall) ---------------------------------------- */

#define WALL_MS 1000000ull	/* the interval of the wall profile made here */

static void *
must(void *ptr)
{
	assert_non_null(ptr);
	return ptr;
}

/*
 * A wall profile made here, saved to path: program app (not on disk: its
 * names kept) with main, do_read and compute; 7 samples in main;compute
 * on the CPU, and off it: main;do_read;[off-cpu: read] 250000300 ns in
 * thread 1 and 300 in thread 2 (250000.6 us together: 250001 once
 * summed, 250000 if each were rounded alone), main;[off-cpu:
 * clock_nanosleep] 1499 ns (1 us) and main;do_read;[off-cpu:
 * clock_nanosleep] 499 ns (0 us: no line).  With cpu_only, the same
 * profile without the off-CPU stacks and as a CPU profile.
 */
static void
save_wall_profile(const char *path, int cpu_only)
{
	/* frames: 0 main (call), 1 do_read (call), 2 compute, 3 read, 4 sleep */
	static const struct profil_frame frames[] = { { 0, 0x1010 },
	    { 0, 0x1110 }, { 0, 0x1210 }, { PROFIL_FRAME_OFFCPU, 0 },
	    { PROFIL_FRAME_OFFCPU, 230 } };
	static const struct { uint32_t tid; uint64_t count, off_ns;
	    size_t depth; uint32_t frames[3]; } stacks[] = {
		{ 1, 7, 0, 2, { 2, 0 } },
		{ 1, 0, 250000300, 3, { 3, 1, 0 } },
		{ 2, 0, 300, 3, { 3, 1, 0 } },
		{ 1, 0, 1499, 2, { 4, 0 } },
		{ 1, 0, 499, 3, { 4, 1, 0 } },
	};
	static const char *const names[] = { "main", "do_read", "compute" };
	struct profil_profile *p = must(calloc(1, sizeof *p));
	struct profil_object *o;
	char cause[256];

	p->interval_ns = WALL_MS;
	p->bucket_bytes = 1;
	p->engine = must(strdup("perf"));
	p->argc = 1;
	p->argv = must(calloc(2, sizeof *p->argv));
	p->argv[0] = must(strdup("app"));
	p->duration_ns = 300 * WALL_MS;
	p->cpu_ns = 7 * WALL_MS;
	p->samples = 7;
	p->nobjects = 1;
	p->objects = o = must(calloc(1, sizeof *o));
	o->path = must(strdup("/nonexistent/wall/app"));
	o->lowpc = 0x1000;
	o->highpc = 0x1300;
	o->bucket_bytes = 1;
	o->samples = 7;
	o->nbuckets = 1;
	o->buckets = must(calloc(1, sizeof *o->buckets));
	o->buckets[0] = (struct profil_bucket){ 0x1210, 7 };
	p->nsymbols = 3;
	p->symbols = must(calloc(3, sizeof *p->symbols));
	for (size_t i = 0; i < 3; i++)
		p->symbols[i] = (struct profil_symbol){ 0, 0x1000 + 0x100 * i,
		    0x1100 + 0x100 * i, must(strdup(names[i])) };
	p->nframes = cpu_only ? 3 : 5;
	p->frames = must(calloc(p->nframes, sizeof *p->frames));
	memcpy(p->frames, frames, p->nframes * sizeof *p->frames);
	p->stacks = must(calloc(5, sizeof *p->stacks));
	for (size_t i = 0; i < (cpu_only ? 1 : 5); i++) {
		struct profil_stack *st = &p->stacks[p->nstacks++];

		st->pid = 1;
		st->tid = stacks[i].tid;
		st->count = stacks[i].count;
		st->off_ns = stacks[i].off_ns;
		st->depth = stacks[i].depth;
		st->frames = must(calloc(st->depth, sizeof *st->frames));
		memcpy(st->frames, stacks[i].frames, st->depth *
		    sizeof *st->frames);
	}
	if (!cpu_only) {
		p->wall = must(calloc(1, sizeof *p->wall));
		*p->wall = (struct profil_wall){ 5 * WALL_MS, 12, 3, 0 };
	}
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", path, cause);
	profil_profile_free(p);
}

/* stderr is one line, a warning of profil export holding all of want. */
static void
assert_one_warning(const struct run *r, const char *want)
{
	const char *nl = strchr(r->err, '\n');

	if (strncmp(r->err, "profil: export: warning: ", 25) != 0 ||
	    nl == NULL || nl[1] != '\0' || strstr(r->err, want) == NULL)
		fail_msg("want one warning with '%s', got: %s", want, r->err);
}

/*
 * Folded: microseconds of wall time, [off-cpu: NAME] leaves, each line's
 * total rounded once, lines of 0 left out, a note on stderr; --cpu: the
 * samples of the CPU part, as a CPU profile's export.
 */
static void
test_wall_folded(void **state)
{
	SCRATCH(prf, "wall.prf");
	char *wall[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    prf, NULL };
	char *cpu[] = { profil_bin, "export", "--format", "folded", "--cpu",
	    "-o", "-", prf, NULL };
	struct run r;

	(void)state;
	save_wall_profile(prf, 0);
	run(&r, wall);
	assert_int_equal(r.status, 0);
	/* 7 samples of 1 ms: 7000 us; '[' sorts before the letters */
	assert_string_equal(r.out,
	    "main;[off-cpu: clock_nanosleep] 1\n"
	    "main;compute 7000\n"
	    "main;do_read;[off-cpu: read] 250001\n");
	assert_one_warning(&r, "microseconds of wall time");
	run(&r, cpu);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "main;compute 7\n");
	assert_string_equal(r.err, "");
}

/*
 * pprof: samples, cpu, wall; wall the default; off-CPU Samples 0, 0,
 * off_ns at a [off-cpu: read] Function without a file; CPU Samples
 * count, count x interval twice.  --cpu: the CPU profile's two types.
 */
static void
test_wall_pprof(void **state)
{
	SCRATCH(prf, "wall.prf");
	SCRATCH(pb, "wall.pb.gz");
	SCRATCH(cpb, "wallcpu.pb.gz");
	char *cpu[] = { profil_bin, "export", "--format", "pprof", "--cpu",
	    "-o", cpb, prf, NULL };
	unsigned long long read_wall = 0, compute[3] = { 0, 0, 0 };
	const struct pprof_function *fn;
	struct run r;

	(void)state;
	need_decoder();
	save_wall_profile(prf, 0);
	want_types = 3;
	export_and_decode(prf, pb, 0);
	want_types = 2;
	assert_string_equal(d.types[0], "samples");
	assert_string_equal(d.types[1], "cpu");
	assert_string_equal(d.types[2], "wall");
	assert_string_equal(d.units[2], "nanoseconds");
	assert_string_equal(d.default_type, "wall");
	assert_int_equal(d.totals[0], 7);
	assert_int_equal(d.totals[1], 7 * WALL_MS);
	assert_int_equal(d.totals[2], 7 * WALL_MS + 250000300 + 300 + 1499 +
	    499);
	for (size_t i = 0; i < d.nvalues; i++) {
		if (strcmp(d.values[i].frames, "main;do_read;[off-cpu: read]") ==
		    0) {
			assert_int_equal(d.values[i].v[0], 0);
			assert_int_equal(d.values[i].v[1], 0);
			read_wall += d.values[i].v[2];
		} else if (strcmp(d.values[i].frames, "main;compute") == 0) {
			for (int k = 0; k < 3; k++)
				compute[k] += d.values[i].v[k];
		}
	}
	assert_int_equal(read_wall, 250000600);
	assert_int_equal(compute[0], 7);
	assert_int_equal(compute[1], 7 * WALL_MS);
	assert_int_equal(compute[2], 7 * WALL_MS);
	/* the off-CPU leaf is a function of its own, with no file */
	fn = pprof_function("[off-cpu: read]");
	assert_non_null(fn);
	assert_string_equal(fn->file, "");
	run(&r, cpu);
	assert_int_equal(r.status, 0);
	decode(cpb);
	assert_string_equal(d.default_type, "cpu");
	assert_int_equal(d.totals[0], 7);
	assert_int_equal(d.totals[1], 7 * WALL_MS);
	assert_null(pprof_function("[off-cpu: read]"));
}

/*
 * A wall profile whose time off the CPU comes to no whole interval (a
 * program that never waited but for its start) has off-CPU frames that
 * no stack of its view holds: report and export say nothing of the
 * [off-cpu] object (they warned "[off-cpu]: no file to read symbols
 * from").  Made here as record makes it (save_wall_profile's, every
 * block shortened to 300 ns), and recorded from a program that only
 * computes, in each engine.
 */
static void
test_wall_no_time_off_cpu_no_warning(void **state)
{
	SCRATCH(prf, "nooff.prf");
	SCRATCH(rec_prf, "nooff-rec.prf");
	SCRATCH(pb, "nooff.pb.gz");
	SCRATCH(folded, "nooff.folded");
	char *views[][9] = {
		{ profil_bin, "report", prf, NULL },
		{ profil_bin, "report", "--tree", prf, NULL },
		{ profil_bin, "report", "--objects", prf, NULL },
		{ profil_bin, "export", "--format", "pprof", "-o", pb, prf, NULL },
		{ profil_bin, "export", "--format", "folded", "-o", folded, prf,
		    NULL },
	};
	static const char *const engines[] = { "perf", "timer" };
	char cause[256], *prog[] = { workload, "split", "0.05", NULL };
	struct profil_profile *p;
	struct run r;

	(void)state;
	save_wall_profile(prf, 0);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s: %s", prf, cause);
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].off_ns > 0)
			p->stacks[i].off_ns = 300;
	if (profil_profile_save(p, prf, cause, sizeof cause) < 0)
		fail_msg("cannot save %s: %s", prf, cause);
	profil_profile_free(p);
	for (size_t e = 0; e <= sizeof engines / sizeof engines[0]; e++) {
		if (e > 0) {
			char *rec[] = { profil_bin, "record", "-q", "--wall", "-e",
			    (char *)engines[e - 1], "-o", rec_prf, prog[0],
			    prog[1], prog[2], NULL };

			if (strcmp(engines[e - 1], "perf") == 0 &&
			    !harness_perf_allowed())
				continue;
			run(&r, rec);
			if (r.status != 0)
				fail_msg("record --wall -e %s: exit %d: %s",
				    engines[e - 1], r.status, r.err);
		}
		for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
			char *argv[9];

			memcpy(argv, views[v], sizeof argv);
			for (size_t k = 0; argv[k] != NULL; k++)
				if (argv[k] == prf && e > 0)
					argv[k] = rec_prf;
			run(&r, argv);
			if (r.status != 0)
				fail_msg("%s %s: exit %d: %s", argv[1], argv[2],
				    r.status, r.err);
			if (strstr(r.err, "[off-cpu]") != NULL)
				fail_msg("%s %s of %s: %s", argv[1], argv[2],
				    e ? engines[e - 1] : "a made profile", r.err);
		}
	}
}

/*
 * gmon: a wall profile gives the gmon.out of its CPU part, byte for byte
 * that of the same profile made without the off-CPU stacks, and says in
 * one line what it left out.  --cpu on a CPU profile: a usage error.
 */
static void
test_wall_gmon_and_usage(void **state)
{
	SCRATCH(prf, "wall.prf");
	SCRATCH(cpu_prf, "wallcpu.prf");
	SCRATCH(wdir, "wallgmon");
	SCRATCH(cdir, "cpugmon");
	SCRATCH(wout, "wallgmon/gmon.app.out");
	SCRATCH(cout, "cpugmon/gmon.app.out");
	char *wall[] = { profil_bin, "export", "--format", "gmon", "-o", wdir,
	    prf, NULL };
	char *cpu[] = { profil_bin, "export", "--format", "gmon", "-o", cdir,
	    cpu_prf, NULL };
	char *bad[] = { profil_bin, "export", "--format", "folded", "--cpu",
	    "-o", "-", cpu_prf, NULL };
	char cmd[3 * PATH_MAX];
	struct run r;

	(void)state;
	save_wall_profile(prf, 0);
	save_wall_profile(cpu_prf, 1);
	run(&r, wall);
	if (r.status != 0)
		fail_msg("gmon export exited %d: %s", r.status, r.err);
	assert_one_warning(&r, "off the CPU are left out");
	run(&r, cpu);
	if (r.status != 0)
		fail_msg("gmon export exited %d: %s", r.status, r.err);
	snprintf(cmd, sizeof cmd, "cmp -s %s %s", wout, cout);
	assert_int_equal(system(cmd), 0);
	run(&r, bad);
	assert_int_equal(r.status, 2);
	assert_one_error_line(&r);
	assert_non_null(strstr(r.err, "--cpu"));
}

/*
 * End to end: a program that sleeps 0.3 s in clock_nanosleep and
 * measures the sleep itself (tests/programs/wall-workload.c parts), recorded
 * with
 * --wall; its folded export's [off-cpu: clock_nanosleep] lines hold the
 * time it slept, in microseconds: about the 0.3 s asked (the kernel
 * wakes it no sooner; 5 ms allowed for going off the CPU and for its
 * share of the thread's waits for a CPU once woken, counted runnable at
 * the thread's mean, not its own: 298.9 ms seen on a loaded machine), at
 * most what it measured (which adds its wait for a CPU after the wake-up,
 * long on a loaded machine); and the pprof export's wall total at least
 * that.
 */
static void
test_wall_recorded_sleep(void **state)
{
	SCRATCH(prf, "sleep.prf");
	SCRATCH(folded, "sleep.folded");
	SCRATCH(pb, "sleep.pb.gz");
	char program[PATH_MAX + 32];
	char *rec[] = { profil_bin, "record", "-q", "--wall", "-o", prf,
	    program, "parts", "0.01", "0.3", "0", "0", NULL };
	char *exp[] = { profil_bin, "export", "--format", "folded", "-o",
	    folded, prf, NULL };
	unsigned long long us = 0, v;
	char line[8192], *sp;
	const char *at;
	double slept;
	struct run r;
	FILE *f;

	(void)state;
	if (!harness_perf_allowed())
		SKIP("perf events refused here: record --wall needs them");
	snprintf(program, sizeof program, "%s/wall-workload", bindir);
	run(&r, rec);
	if (r.status != 0)
		fail_msg("record --wall exited %d: %s", r.status, r.err);
	at = strstr(r.out, "sleep ");
	if (at == NULL || sscanf(at, "sleep %lf", &slept) != 1)
		fail_msg("the program said no sleep: %s", r.out);
	run(&r, exp);
	assert_int_equal(r.status, 0);
	f = fopen(folded, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL) {
		sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		v = strtoull(sp + 1, NULL, 10);
		if (strlen(line) >= 26 && strcmp(line + strlen(line) - 26,
		    "[off-cpu: clock_nanosleep]") == 0)
			us += v;
	}
	fclose(f);
	if (us < 295000 || (double)us > slept * 1e6 + 1000)
		fail_msg("%llu us in clock_nanosleep; asked 300000, it measured "
		    "%.0f", us, slept * 1e6);
	need_decoder();
	want_types = 3;
	export_and_decode(prf, pb, 0);
	want_types = 2;
	assert_true(d.totals[2] >= 295000000ull);
	assert_true(d.totals[2] >= d.totals[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wall_folded),
		cmocka_unit_test(test_wall_pprof),
		cmocka_unit_test(test_wall_no_time_off_cpu_no_warning),
		cmocka_unit_test(test_wall_gmon_and_usage),
		cmocka_unit_test(test_wall_recorded_sleep),
	};

	return cmocka_run_group_tests(tests, export_setup, e2e_teardown);
}
