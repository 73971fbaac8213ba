/*
 * test-outfile.c - what every command that writes a file promises
 * (cli/outfile.h): it replaces only a file profil wrote (or an empty
 * one), never follows or replaces a symlink, never touches a directory
 * or someone else's file, a failed write (disk full) leaves the old
 * file as it was with no temporary file behind, and what it writes is
 * 0644 whatever the umask.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int
file_is(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return strcmp(buf, text) == 0;
}

/* Exactly one line on stderr, naming what. */
static void
one_line_naming(const struct run *r, const char *what)
{
	const char *nl = strchr(r->err, '\n');

	if (strstr(r->err, what) == NULL || nl == NULL || nl[1] != '\0')
		fail_msg("want one line naming %s, got: %s", what, r->err);
}

/* No "*.tmp.*" file left in dir. */
static void
no_temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".tmp.") != NULL || strncmp(e->d_name,
		    ".profil-", 8) == 0)
			fail_msg("temporary file left: %s/%s", dir, e->d_name);
	closedir(d);
}

static const char *
profile(void)
{
	static char prf[PATH_MAX];
	char *prog[] = { workload, "split", "0.055", NULL };

	if (prf[0] == '\0') {
		snprintf(prf, sizeof prf, "%s", tmp("base.prf"));
		record_ok(prf, prog);
	}
	return prf;
}

static void
test_record_refuses_foreign_files_and_links(void **state)
{
	const char *src = tmp("main.c"), *link = tmp("link.prf");
	const char *empty = tmp("empty.prf"), *dir = tmp("adir");
	struct run r;

	(void)state;
	write_file(src, "int main(void) { return 0; }\n");
	char *over_source[] = { profil_bin, "record", "-q", "-o", (char *)src,
	    workload, "split", "0.011", NULL };
	run(&r, over_source);
	assert_int_equal(r.status, 2);
	one_line_naming(&r, "was not written by profil");
	assert_true(file_is(src, "int main(void) { return 0; }\n"));

	/* a symlink is neither followed nor replaced */
	assert_int_equal(symlink(src, link), 0);
	char *through_link[] = { profil_bin, "record", "-q", "-o", (char *)link,
	    workload, "split", "0.011", NULL };
	run(&r, through_link);
	assert_int_equal(r.status, 2);
	one_line_naming(&r, "symbolic link");
	assert_true(file_is(src, "int main(void) { return 0; }\n"));
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	assert_int_equal(mkdir(dir, 0755), 0);
	char *over_dir[] = { profil_bin, "record", "-q", "-o", (char *)dir,
	    workload, "split", "0.011", NULL };
	run(&r, over_dir);
	assert_int_equal(r.status, 2);
	one_line_naming(&r, "not a regular file");

	/* an empty file (mktemp's) and our own profile are fine */
	write_file(empty, "");
	char *into_empty[] = { profil_bin, "record", "-q", "-o", (char *)empty,
	    workload, "split", "0.011", NULL };
	run(&r, into_empty);
	assert_int_equal(r.status, 0);
	run(&r, into_empty);
	assert_int_equal(r.status, 0);
	char *check[] = { profil_bin, "check", (char *)empty, NULL };
	run(&r, check);
	assert_int_equal(r.status, 0);
}

/*
 * A second file with profile()'s samples: merge refuses one file named
 * twice (profil.1), a copy is another run to it.
 */
static const char *
profile_copy(void)
{
	static char copy[PATH_MAX];
	char cmd[PATH_MAX * 2 + 8];

	if (copy[0] == '\0') {
		snprintf(copy, sizeof copy, "%s", tmp("base-copy.prf"));
		snprintf(cmd, sizeof cmd, "cp %s %s", profile(), copy);
		assert_int_equal(system(cmd), 0);
	}
	return copy;
}

