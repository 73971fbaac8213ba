/*
 * test-jitdump.c - cli/record/jitdump.c, the jitdump file a JIT runtime
 * writes for profilers: its header, each well-formed record as written,
 * each malformed one counted and skipped, and a file followed as it grows
 * handing over only what is wholly written, each record once, holding no
 * more than one record however the writes fall; and
 * cli/record/jit/jit-tables.c, whose ELF images of a record's unwind tables
 * libdw reads the rules from.
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

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>

#include "e2e.h"
#include "harness.h"
#include "../programs/jit-eh.h"
#include "jit-bytes.h"

#include "../../cli/record/jit/jitfile.c"
#include "../../cli/record/jit/jitdump.c"
#include "../../cli/record/jit/jitdump-follow.c"
#include "../../cli/record/jit/jit-tables.c"
#include "../../cli/util.c"

/* ---- jitdump --------------------------------------------------------- */

/* What the parser handed over, copied. */
struct got {
	int loads, moves, debugs, unwinds, closes;
	struct jitdump_load load;
	char name[64];
	char code[64];
	struct jitdump_move move;
	uint64_t debug_addr;
	size_t nlines;
	struct { uint64_t addr; uint32_t line, discrim; char file[32]; } lines[8];
	uint64_t eh_frame_hdr_size, mapped_size;
	char eh_frame[32], eh_frame_hdr[32];
	size_t eh_frame_size, hdr_size;
	uint64_t close_ts;
	const unsigned char *lo, *hi;	/* where pointers may point, */
	const struct jitdump_file *f;	/*   or in what f holds */
};

static void
in_buffer(const struct got *g, const void *p, size_t n)
{
	const unsigned char *q = p;

	if (g->f != NULL) {
		assert_true(q >= g->f->buf && q <= g->f->buf + g->f->held &&
		    n <= (size_t)(g->f->buf + g->f->held - q));
		return;
	}
	assert_true(q >= g->lo && q <= g->hi && n <= (size_t)(g->hi - q));
}

static void
got_load(const struct jitdump_load *l, void *arg)
{
	struct got *g = arg;

	in_buffer(g, l->name, strlen(l->name) + 1);
	in_buffer(g, l->code, l->code_size);
	g->loads++;
	g->load = *l;
	snprintf(g->name, sizeof g->name, "%s", l->name);
	assert_true(l->code_size < sizeof g->code);
	memcpy(g->code, l->code, l->code_size);
}

static void
got_move(const struct jitdump_move *m, void *arg)
{
	struct got *g = arg;

	g->moves++;
	g->move = *m;
}

static void
got_debug(const struct jitdump_debug *d, void *arg)
{
	struct got *g = arg;

	g->debugs++;
	g->debug_addr = d->code_addr;
	g->nlines = d->n;
	assert_true(d->n <= 8);
	for (size_t i = 0; i < d->n; i++) {
		in_buffer(g, d->lines[i].file, strlen(d->lines[i].file) + 1);
		g->lines[i].addr = d->lines[i].addr;
		g->lines[i].line = d->lines[i].line;
		g->lines[i].discrim = d->lines[i].discrim;
		snprintf(g->lines[i].file, sizeof g->lines[i].file, "%s",
		    d->lines[i].file);
	}
}

static void
got_unwind(const struct jitdump_unwind *u, void *arg)
{
	struct got *g = arg;

	in_buffer(g, u->eh_frame, u->eh_frame_size);
	in_buffer(g, u->eh_frame_hdr, u->hdr_size);
	g->unwinds++;
	g->eh_frame_hdr_size = u->eh_frame_hdr_size;
	g->mapped_size = u->mapped_size;
	g->eh_frame_size = u->eh_frame_size;
	g->hdr_size = u->hdr_size;
	assert_true(u->eh_frame_size < 32 && u->hdr_size < 32);
	memcpy(g->eh_frame, u->eh_frame, u->eh_frame_size);
	memcpy(g->eh_frame_hdr, u->eh_frame_hdr, u->hdr_size);
}

static void
got_close(uint64_t timestamp, void *arg)
{
	struct got *g = arg;

	g->closes++;
	g->close_ts = timestamp;
}

static const struct jitdump_ops got_ops = {
	got_load, got_move, got_debug, got_unwind, got_close
};

