/*
 * test-recordoutput.c - `profil record`'s output, end to end: it finds
 * out before the program runs that its output cannot be written, and
 * leaves no temporary file behind on any path (refused, killed, a full
 * disk).
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

/* ---- record -o: found out before the program runs --------------------- */

/* Files in dir whose name holds ".tmp." (what outfile.c writes first). */
static int
temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

/*
 * record -o output, of a program that would leave marker: refused (exit
 * 2, one line) before the program ran, nothing left in dir (if not NULL).
 */
static void
refused_before_running(const char *output, const char *dir)
{
	char marker[PATH_MAX], script[PATH_MAX + 16];
	char *argv[] = { profil_bin, "record", "-q", "-o", (char *)output,
	    "/bin/sh", "-c", script, NULL };
	struct run r;

	scratch(marker, "ran");
	unlink(marker);
	snprintf(script, sizeof script, "touch %s", marker);
	run(&r, argv);
	if (r.status != 2 || exists(marker))
		fail_msg("-o %s: exit %d, the program %s: %s", output, r.status,
		    exists(marker) ? "ran" : "did not run", r.err);
	assert_one_line(&r, "record");
	if (dir != NULL)
		assert_int_equal(temporaries(dir), 0);
}

static void
test_record_checks_its_output_first(void **state)
{
	char long_name[PATH_MAX * 2], ro[PATH_MAX], full[PATH_MAX];
	char path[PATH_MAX + 32];
	char name[300];

	(void)state;
	/* where creating a file fails though the directory looks writable */
	refused_before_running("/proc/x.prf", NULL);
	refused_before_running("/proc/self/x.prf", NULL);
	if (exists("/sys/kernel"))
		refused_before_running("/sys/kernel/x.prf", NULL);
	/* a name the file system refuses */
	memset(name, 'n', 290);
	snprintf(name + 290, 10, ".prf");
	snprintf(long_name, sizeof long_name, "%s/%s", tmpdir, name);
	refused_before_running(long_name, tmpdir);
	/* %p may name the file, not a directory (one only known later) */
	scratch(path, "run-%p/x.prf");
	refused_before_running(path, NULL);

	/* a read-only file system, and one with no inode left (as root) */
	scratch(ro, "ro");
	scratch(full, "noinode");
	assert_int_equal(mkdir(ro, 0755), 0);
	assert_int_equal(mkdir(full, 0755), 0);
	if (mount("profil-test", ro, "tmpfs", MS_RDONLY, "size=64k") < 0)
		SKIP("not allowed to mount here (not root, or a container)");
	snprintf(path, sizeof path, "%s/x.prf", ro);
	refused_before_running(path, ro);
	assert_int_equal(umount(ro), 0);

	assert_int_equal(mount("profil-test", full, "tmpfs", 0,
	    "size=1m,nr_inodes=8"), 0);
	for (int i = 0; ; i++) {	/* use up every inode */
		FILE *f;

		snprintf(path, sizeof path, "%s/f%d", full, i);
		if ((f = fopen(path, "w")) == NULL)
			break;
		fclose(f);
		assert_true(i < 100);
	}
	snprintf(path, sizeof path, "%s/x.prf", full);
	refused_before_running(path, full);
	assert_int_equal(umount(full), 0);
}

/*
 * The profile is written to a file with no name while the program runs
 * (created before it, so a failure to create it stops record first;
 * named only to be renamed over the output), the program does not
 * inherit it, and no path leaves a temporary file behind: success, a
 * program not found, the recorder stopped by SIGTERM or a Ctrl-C (the
 * profile is written), a disk that fills while the program runs (as
 * root).  (SIGKILL: test-record.)
 */
static void
test_record_leaves_no_temporary_file(void **state)
{
	char dir[PATH_MAX], prf[PATH_MAX + 16], script[PATH_MAX * 2];
	char *look[] = { profil_bin, "record", "-q", "-o", prf, "/bin/sh", "-c",
	    script, NULL };
	char *missing[] = { profil_bin, "record", "-q", "-o", prf,
	    "/nonexistent/program", NULL };
	char *forever[] = { profil_bin, "record", "-q", "-o", prf, workload,
	    "forever", NULL };
	char *check[] = { profil_bin, "check", prf, NULL };
	struct run r;

	(void)state;
	scratch(dir, "outdir");
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(prf, sizeof prf, "%s/x.prf", dir);

	/*
	 * while the program runs: nothing in the directory, and nothing of
	 * it among the program's fds (an unnamed file shows as "DIR/#INODE
	 * (deleted)" there)
	 */
	snprintf(script, sizeof script, "echo in:; ls -A %s; echo fds:; "
	    "for f in /proc/$$/fd/*; do readlink $f; done", dir);
	run(&r, look);
	assert_int_equal(r.status, 0);
	if (strncmp(r.out, "in:\nfds:\n", 9) != 0)
		fail_msg("a file beside the output while the program runs:\n%s",
		    r.out);
	if (strstr(r.out, dir) != NULL)
		fail_msg("the program holds the output open:\n%s", r.out);
	assert_true(exists(prf));
	assert_int_equal(temporaries(dir), 0);

	unlink(prf);
	run(&r, missing);
	assert_int_equal(r.status, 127);
	assert_int_equal(temporaries(dir), 0);
	assert_false(exists(prf));

	run_full(&r, forever, NULL, SIGTERM, TO_RECORDER, 400);
	assert_int_equal(r.status, 128 + SIGTERM);
	assert_int_equal(temporaries(dir), 0);
	run(&r, check);
	assert_int_equal(r.status, 0);
	unlink(prf);
	run_full(&r, forever, NULL, SIGINT, TO_GROUP, 400);
	assert_int_equal(temporaries(dir), 0);
	run(&r, check);
	assert_int_equal(r.status, 0);

	/* the disk fills while the program runs: an error, nothing left */
	assert_int_equal(unlink(prf), 0);
	if (mount("profil-test", dir, "tmpfs", 0, "size=64k") < 0)
		SKIP("not allowed to mount here (not root, or a container)");
	snprintf(script, sizeof script, "dd if=/dev/zero of=%s/fill bs=4k "
	    "2>/dev/null; exit 0", dir);
	run(&r, look);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "record");
	assert_non_null(strstr(r.err, "No space left on device"));
	assert_int_equal(temporaries(dir), 0);
	assert_false(exists(prf));
	assert_int_equal(umount(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_checks_its_output_first),
		cmocka_unit_test(test_record_leaves_no_temporary_file),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
