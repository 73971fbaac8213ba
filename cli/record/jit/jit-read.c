/*
 * jit-read.c - a process's JIT runtime's files, read as they grow
 * (jit.h, jit-internal.h): the perf map and the jitdump files it mapped,
 * each judged as it is opened (owned by the process's user, writable by
 * no one else, written since it started: not one an earlier process of
 * its pid left); each entry a piece of code, known there since the
 * runtime says (jitdump) or since it was read (a map line has no time),
 * each DEBUG_INFO and UNWINDING_INFO kept for the CODE_LOAD after it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jit-internal.h"
#include "jit-names.h"
#include "jit.h"
#include "record/core/clock.h"
#include "record/core/procfs.h"

/* What the jitdump reader hands over with: whose file it is. */
struct reading {
	struct jit_code *c;
	const struct jitdump_file *f;
};

/*
 * When the runtime says a record's code was there: its timestamp, if the
 * file's clock is CLOCK_MONOTONIC (the flag of the machine's own counter
 * clear) and the time is not after the reading; else the reading's time.
 */
static uint64_t
born(const struct reading *r, uint64_t timestamp)
{
	const struct jitdump_header *h = jitdump_header_of(r->f);

	if (h == NULL || (h->flags & JITDUMP_FLAGS_ARCH_TIMESTAMP) ||
	    timestamp == 0 || timestamp > r->c->reading_ns)
		return r->c->reading_ns;
	return timestamp;
}

static void
map_entry(const struct perfmap_entry *e, void *arg)
{
	struct jit_code *c = arg;

	/* a map line has no time: known since it was read */
	(void)jit_add_piece(c, e->start, e->size, e->name, e->name_len, NULL,
	    0, c->reading_ns);
}

void
jit_forget_debug(struct jit_code *c)
{
	free(c->debug);
	free(c->debug_files);
	c->debug = NULL;
	c->debug_files = NULL;
	c->ndebug = 0;
}

static void
dump_load(const struct jitdump_load *l, void *arg)
{
	const struct reading *r = arg;
	struct jit_code *c = r->c;
	size_t range = jit_add_piece(c, l->code_addr, l->code_size, l->name,
	    strlen(l->name), NULL, c->next_table, born(r, l->timestamp));

	/* its lines come before it (perf's jitdump specification) */
	if (range != SIZE_MAX && c->ndebug > 0 && c->debug_addr == l->code_addr)
		jit_names_lines(range, l->code_addr, l->code_size, c->debug,
		    c->ndebug);
	jit_forget_debug(c);
	c->next_table = 0;
}

/* An UNWINDING_INFO: its tables, for the CODE_LOAD after it. */
static void
dump_unwind(const struct jitdump_unwind *u, void *arg)
{
	struct jit_code *c = ((const struct reading *)arg)->c;

	c->next_table = jit_tables_keep(&c->tables, u);
}

/* A DEBUG_INFO: kept (its strings copied) for the CODE_LOAD after it. */
static void
dump_debug(const struct jitdump_debug *d, void *arg)
{
	struct jit_code *c = ((const struct reading *)arg)->c;
	size_t bytes = 0;
	char *at;

	jit_forget_debug(c);
	for (size_t i = 0; i < d->n; i++)
		bytes += strlen(d->lines[i].file) + 1;
	c->debug = xcalloc(d->n + 1, sizeof *c->debug);
	c->debug_files = at = xmalloc(bytes + 1);
	for (size_t i = 0; i < d->n; i++) {
		size_t len = strlen(d->lines[i].file) + 1;

		c->debug[i] = d->lines[i];
		c->debug[i].file = memcpy(at, d->lines[i].file, len);
		at += len;
	}
	c->ndebug = d->n;
	c->debug_addr = d->code_addr;
}

static void
dump_move(const struct jitdump_move *m, void *arg)
{
	const struct reading *r = arg;
	struct jit_code *c = r->c;
	const struct piece *from = jit_piece_at(c, m->old_code_addr);

	/* the tables are relative to the code: they move with it */
	if (from != NULL && from->start == m->old_code_addr) {
		size_t sym = from->sym;

		(void)jit_add_piece(c, m->new_code_addr, m->code_size, NULL, 0,
		    &sym, from->table, born(r, m->timestamp));
	}
}

