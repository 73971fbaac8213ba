/*
 * procmaps.c - parsing /proc/PID/maps lines:
 *   start-end perms offset dev inode   path
 * The kernel writes them, but a line is parsed as if anything could be
 * in it (fuzz/fuzz-maps.c): what comes out is an executable range with
 * start below end, or nothing.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "procmaps.h"

int
procmaps_line(char *line, struct procmap *m)
{
	unsigned long long start, end, offset;
	char perms[8];
	int at = 0;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms,
	    &offset, &at) < 4 || strchr(perms, 'x') == NULL || start >= end)
		return 0;
	m->start = start;
	m->end = end;
	m->offset = offset;
	m->name = at > 0 ? line + at : "";
	return 1;
}

int
procmaps_each(pid_t pid, void (*fn)(const struct procmap *m, void *arg),
    void *arg)
{
	char path[64], line[PROCMAPS_LINE_MAX];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		struct procmap m;

		if (strchr(line, '\n') == NULL && !feof(f)) {
			/* longer than any path: skip the rest of it */
			int c;

			while ((c = getc(f)) != EOF && c != '\n')
				;
			continue;
		}
		if (procmaps_line(line, &m)) {
			fn(&m, arg);
			n++;
		}
	}
	fclose(f);
	return n;
}

int
procmaps_is_object(const char *name)
{
	/* (a jitdump file is mapped to be seen, not run) */
	return (name[0] == '/' && strncmp(name, "/memfd:", 7) != 0 &&
	    strncmp(name, "/dev/zero", 9) != 0 && strncmp(name, "//anon", 6) != 0 &&
	    !procmaps_is_jitdump(name)) || strcmp(name, "[vdso]") == 0;
}

int
procmaps_is_jitdump(const char *path)
{
	const char *base = strrchr(path, '/');
	int pid, end = 0;

	base = base != NULL ? base + 1 : path;
	return sscanf(base, "jit-%d.dump%n", &pid, &end) == 1 && end > 0 &&
	    base[end] == '\0' && pid > 0;
}
