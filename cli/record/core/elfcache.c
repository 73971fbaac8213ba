/*
 * elfcache.c - the objects a recording opens, each once (elfcache.h).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "elfcache.h"

/*
 * At most this many files stay open (mapped): past it the oldest is let
 * go (sessions that use it keep their reference).
 */
#define ELFCACHE_MAX	512

struct entry {
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	Elf *elf;		/* the cache's reference */
};

static struct entry *entries;
static size_t nentries, next_out;	/* next_out: the oldest, when full */

static int
same_file(const struct entry *e, const char *path, const struct stat *st)
{
	return e->dev == st->st_dev && e->ino == st->st_ino &&
	    e->mtime.tv_sec == st->st_mtim.tv_sec &&
	    e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	    strcmp(e->path, path) == 0;
}

Elf *
elfcache_open(const char *path)
{
	struct entry *e;
	struct stat st;
	Elf *elf;
	int fd;

	if (stat(path, &st) < 0)
		return NULL;
	for (size_t i = 0; i < nentries; i++)
		if (same_file(&entries[i], path, &st))
			/* a second reference to the same descriptor */
			return elf_begin(-1, ELF_C_READ_MMAP, entries[i].elf);
	/* opened, it must still be that file: else it is not cached */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* all of it in memory (mapped): the descriptor is not needed again */
	if (elf != NULL && (elf_kind(elf) != ELF_K_ELF ||
	    elf_cntl(elf, ELF_C_FDREAD) != 0)) {
		elf_end(elf);
		elf = NULL;
	}
	close(fd);
	if (elf == NULL)
		return NULL;
	if (nentries < ELFCACHE_MAX) {
		entries = xrealloc(entries, (nentries + 1) * sizeof *entries);
		e = &entries[nentries++];
	} else {
		e = &entries[next_out];
		next_out = (next_out + 1) % ELFCACHE_MAX;
		free(e->path);
		elf_end(e->elf);
	}
	*e = (struct entry){ xstrdup(path), st.st_dev, st.st_ino, st.st_mtim,
	    elf };
	return elf_begin(-1, ELF_C_READ_MMAP, elf);
}