/* The start of process pid, in seconds since the epoch, or 0. */
static double
process_start(pid_t pid)
{
	static unsigned long long btime;
	struct procfs_stat st;
	char buf[1024];
	FILE *f;

	if (procfs_read_stat(pid, 0, &st) < 0)
		return 0;
	if (btime == 0 && (f = fopen("/proc/stat", "re")) != NULL) {
		while (fgets(buf, sizeof buf, f) != NULL)
			if (sscanf(buf, "btime %llu", &btime) == 1)
				break;
		fclose(f);
	}
	return btime == 0 ? 0 : (double)btime + (double)st.starttime /
	    (double)sysconf(_SC_CLK_TCK);
}

void
jit_read_identity(struct jit_code *c)
{
	struct procfs_ids ids;
	double start;

	if (procfs_read_ids(c->pid, &ids) < 0)
		return;		/* gone: what was known stands */
	c->euid = (uid_t)ids.uid[1];
	c->fsuid = (uid_t)ids.uid[3];
	c->uid_known = 1;
	if ((start = process_start(c->pid)) > 0)
		c->start = start;
}

/* Say once a process (bit of c->said) the line fmt makes. */
enum { SAID_UID = 1, SAID_OTHERS = 2, SAID_OLD = 4, SAID_UNKNOWN = 8,
	SAID_OPEN = 16 };

static void __attribute__((format(printf, 3, 4)))
say_once(struct jit_code *c, unsigned bit, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	if (c->said & bit)
		return;
	c->said |= bit;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	jit_say("%s", line);
}

/*
 * Whether the file st at path is the process's own to be read (a
 * jitfile_judge): /tmp is everyone's, a pid comes back, and the recorder
 * may be root.  A file its user does not own, that anyone may write, or
 * that was last written before the process began (left by an earlier
 * process of its pid) is not read, and record says so in one line.
 */
static int
judge(const char *path, const struct stat *st, void *arg)
{
	struct jit_code *c = arg;

	if (!c->uid_known)
		jit_read_identity(c);
	/* gone before it was asked: the recorder's own files are its own */
	if (!c->uid_known && st->st_uid != geteuid())
		say_once(c, SAID_UNKNOWN, "%s: not read: process %d's user is "
		    "not known (it ended too soon to be asked)", path,
		    (int)c->pid);
	else if (c->uid_known && st->st_uid != c->euid &&
	    st->st_uid != c->fsuid)
		say_once(c, SAID_UID, "%s: not written by process %d's user "
		    "(owned by uid %lu, not %lu): not read", path, (int)c->pid,
		    (unsigned long)st->st_uid, (unsigned long)c->euid);
	else if (st->st_mode & S_IWOTH)
		say_once(c, SAID_OTHERS, "%s: anyone may write it (mode %03o): "
		    "not read", path, (unsigned)(st->st_mode & 0777));
	/* a second's slack: file times and the boot time are coarse */
	else if (c->start > 0 && (double)st->st_mtim.tv_sec + 1 < c->start)
		say_once(c, SAID_OLD, "%s: older than process %d (left by an "
		    "earlier process with its pid): not read", path,
		    (int)c->pid);
	else
		return 1;
	c->files_refused = 1;
	return 0;
}

void
jit_code_follow(struct jit_code *c, const char *path)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->ndumps; i++)
		if (strcmp(c->dump_paths[i], path) == 0)
			return;
	if (c->ndumps == DUMPS_MAX)
		return;
	c->dump_paths[c->ndumps] = xstrdup(path);
	c->dumps[c->ndumps++] = jitdump_open(path, judge, c);
	c->read_ns = 0;		/* look at it at the next miss */
}

void
jit_read_files(struct jit_code *c, int at_end, size_t budget)
{
	static const struct jitdump_ops ops = { dump_load, dump_move,
	    dump_debug, dump_unwind, NULL };
	int n;

	if (c->over > 0)
		return;		/* full: what is kept stands */
	c->reading_ns = record_now_ns();
	if (c->map == NULL)
		c->map = perfmap_open(c->map_path, judge, c);
	if ((n = perfmap_read(c->map, at_end, budget, map_entry, c)) < 0) {
		say_once(c, SAID_OPEN, "%s: not read: %s", c->map_path,
		    jitfile_why(errno));
		c->files_refused = 1;
	} else if (n > 0)
		c->map_read = 1;
	for (size_t i = 0; i < c->ndumps; i++) {
		struct reading r = { c, c->dumps[i] };

		if (jitdump_read(c->dumps[i], budget, &ops, &r) < 0)
			c->files_refused = 1;
	}
}
