/*
 * test-status.c - how each process ended, end to end (report --pid): each
 * status in words, as the recording keeps it, and the program's own
 * children, which it reaps itself, seen to their end by the recorder
 * too, in both engines, as root and as nobody.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

/* ---- report --pid: how each process ended ------------------------------- */

struct status_case {
	int32_t status;
	const char *words;
};

static const struct status_case status_cases[] = {
	{ 0, "exit 0" },
	{ 3 << 8, "exit 3" },
	{ 11, "signal 11 (SIGSEGV)" },
	{ 0x80 | 6, "signal 6 (SIGABRT), core dumped" },
	{ 9, "signal 9 (SIGKILL)" },
	{ 40, "signal 40" },		/* real-time: no fixed name */
	{ -1, "ended" },		/* its status could not be learnt */
	{ -2, "running" },		/* still running when it ended */
	{ 0x137f, "unknown (0x137f)" },	/* stopped: no final status */
	{ 0x10000, "unknown (0x10000)" },
};
#define NSTATUS (sizeof status_cases / sizeof status_cases[0])

/* A profile of one process per status case, pids 100, 101, ... */
static void
save_status_profile(const char *path)
{
	struct profil_profile *p = calloc(1, sizeof *p);
	char cause[256];

	assert_non_null(p);
	p->interval_ns = 1000000;
	p->bucket_bytes = 1;
	p->engine = strdup("perf");
	p->argc = 1;
	p->argv = calloc(2, sizeof *p->argv);
	p->argv[0] = strdup("app");
	p->processes = calloc(NSTATUS, sizeof *p->processes);
	for (size_t i = 0; i < NSTATUS; i++) {
		p->processes[i] = (struct profil_process){ (uint32_t)(100 + i), 1,
		    strdup("app"), status_cases[i].status, 10 + i };
		p->samples += 10 + i;
	}
	p->nprocesses = NSTATUS;
	p->unknown = p->samples;
	p->cpu_ns = p->samples * p->interval_ns;
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("save %s: %s", path, cause);
	profil_profile_free(p);
}

/*
 * The line of r's output that holds key ("\n101," for a line that starts
 * so, or "\"pid\": 101,").
 */
