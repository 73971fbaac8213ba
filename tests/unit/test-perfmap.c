/*
 * test-perfmap.c - cli/record/jit/perfmap.c, the perf map a JIT runtime
 * writes for profilers (/tmp/perf-PID.map): each well-formed line comes
 * out as written, each malformed one is counted and skipped, and a map
 * followed as it grows hands over only what is wholly written, each
 * entry once, holding no more than one line however the writes fall; a
 * map written again is read again, and what is not a regular file is
 * not read.
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
#include "../../cli/util.c"

/* ---- perf maps ------------------------------------------------------- */

/* The entries a parse or read handed over, names copied. */
struct seen {
	int n;
	uint64_t start[16], size[16];
	char name[16][64];
};

static void
seen_entry(const struct perfmap_entry *e, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 16);
	assert_true(e->name_len < sizeof s->name[0]);
	s->start[s->n] = e->start;
	s->size[s->n] = e->size;
	memcpy(s->name[s->n], e->name, e->name_len);
	s->name[s->n][e->name_len] = '\0';
	s->n++;
}

static size_t
parse(const char *text, int at_eof, struct seen *s, unsigned long *bad)
{
	memset(s, 0, sizeof *s);
	*bad = 0;
	return perfmap_parse(text, strlen(text), at_eof, seen_entry, s, bad);
}

static void
test_perfmap_lines(void **state)
{
	const char *text =
	    "7f0000001000 40 LazyCompile:*hot /srv/app.js:2:14\n"
	    "0x7f0000002000 0X1f JS:~cold\n"
	    "7F0000003000\t\t 8  \tname\twith tabs  \n"
	    "\n"
	    "  10 1 a\r\n"
	    "fffffffffffffffe 1 top\n"
	    "\r\n";
	struct seen s;
	unsigned long bad;

	(void)state;
	assert_int_equal(parse(text, 0, &s, &bad), strlen(text));
	assert_int_equal(bad, 0);
	assert_int_equal(s.n, 5);
	assert_true(s.start[0] == 0x7f0000001000 && s.size[0] == 0x40);
	assert_string_equal(s.name[0], "LazyCompile:*hot /srv/app.js:2:14");
	assert_true(s.start[1] == 0x7f0000002000 && s.size[1] == 0x1f);
	assert_string_equal(s.name[1], "JS:~cold");
	assert_true(s.start[2] == 0x7f0000003000 && s.size[2] == 8);
	/* trailing blanks are the name's; a CRLF's '\r' is not */
	assert_string_equal(s.name[2], "name\twith tabs  ");
	assert_true(s.start[3] == 0x10 && s.size[3] == 1);
	assert_string_equal(s.name[3], "a");
	/* the last byte of the address space, and no further */
	assert_true(s.start[4] == 0xfffffffffffffffe && s.size[4] == 1);
	assert_string_equal(s.name[4], "top");
}

static void
test_perfmap_bad_lines(void **state)
{
	static const char *bad_lines[] = {
		"zz 10 no-start\n",
		"0x 10 prefix-without-digits\n",
		"10000000000000000 1 65-bits\n",
		"10\n",				/* no size */
		"10 zz no-size\n",
		"10,20 no-blank\n",
		"10 20,name\n",
		"10 0 size-0\n",
		"ffffffffffffffff 1 wraps\n",
		"fffffffffffffff0 11 wraps\n",
		"10 20\n",			/* no name */
		"10 20   \t\n",
		"   \n",
		"10 20 a\0b\n",			/* a NUL */
	};
	char line[PERFMAP_LINE_MAX + 16];
	struct seen s;
	unsigned long bad;

	(void)state;
	for (size_t i = 0; i < sizeof bad_lines / sizeof *bad_lines; i++) {
		/* each between two good lines, which it must not disturb */
		char text[128];
		size_t len = (size_t)snprintf(text, sizeof text, "1 1 a\n");
		size_t blen = i == 13 ? 10 : strlen(bad_lines[i]);

		memcpy(text + len, bad_lines[i], blen);
		len += blen;
		len += (size_t)snprintf(text + len, sizeof text - len, "2 2 b\n");
		memset(&s, 0, sizeof s);
		bad = 0;
		assert_int_equal(perfmap_parse(text, len, 0, seen_entry, &s,
		    &bad), len);
		if (bad != 1 || s.n != 2)
			fail_msg("line %zu (%s): %lu bad, %d taken", i,
			    bad_lines[i], bad, s.n);
		assert_string_equal(s.name[1], "b");
	}
	/* one byte longer than PERFMAP_LINE_MAX before its newline */
	memset(line, 'x', sizeof line);
	memcpy(line, "1 1 ", 4);
	line[PERFMAP_LINE_MAX + 1] = '\n';
	memset(&s, 0, sizeof s);
	bad = 0;
	assert_int_equal(perfmap_parse(line, PERFMAP_LINE_MAX + 2, 0,
	    seen_entry, &s, &bad), PERFMAP_LINE_MAX + 2);
	assert_int_equal(bad, 1);
	assert_int_equal(s.n, 0);
}

