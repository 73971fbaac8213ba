/*
 * jit-read.c - a process's JIT runtime's files, read as they grow
 * (jit.h, jit-internal.h): the perf map, judged first (owned by the
 * process's user, written since it started: not one an earlier process
 * of its pid left), and the jitdump files it mapped; each entry a piece
 * of code, each DEBUG_INFO and UNWINDING_INFO kept for the CODE_LOAD
 * after it.
 */
#include <errno.h>
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

static void
map_entry(const struct perfmap_entry *e, void *arg)
{
	(void)jit_add_piece(arg, e->start, e->size, e->name, e->name_len, NULL,
	    0);
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
	struct jit_code *c = arg;
	size_t range = jit_add_piece(c, l->code_addr, l->code_size, l->name,
	    strlen(l->name), NULL, c->next_table);

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
	struct jit_code *c = arg;

	c->next_table = jit_tables_keep(&c->tables, u);
}

/* A DEBUG_INFO: kept (its strings copied) for the CODE_LOAD after it. */
static void
dump_debug(const struct jitdump_debug *d, void *arg)
{
	struct jit_code *c = arg;
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
	struct jit_code *c = arg;
	const struct piece *from = jit_piece_at(c, m->old_code_addr);

	/* the tables are relative to the code: they move with it */
	if (from != NULL && from->start == m->old_code_addr) {
		size_t sym = from->sym;

		(void)jit_add_piece(c, m->new_code_addr, m->code_size, NULL, 0,
		    &sym, from->table);
	}
}

/* The start of process pid, in seconds since the epoch, or 0. */
static double
process_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks = 0, btime = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	p = fgets(buf, sizeof buf, f);
	fclose(f);
	/* after the command's ")": state is field 3, starttime field 22 */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
	    "%*s %*s %*s %*s %*s %*s %*s %llu", &ticks) != 1)
		return 0;
	if ((f = fopen("/proc/stat", "re")) == NULL)
		return 0;
	while (fgets(buf, sizeof buf, f) != NULL)
		if (sscanf(buf, "btime %llu", &btime) == 1)
			break;
	fclose(f);
	return btime == 0 ? 0 : (double)btime + (double)ticks /
	    (double)sysconf(_SC_CLK_TCK);
}

/*
 * Whether the map file st is the process's own: /tmp is everyone's, and
 * a pid comes back; a map its owner did not write, or last wrote before
 * the process began, belongs to another (said once a file).
 */
static int
map_is_ours(struct jit_code *c, const struct stat *st)
{
	char path[64];
	struct stat proc;
	double start;

	snprintf(path, sizeof path, "/proc/%d", (int)c->pid);
	if (stat(path, &proc) == 0 && proc.st_uid != st->st_uid) {
		jit_say("%s: not written by process %d's user: not read",
		    c->map_path, (int)c->pid);
		return 0;
	}
	start = process_start(c->pid);
	/* a second's slack: file times and the boot time are coarse */
	if (start > 0 && (double)st->st_mtim.tv_sec + 1 < start) {
		jit_say("%s: older than process %d (left by an earlier process "
		    "with its pid): not read", c->map_path, (int)c->pid);
		return 0;
	}
	return 1;
}

void
jit_read_files(struct jit_code *c, int at_end)
{
	static const struct jitdump_ops ops = { dump_load, dump_move,
	    dump_debug, dump_unwind, NULL };
	struct stat st;

	if (stat(c->map_path, &st) == 0) {
		if (!c->map_judged || st.st_ino != c->map_seen.st_ino ||
		    st.st_dev != c->map_seen.st_dev) {
			c->map_judged = 1;
			c->map_seen = st;
			c->map_ok = map_is_ours(c, &st);
		}
		if (c->map_ok) {
			if (c->map == NULL)
				c->map = perfmap_open(c->map_path, NULL, NULL);
			perfmap_read(c->map, at_end, SIZE_MAX, map_entry, c);
		}
	}
	for (size_t i = 0; i < c->ndumps; i++)
		jitdump_read(c->dumps[i], SIZE_MAX, &ops, c);
}
