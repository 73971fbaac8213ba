/*
 * ksyms.c - kernel function names (ksyms.h).  The table holds the text
 * symbols of /proc/kallsyms sorted by address, a symbol reaching to the
 * next one (kallsyms has no sizes).  The cache file is that table as it
 * is in memory, mapped back read-only and checked before use:
 *
 *   magic "PRFKSYM1"  count:u64  text:u64  boot_id[16]
 *   count x { addr:u64  name:u32  module:u32 }   sorted by addr
 *   names: NUL-terminated strings, name offsets into them
 *
 * Invariant: a profile's address a is this machine's a + delta.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "codec/rio.h"
#include "kernel.h"
#include "ksyms.h"
#include "sorted.h"

#define CACHE_MAGIC	"PRFKSYM1"

struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset into names */
	uint32_t module;	/* 1: a module's (placed at its load, per boot) */
};

struct ksyms {
	const struct ksym *syms;
	size_t n;
	const char *names;
	size_t names_size;
	uint64_t delta;		/* local address = profile's + delta */
	int modules;		/* module symbols apply (the same boot) */
	void *map;		/* the cache file mapped, or NULL */
	size_t map_size;
	struct ksym *own_syms;	/* or tables read here */
	char *own_names;
	uint64_t *ends;		/* kept names' ends, or NULL: the next start */
};

struct cache_head {
	char magic[8];
	uint64_t count, text;
	unsigned char boot_id[16];
};

char *
ksyms_cache_dir(void)
{
	const char *env = getenv("PROFIL_CACHE_DIR"), *base;
	char *dir;

	if (env != NULL && *env != '\0')
		return xstrdup(env);
	if ((base = getenv("XDG_CACHE_HOME")) != NULL && base[0] == '/') {
		dir = xmalloc(strlen(base) + 8);
		sprintf(dir, "%s/profil", base);
		return dir;
	}
	if ((base = getenv("HOME")) == NULL || base[0] != '/')
		return NULL;
	dir = xmalloc(strlen(base) + 16);
	sprintf(dir, "%s/.cache/profil", base);
	return dir;
}

/* .../kallsyms-BUILDID-BOOTID: the cache of this kernel and boot. */
static char *
cache_path(const struct profil_kernel *local)
{
	char *dir = ksyms_cache_dir(), *path;
	size_t len;

	if (dir == NULL || local->code.build_id_len == 0)
		return free(dir), NULL;
	len = strlen(dir) + 2 * local->code.build_id_len + 64;
	path = xmalloc(len);
	len = (size_t)snprintf(path, len, "%s/kallsyms-", dir);
	for (unsigned i = 0; i < local->code.build_id_len; i++)
		len += (size_t)sprintf(path + len, "%02x", local->code.build_id[i]);
	path[len++] = '-';
	for (unsigned i = 0; i < 16; i++)
		len += (size_t)sprintf(path + len, "%02x", local->boot_id[i]);
	free(dir);
	return path;
}

static int
by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The text symbols of a kallsyms file f into t; -1 with *problem when it
 * shows no addresses (kptr_restrict).  A line longer than the buffer is
 * taken in pieces, each parsed as a line of its own: a symbol name is at
 * most KSYM_NAME_LEN (512) bytes, so only a made-up file has one.
 */
static int
parse_kallsyms(struct ksyms *t, FILE *f, const char **problem)
{
	size_t cap = 0, names_cap = 0, names_len = 0;
	char line[512];
	int seen_nonzero = 0;

	while (fgets(line, sizeof line, f) != NULL) {
		unsigned long long addr;
		char type, name[256], module[128] = "";
		size_t len;
		int fields = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type,
		    name, module);

		/* (a function at the top of the address space would end past it) */
		if (fields < 3 || (type != 't' && type != 'T' && type != 'w' &&
		    type != 'W') || addr == UINT64_MAX)
			continue;
		seen_nonzero |= addr != 0;
		len = strlen(name) + (module[0] ? strlen(module) + 3 : 0) + 1;
		/* name offsets are 32 bits: a table past 4 GiB is not kallsyms */
		if (names_len + len > UINT32_MAX)
			break;
		if (t->n == cap) {
			cap = cap ? 2 * cap : 65536;
			t->own_syms = xrealloc(t->own_syms, cap * sizeof *t->own_syms);
		}
		if (names_len + len > names_cap) {
			names_cap = names_cap ? 2 * names_cap : 1 << 20;
			while (names_len + len > names_cap)
				names_cap *= 2;
			t->own_names = xrealloc(t->own_names, names_cap);
		}
		t->own_syms[t->n++] = (struct ksym){ addr, (uint32_t)names_len,
		    module[0] != '\0' };
		if (module[0])
			sprintf(t->own_names + names_len, "%s [%s]", name, module);
		else
			memcpy(t->own_names + names_len, name, len);
		names_len += len;
	}
	if (!seen_nonzero) {
		*problem = "this kernel hides its addresses from this user "
		    "(/proc/sys/kernel/kptr_restrict; root sees them)";
		free(t->own_syms);
		free(t->own_names);
		t->own_syms = NULL;
		t->own_names = NULL;
		t->n = 0;
		return -1;
	}
	if (t->n > 1)
		qsort(t->own_syms, t->n, sizeof *t->own_syms, by_addr);
	/* one name per address: the one with the fewest leading underscores */
	size_t out = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct ksym *prev = out ? &t->own_syms[out - 1] : NULL;

		if (prev != NULL && prev->addr == t->own_syms[i].addr) {
			const char *a = t->own_names + prev->name;
			const char *b = t->own_names + t->own_syms[i].name;
			size_t ua = strspn(a, "_"), ub = strspn(b, "_");

			if (ub < ua || (ub == ua && strcmp(b, a) < 0))
				*prev = t->own_syms[i];
			continue;
		}
		t->own_syms[out++] = t->own_syms[i];
	}
	t->n = out;
	t->syms = t->own_syms;
	t->names = t->own_names;
	t->names_size = names_len;
	return 0;
}

