/*
 * procfs.c - /proc's stat, schedstat and comm files, read and parsed,
 * and its lists of threads and children (procfs.h).  Invariant: a parser
 * reads only the n bytes it is given, which need not be NUL-terminated,
 * and fills its output only on success.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "procfs.h"

/*
 * A decimal number at *at (before end), with a '-' first if negative is
 * allowed (then taken as its value below zero: refused), into *v: 0 and
 * *at past it, or -1 if no digits, too big, or negative.
 */
static int
number(const char **at, const char *end, uint64_t *v)
{
	const char *p = *at;
	uint64_t x = 0;

	if (p < end && *p == '-')
		return -1;	/* no field we read is ever below zero */
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	*at = p;
	return 0;
}

/* Past the field at *at and the one space after it: 0, or -1 at the end. */
static int
skip_field(const char **at, const char *end)
{
	const char *space = memchr(*at, ' ', (size_t)(end - *at));

	if (space == NULL || space == *at)
		return -1;
	*at = space + 1;
	return 0;
}

int
procfs_parse_stat(const char *buf, size_t n, struct procfs_stat *st)
{
	const char *end = buf + n, *open = memchr(buf, '(', n), *close = NULL;
	const char *p;
	struct procfs_stat s;
	uint64_t v[22];
	size_t len;

	/* the name may hold anything, ')' and spaces too: the last ')' ends it */
	for (p = end; p > buf; p--)
		if (p[-1] == ')') {
			close = p - 1;
			break;
		}
	if (open == NULL || close == NULL || close < open ||
	    end - close < 4 || close[1] != ' ' || close[2] == ' ' ||
	    close[3] != ' ')
		return -1;
	memset(&s, 0, sizeof s);
	len = (size_t)(close - open - 1);
	if (len >= sizeof s.comm)
		len = sizeof s.comm - 1;
	memcpy(s.comm, open + 1, len);
	s.state = close[2];
	p = close + 4;
	/* fields 4 (ppid) to 22 (starttime), by their number */
	for (int field = 4; field <= 22; field++) {
		int wanted = field == 4 || (field >= 14 && field <= 17) ||
		    field == 22;

		if (wanted) {
			if (number(&p, end, &v[field - 1]) < 0 ||
			    (p < end && *p != ' ' && *p != '\n'))
				return -1;
			if (field < 22 && (p == end || *p++ != ' '))
				return -1;
		} else if (skip_field(&p, end) < 0) {
			return -1;
		}
	}
	if (v[3] > INT32_MAX)
		return -1;
	s.ppid = (pid_t)v[3];
	s.utime = v[13];
	s.stime = v[14];
	s.cutime = v[15];
	s.cstime = v[16];
	s.starttime = v[21];
	*st = s;
	return 0;
}

int
procfs_parse_schedstat(const char *buf, size_t n, struct procfs_schedstat *s)
{
	const char *p = buf, *end = buf + n;
	uint64_t v[3];

	for (int i = 0; i < 3; i++) {
		if (number(&p, end, &v[i]) < 0)
			return -1;
		if (i < 2 && (p == end || *p++ != ' '))
			return -1;
	}
	if (p != end && *p != '\n')
		return -1;
	*s = (struct procfs_schedstat){ v[0], v[1], v[2] };
	return 0;
}

ssize_t
procfs_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

int
procfs_read_stat(pid_t pid, pid_t tid, struct procfs_stat *st)
{
	char path[64], buf[1024];
	ssize_t n;

	if (tid != 0)
		snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid,
		    (int)tid);
	else
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((n = procfs_read_small(path, buf, sizeof buf)) < 0)
		return -1;
	if (procfs_parse_stat(buf, (size_t)n, st) < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
procfs_read_schedstat(int fd, struct procfs_schedstat *s)
{
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof buf, 0);

	return n <= 0 ? -1 : procfs_parse_schedstat(buf, (size_t)n, s);
}

int
procfs_read_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	if (tid != 0)
		snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid,
		    (int)tid);
	else
		snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
	n = procfs_read_small(path, buf, size);
	if (n <= 0) {
		buf[0] = '\0';
		return -1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* pid to *v, grown as needed (*n of them, room for *cap). */
static void
add_pid(pid_t **v, size_t *n, size_t *cap, pid_t pid)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = pid;
}

pid_t *
procfs_threads(pid_t pid, size_t *n)
{
	char path[64];
	DIR *dir;
	struct dirent *d;
	pid_t *tids = NULL;
	size_t cap = 0;

	*n = 0;
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((dir = opendir(path)) == NULL)
		return NULL;
	while ((d = readdir(dir)) != NULL) {
		long tid = strtol(d->d_name, NULL, 10);

		if (tid > 0)
			add_pid(&tids, n, &cap, (pid_t)tid);
	}
	closedir(dir);
	return tids != NULL ? tids : xmalloc(sizeof *tids);
}

pid_t *
procfs_children(pid_t pid, pid_t tid, size_t *n)
{
	char path[96];
	pid_t *pids = NULL;
	size_t cap = 0;
	FILE *f;
	int child;

	*n = 0;
	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid,
	    (int)tid);
	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	while (fscanf(f, "%d", &child) == 1)
		add_pid(&pids, n, &cap, (pid_t)child);
	fclose(f);
	return pids != NULL ? pids : xmalloc(sizeof *pids);
}

int
procfs_read_ids(pid_t pid, struct procfs_ids *ids)
{
	char path[64], line[256];
	int found = 0;
	unsigned long *v;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	while (found != 3 && fgets(line, sizeof line, f) != NULL) {
		int which = strncmp(line, "Uid:", 4) == 0 ? 1 :
		    strncmp(line, "Gid:", 4) == 0 ? 2 : 0;

		if (which == 0 || (found & which))
			continue;
		v = which == 1 ? ids->uid : ids->gid;
		if (sscanf(line + 4, "%lu %lu %lu %lu", &v[0], &v[1], &v[2],
		    &v[3]) != 4)
			break;
		found |= which;
	}
	fclose(f);
	return found == 3 ? 0 : -1;
}