static const char *
line_with(const struct run *r, const char *key, char *line, size_t size)
{
	const char *at = strstr(r->out, key), *start, *end;

	if (at == NULL)
		fail_msg("no line with [%s] in:\n%s", key, r->out);
	at += key[0] == '\n';
	for (start = at; start > r->out && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	snprintf(line, size, "%.*s", (int)(end ? end - start :
	    (long)strlen(start)), start);
	return line;
}

static void
test_pid_status_in_words(void **state)
{
	char prf[PATH_MAX], line[1024], key[64], want[256];
	char *csv[] = { profil_bin, "report", "--pid", "--format", "csv", prf, NULL };
	char *json[] = { profil_bin, "report", "--pid", "--format", "json", prf,
	    NULL };
	char *text[] = { profil_bin, "report", "--pid", prf, NULL };
	struct run r;

	(void)state;
	scratch(prf, "status.prf");
	save_status_profile(prf);

	/* CSV: the documented columns as they were, status appended */
	run(&r, csv);
	assert_int_equal(r.status, 0);
	static const char header[] = "pid,ppid,command,exit_status,samples,"
	    "percent,error95,seconds,status\n";
	assert_true(strncmp(r.out, header, strlen(header)) == 0);
	for (size_t i = 0; i < NSTATUS; i++) {
		snprintf(key, sizeof key, "\n%zu,1,app,%d,", 100 + i,
		    status_cases[i].status);
		line_with(&r, key, line, sizeof line);
		/* ", core dumped": quoted, as CSV quotes a comma */
		snprintf(want, sizeof want, strchr(status_cases[i].words, ',') ?
		    ",\"%s\"" : ",%s", status_cases[i].words);
		if (strcmp(line + strlen(line) - strlen(want), want) != 0)
			fail_msg("status %d: [%s], want it to end [%s]",
			    status_cases[i].status, line, want);
	}
	/* JSON: exit_status a number, status last */
	run(&r, json);
	assert_int_equal(r.status, 0);
	for (size_t i = 0; i < NSTATUS; i++) {
		snprintf(key, sizeof key, "\"pid\": %zu,", 100 + i);
		line_with(&r, key, line, sizeof line);
		snprintf(want, sizeof want, "\"exit_status\": %d, ",
		    status_cases[i].status);
		assert_non_null(strstr(line, want));
		snprintf(want, sizeof want, "\"status\": \"%s\"}",
		    status_cases[i].words);
		if (strstr(line, want) == NULL)
			fail_msg("[%s] has no [%s]", line, want);
	}
	/* text: the words, whole, on the process's line */
	run(&r, text);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  status  "));
	for (size_t i = 0; i < NSTATUS; i++) {
		snprintf(key, sizeof key, "  %zu  ", 100 + i);
		line_with(&r, key, line, sizeof line);
		snprintf(want, sizeof want, "  %s ", status_cases[i].words);
		if (strstr(line, want) == NULL)
			fail_msg("[%s] has no [%s]", line, want);
	}
}

/* How real processes ended, as recorded: exit, signal, not waited for. */
static void
test_pid_status_recorded(void **state)
{
	char prf[PATH_MAX];
	char *csv[] = { profil_bin, "report", "--pid", "--format", "csv", prf, NULL };
	char *exit3[] = { profil_bin, "record", "-q", "-o", prf, workload, "exit",
	    "3", NULL };
	char *crash[] = { profil_bin, "record", "-q", "-o", prf, workload,
	    "crash", NULL };
	char *forkexec[] = { workload, "forkexec", "0.022", NULL };
	struct rlimit no_core = { 0, 0 }, saved;
	struct run r;

	(void)state;
	scratch(prf, "ended.prf");
	run(&r, exit3);
	assert_int_equal(r.status, 3);
	run(&r, csv);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, ",768,"));
	assert_non_null(strstr(r.out, ",exit 3\n"));

	/* no core file: the words must not say one was dumped */
	assert_int_equal(getrlimit(RLIMIT_CORE, &saved), 0);
	no_core.rlim_max = saved.rlim_max;	/* the soft limit only: it comes back */
	assert_int_equal(setrlimit(RLIMIT_CORE, &no_core), 0);
	run(&r, crash);
	assert_int_equal(setrlimit(RLIMIT_CORE, &saved), 0);
	assert_int_equal(r.status, 128 + 11);
	run(&r, csv);
	assert_int_equal(r.status, 0);
	/* a core_pattern pipe dumps whatever the limit: then it says so */
	if (strstr(r.out, ",139,") != NULL)
		assert_non_null(strstr(r.out, ",signal 11 (SIGSEGV), core dumped\n"));
	else
		assert_non_null(strstr(r.out, ",11,") != NULL &&
		    strstr(r.out, ",signal 11 (SIGSEGV)\n") != NULL ? r.out : NULL);

	/*
	 * the child the program waited for itself: its status, or where
	 * it could not be learnt "ended", never "unknown", which read as a
	 * failure (test_descendants_status: when it is known)
	 */
	record_ok(prf, forkexec);
	run(&r, csv);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "unknown"));
	assert_non_null(strstr(r.out, ",exit 0\n"));
}

/*
 * Whether this kernel keeps an ended process's wait status for its
 * pidfds (PIDFD_INFO_EXIT, Linux 6.15), probed on a child of ours reaped
 * by its own parent, as the recorder meets the program's children.
 */
static int
pidfd_keeps_exit(void)
{
	struct { uint64_t mask, cgroupid; uint32_t ids[11]; int32_t exit_code; }
	    info;
	int pids[2], go[2], fd = -1, kept = 0;
	pid_t parent, child = 0;

	assert_int_equal(pipe(pids), 0);
	assert_int_equal(pipe(go), 0);
	if ((parent = fork()) == 0) {
		close(pids[0]);
		close(go[1]);
		if ((child = fork()) == 0) {
			char byte;

			/* ends (8) when the test closes its end of go */
			_exit(read(go[0], &byte, 1) == 0 ? 8 : 7);
		}
		close(go[0]);
		if (write(pids[1], &child, sizeof child) != sizeof child)
			_exit(1);
		waitpid(child, NULL, 0);
		_exit(0);
	}
	close(pids[1]);
	close(go[0]);
	if (read(pids[0], &child, sizeof child) == sizeof child)
		fd = (int)syscall(SYS_pidfd_open, child, 0);
	close(pids[0]);
	close(go[1]);			/* the child ends, reaped by its parent */
	waitpid(parent, NULL, 0);
	memset(&info, 0, sizeof info);
	info.mask = 1ull << 3;		/* PIDFD_INFO_EXIT */
	if (fd >= 0 && ioctl(fd, _IOWR(0xFF, 11, info), &info) == 0 &&
	    (info.mask & (1ull << 3)))
		kept = info.exit_code == 8 << 8;
	if (fd >= 0)
		close(fd);
	return kept;
}