static void
count_entry(const struct perfmap_entry *e, void *arg)
{
	assert_true(e->name_len >= 1);
	(*(int *)arg)++;
}

/* A line of PERFMAP_LINE_MAX bytes before its newline is taken. */
static void
test_perfmap_line_max(void **state)
{
	char line[PERFMAP_LINE_MAX + 1];
	unsigned long bad = 0;
	int n = 0;

	(void)state;
	memset(line, 'x', sizeof line);
	memcpy(line, "1 1 ", 4);
	line[PERFMAP_LINE_MAX] = '\n';
	perfmap_parse(line, sizeof line, 0, count_entry, &n, &bad);
	assert_int_equal(n, 1);
	assert_int_equal(bad, 0);
}

static void
test_perfmap_unfinished_line(void **state)
{
	struct seen s;
	unsigned long bad;

	(void)state;
	/* the last line waits, unconsumed, unless at the end */
	assert_int_equal(parse("1 2 a\n3 4 b", 0, &s, &bad), 6);
	assert_int_equal(s.n, 1);
	assert_int_equal(parse("1 2 a\n3 4 b", 1, &s, &bad), 11);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.name[1], "b");
	assert_int_equal(parse("3 4", 0, &s, &bad), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(parse("3 4", 1, &s, &bad), 3);
	assert_int_equal(bad, 1);
	assert_int_equal(parse("", 1, &s, &bad), 0);
	assert_int_equal(s.n + (int)bad, 0);
}

static int
follow(struct perfmap_file *f, int at_end, struct seen *s)
{
	memset(s, 0, sizeof *s);
	return perfmap_read(f, at_end, SIZE_MAX, seen_entry, s);
}

static void
test_perfmap_follow(void **state)
{
	const char *path = tmp("perf-follow.map");
	struct perfmap_file *f;
	struct seen s;

	(void)state;
	unlink(path);
	f = perfmap_open(path, NULL, NULL);
	assert_non_null(f);
	assert_int_equal(follow(f, 0, &s), 0);		/* not there yet */
	append(path, "1000 10 first\n2000 20 sec");
	assert_int_equal(follow(f, 0, &s), 1);
	assert_string_equal(s.name[0], "first");
	assert_int_equal(follow(f, 0, &s), 0);		/* still unfinished */
	append(path, "ond\n3000 ");
	assert_int_equal(follow(f, 0, &s), 1);
	assert_string_equal(s.name[0], "second");
	assert_true(s.start[0] == 0x2000 && s.size[0] == 0x20);
	append(path, "30 last");
	assert_int_equal(follow(f, 0, &s), 0);
	/* the writer gone, what it left is a last line */
	assert_int_equal(follow(f, 1, &s), 1);
	assert_string_equal(s.name[0], "last");
	assert_int_equal(follow(f, 1, &s), 0);
	assert_int_equal(perfmap_bad(f), 0);
	assert_int_equal(perfmap_replaced(f), 0);
	perfmap_close(f);
	perfmap_close(NULL);
}

