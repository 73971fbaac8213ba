/*
 * procmaps.c - parsing /proc/PID/maps lines:
 *   start-end perms offset dev inode   path
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "procmaps.h"

int
procmaps_each(pid_t pid, void (*fn)(const struct procmap *m, void *arg),
    void *arg)
{
	char path[64], line[PATH_MAX + 128];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		unsigned long long start, end, offset;
		struct procmap m;
		char perms[8];
		int at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end,
		    perms, &offset, &at) < 4 || strchr(perms, 'x') == NULL)
			continue;
		m.start = start;
		m.end = end;
		m.offset = offset;
		m.name = at > 0 ? line + at : "";
		line[strcspn(line, "\n")] = '\0';
		fn(&m, arg);
		n++;
	}
	fclose(f);
	return n;
}

int
procmaps_is_object(const char *name)
{
	return (name[0] == '/' && strncmp(name, "/memfd:", 7) != 0 &&
	    strncmp(name, "/dev/zero", 9) != 0 && strncmp(name, "//anon", 6) != 0) ||
	    strcmp(name, "[vdso]") == 0;
}
