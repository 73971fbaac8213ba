/*
 * fuzz-jitdump.c - the jitdump reader (cli/record/jit/jitdump.c) fed
 * anything, as records parsed whole and as a file followed while it is
 * written in pieces.  Every pointer handed over lies in the buffer with
 * all the bytes it is said to have (names and file names NUL-terminated
 * there, code_size >= 1 bytes of code, the unwinding tables one after
 * the other); no line's file is left "\xff"; the parse consumes whole
 * records and stops only before one not wholly there or below 16 bytes;
 * and the file followed gives the header and records of the whole.
 */
#include <fcntl.h>
#include <unistd.h>

#include "fuzz.h"
#include "record/jit/jitdump.h"

/* The jitdump file the follower reads: a file of its own. */
static int dump_fd = -1;
static char dump_path[4200];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	dump_fd = fuzz_scratch_file("jit-1.dump", dump_path, sizeof dump_path);
	return 0;
}

/* The records of one way of reading, in order, as a running hash. */
struct taken {
	const unsigned char *lo, *hi;	/* the buffer (NULL: unchecked) */
	unsigned long n;
	uint64_t hash;
};

static void
mix(struct taken *t, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		t->hash = (t->hash ^ b[i]) * 0x100000001b3ull;
}

static void
mix64(struct taken *t, uint64_t v)
{
	mix(t, &v, sizeof v);
}

/* p[0..n) in the buffer. */
static void
in_buffer(const struct taken *t, const void *p, size_t n, const char *what)
{
	const unsigned char *q = p;

	if (t->lo != NULL && (q < t->lo || q > t->hi ||
	    n > (size_t)(t->hi - q)))
		fuzz_fail("%s outside the buffer", what);
}

/* A NUL-terminated string in the buffer: its length. */
static size_t
string_in_buffer(const struct taken *t, const char *s, const char *what)
{
	const unsigned char *q = (const unsigned char *)s;

	if (t->lo != NULL) {
		in_buffer(t, s, 0, what);
		if (memchr(q, '\0', (size_t)(t->hi - q)) == NULL)
			fuzz_fail("%s not NUL-terminated in the buffer", what);
	}
	return strlen(s);
}

static void
take_load(const struct jitdump_load *l, void *arg)
{
	struct taken *t = arg;
	size_t len = string_in_buffer(t, l->name, "a name");

	if (len > JITDUMP_NAME_MAX)
		fuzz_fail("a name of %zu bytes", len);
	if (l->code_size == 0 || l->code_size > SIZE_MAX)
		fuzz_fail("code of %llu bytes", (unsigned long long)l->code_size);
	in_buffer(t, l->code, (size_t)l->code_size, "code");
	t->n++;
	mix64(t, 0);
	mix64(t, l->timestamp);
	mix64(t, (uint64_t)l->pid << 32 | l->tid);
	mix64(t, l->vma);
	mix64(t, l->code_addr);
	mix64(t, l->code_size);
	mix64(t, l->code_index);
	mix(t, l->name, len);
	mix(t, l->code, (size_t)l->code_size);
}

static void
take_move(const struct jitdump_move *m, void *arg)
{
	struct taken *t = arg;

	t->n++;
	mix64(t, 1);
	mix64(t, m->timestamp);
	mix64(t, (uint64_t)m->pid << 32 | m->tid);
	mix64(t, m->vma);
	mix64(t, m->old_code_addr);
	mix64(t, m->new_code_addr);
	mix64(t, m->code_size);
	mix64(t, m->code_index);
}

static void
take_debug(const struct jitdump_debug *d, void *arg)
{
	struct taken *t = arg;

	if (d->n > 0 && d->lines == NULL)
		fuzz_fail("%zu lines and no array", d->n);
	t->n++;
	mix64(t, 2);
	mix64(t, d->timestamp);
	mix64(t, d->code_addr);
	mix64(t, d->n);
	for (size_t i = 0; i < d->n; i++) {
		const struct jitdump_line *l = &d->lines[i];
		size_t len = string_in_buffer(t, l->file, "a file name");

		if (len == 1 && (unsigned char)l->file[0] == 0xff)
			fuzz_fail("line %zu's file left \"\\xff\"", i);
		mix64(t, l->addr);
		mix64(t, (uint64_t)l->line << 32 | l->discrim);
		mix(t, l->file, len);
	}
}

static void
take_unwind(const struct jitdump_unwind *u, void *arg)
{
	struct taken *t = arg;

	in_buffer(t, u->eh_frame, u->eh_frame_size, ".eh_frame");
	in_buffer(t, u->eh_frame_hdr, u->hdr_size, ".eh_frame_hdr");
	if (u->hdr_size != u->eh_frame_hdr_size ||
	    u->eh_frame_hdr != u->eh_frame + u->eh_frame_size)
		fuzz_fail("the unwinding tables do not follow one another");
	t->n++;
	mix64(t, 4);
	mix64(t, u->timestamp);
	mix64(t, u->eh_frame_hdr_size);
	mix64(t, u->mapped_size);
	mix(t, u->eh_frame, u->eh_frame_size);
	mix(t, u->eh_frame_hdr, u->hdr_size);
}

static void
take_close(uint64_t timestamp, void *arg)
{
	struct taken *t = arg;

	t->n++;
	mix64(t, 3);
	mix64(t, timestamp);
}