/* The program's children released one by one (run_acting's act). */
struct release {
	char fifo[2][PATH_MAX + 16];
	int next;
	pid_t last;
};

/*
 * When the recorder has heard of the program's child (it holds a pidfd
 * of it) and the child reads its FIFO, write it a line: it ends.  Done
 * with the second.
 */
static int
release_child(pid_t recorder, void *arg)
{
	struct release *rel = arg;
	pid_t program = e2e_child_of(recorder), child;
	int fd;

	if (program == 0 || (child = e2e_child_of(program)) == 0 ||
	    child == rel->last || !e2e_holds_pidfd(recorder, child))
		return 0;
	/* no reader yet: ENXIO, try again */
	if ((fd = open(rel->fifo[rel->next], O_WRONLY | O_NONBLOCK)) < 0)
		return 0;
	assert_int_equal(write(fd, "go\n", 3), 3);
	close(fd);
	rel->last = child;
	return ++rel->next == 2;
}

/*
 * How the program's own children ended, which the program reaps: a
 * shell's two children, one that exits 3 and one killed by SIGSEGV.
 * Each waits on a FIFO until the recorder has heard of it, so that
 * their statuses are learnt in every way the recorder has (exits.h);
 * where this kernel keeps them for pidfds (or the recorder may read the
 * kernel's process events) they are exact, else "ended", never another
 * status.  Both engines, as root and as nobody (the recorder too).
 */
static void
test_descendants_status(void **state)
{
	static const char *const engines[] = { "perf", "timer" };
	char dir[PATH_MAX], prf[PATH_MAX + 16], cmd[4 * PATH_MAX];
	char *csv[] = { profil_bin, "report", "--pid", "--format", "csv", prf,
	    NULL };
	int exact = pidfd_keeps_exit();
	struct release rel;
	struct run r;

	(void)state;
	scratch(dir, "descendants");
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(chmod(tmpdir, 0711), 0);
	snprintf(prf, sizeof prf, "%s/d.prf", dir);
	for (int as_nobody = 0; as_nobody <= (geteuid() == 0); as_nobody++)
		for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
			char *argv[16];
			int n = 0;

			if (strcmp(engines[e], "perf") == 0 && (as_nobody ?
			    !harness_perf_allowed_to_users() :
			    !harness_perf_allowed()))
				continue;
			memset(&rel, 0, sizeof rel);
			for (int k = 0; k < 2; k++) {
				snprintf(rel.fifo[k], sizeof rel.fifo[k], "%s/go%d",
				    dir, k);
				unlink(rel.fifo[k]);
				assert_int_equal(mkfifo(rel.fifo[k], 0666), 0);
				assert_int_equal(chmod(rel.fifo[k], 0666), 0);
			}
			unlink(prf);
			snprintf(cmd, sizeof cmd, "ulimit -c 0; "
			    "sh -c 'read x <%s; exit 3'; "
			    "sh -c 'read x <%s; kill -SEGV $$'; exit 0",
			    rel.fifo[0], rel.fifo[1]);
			if (as_nobody)
				n += e2e_as_nobody(argv + n);
			argv[n++] = profil_bin;
			argv[n++] = "record";
			argv[n++] = "-q";
			argv[n++] = "-e";
			argv[n++] = (char *)engines[e];
			argv[n++] = "-o";
			argv[n++] = prf;
			argv[n++] = "/bin/sh";
			argv[n++] = "-c";
			argv[n++] = cmd;
			argv[n] = NULL;
			run_acting(&r, argv, release_child, &rel, 60);
			if (r.status != 0)
				fail_msg("record -e %s%s: exit %d: %s", engines[e],
				    as_nobody ? " as nobody" : "", r.status, r.err);
			run(&r, csv);
			assert_int_equal(r.status, 0);
			if (exact ? strstr(r.out, ",768,") == NULL ||
			    strstr(r.out, ",exit 3\n") == NULL ||
			    strstr(r.out, ",11,") == NULL ||
			    strstr(r.out, ",signal 11 (SIGSEGV)\n") == NULL :
			    strstr(r.out, "unknown") != NULL)
				fail_msg("-e %s%s: the children's statuses:\n%s",
				    engines[e], as_nobody ? " as nobody" : "", r.out);
		}
	assert_int_equal(chmod(tmpdir, 0700), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_status_in_words),
		cmocka_unit_test(test_pid_status_recorded),
		cmocka_unit_test(test_descendants_status),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