static size_t
parse_records(const struct bytes *o, size_t from, size_t len, struct got *g,
    unsigned long *bad, int *broken)
{
	memset(g, 0, sizeof *g);
	g->lo = o->b + from;
	g->hi = o->b + from + len;
	*bad = 0;
	*broken = 0;
	return jitdump_parse(o->b + from, len, &got_ops, g, bad, broken);
}

static void
test_jitdump_header(void **state)
{
	struct jitdump_header h;
	struct bytes *o = calloc(1, sizeof *o);
	size_t size = 0;

	(void)state;
	put_header(o, JITDUMP_MAGIC, 1, 48);
	assert_int_equal(jitdump_header(o->b, o->n, &h, &size), 1);
	assert_int_equal(size, 48);
	assert_int_equal(h.version, 1);
	assert_int_equal(h.elf_mach, 62);
	assert_int_equal(h.pid, 4242);
	assert_true(h.timestamp == 123456789 && h.flags == 1);
	/* short of its total_size, or of the size itself: wait */
	assert_int_equal(jitdump_header(o->b, 47, &h, &size), 0);
	assert_int_equal(jitdump_header(o->b, 11, &h, &size), 0);
	assert_int_equal(jitdump_header(o->b, 0, &h, &size), 0);
	/* refused as soon as what is there says so */
	o->n = 0;
	put_header(o, 0x4454694Au, 1, 40);	/* byte-swapped */
	assert_int_equal(jitdump_header(o->b, 4, &h, &size), -1);
	o->n = 0;
	put_header(o, 0x12345678u, 1, 40);
	assert_int_equal(jitdump_header(o->b, o->n, &h, &size), -1);
	o->n = 0;
	put_header(o, JITDUMP_MAGIC, 2, 40);
	assert_int_equal(jitdump_header(o->b, 8, &h, &size), -1);
	o->n = 0;
	put_header(o, JITDUMP_MAGIC, 1, 39);
	assert_int_equal(jitdump_header(o->b, o->n, &h, &size), -1);
	o->n = 0;
	put_header(o, JITDUMP_MAGIC, 1, 4097);
	assert_int_equal(jitdump_header(o->b, o->n, &h, &size), -1);
	free(o);
}

/* A file of every record kind, as a runtime writes them. */
static void
put_every_kind(struct bytes *o)
{
	size_t at;

	put_load(o, "JS:*hot", 0x7f0000001000, "\x55\x48\x89\xe5\xc3", 5);
	at = begin_record(o, 1, 2000);		/* CODE_MOVE */
	put32(o, 4242);
	put32(o, 4244);
	put64(o, 0x7f0000002000);
	put64(o, 0x7f0000001000);
	put64(o, 0x7f0000002000);
	put64(o, 5);
	put64(o, 7);
	end_record(o, at);
	at = begin_record(o, 2, 3000);		/* DEBUG_INFO */
	put64(o, 0x7f0000002000);
	put64(o, 3);
	put64(o, 0x7f0000002000);
	put32(o, 10);
	put32(o, 0);
	put(o, "/srv/app.js", 12);
	put64(o, 0x7f0000002002);
	put32(o, 11);
	put32(o, 2);
	put(o, "\xff", 2);			/* the same file */
	put64(o, 0x7f0000002004);
	put32(o, 3);
	put32(o, 0);
	put(o, "/srv/lib.js", 12);
	put(o, "\0\0\0\0\0", 5);		/* padding to 8 */
	end_record(o, at);
	at = begin_record(o, 4, 4000);		/* UNWINDING_INFO */
	put64(o, 7);				/* unwinding_size */
	put64(o, 3);				/* eh_frame_hdr_size */
	put64(o, 4096);				/* mapped_size */
	put(o, "FRAMHDR\0", 8);			/* 7, and padding */
	end_record(o, at);
	at = begin_record(o, 77, 5000);		/* a later kind: skipped */
	put(o, "future", 6);
	end_record(o, at);
	at = begin_record(o, 3, 6000);		/* CODE_CLOSE */
	end_record(o, at);
}