static void
test_perfmap_overlong_across_reads(void **state)
{
	const char *path = tmp("perf-long.map");
	static char big[3 * 65536];
	struct perfmap_file *f;
	struct seen s;

	(void)state;
	unlink(path);
	f = perfmap_open(path, NULL, NULL);
	append(path, "1 1 before\n");
	memset(big, 'y', 3000);
	write_file(path, big, 3000, 1);
	assert_int_equal(follow(f, 0, &s), 1);
	assert_int_equal(perfmap_bad(f), 0);		/* 3000 may yet end */
	assert_true(f->held == 3000);
	write_file(path, big, 2000, 1);
	assert_int_equal(follow(f, 0, &s), 0);
	assert_int_equal(perfmap_bad(f), 1);		/* 5000: too long now */
	assert_true(f->held == 0 && f->skipping);
	/* more of it, past a read's chunk: skipped, not held, not counted */
	memset(big, 'z', sizeof big);
	big[1000] = '\0';	/* in a skipped line: nothing to anyone */
	write_file(path, big, sizeof big, 1);
	assert_int_equal(follow(f, 0, &s), 0);
	assert_int_equal(perfmap_bad(f), 1);
	assert_true(f->held == 0);
	append(path, "tail of it\n2 2 after\n");
	assert_int_equal(follow(f, 0, &s), 1);
	assert_string_equal(s.name[0], "after");
	assert_int_equal(perfmap_bad(f), 1);
	/* a line that grows too long in one read, then one at the end */
	memset(big, 'w', 70000);
	big[69000] = '\n';
	memcpy(big + 69001, "3 3 x", 5);
	write_file(path, big, 69006, 1);
	assert_int_equal(follow(f, 0, &s), 0);
	assert_int_equal(perfmap_bad(f), 2);
	memset(big, 'v', 5000);
	write_file(path, big, 5000, 1);		/* "3 3 x" + 5000: too long */
	assert_int_equal(follow(f, 1, &s), 0);
	assert_int_equal(perfmap_bad(f), 3);
	perfmap_close(f);
}

static void
test_perfmap_replaced(void **state)
{
	const char *path = tmp("perf-replaced.map");
	const char *next = tmp("perf-replaced.map.new");
	struct perfmap_file *f;
	struct seen s;

	(void)state;
	unlink(path);
	f = perfmap_open(path, NULL, NULL);
	append(path, "1 1 old-a\n2 2 old-b\n3 3 unfini");
	assert_int_equal(follow(f, 0, &s), 2);
	/* another file at the path: read from its start, no old bytes kept */
	write_file(next, "4 4 new\n", 8, 0);
	assert_int_equal(rename(next, path), 0);
	assert_int_equal(follow(f, 0, &s), 1);
	assert_string_equal(s.name[0], "new");
	assert_int_equal(perfmap_replaced(f), 1);
	perfmap_close(f);

	/* the same file cut shorter than was read: read again */
	write_file(path, "1 1 first-run\n2 2 more\n", 23, 0);
	f = perfmap_open(path, NULL, NULL);
	assert_int_equal(follow(f, 0, &s), 2);
	assert_int_equal(perfmap_replaced(f), 0);
	write_file(path, "5 5 again\n", 10, 0);
	assert_int_equal(follow(f, 0, &s), 1);
	assert_string_equal(s.name[0], "again");
	assert_int_equal(perfmap_replaced(f), 1);
	assert_int_equal(perfmap_bad(f), 0);
	perfmap_close(f);
}

static void
test_perfmap_not_regular(void **state)
{
	const char *path = tmp("perf-fifo.map");
	struct perfmap_file *f;
	struct seen s;

	(void)state;
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	f = perfmap_open(path, NULL, NULL);
	/* not opened blocking, waiting for a writer: refused at once */
	assert_int_equal(follow(f, 0, &s), -1);
	assert_int_equal(errno, EINVAL);
	perfmap_close(f);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perfmap_lines),
		cmocka_unit_test(test_perfmap_bad_lines),
		cmocka_unit_test(test_perfmap_line_max),
		cmocka_unit_test(test_perfmap_unfinished_line),
		cmocka_unit_test(test_perfmap_follow),
		cmocka_unit_test(test_perfmap_overlong_across_reads),
		cmocka_unit_test(test_perfmap_replaced),
		cmocka_unit_test(test_perfmap_not_regular),
	};

	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