/* /proc/kallsyms read into t, as parse_kallsyms. */
static int
read_kallsyms(struct ksyms *t, const char **problem)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	int rc;

	if (f == NULL) {
		*problem = "/proc/kallsyms cannot be read";
		return -1;
	}
	rc = parse_kallsyms(t, f, problem);
	fclose(f);
	return rc;
}

struct ksyms *
ksyms_from_kallsyms(FILE *f, const char **problem)
{
	struct ksyms *t = xcalloc(1, sizeof *t);

	*problem = NULL;
	t->modules = 1;
	parse_kallsyms(t, f, problem);
	return t;
}

/*
 * A cache file's size bytes at data into t, checked: its header (magic,
 * boot_id), every name inside and ended, addresses in order.  0, or -1
 * if it is not sound (t untouched then).
 */
static int
parse_cache(struct ksyms *t, const void *data, size_t size,
    const unsigned char boot_id[16])
{
	struct cache_head h;
	const struct ksym *syms;
	const char *names;
	size_t table, n, names_size;

	if (size < sizeof h || (uintptr_t)data % _Alignof(struct ksym) != 0)
		return -1;
	memcpy(&h, data, sizeof h);
	table = size - sizeof h;
	if (memcmp(h.magic, CACHE_MAGIC, 8) != 0 ||
	    memcmp(h.boot_id, boot_id, 16) != 0 ||
	    h.count > table / sizeof(struct ksym) || h.count == 0)
		return -1;
	syms = (const struct ksym *)((const char *)data + sizeof h);
	n = h.count;
	names = (const char *)(syms + n);
	names_size = table - n * sizeof(struct ksym);
	for (size_t i = 0; i < n; i++)
		if (syms[i].name >= names_size || syms[i].addr == UINT64_MAX ||
		    (i > 0 && syms[i].addr <= syms[i - 1].addr) ||
		    memchr(names + syms[i].name, '\0',
		    names_size - syms[i].name) == NULL)
			return -1;
	t->syms = syms;
	t->n = n;
	t->names = names;
	t->names_size = names_size;
	return 0;
}

struct ksyms *
ksyms_from_cache(const void *data, size_t size,
    const unsigned char boot_id[16])
{
	struct ksyms *t = xcalloc(1, sizeof *t);

	t->modules = 1;
	if (parse_cache(t, data, size, boot_id) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* The cache file, mapped and checked; -1 if missing or not sound (then
 * it is read again from /proc and written anew). */
static int
load_cache(struct ksyms *t, const char *path, const struct profil_kernel *local)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	void *map;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < sizeof(struct cache_head)) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	if (parse_cache(t, map, (size_t)st.st_size, local->boot_id) < 0) {
		munmap(map, (size_t)st.st_size);
		return -1;
	}
	t->map = map;
	t->map_size = (size_t)st.st_size;
	return 0;
}

/* Keep the table for the next report: a temporary file, then rename. */
static void
save_cache(const struct ksyms *t, const char *path,
    const struct profil_kernel *local)
{
	struct cache_head h;
	struct rio_file f;
	char *dir = xstrdup(path);

	*strrchr(dir, '/') = '\0';
	/* ~/.cache, then ~/.cache/profil: one level at a time */
	if (strrchr(dir, '/') != NULL) {
		char *up = xstrdup(dir);

		*strrchr(up, '/') = '\0';
		if (up[0] != '\0')
			mkdir(up, 0700);
		free(up);
	}
	mkdir(dir, 0700);
	free(dir);
	memset(&h, 0, sizeof h);
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.count = t->n;
	h.text = local->text_addr;
	memcpy(h.boot_id, local->boot_id, 16);
	/* kernel addresses: the user's own (0600); a cache, so best effort */
	if (rio_file_open_mode(&f, path, 0600) < 0)
		return;
	if (rio_file_write(&f, &h, sizeof h) < 0 ||
	    rio_file_write(&f, t->syms, t->n * sizeof *t->syms) < 0 ||
	    rio_file_write(&f, t->names, t->names_size) < 0)
		rio_file_abort(&f);
	else
		(void)rio_file_commit(&f, path);
}