static void
test_jitdump_records(void **state)
{
	struct bytes *o = calloc(1, sizeof *o);
	struct got *g = calloc(1, sizeof *g);
	unsigned long bad;
	int broken;

	(void)state;
	put_every_kind(o);
	assert_int_equal(parse_records(o, 0, o->n, g, &bad, &broken), o->n);
	assert_int_equal(bad, 0);
	assert_int_equal(broken, 0);
	assert_int_equal(g->loads, 1);
	assert_string_equal(g->name, "JS:*hot");
	assert_memory_equal(g->code, "\x55\x48\x89\xe5\xc3", 5);
	assert_true(g->load.code_size == 5 && g->load.code_addr ==
	    0x7f0000001000 && g->load.vma == 0x7f0000001000);
	assert_true(g->load.pid == 4242 && g->load.tid == 4243 &&
	    g->load.code_index == 7 && g->load.timestamp == 1000);
	assert_int_equal(g->moves, 1);
	assert_true(g->move.old_code_addr == 0x7f0000001000 &&
	    g->move.new_code_addr == 0x7f0000002000 && g->move.code_size == 5 &&
	    g->move.code_index == 7 && g->move.tid == 4244 &&
	    g->move.timestamp == 2000);
	assert_int_equal(g->debugs, 1);
	assert_true(g->debug_addr == 0x7f0000002000);
	assert_int_equal(g->nlines, 3);
	assert_true(g->lines[1].addr == 0x7f0000002002 && g->lines[1].line ==
	    11 && g->lines[1].discrim == 2);
	assert_string_equal(g->lines[0].file, "/srv/app.js");
	assert_string_equal(g->lines[1].file, "/srv/app.js");	/* "\xff" */
	assert_string_equal(g->lines[2].file, "/srv/lib.js");
	assert_int_equal(g->unwinds, 1);
	assert_int_equal(g->eh_frame_size, 4);
	assert_memory_equal(g->eh_frame, "FRAM", 4);
	assert_int_equal(g->hdr_size, 3);
	assert_memory_equal(g->eh_frame_hdr, "HDR", 3);
	assert_true(g->eh_frame_hdr_size == 3 && g->mapped_size == 4096);
	assert_int_equal(g->closes, 1);
	assert_true(g->close_ts == 6000);
	free(g);
	free(o);
}

static void
test_jitdump_truncated_waits(void **state)
{
	struct bytes *o = calloc(1, sizeof *o);
	struct got *g = calloc(1, sizeof *g);
	unsigned long bad;
	size_t first;
	int broken;

	(void)state;
	put_load(o, "a", 0x1000, "\xc3", 1);
	first = o->n;
	put_load(o, "b", 0x2000, "\x90\xc3", 2);
	/* cut anywhere in the second: the first, and a wait */
	for (size_t cut = first; cut < o->n; cut++) {
		assert_int_equal(parse_records(o, 0, cut, g, &bad, &broken),
		    first);
		assert_int_equal(g->loads, 1);
		assert_string_equal(g->name, "a");
		assert_int_equal(bad + (unsigned long)broken, 0);
	}
	assert_int_equal(parse_records(o, first, o->n - first, g, &bad,
	    &broken), o->n - first);
	assert_int_equal(g->loads, 1);
	assert_string_equal(g->name, "b");
	free(g);
	free(o);
}

/* A DEBUG_INFO record of entries with the given file names. */
static void
put_debug(struct bytes *o, uint64_t nr, const char *const *files,
    size_t nfiles)
{
	size_t at = begin_record(o, 2, 1);

	put64(o, 0x1000);
	put64(o, nr);
	for (size_t i = 0; i < nfiles; i++) {
		put64(o, 0x1000 + i);
		put32(o, (uint32_t)i + 1);
		put32(o, 0);
		put(o, files[i], strlen(files[i]) + 1);
	}
	end_record(o, at);
}

