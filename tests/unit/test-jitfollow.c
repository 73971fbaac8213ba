/*
 * test-jitfollow.c - the runtime's files followed as the untrusted input
 * they are (cli/record/jit/jitfile.c, and the followers of perfmap.c and
 * jitdump.c): no symlink or FIFO opened, a file read only if the judge
 * takes it (asked once a file, with the file's own identity), a file
 * written again in place or cut read again from its start rather than
 * from the middle of other text, at most a budget of bytes a read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"
#include "jit-bytes.h"

#include "../../cli/record/jit/jitfile.c"
#include "../../cli/record/jit/perfmap.c"
#include "../../cli/record/jit/jitdump.c"
#include "../../cli/record/jit/jitdump-follow.c"
#include "../../cli/util.c"

/* ---- what the followers hand over ------------------------------------- */

/* Entries of a map read: their count, and the names joined by ','. */
struct names {
	int n;
	char all[4096];
};

static void
name_entry(const struct perfmap_entry *e, void *arg)
{
	struct names *s = arg;
	size_t len = strlen(s->all);

	snprintf(s->all + len, sizeof s->all - len, "%s%.*s", len ? "," : "",
	    (int)e->name_len, e->name);
	s->n++;
}

static void
name_load(const struct jitdump_load *l, void *arg)
{
	struct perfmap_entry e = { l->code_addr, l->code_size, l->name,
	    strlen(l->name) };

	name_entry(&e, arg);
}

static const struct jitdump_ops load_ops = { name_load, NULL, NULL, NULL,
    NULL };

static int
read_map(struct perfmap_file *f, size_t budget, struct names *s)
{
	memset(s, 0, sizeof *s);
	return perfmap_read(f, 0, budget, name_entry, s);
}

static int
read_dump(struct jitdump_file *f, struct names *s)
{
	memset(s, 0, sizeof *s);
	return jitdump_read(f, SIZE_MAX, &load_ops, s);
}

/* ---- jitfile_open ------------------------------------------------------ */