struct ksyms *
ksyms_open(const struct profil_kernel *k, const char **problem)
{
	struct ksyms *t = xcalloc(1, sizeof *t);
	struct profil_kernel local;
	char *path;

	*problem = NULL;
	memset(&local, 0, sizeof local);
	kernel_identify(&local);
	if (k->code.build_id_len > 0 && local.code.build_id_len > 0 ?
	    k->code.build_id_len != local.code.build_id_len ||
	    memcmp(k->code.build_id, local.code.build_id,
	    k->code.build_id_len) != 0 :
	    local.release == NULL || k->release == NULL ||
	    strcmp(local.release, k->release) != 0) {
		*problem = "recorded on another kernel (build-id differs)";
		goto out;
	}
	if (memcmp(k->boot_id, local.boot_id, 16) == 0) {
		t->modules = 1;		/* the same boot: every address holds */
	} else if (k->text_addr == 0 || local.text_addr == 0) {
		*problem = "recorded in another boot, and _text was hidden "
		    "then or is now: its addresses cannot be placed";
		goto out;
	} else {
		t->delta = local.text_addr - k->text_addr;
	}
	path = cache_path(&local);
	if (path == NULL || load_cache(t, path, &local) < 0) {
		if (read_kallsyms(t, problem) == 0 && path != NULL)
			save_cache(t, path, &local);
	}
	free(path);
out:
	free(local.release);
	return t;
}

struct ksyms *
ksyms_open_profile(const struct profil_profile *p, const char **problem)
{
	struct ksyms *t = ksyms_open(p->kernel_code, problem);
	size_t names_len = 0, n = 0;

	if (*problem == NULL)
		return t;
	for (size_t i = 0; i < p->nsymbols; i++)
		if (p->symbols[i].object == PROFIL_SYMBOL_KERNEL) {
			names_len += strlen(p->symbols[i].name) + 1;
			n++;
		}
	if (n == 0)
		return t;
	ksyms_close(t);
	t = xcalloc(1, sizeof *t);
	t->own_syms = xcalloc(n, sizeof *t->own_syms);
	t->own_names = xmalloc(names_len);
	t->ends = xcalloc(n, sizeof *t->ends);
	t->modules = 1;		/* kept at the profile's own addresses */
	names_len = 0;
	for (size_t i = 0; i < p->nsymbols; i++) {
		const struct profil_symbol *sy = &p->symbols[i];
		size_t len = strlen(sy->name) + 1;

		if (sy->object != PROFIL_SYMBOL_KERNEL)
			continue;
		t->ends[t->n] = sy->end;
		t->own_syms[t->n++] = (struct ksym){ sy->start,
		    (uint32_t)names_len, 0 };
		memcpy(t->own_names + names_len, sy->name, len);
		names_len += len;
	}
	t->syms = t->own_syms;
	t->names = t->own_names;
	t->names_size = names_len;
	*problem = NULL;
	return t;
}

void
ksyms_close(struct ksyms *t)
{
	if (t->map != NULL)
		munmap(t->map, t->map_size);
	free(t->own_syms);
	free(t->own_names);
	free(t->ends);
	free(t);
}

const char *
ksyms_lookup(struct ksyms *t, uint64_t addr, uint64_t *start, uint64_t *end)
{
	uint64_t at = addr + t->delta;
	size_t lo = sorted_upper(t->syms, t->n, sizeof *t->syms,
	    offsetof(struct ksym, addr), at), i;

	if (lo == 0)
		return NULL;
	i = lo - 1;
	if (t->syms[i].module && !t->modules)
		return NULL;	/* modules load elsewhere at each boot */
	if (t->ends != NULL && at >= t->ends[i])
		return NULL;
	*start = t->syms[i].addr - t->delta;
	*end = (t->ends != NULL ? t->ends[i] : lo < t->n ? t->syms[lo].addr :
	    t->syms[i].addr + 1) - t->delta;
	return t->names + t->syms[i].name;
}

const char *
ksyms_name(struct ksyms *t, uint64_t addr, uint64_t *start, uint64_t *end)
{
	if (addr == PROFIL_KERNEL_UNSAMPLED) {
		*start = addr;
		*end = addr + 1;
		return KSYMS_UNSAMPLED;
	}
	return t != NULL ? ksyms_lookup(t, addr, start, end) : NULL;
}

int
ksyms_wanted(const struct profil_profile *p)
{
	const struct profil_kernel *k = p->kernel_code;

	for (size_t i = 0; k != NULL && i < k->code.nbuckets; i++)
		if (k->code.buckets[i].addr != PROFIL_KERNEL_UNSAMPLED)
			return 1;
	return 0;
}