static void
test_jitdump_bad_records(void **state)
{
	static char long_name[JITDUMP_NAME_MAX + 2];
	struct bytes *o = calloc(1, sizeof *o);
	struct got *g = calloc(1, sizeof *g);
	const char *files[] = { "/a.js", "\xff", "/b.js" };
	const char *xff_first[] = { "\xff", "/a.js" };
	unsigned long bad;
	size_t at;
	int broken, nbad = 0;

	(void)state;
	/* a name of JITDUMP_NAME_MAX bytes is taken, one more is not */
	memset(long_name, 'n', JITDUMP_NAME_MAX);
	put_load(o, long_name, 0x1000, "\xc3", 1);
	long_name[JITDUMP_NAME_MAX] = 'n';
	put_load(o, long_name, 0x1000, "\xc3", 1), nbad++;
	/* a name without its NUL: the record's end reached first */
	at = begin_record(o, 0, 1);
	put(o, (unsigned char[40]){ 0 }, 40);
	memcpy(o->b + at + 40, (unsigned char[8]){ 1 }, 8);	/* code_size */
	put(o, "name", 4);
	end_record(o, at), nbad++;
	/* code_size 0, or not what is left after the name */
	put_load(o, "zero", 0x1000, "", 0), nbad++;
	put_load(o, "short", 0x1000, "\xc3\xc3", 2);
	memcpy(o->b + o->n - 2 - 6 - 16, (unsigned char[8]){ 1 }, 8), nbad++;
	put_load(o, "long", 0x1000, "\xc3\xc3", 2);
	memcpy(o->b + o->n - 2 - 5 - 16, (unsigned char[8]){ 3 }, 8), nbad++;
	put_load(o, "huge", 0x1000, "\xc3\xc3", 2);
	memcpy(o->b + o->n - 2 - 5 - 16, (unsigned char[8]){ 0xfe, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff }, 8), nbad++;
	/* fixed parts longer than the record */
	at = begin_record(o, 0, 1);
	put(o, (unsigned char[40]){ 0 }, 40);
	end_record(o, at), nbad++;
	at = begin_record(o, 1, 1);
	put(o, (unsigned char[47]){ 0 }, 47);
	end_record(o, at), nbad++;
	at = begin_record(o, 2, 1);
	put64(o, 0);
	end_record(o, at), nbad++;
	at = begin_record(o, 4, 1);
	put64(o, 0);
	put64(o, 0);
	end_record(o, at), nbad++;
	/* debug entries: more than fit, a file without its NUL, "\xff" first */
	put_debug(o, 3, files, 3);			/* good */
	put_debug(o, 4, files, 3), nbad++;
	put_debug(o, UINT64_MAX, files, 3), nbad++;
	put_debug(o, 1ull << 60, files, 3), nbad++;
	put_debug(o, 2, xff_first, 2), nbad++;
	put_debug(o, 1, files, 1);
	o->b[o->n - 1] = 'x', nbad++;
	/* unwinding sizes that do not add up */
	at = begin_record(o, 4, 1);
	put64(o, 9);
	put64(o, 2);
	put64(o, 0);
	put(o, "12345678", 8);
	end_record(o, at), nbad++;
	at = begin_record(o, 4, 1);
	put64(o, 4);
	put64(o, 5);
	put64(o, 0);
	put(o, "12345678", 8);
	end_record(o, at), nbad++;
	at = begin_record(o, 4, 1);
	put64(o, UINT64_MAX);
	put64(o, UINT64_MAX);
	put64(o, 0);
	end_record(o, at), nbad++;
	/* and after them all, a good one still comes through */
	put_load(o, "last", 0x9000, "\xc3", 1);
	assert_int_equal(parse_records(o, 0, o->n, g, &bad, &broken), o->n);
	assert_int_equal(broken, 0);
	assert_int_equal(bad, nbad);
	assert_int_equal(g->loads, 2);
	assert_string_equal(g->name, "last");
	assert_int_equal(g->debugs, 1);
	assert_int_equal(g->nlines, 3);
	assert_string_equal(g->lines[1].file, "/a.js");
	assert_int_equal(g->moves + g->unwinds + g->closes, 0);
	free(g);
	free(o);
}

static void
test_jitdump_broken(void **state)
{
	struct bytes *o = calloc(1, sizeof *o);
	struct got *g = calloc(1, sizeof *g);
	unsigned long bad;
	size_t first;
	int broken;

	(void)state;
	put_load(o, "a", 0x1000, "\xc3", 1);
	first = o->n;
	put32(o, 0);
	put32(o, 15);		/* cannot be skipped: where is the next? */
	put64(o, 0);
	put_load(o, "b", 0x2000, "\xc3", 1);
	assert_int_equal(parse_records(o, 0, o->n, g, &bad, &broken), first);
	assert_int_equal(broken, 1);
	assert_int_equal(g->loads, 1);
	assert_string_equal(g->name, "a");
	/* known as soon as the size is there */
	assert_int_equal(parse_records(o, first, 8, g, &bad, &broken), 0);
	assert_int_equal(broken, 1);
	assert_int_equal(parse_records(o, first, 7, g, &bad, &broken), 0);
	assert_int_equal(broken, 0);
	free(g);
	free(o);
}