static void
test_every_writer_keeps_foreign_files(void **state)
{
	const char *prf = profile(), *victim = tmp("notes.txt");
	const char *gdir = tmp("gdir");
	char gmon[PATH_MAX];
	struct run r;

	(void)state;
	write_file(victim, "precious\n");
	char *html[] = { profil_bin, "report", "--html", (char *)victim, (char *)prf,
	    NULL };
	run(&r, html);
	assert_int_equal(r.status, 1);
	one_line_naming(&r, "not written by profil");
	char *pprof[] = { profil_bin, "export", "--format", "pprof", "-o",
	    (char *)victim, (char *)prf, NULL };
	run(&r, pprof);
	assert_int_equal(r.status, 1);
	one_line_naming(&r, "not written by profil");
	char *merge[] = { profil_bin, "merge", "-q", "-o", (char *)victim,
	    (char *)prf, (char *)profile_copy(), NULL };
	run(&r, merge);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "not written by profil"));
	assert_true(file_is(victim, "precious\n"));

	assert_int_equal(mkdir(gdir, 0755), 0);
	snprintf(gmon, sizeof gmon, "%s/gmon.workload.out", gdir);
	write_file(gmon, "precious\n");
	char *g[] = { profil_bin, "export", "--format", "gmon", "-o", (char *)gdir,
	    (char *)prf, NULL };
	run(&r, g);
	assert_int_equal(r.status, 1);
	assert_true(file_is(gmon, "precious\n"));
	/* ... while each replaces what it wrote itself */
	unlink(gmon);
	run(&r, g);
	assert_int_equal(r.status, 0);
	run(&r, g);
	assert_int_equal(r.status, 0);
	const char *page = tmp("page.html"), *pb = tmp("p.pb.gz");
	char *html2[] = { profil_bin, "report", "--html", (char *)page, (char *)prf,
	    NULL };
	char *pprof2[] = { profil_bin, "export", "--format", "pprof", "-o",
	    (char *)pb, (char *)prf, NULL };
	for (int i = 0; i < 2; i++) {
		run(&r, html2);
		assert_int_equal(r.status, 0);
		run(&r, pprof2);
		assert_int_equal(r.status, 0);
	}
	no_temporaries(tmpdir);
	no_temporaries(gdir);
}

/*
 * Folded stacks have no signature: export takes a file for its own by its
 * first line, "frames count", however long (C++ names make lines of
 * kilobytes: export refused to replace its own node.js export), and
 * keeps a file whose first line is not one.
 */
static void
test_folded_replaced_by_its_first_line(void **state)
{
	const char *prf = profile(), *out = tmp("stacks.folded");
	char *export[] = { profil_bin, "export", "--format", "folded", "-o",
	    (char *)out, (char *)prf, NULL };
	static char line[4096];
	struct run r;
	FILE *f;

	(void)state;
	memset(line, 'x', sizeof line - 8);
	for (size_t i = 0; i < sizeof line - 8; i += 100)
		line[i] = ';';
	f = fopen(out, "w");
	assert_non_null(f);
	fprintf(f, "%s 7\nmain;f 3\n", line);	/* a long first stack */
	assert_int_equal(fclose(f), 0);
	run(&r, export);
	if (r.status != 0)
		fail_msg("export did not replace folded stacks with a long first "
		    "line: %s", r.err);
	f = fopen(out, "w");
	assert_non_null(f);
	fprintf(f, "%s\nmain;f 3\n", line);	/* no count: not folded */
	assert_int_equal(fclose(f), 0);
	run(&r, export);
	assert_int_equal(r.status, 1);
	one_line_naming(&r, "not written by profil");
}

/*
 * A full disk: a 64 KiB tmpfs holding an old profile; writing a page too
 * big for it fails with one line, and the old file is intact.
 */
static void
test_disk_full_keeps_the_old_file(void **state)
{
	const char *mnt = tmp("small"), *prf = profile();
	char old[PATH_MAX], cmd[PATH_MAX * 2];
	struct run r;
	struct stat before, after;

	(void)state;
	assert_int_equal(mkdir(mnt, 0755), 0);
	if (mount("profil-test", mnt, "tmpfs", 0, "size=64k") < 0)
		SKIP("not allowed to mount here (not root, or a container)");
	snprintf(old, sizeof old, "%s/old.prf", mnt);
	snprintf(cmd, sizeof cmd, "cp %s %s", prf, old);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(stat(old, &before), 0);
	/* fill the rest of the disk */
	snprintf(cmd, sizeof cmd, "dd if=/dev/zero of=%s/fill bs=4k 2>/dev/null",
	    mnt);
	(void)system(cmd);
	char *merge[] = { profil_bin, "merge", "-q", "-o", old, (char *)prf,
	    (char *)profile_copy(), NULL };
	run(&r, merge);
	assert_int_equal(r.status, 1);
	one_line_naming(&r, "No space left on device");
	assert_int_equal(stat(old, &after), 0);
	assert_int_equal(before.st_size, after.st_size);
	char *check[] = { profil_bin, "check", old, NULL };
	run(&r, check);
	assert_int_equal(r.status, 0);
	no_temporaries(mnt);
	assert_int_equal(umount(mnt), 0);
}