static const struct jitdump_ops take_ops = {
	take_load, take_move, take_debug, take_unwind, take_close
};

static uint32_t
u32_at(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/*
 * The records of buf[0..len) parsed whole: consumed, *bad, *broken,
 * and whether the record it stopped before is one the follower skips
 * unread (longer than JITDUMP_RECORD_MAX).
 */
static size_t
parse_whole(const unsigned char *buf, size_t len, struct taken *t,
    unsigned long *bad, int *broken, int *skipped)
{
	size_t used, rest;

	*t = (struct taken){ buf, buf + len, 0, 0 };
	*bad = 0;
	*broken = 0;
	used = jitdump_parse(buf, len, &take_ops, t, bad, broken);
	if (used > len)
		fuzz_fail("consumed %zu of %zu", used, len);
	rest = len - used;
	*skipped = 0;
	if (*broken) {
		if (rest < 8 || u32_at(buf + used + 4) >= 16)
			fuzz_fail("broken at a record of %u bytes",
			    rest < 8 ? 0 : u32_at(buf + used + 4));
	} else if (rest >= 8) {
		uint32_t size = u32_at(buf + used + 4);

		if (size < 16 || size <= rest)
			fuzz_fail("stopped before a record of %u bytes, %zu "
			    "there", size, rest);
		*skipped = size > JITDUMP_RECORD_MAX;
	}
	return used;
}

/* What a reading gave: the header's answer, the records, the problem. */
struct outcome {
	int header;			/* jitdump_header's */
	struct jitdump_header h;
	struct taken t;
	unsigned long bad;
	int broken, skipped;
	size_t rest;			/* bytes after the header unconsumed */
};

static void
whole(const uint8_t *data, size_t size, struct outcome *o)
{
	struct taken any;
	unsigned long bad;
	size_t header_size = 0;
	int broken, skipped;

	/* the bytes as records, whatever they are */
	parse_whole(data, size, &any, &bad, &broken, &skipped);
	memset(o, 0, sizeof *o);
	o->header = jitdump_header(data, size, &o->h, &header_size);
	if (o->header != 1)
		return;
	if (header_size < JITDUMP_HEADER_MIN || header_size > 4096 ||
	    header_size > size)
		fuzz_fail("a header of %zu bytes taken", header_size);
	o->rest = size - header_size - parse_whole(data + header_size,
	    size - header_size, &o->t, &o->bad, &o->broken, &o->skipped);
}

/* The input written to the file in pieces, read after each. */
static void
follow(const uint8_t *data, size_t size, const struct outcome *o)
{
	struct jitdump_file *f = jitdump_open(dump_path, NULL, NULL);
	const struct jitdump_header *h;
	struct taken t = { NULL, NULL, 0, 0 };
	uint64_t seed = 0xcbf29ce484222325ull;
	unsigned long counted = 0;
	size_t at = 0;
	int refused = 0;

	for (size_t i = 0; i < size && i < 64; i++)
		seed = (seed ^ data[i]) * 0x100000001b3ull;
	if (ftruncate(dump_fd, 0) < 0)
		fuzz_fail("ftruncate failed");
	do {
		size_t piece;
		int r;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		piece = (size_t)(seed >> 33) % (size / 3 + 2);
		if (piece > size - at)
			piece = size - at;
		if (piece > 0 && pwrite(dump_fd, data + at, piece, (off_t)at) !=
		    (ssize_t)piece)
			fuzz_fail("pwrite failed");
		at += piece;
		r = jitdump_read(f, SIZE_MAX, &take_ops, &t);
		if (r < 0 && (refused++ || jitdump_problem(f) == NULL))
			fuzz_fail("refused twice, or without a cause");
		if (r >= 0)
			counted += (unsigned long)r;
	} while (at < size);
	h = jitdump_header_of(f);
	if ((o->header == -1 || o->broken) != (jitdump_problem(f) != NULL) ||
	    refused != (jitdump_problem(f) != NULL))
		fuzz_fail("problem \"%s\" for a header %d, broken %d",
		    jitdump_problem(f) ? jitdump_problem(f) : "", o->header,
		    o->broken);
	if ((h != NULL) != (o->header == 1) || (h != NULL && (h->pid !=
	    o->h.pid || h->elf_mach != o->h.elf_mach || h->timestamp !=
	    o->h.timestamp || h->flags != o->h.flags)))
		fuzz_fail("followed, the header is another");
	if (t.n != o->t.n || t.hash != o->t.hash ||
	    jitdump_bad(f) != o->bad + (unsigned long)o->skipped)
		fuzz_fail("followed: %lu records, %lu bad; whole: %lu, %lu",
		    t.n, jitdump_bad(f), o->t.n, o->bad);
	if (!refused && counted != t.n)
		fuzz_fail("%lu records said, %lu handed over", counted, t.n);
	jitdump_close(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome o;

	whole(data, size, &o);
	follow(data, size, &o);
	return 0;
}

const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	struct outcome o;

	whole(data, size, &o);
	if (strncmp(name, "ok-", 3) == 0 && (o.header != 1 || o.bad != 0 ||
	    o.broken || o.rest != 0 || o.t.n == 0))
		return "a valid jitdump file was not read whole";
	if (strncmp(name, "bad-", 4) == 0 && o.header != -1 && o.bad == 0 &&
	    !o.broken)
		return "a malformed jitdump file was taken";
	return NULL;
}