static void
write_bytes(const char *path, const struct bytes *o, size_t from, size_t to)
{
	write_file(path, (const char *)o->b + from, to - from, 1);
}

static int
follow_dump(struct jitdump_file *f, struct got *g)
{
	memset(g, 0, sizeof *g);
	g->f = f;
	return jitdump_read(f, SIZE_MAX, &got_ops, g);
}

static void
test_jitdump_follow(void **state)
{
	const char *path = tmp("jit-follow.dump");
	struct bytes *o = calloc(1, sizeof *o);
	struct got *g = calloc(1, sizeof *g);
	struct jitdump_file *f;
	size_t records, second;

	(void)state;
	unlink(path);
	f = jitdump_open(path, NULL, NULL);
	assert_int_equal(follow_dump(f, g), 0);		/* not there yet */
	put_header(o, JITDUMP_MAGIC, 1, 48);
	records = o->n;
	put_load(o, "first", 0x1000, "\xc3", 1);
	second = o->n;
	put_every_kind(o);
	/* the header in two writes: nothing before all of it */
	write_bytes(path, o, 0, 20);
	assert_int_equal(follow_dump(f, g), 0);
	assert_null(jitdump_header_of(f));
	write_bytes(path, o, 20, records + 10);
	assert_int_equal(follow_dump(f, g), 0);
	assert_non_null(jitdump_header_of(f));
	assert_int_equal(jitdump_header_of(f)->pid, 4242);
	/* a record in two writes: handed over once, when whole */
	write_bytes(path, o, records + 10, second + 30);
	assert_int_equal(follow_dump(f, g), 1);
	assert_string_equal(g->name, "first");
	assert_int_equal(follow_dump(f, g), 0);
	write_bytes(path, o, second + 30, o->n);
	assert_int_equal(follow_dump(f, g), 5);		/* 77 is no record */
	assert_int_equal(g->loads + g->moves + g->debugs + g->unwinds +
	    g->closes, 5);
	assert_string_equal(g->lines[1].file, "/srv/app.js");
	assert_int_equal(follow_dump(f, g), 0);
	assert_null(jitdump_problem(f));
	assert_int_equal(jitdump_bad(f), 0);
	jitdump_close(f);
	jitdump_close(NULL);
	free(g);
	free(o);
}

/* A file of a header (magic, version) and a record: refused, once. */
static void
refused(uint32_t magic, uint32_t version, const char *why)
{
	const char *path = tmp("jit-refused.dump");
	struct bytes *o = calloc(1, sizeof *o);
	struct got g;
	struct jitdump_file *f;

	unlink(path);
	put_header(o, magic, version, 40);
	put_load(o, "a", 0x1000, "\xc3", 1);
	write_bytes(path, o, 0, o->n);
	f = jitdump_open(path, NULL, NULL);
	assert_int_equal(follow_dump(f, &g), -1);
	assert_non_null(jitdump_problem(f));
	if (strstr(jitdump_problem(f), why) == NULL)
		fail_msg("refused for \"%s\", not %s", jitdump_problem(f), why);
	assert_int_equal(g.loads, 0);
	assert_null(jitdump_header_of(f));
	assert_int_equal(follow_dump(f, &g), 0);	/* said once */
	assert_non_null(jitdump_problem(f));
	jitdump_close(f);
	free(o);
}

static void
test_jitdump_refused(void **state)
{
	(void)state;
	refused(0x12345678u, 1, "not a jitdump file");
	refused(0x4454694Au, 1, "byte order");
	refused(JITDUMP_MAGIC, 2, "version 2");
}