static void
test_open_regular_only(void **state)
{
	const char *file = tmp("plain"), *link = tmp("link"), *fifo = tmp("fifo");
	struct stat st, real;
	int fd;

	(void)state;
	unlink(file);
	unlink(link);
	unlink(fifo);
	write_file(file, "x\n", 2, 0);
	assert_int_equal(stat(file, &real), 0);
	assert_true((fd = jitfile_open(file, &st)) >= 0);
	assert_true(st.st_ino == real.st_ino && st.st_dev == real.st_dev);
	close(fd);
	/* a symlink to it: not followed */
	assert_int_equal(symlink(file, link), 0);
	assert_int_equal(jitfile_open(link, &st), -1);
	assert_int_equal(errno, ELOOP);
	assert_string_equal(jitfile_why(ELOOP), "a symbolic link");
	/* a FIFO nobody writes: refused at once, not waited on */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(jitfile_open(fifo, &st), -1);
	assert_int_equal(errno, EINVAL);
	/* a directory */
	assert_int_equal(jitfile_open(tmpdir, &st), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(jitfile_open(tmp("none"), &st), -1);
	assert_int_equal(errno, ENOENT);
	unlink(link);
	unlink(fifo);
	unlink(file);
}

/* ---- the perf map's follower ------------------------------------------ */

static void
test_map_symlink_not_read(void **state)
{
	const char *real = tmp("real.map"), *path = tmp("perf-link.map");
	struct perfmap_file *f;
	struct names s;

	(void)state;
	unlink(path);
	write_file(real, "1000 10 secret\n", 15, 0);
	assert_int_equal(symlink(real, path), 0);
	f = perfmap_open(path, NULL, NULL);
	assert_int_equal(read_map(f, SIZE_MAX, &s), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(s.n, 0);
	/* the link replaced by the file itself: read */
	assert_int_equal(rename(real, path), 0);
	assert_int_equal(read_map(f, SIZE_MAX, &s), 1);
	assert_string_equal(s.all, "secret");
	perfmap_close(f);
	unlink(path);
}

/* A judge that refuses until told, counting what it was asked. */
struct judged {
	int asked, take;
	ino_t ino;
};

static int
judge(const char *path, const struct stat *st, void *arg)
{
	struct judged *j = arg;

	(void)path;
	j->asked++;
	j->ino = st->st_ino;
	return j->take;
}

static void
test_map_judged_once(void **state)
{
	const char *path = tmp("perf-judged.map");
	struct judged j = { 0, 0, 0 };
	struct perfmap_file *f;
	struct names s;
	struct stat st;

	(void)state;
	unlink(path);
	f = perfmap_open(path, judge, &j);
	assert_int_equal(read_map(f, SIZE_MAX, &s), 0);
	assert_int_equal(j.asked, 0);		/* nothing there to judge */
	write_file(path, "1000 10 first\n", 14, 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(read_map(f, SIZE_MAX, &s), 0);
	assert_int_equal(s.n, 0);		/* refused: nothing read */
	assert_int_equal(j.asked, 1);
	assert_true(j.ino == st.st_ino);	/* the file opened, judged */
	assert_int_equal(read_map(f, SIZE_MAX, &s), 0);
	assert_int_equal(j.asked, 1);		/* not asked again */
	/* the file changes: asked again, and now taken from its start */
	j.take = 1;
	append(path, "2000 10 second\n");
	assert_int_equal(read_map(f, SIZE_MAX, &s), 2);
	assert_string_equal(s.all, "first,second");
	assert_int_equal(j.asked, 2);
	append(path, "3000 10 third\n");
	assert_int_equal(read_map(f, SIZE_MAX, &s), 1);
	assert_int_equal(j.asked, 2);		/* the same file: once */
	perfmap_close(f);
	unlink(path);
}

/*
 * A map cut and written again in place, longer than what was read (a
 * JVM's `jcmd PID Compiler.perfmap` truncates the map and writes the
 * whole anew): read from its start, not from the old offset in the
 * middle of the new text.
 */
static void
test_map_rewritten_in_place(void **state)
{
	const char *path = tmp("perf-rewritten.map");
	struct perfmap_file *f;
	struct names s;
	int fd;

	(void)state;
	unlink(path);
	write_file(path, "1000 10 old\n", 12, 0);
	f = perfmap_open(path, NULL, NULL);
	assert_int_equal(read_map(f, SIZE_MAX, &s), 1);
	assert_int_equal(perfmap_replaced(f), 0);
	/* the same inode, cut and written longer before the next read */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "2000 20 new-a\n3000 30 new-b\n", 28), 28);
	close(fd);
	assert_int_equal(read_map(f, SIZE_MAX, &s), 2);
	assert_string_equal(s.all, "new-a,new-b");
	assert_int_equal(perfmap_replaced(f), 1);
	assert_int_equal(perfmap_bad(f), 0);
	/* only grown since: read on, not again */
	append(path, "4000 40 new-c\n");
	assert_int_equal(read_map(f, SIZE_MAX, &s), 1);
	assert_string_equal(s.all, "new-c");
	perfmap_close(f);
	unlink(path);
}

/* A read takes its budget at most; the rest comes next time, in order. */
static void
test_map_budget(void **state)
{
	const char *path = tmp("perf-big.map");
	enum { LINES = 20000 };
	struct perfmap_file *f;
	struct names s;
	char line[64];
	int total = 0, reads = 0, r;
	FILE *out;

	(void)state;
	assert_non_null(out = fopen(path, "w"));
	for (int i = 0; i < LINES; i++)
		fprintf(out, "%x 10 f%d\n", 0x1000 + 16 * i, i);
	fclose(out);
	f = perfmap_open(path, NULL, NULL);
	/* each read at most its budget and a chunk: many reads */
	while ((r = read_map(f, 4096, &s)) > 0) {
		snprintf(line, sizeof line, "f%d", total);
		assert_memory_equal(s.all, line, strlen(line));
		total += r;
		reads++;
		assert_true(r <= (PERFMAP_CHUNK + 4096) / 10);
	}
	assert_int_equal(r, 0);
	assert_int_equal(total, LINES);
	assert_true(reads >= 4);
	assert_int_equal(perfmap_bad(f), 0);
	perfmap_close(f);
	unlink(path);
}

/* ---- the jitdump follower --------------------------------------------- */

/*
 * A jitdump file of a CODE_LOAD for each of names[0..n) at path: a new
 * file, or (in_place) the one there cut and written again, its inode
 * kept.
 */
static void
put_dump(const char *path, const char *const *names, int n, int in_place)
{
	struct bytes *o = calloc(1, sizeof *o);

	put_header(o, JITDUMP_MAGIC, 1, 40);
	for (int i = 0; i < n; i++)
		put_load(o, names[i], 0x1000 + 0x100 * (uint64_t)i, "\xc3", 1);
	if (!in_place)
		unlink(path);
	write_file(path, (const char *)o->b, o->n, 0);
	free(o);
}

static void
test_dump_symlink_fifo_judged(void **state)
{
	static const char *const one[] = { "a" };
	const char *real = tmp("jit-real.dump"), *path = tmp("jit-1.dump");
	struct judged j = { 0, 0, 0 };
	struct jitdump_file *f;
	struct names s;

	(void)state;
	put_dump(real, one, 1, 0);
	unlink(path);
	assert_int_equal(symlink(real, path), 0);
	f = jitdump_open(path, NULL, NULL);
	assert_int_equal(read_dump(f, &s), -1);
	assert_non_null(strstr(jitdump_problem(f), "symbolic link"));
	assert_int_equal(s.n, 0);
	jitdump_close(f);
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	f = jitdump_open(path, NULL, NULL);
	assert_int_equal(read_dump(f, &s), -1);
	assert_non_null(strstr(jitdump_problem(f), "not a regular file"));
	jitdump_close(f);
	unlink(path);
	/* refused by the judge: nothing read, ever; it said why itself */
	f = jitdump_open(real, judge, &j);
	assert_int_equal(read_dump(f, &s), -1);
	assert_int_equal(s.n, 0);
	assert_string_equal(jitdump_problem(f), "");
	assert_int_equal(read_dump(f, &s), 0);
	assert_int_equal(j.asked, 1);
	jitdump_close(f);
	j.take = 1;
	f = jitdump_open(real, judge, &j);
	assert_int_equal(read_dump(f, &s), 1);
	assert_string_equal(s.all, "a");
	jitdump_close(f);
	unlink(real);
}

/*
 * A jitdump file cut and written again (shorter, or as long but other
 * bytes where the last were read): read again from its header, its
 * records handed over again; a file that only grows, never.
 */
static void
test_dump_rewritten(void **state)
{
	static const char *const three[] = { "a", "b", "c" };
	static const char *const other[] = { "x", "y", "z", "w" };
	static const char *const two[] = { "p", "q" };
	const char *path = tmp("jit-2.dump");
	struct jitdump_file *f;
	struct names s;
	struct stat before, after;

	(void)state;
	put_dump(path, three, 3, 0);
	assert_int_equal(stat(path, &before), 0);
	f = jitdump_open(path, NULL, NULL);
	assert_int_equal(read_dump(f, &s), 3);
	assert_int_equal(read_dump(f, &s), 0);
	/* written again in place, longer: the same inode */
	put_dump(path, other, 4, 1);
	assert_int_equal(stat(path, &after), 0);
	assert_true(after.st_ino == before.st_ino);
	assert_int_equal(read_dump(f, &s), 4);
	assert_string_equal(s.all, "x,y,z,w");
	assert_int_equal(jitdump_restarts(f), 1);
	/* cut shorter */
	put_dump(path, two, 2, 1);
	assert_int_equal(read_dump(f, &s), 2);
	assert_string_equal(s.all, "p,q");
	assert_int_equal(jitdump_restarts(f), 2);
	assert_null(jitdump_problem(f));
	assert_int_equal(jitdump_bad(f), 0);
	jitdump_close(f);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_regular_only),
		cmocka_unit_test(test_map_symlink_not_read),
		cmocka_unit_test(test_map_judged_once),
		cmocka_unit_test(test_map_rewritten_in_place),
		cmocka_unit_test(test_map_budget),
		cmocka_unit_test(test_dump_symlink_fifo_judged),
		cmocka_unit_test(test_dump_rewritten),
	};

	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
