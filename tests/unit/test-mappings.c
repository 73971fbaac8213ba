/*
 * test-mappings.c - the writable check from /proc/self/maps: its line
 * parser, its answers on real mappings (holes, read-only pages, a span
 * over two mappings), the same answers from the probe fallback, and that
 * it touches no page.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "plan/fault.h"
#include "plan/mappings.h"

static int
parse(const char *line, uintptr_t *start, uintptr_t *end, int *writable)
{
	return mappings_parse_line(line, strlen(line), start, end, writable);
}

static void
test_parse_line(void **state)
{
	uintptr_t start, end;
	int w;

	(void)state;
	assert_int_equal(parse("55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0"
	    "                          [heap]", &start, &end, &w), 0);
	assert_true(start == 0x55d0c0a00000 && end == 0x55d0c0a21000 && w == 1);
	assert_int_equal(parse("7f00-8000 r--s 00001000 08:01 1234 /lib/x.so",
	    &start, &end, &w), 0);
	assert_true(start == 0x7f00 && end == 0x8000 && w == 0);
	assert_int_equal(parse("ffffffffff600000-ffffffffff601000 --xp 00000000 "
	    "00:00 0  [vsyscall]", &start, &end, &w), 0);
	assert_int_equal(w, 0);
	/* the perms may end the line */
	assert_int_equal(parse("1000-2000 -w-p", &start, &end, &w), 0);
	assert_int_equal(w, 1);

	assert_int_equal(parse("", &start, &end, &w), -1);
	assert_int_equal(parse("1000-2000", &start, &end, &w), -1);
	assert_int_equal(parse("1000-2000 rw", &start, &end, &w), -1);
	assert_int_equal(parse("1000 2000 rw-p", &start, &end, &w), -1);
	assert_int_equal(parse("-2000 rw-p", &start, &end, &w), -1);
	assert_int_equal(parse("2000-1000 rw-p", &start, &end, &w), -1);
	assert_int_equal(parse("1000-1000 rw-p", &start, &end, &w), -1);
	assert_int_equal(parse("1000-2000 rwzp", &start, &end, &w), -1);
	assert_int_equal(parse("1000-2000 rw-pq", &start, &end, &w), -1);
	assert_int_equal(parse("1000-12345678901234567 rw-p", &start, &end, &w), -1);
	assert_int_equal(parse("1000-2000\trw-p", &start, &end, &w), -1);
	/* the length is the line's: what follows it is not read */
	assert_int_equal(mappings_parse_line("1000-2000 rw-p", 9, &start, &end,
	    &w), -1);
}

/* The answers of m on a layout with every case; same for either mode. */
static void
check_layout(const struct mappings *m, char *p, size_t page)
{
	/* p: rw | r-- | hole | rw (private) | rw (shared) */
	assert_int_equal(mappings_writable(m, p, page), 1);
	assert_int_equal(mappings_writable(m, p + page - 2, 2), 1);
	assert_int_equal(mappings_writable(m, p + page - 2, 3), 0);
	assert_int_equal(mappings_writable(m, p + page, 1), 0);
	assert_int_equal(mappings_writable(m, p + 2 * page, 1), 0);
	assert_int_equal(mappings_writable(m, p + 2 * page - 1, 2), 0);
	/* across two mappings, both writable */
	assert_int_equal(mappings_writable(m, p + 3 * page, 2 * page), 1);
	assert_int_equal(mappings_writable(m, p + 4 * page - 8, 16), 1);
	assert_int_equal(mappings_writable(m, p, 5 * page), 0);
	assert_int_equal(mappings_writable(m, p, 0), 1);
	assert_int_equal(mappings_writable(m, NULL, 1), 0);
	assert_int_equal(mappings_writable(m, (void *)(UINTPTR_MAX - 1), 4), 0);
}

static void
test_answers_from_the_maps_and_from_probes(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 5 * page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct mappings m;
	unsigned char v[1];

	(void)state;
	assert_true(p != MAP_FAILED);
	assert_int_equal(mprotect(p + page, page, PROT_READ), 0);
	assert_int_equal(munmap(p + 2 * page, page), 0);
	assert_true(mmap(p + 4 * page, page, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p + 4 * page);

	mappings_read(&m);
	assert_int_equal(m.probe, 0);
	check_layout(&m, p, page);
	/* the hole is still one (nothing took it meanwhile) */
	assert_int_equal(mincore(p + 2 * page, page, v), -1);
	assert_int_equal(errno, ENOMEM);
	/* asked, not touched: no page of the writable ones is resident */
	assert_int_equal(mincore(p, page, v), 0);
	assert_int_equal(v[0] & 1, 0);
	assert_int_equal(mincore(p + 3 * page, page, v), 0);
	assert_int_equal(v[0] & 1, 0);
	mappings_free(&m);

	/* the fallback where /proc is not there */
	assert_int_equal(fault_install(), 0);
	memset(&m, 0, sizeof m);
	m.probe = 1;
	check_layout(&m, p, page);
	munmap(p, 2 * page);
	munmap(p + 3 * page, 2 * page);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_line),
		cmocka_unit_test(test_answers_from_the_maps_and_from_probes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