static void
test_jitdump_follow_broken(void **state)
{
	const char *path = tmp("jit-broken.dump");
	struct bytes *o = calloc(1, sizeof *o);
	struct got *g = calloc(1, sizeof *g);
	struct jitdump_file *f;

	(void)state;
	unlink(path);
	put_header(o, JITDUMP_MAGIC, 1, 40);
	put_load(o, "a", 0x1000, "\xc3", 1);
	put32(o, 0);
	put32(o, 8);
	put64(o, 0);
	put_load(o, "b", 0x1000, "\xc3", 1);
	write_bytes(path, o, 0, o->n);
	f = jitdump_open(path, NULL, NULL);
	assert_int_equal(follow_dump(f, g), -1);
	assert_int_equal(g->loads, 1);		/* what came before stands */
	assert_non_null(strstr(jitdump_problem(f), "below 16"));
	write_bytes(path, o, 0, o->n);
	assert_int_equal(follow_dump(f, g), 0);
	assert_int_equal(g->loads, 0);
	jitdump_close(f);
	free(g);
	free(o);
}

/*
 * A record longer than JITDUMP_RECORD_MAX (a hole in a sparse file) is
 * skipped without being read; the record after it comes through.
 */
static void
test_jitdump_record_max(void **state)
{
	const char *path = tmp("jit-huge.dump");
	struct bytes *o = calloc(1, sizeof *o);
	struct got *g = calloc(1, sizeof *g);
	struct jitdump_file *f;
	uint32_t huge = JITDUMP_RECORD_MAX + 1;
	size_t next;
	int fd;

	(void)state;
	unlink(path);
	put_header(o, JITDUMP_MAGIC, 1, 40);
	put32(o, 0);
	put32(o, huge);
	put64(o, 0);
	next = o->n;
	put_load(o, "after", 0x1000, "\xc3", 1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, o->b, next, 0), (ssize_t)next);
	f = jitdump_open(path, NULL, NULL);
	assert_int_equal(follow_dump(f, g), 0);
	assert_int_equal(jitdump_bad(f), 1);
	assert_true(f->cap < 4 * JITDUMP_CHUNK);	/* not held */
	assert_int_equal(pwrite(fd, o->b + next, o->n - next, 40 + (off_t)huge),
	    (ssize_t)(o->n - next));
	close(fd);
	assert_int_equal(follow_dump(f, g), 1);
	assert_string_equal(g->name, "after");
	assert_int_equal(jitdump_bad(f), 1);
	assert_null(jitdump_problem(f));
	jitdump_close(f);
	unlink(path);
	free(g);
	free(o);
}

/* A record longer than a read's chunk waits for all of it, then comes. */
static void
test_jitdump_long_record(void **state)
{
	const char *path = tmp("jit-long.dump");
	static char code[200000];
	struct bytes *o = calloc(1, sizeof *o);
	struct jitdump_file *f;
	size_t count = 0, at;

	(void)state;
	unlink(path);
	put_header(o, JITDUMP_MAGIC, 1, 40);
	at = begin_record(o, 0, 1);
	put32(o, 1);
	put32(o, 1);
	put64(o, 0x1000);
	put64(o, 0x1000);
	put64(o, sizeof code);
	put64(o, 0);
	put(o, "big", 4);
	{
		uint32_t size = (uint32_t)(o->n - at + sizeof code);

		memcpy(o->b + at + 4, (unsigned char[4]){ size, size >> 8,
		    size >> 16, size >> 24 }, 4);
	}
	write_bytes(path, o, 0, o->n);
	memset(code, 0xcc, sizeof code);
	f = jitdump_open(path, NULL, NULL);
	for (size_t i = 0; i < sizeof code; i += 50000) {
		struct jitdump_ops ops = { 0 };

		write_file(path, code + i, 50000, 1);
		count += (size_t)jitdump_read(f, SIZE_MAX, &ops, NULL);
		assert_int_equal(count, i + 50000 == sizeof code);
	}
	jitdump_close(f);
	free(o);
}

/* ---- unwind tables' images ------------------------------------------ */

/*
 * The CFA libdw reads at pc from an image's CFI: (register, offset), or
 * -1 if it has no rule there.
 */
static int
cfa_at(Dwarf_CFI *cfi, uint64_t pc, int64_t *off)
{
	Dwarf_Frame *fr;
	Dwarf_Op *ops;
	size_t nops;
	int reg = -1;

	if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
		return -1;
	if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops == 1 &&
	    ops[0].atom == DW_OP_bregx) {
		reg = (int)ops[0].number;
		*off = (int64_t)ops[0].number2;
	}
	free(fr);
	return reg;
}

