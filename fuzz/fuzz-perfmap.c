/*
 * fuzz-perfmap.c - the perf map reader (cli/record/jit/perfmap.c) fed
 * anything, parsed whole and followed as a file written in pieces: what
 * it takes is a range of at least a byte that does not wrap, named by
 * bytes of its own line (at least one, no newline, no NUL); it consumes
 * whole lines only; and the file read as it grows, however the writes
 * fall, gives the entries and the bad lines of the whole parsed at once.
 */
#include <fcntl.h>
#include <unistd.h>

#include "fuzz.h"
#include "record/jit/perfmap.h"

/* The map file the follower reads: a file of its own. */
static int map_fd = -1;
static char map_path[4200];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	map_fd = fuzz_scratch_file("perf-1.map", map_path, sizeof map_path);
	return 0;
}

/* The entries of one way of reading, in order, as a running hash. */
struct taken {
	const uint8_t *lo, *hi;	/* where names must lie (NULL: anywhere) */
	unsigned long n;
	uint64_t hash;
};

static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void
take(const struct perfmap_entry *e, void *arg)
{
	struct taken *t = arg;
	const uint8_t *name = (const uint8_t *)e->name;

	if (e->size == 0 || e->size > UINT64_MAX - e->start)
		fuzz_fail("range %llx + %llx taken", (unsigned long long)e->start,
		    (unsigned long long)e->size);
	if (e->name_len == 0 || e->name_len > PERFMAP_LINE_MAX)
		fuzz_fail("a name of %zu bytes", e->name_len);
	if (t->lo != NULL && (name < t->lo || name > t->hi ||
	    e->name_len > (size_t)(t->hi - name)))
		fuzz_fail("a name outside the buffer");
	if (memchr(name, '\n', e->name_len) != NULL ||
	    memchr(name, '\0', e->name_len) != NULL)
		fuzz_fail("a newline or NUL in a name");
	t->n++;
	t->hash = mix(t->hash, &e->start, sizeof e->start);
	t->hash = mix(t->hash, &e->size, sizeof e->size);
	t->hash = mix(t->hash, &e->name_len, sizeof e->name_len);
	t->hash = mix(t->hash, name, e->name_len);
}

/* The whole input at once: the entries, and the lines found bad. */
static void
parse_whole(const uint8_t *data, size_t size, struct taken *t,
    unsigned long *bad)
{
	const char *buf = (const char *)data;
	struct taken first = { data, data + size, 0, 0 };
	unsigned long bad_first = 0;
	size_t used;

	/* not at the end: whole lines only, all of them */
	used = perfmap_parse(buf, size, 0, take, &first, &bad_first);
	if (used > size || (used > 0 && buf[used - 1] != '\n') ||
	    memchr(buf + used, '\n', size - used) != NULL)
		fuzz_fail("consumed %zu of %zu, not up to the last newline",
		    used, size);
	*t = (struct taken){ data, data + size, 0, 0 };
	*bad = 0;
	if (perfmap_parse(buf, size, 1, take, t, bad) != size)
		fuzz_fail("not all consumed at the end");
	if (t->n < first.n || *bad < bad_first || t->n + *bad > first.n +
	    bad_first + 1)
		fuzz_fail("the last line counted more than once");
}

/* The input written to the map file in pieces, read after each. */
static void
follow(const uint8_t *data, size_t size, struct taken *t, unsigned long *bad)
{
	struct perfmap_file *f = perfmap_open(map_path, NULL, NULL);
	uint64_t seed = mix(0xcbf29ce484222325ull, data, size < 16 ? size : 16);
	size_t at = 0;

	*t = (struct taken){ NULL, NULL, 0, 0 };
	if (ftruncate(map_fd, 0) < 0)
		fuzz_fail("ftruncate failed");
	for (;;) {
		size_t piece;
		int r;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		piece = (size_t)(seed >> 33) % (size / 3 + 2);
		if (piece > size - at)
			piece = size - at;
		if (piece > 0 && pwrite(map_fd, data + at, piece, (off_t)at) !=
		    (ssize_t)piece)
			fuzz_fail("pwrite failed");
		at += piece;
		r = perfmap_read(f, at == size, SIZE_MAX, take, t);
		if (r < 0)
			fuzz_fail("perfmap_read failed");
		if (at == size)
			break;
	}
	if (perfmap_replaced(f))
		fuzz_fail("a file that only grew was taken as replaced");
	*bad = perfmap_bad(f);
	perfmap_close(f);
}

/* The entries and bad lines of data, held to the promises above. */
static void
check(const uint8_t *data, size_t size, struct taken *t, unsigned long *bad)
{
	struct taken followed;
	unsigned long bad_followed;

	parse_whole(data, size, t, bad);
	follow(data, size, &followed, &bad_followed);
	if (followed.n != t->n || followed.hash != t->hash ||
	    bad_followed != *bad)
		fuzz_fail("followed: %lu entries, %lu bad; whole: %lu, %lu",
		    followed.n, bad_followed, t->n, *bad);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct taken t;
	unsigned long bad;

	check(data, size, &t, &bad);
	return 0;
}

const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	struct taken t;
	unsigned long bad;

	check(data, size, &t, &bad);
	if (strncmp(name, "ok-", 3) == 0 && (t.n == 0 || bad != 0))
		return "a valid perf map gave no entries, or bad lines";
	if (strncmp(name, "bad-", 4) == 0 && bad == 0)
		return "a malformed line was not counted bad";
	return NULL;
}
