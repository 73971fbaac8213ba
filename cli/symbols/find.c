/*
 * find.c - finding a profiled object's file now (find.h).  Candidates in
 * order: under --symfs (the recorded path, then the basename), the
 * recorded path, each debug directory's .build-id/xx/rest (the file, then
 * its .debug), the system's debug directory, and last a debuginfod server
 * (the executable, then its debug file).  Each candidate is opened only
 * as a regular file (a profile may name a FIFO) and kept only if its
 * build-id is the recorded one.
 */
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "find.h"

static char *symfs_root;
static char *debug_dirs;
static char *debuginfo_path;

void
find_search_set(const char *symfs, const char *dirs)
{
	free(symfs_root);
	free(debug_dirs);
	free(debuginfo_path);
	symfs_root = symfs ? xstrdup(symfs) : NULL;
	debug_dirs = dirs ? xstrdup(dirs) : NULL;
	debuginfo_path = NULL;
}

char **
find_debuginfo_path(void)
{
	size_t len;

	if (debuginfo_path == NULL) {
		/* libdwfl's default first, then ours (each may hold .build-id) */
		len = 64 + (debug_dirs ? strlen(debug_dirs) : 0) +
		    (symfs_root ? strlen(symfs_root) : 0);
		debuginfo_path = xmalloc(len);
		snprintf(debuginfo_path, len, ":.debug:/usr/lib/debug%s%s%s%s%s",
		    debug_dirs ? ":" : "", debug_dirs ? debug_dirs : "",
		    symfs_root ? ":" : "", symfs_root ? symfs_root : "",
		    symfs_root ? "/usr/lib/debug" : "");
	}
	return &debuginfo_path;
}

enum { NO_FILE, NOT_REGULAR, OTHER_FILE, SAME_FILE };

/* Is path a regular file with o's build-id? */
static int
check(const struct profil_object *o, const char *path)
{
	struct stat st;
	const void *id;
	ssize_t len;
	Elf *elf;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc = NO_FILE;

	if (fd < 0)
		return NO_FILE;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NOT_REGULAR;
	}
	if (o->build_id_len == 0) {
		close(fd);
		return SAME_FILE;	/* nothing to tell them apart by */
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF) {
		len = dwelf_elf_gnu_build_id(elf, &id);
		rc = len == (ssize_t)o->build_id_len &&
		    memcmp(id, o->build_id, o->build_id_len) == 0 ?
		    SAME_FILE : OTHER_FILE;
	}
	elf_end(elf);
	close(fd);
	return rc;
}

/* dir/.build-id/xx/rest[suffix] for o's build-id, malloc'd. */
static char *
build_id_path(const char *dir, const struct profil_object *o,
    const char *suffix)
{
	size_t len = strlen(dir) + 2 * o->build_id_len + 32, n;
	char *path = xmalloc(len);

	n = (size_t)snprintf(path, len, "%s/.build-id/%02x/", dir, o->build_id[0]);
	for (unsigned i = 1; i < o->build_id_len; i++)
		n += (size_t)snprintf(path + n, len - n, "%02x", o->build_id[i]);
	snprintf(path + n, len - n, "%s", suffix);
	return path;
}

/*
 * libdebuginfod, loaded when a server is named: linked in, it would load
 * some forty libraries (curl, TLS, Kerberos, LDAP) at every start of
 * profil, 10 to 40 ms, for what only DEBUGINFOD_URLS asks for.  libdw
 * loads it the same way.
 */
struct debuginfod_calls {
	debuginfod_client *(*begin)(void);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int,
	    char **);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int,
	    char **);
	void (*end)(debuginfod_client *);
};

static const struct debuginfod_calls *
debuginfod_calls(void)
{
	static struct debuginfod_calls calls;
	static int tried;
	void *lib;

	if (tried)
		return calls.begin != NULL ? &calls : NULL;
	tried = 1;
	if ((lib = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL)) == NULL)
		return NULL;
	calls.begin = (debuginfod_client *(*)(void))dlsym(lib, "debuginfod_begin");
	calls.find_executable = (int (*)(debuginfod_client *,
	    const unsigned char *, int, char **))dlsym(lib,
	    "debuginfod_find_executable");
	calls.find_debuginfo = (int (*)(debuginfod_client *,
	    const unsigned char *, int, char **))dlsym(lib,
	    "debuginfod_find_debuginfo");
	calls.end = (void (*)(debuginfod_client *))dlsym(lib, "debuginfod_end");
	if (calls.begin == NULL || calls.find_executable == NULL ||
	    calls.find_debuginfo == NULL || calls.end == NULL)
		calls.begin = NULL;
	return calls.begin != NULL ? &calls : NULL;
}

/* The file or its debug file from a debuginfod server, or NULL. */
static char *
from_debuginfod(const struct profil_object *o, int *debug_only)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const struct debuginfod_calls *d;
	debuginfod_client *client;
	char *path = NULL;
	int fd;

	if (urls == NULL || *urls == '\0' || o->build_id_len == 0 ||
	    (d = debuginfod_calls()) == NULL || (client = d->begin()) == NULL)
		return NULL;
	fd = d->find_executable(client, o->build_id, (int)o->build_id_len, &path);
	if (fd < 0) {
		free(path);
		path = NULL;
		fd = d->find_debuginfo(client, o->build_id, (int)o->build_id_len,
		    &path);
		*debug_only = fd >= 0;
	}
	if (fd >= 0)
		close(fd);
	else {
		free(path);
		path = NULL;
	}
	d->end(client);
	return path;
}

char *
find_object(const struct profil_object *o, int *debug_only,
    const char **problem)
{
	const char *slash = strrchr(o->path, '/');
	int recorded = check(o, o->path);
	char *path;

	*debug_only = 0;
	*problem = NULL;
	if (symfs_root != NULL) {
		path = xmalloc(strlen(symfs_root) + strlen(o->path) + 2);
		sprintf(path, "%s/%s", symfs_root, o->path + (o->path[0] == '/'));
		if (check(o, path) == SAME_FILE)
			return path;
		sprintf(path, "%s/%s", symfs_root, slash ? slash + 1 : o->path);
		if (check(o, path) == SAME_FILE)
			return path;
		free(path);
	}
	if (recorded == SAME_FILE)
		return xstrdup(o->path);
	if (o->build_id_len > 0) {
		char *dirs = xstrdup(debug_dirs ? debug_dirs : ""), *save, *dir;
		static const char *const suffixes[] = { "", ".debug" };

		for (int s = 0; s < 2; s++) {
			strcpy(dirs, debug_dirs ? debug_dirs : "");
			for (dir = strtok_r(dirs, ":", &save); dir != NULL;
			    dir = strtok_r(NULL, ":", &save)) {
				path = build_id_path(dir, o, suffixes[s]);
				if (check(o, path) == SAME_FILE) {
					*debug_only = s == 1;
					free(dirs);
					return path;
				}
				free(path);
			}
		}
		free(dirs);
		path = build_id_path("/usr/lib/debug", o, ".debug");
		if (check(o, path) == SAME_FILE) {
			*debug_only = 1;
			return path;
		}
		free(path);
		if ((path = from_debuginfod(o, debug_only)) != NULL)
			return path;
	}
	*problem = recorded == OTHER_FILE ? "the file on disk is not the one "
	    "profiled (build-id differs)" : recorded == NOT_REGULAR ?
	    "not a regular file" : "cannot read the file (give --symfs or "
	    "--debug-dir, or set DEBUGINFOD_URLS)";
	return NULL;
}