/* The CFA rules of tests/programs/jit-eh.h's nofp() from an image of them. */
static void
assert_nofp_rules(const unsigned char *eh, size_t hdr_size)
{
	static const struct { uint64_t pc; int64_t off; } want[] = {
		{ 0, 8 }, { 1, 16 }, { 6, 16 }, { 7, 48 }, { 30, 48 },
		{ 42, 48 }, { 43, 16 }, { 44, 8 },
	};
	struct jit_tables t = { 0 };
	struct jitdump_unwind u = { 0, hdr_size, JIT_EH_FRAME + hdr_size, eh,
	    JIT_EH_FRAME, eh + JIT_EH_FRAME, hdr_size };
	unsigned char *im;
	size_t len;
	uint32_t ref;
	Dwarf_CFI *cfi;
	Elf *elf;
	int64_t off = 0;

	assert_int_equal(ref = jit_tables_keep(&t, &u), 1);
	im = jit_tables_image(&t, ref, 45, &len);
	elf_version(EV_CURRENT);
	assert_non_null(elf = elf_memory((char *)im, len));
	assert_non_null(cfi = dwarf_getcfi_elf(elf));
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int reg = cfa_at(cfi, want[i].pc, &off);

		if (reg != 7 || off != want[i].off)
			fail_msg("pc %lu: CFA r%d%+ld, not rsp%+ld (hdr %zu bytes)",
			    (unsigned long)want[i].pc, reg, (long)off,
			    (long)want[i].off, hdr_size);
	}
	/* past the code: no rule (the FDE's range is the code's) */
	assert_int_equal(cfa_at(cfi, 45, &off), -1);
	dwarf_cfi_end(cfi);
	elf_end(elf);
	free(im);
	jit_tables_free(&t);
}

/* An image of the tables gives nofp()'s rules, with .eh_frame_hdr or not. */
static void
test_tables_image(void **state)
{
	unsigned char eh[80];

	(void)state;
	assert_int_equal(unwind_table(45, eh), JIT_EH_FRAME + JIT_EH_HDR);
	assert_nofp_rules(eh, JIT_EH_HDR);
	assert_nofp_rules(eh, 0);
}

/*
 * A record without tables (V8 writes one with mapped_size 0 and only a
 * header for code that has none) keeps nothing; tables past
 * JIT_TABLES_BYTES are counted, not kept.
 */
static void
test_tables_none_and_too_many(void **state)
{
	unsigned char eh[80];
	struct jit_tables t = { 0 };
	struct jitdump_unwind none = { 0, JIT_EH_HDR, 0, eh, JIT_EH_FRAME,
	    eh + JIT_EH_FRAME, JIT_EH_HDR };
	struct jitdump_unwind hdr_only = { 0, JIT_EH_HDR, JIT_EH_HDR, eh, 0,
	    eh, JIT_EH_HDR };
	struct jitdump_unwind ok = { 0, JIT_EH_HDR, 80, eh, JIT_EH_FRAME,
	    eh + JIT_EH_FRAME, JIT_EH_HDR };

	(void)state;
	unwind_table(45, eh);
	assert_int_equal(jit_tables_keep(&t, &none), 0);
	assert_int_equal(jit_tables_keep(&t, &hdr_only), 0);
	assert_int_equal(t.dropped, 0);
	assert_int_equal(jit_tables_keep(&t, &ok), 1);
	assert_int_equal(jit_tables_keep(&t, &ok), 2);
	t.nbytes = JIT_TABLES_BYTES - 79;	/* as if full but for 79 bytes */
	assert_int_equal(jit_tables_keep(&t, &ok), 0);
	assert_int_equal(t.dropped, 1);
	assert_int_equal(t.n, 2);
	jit_tables_free(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jitdump_header),
		cmocka_unit_test(test_jitdump_records),
		cmocka_unit_test(test_jitdump_truncated_waits),
		cmocka_unit_test(test_jitdump_bad_records),
		cmocka_unit_test(test_jitdump_broken),
		cmocka_unit_test(test_jitdump_follow),
		cmocka_unit_test(test_jitdump_refused),
		cmocka_unit_test(test_jitdump_follow_broken),
		cmocka_unit_test(test_jitdump_record_max),
		cmocka_unit_test(test_jitdump_long_record),
		cmocka_unit_test(test_tables_image),
		cmocka_unit_test(test_tables_none_and_too_many),
	};

	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