/* Every writer's file is rw-r--r--, as profil_profile_save's, umask 077. */
static void
test_every_writer_makes_0644(void **state)
{
	const char *prf = tmp("mode.prf"), *page = tmp("mode.html");
	const char *pb = tmp("mode.pb.gz"), *folded = tmp("mode.folded");
	const char *merged = tmp("mode-merged.prf"), *gdir = tmp("mode-gmon");
	char gmon[PATH_MAX];
	const char *made[] = { prf, page, pb, folded, merged, gmon };
	struct run r;
	struct stat st;
	mode_t old = umask(077);

	(void)state;
	assert_int_equal(mkdir(gdir, 0755), 0);
	snprintf(gmon, sizeof gmon, "%s/gmon.workload.out", gdir);
	char *record[] = { profil_bin, "record", "-q", "-o", (char *)prf,
	    workload, "split", "0.011", NULL };
	char *html[] = { profil_bin, "report", "--html", (char *)page,
	    (char *)prf, NULL };
	char *pprof[] = { profil_bin, "export", "--format", "pprof", "-o",
	    (char *)pb, (char *)prf, NULL };
	char *fold[] = { profil_bin, "export", "--format", "folded", "-o",
	    (char *)folded, (char *)prf, NULL };
	char *g[] = { profil_bin, "export", "--format", "gmon", "-o",
	    (char *)gdir, (char *)prf, NULL };
	char *merge[] = { profil_bin, "merge", "-q", "-o", (char *)merged,
	    (char *)profile(), (char *)profile_copy(), NULL };
	char **runs[] = { record, html, pprof, fold, g, merge };

	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		run(&r, runs[i]);
		if (r.status != 0)
			fail_msg("%s %s: status %d: %s", runs[i][1], runs[i][2],
			    r.status, r.err);
	}
	umask(old);
	for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
		assert_int_equal(stat(made[i], &st), 0);
		if ((st.st_mode & 07777) != 0644)
			fail_msg("%s: mode %o, not 0644", made[i],
			    (unsigned)(st.st_mode & 07777));
	}
	no_temporaries(tmpdir);
	no_temporaries(gdir);
}

/*
 * The kernel's symbol cache ($XDG_CACHE_HOME/profil) holds kernel
 * addresses: written as the user's own (0600) whatever the umask, by the
 * one writer (no temporary file left).  It is written where a report
 * names kernel code and /proc/kallsyms shows addresses (root here).
 */
static void
test_kernel_cache_is_private(void **state)
{
	const char *prf = tmp("kcache.prf"), *cache = tmp("kcache");
	char dir[PATH_MAX], path[PATH_MAX * 2] = "";
	struct run r;
	struct stat st;
	struct dirent *e;
	DIR *d;
	mode_t old;

	(void)state;
	if (!harness_perf_allowed() || geteuid() != 0)
		SKIP("kernel samples and kallsyms' addresses need perf and root");
	char *record[] = { profil_bin, "record", "-q", "-e", "perf", "-o",
	    (char *)prf, workload, "writes", "0.2", NULL };
	char *report[] = { profil_bin, "report", (char *)prf, NULL };

	run(&r, record);
	if (r.status != 0)
		fail_msg("record: status %d: %s", r.status, r.err);
	assert_int_equal(mkdir(cache, 0755), 0);
	setenv("XDG_CACHE_HOME", cache, 1);
	old = umask(0);
	run(&r, report);
	umask(old);
	unsetenv("XDG_CACHE_HOME");
	if (r.status != 0)
		fail_msg("report: status %d: %s", r.status, r.err);
	snprintf(dir, sizeof dir, "%s/profil", cache);
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
	closedir(d);
	if (path[0] == '\0')
		fail_msg("no kernel symbol cache in %s after: %s", dir, r.out);
	assert_int_equal(stat(path, &st), 0);
	if ((st.st_mode & 07777) != 0600)
		fail_msg("%s: mode %o, not 0600", path,
		    (unsigned)(st.st_mode & 07777));
	no_temporaries(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_refuses_foreign_files_and_links),
		cmocka_unit_test(test_every_writer_keeps_foreign_files),
		cmocka_unit_test(test_folded_replaced_by_its_first_line),
		cmocka_unit_test(test_disk_full_keeps_the_old_file),
		cmocka_unit_test(test_every_writer_makes_0644),
		cmocka_unit_test(test_kernel_cache_is_private),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
