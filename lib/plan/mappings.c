/*
 * mappings.c - the process's writable mappings, read from /proc/self/maps
 * in one go, and the check of an address range against them (mappings.h).
 * Invariant: nothing here reads or writes the memory being checked,
 * except the probe fallback, taken only when there is no reading to go by.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/fault.h"
#include "plan/mappings.h"

/* A hex number at *s (at most 16 digits); advances *s.  -1 if none. */
static int
parse_hex(const char **s, const char *end, uintptr_t *value)
{
	uintptr_t v = 0;
	int digits = 0;

	for (; *s < end; (*s)++, digits++) {
		char c = **s;
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			break;
		if (digits == 16)
			return -1;
		v = v << 4 | d;
	}
	*value = v;
	return digits > 0 ? 0 : -1;
}

int
mappings_parse_line(const char *line, size_t len, uintptr_t *start,
    uintptr_t *end, int *writable)
{
	const char *s = line, *stop = line + len;

	if (parse_hex(&s, stop, start) < 0 || s == stop || *s++ != '-' ||
	    parse_hex(&s, stop, end) < 0 || s == stop || *s++ != ' ' ||
	    stop - s < 4 || *start >= *end)
		return -1;
	/* perms: r or -, w or -, x or -, p or s */
	if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-') ||
	    (s[2] != 'x' && s[2] != '-') || (s[3] != 'p' && s[3] != 's') ||
	    (stop - s > 4 && s[4] != ' '))
		return -1;
	*writable = s[1] == 'w';
	return 0;
}

/* The whole of /proc/self/maps, NUL-terminated (malloc'd), or NULL. */
static char *
read_maps(size_t *size)
{
	size_t len = 0, cap = 1 << 16;
	char *text = malloc(cap), *grown;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0 || text == NULL)
		goto fail;
	for (;;) {
		if (cap - len < 4096) {
			grown = realloc(text, cap * 2);
			if (grown == NULL)
				goto fail;
			text = grown;
			cap *= 2;
		}
		got = read(fd, text + len, cap - len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		len += (size_t)got;
	}
	close(fd);
	text[len] = '\0';
	*size = len;
	return text;
fail:
	if (fd >= 0)
		close(fd);
	free(text);
	return NULL;
}

static int
by_start(const void *a, const void *b)
{
	const struct mappings_area *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort, and join areas that touch or overlap: one lookup per range. */
static void
merge_areas(struct mappings *m)
{
	size_t i, n = 0;

	qsort(m->areas, m->nareas, sizeof *m->areas, by_start);
	for (i = 0; i < m->nareas; i++) {
		struct mappings_area a = m->areas[i];

		if (n > 0 && a.start <= m->areas[n - 1].end) {
			if (a.end > m->areas[n - 1].end)
				m->areas[n - 1].end = a.end;
		} else {
			m->areas[n++] = a;
		}
	}
	m->nareas = n;
}

void
mappings_read(struct mappings *m)
{
	int saved_errno = errno;
	size_t size, cap = 0;
	char *text = read_maps(&size), *line, *nl;

	memset(m, 0, sizeof *m);
	if (text == NULL)
		goto probe;
	for (line = text; line < text + size; line = nl + 1) {
		struct mappings_area a;
		int writable;

		nl = memchr(line, '\n', (size_t)(text + size - line));
		if (nl == NULL)
			nl = text + size;	/* a last line without newline */
		if (mappings_parse_line(line, (size_t)(nl - line), &a.start,
		    &a.end, &writable) < 0)
			goto probe;		/* not what we know: do not guess */
		if (!writable)
			continue;
		if (m->nareas == cap) {
			size_t grown_cap = cap ? cap * 2 : 64;
			struct mappings_area *grown = realloc(m->areas,
			    grown_cap * sizeof *grown);

			if (grown == NULL)
				goto probe;
			m->areas = grown;
			cap = grown_cap;
		}
		m->areas[m->nareas++] = a;
	}
	free(text);
	merge_areas(m);
	errno = saved_errno;
	return;
probe:
	free(text);
	free(m->areas);
	memset(m, 0, sizeof *m);
	m->probe = 1;
	errno = saved_errno;
}

void
mappings_free(struct mappings *m)
{
	free(m->areas);
	memset(m, 0, sizeof *m);
}

int
mappings_writable(const struct mappings *m, const void *p, size_t len)
{
	uintptr_t first = (uintptr_t)p, last;
	size_t lo = 0, hi;

	if (len == 0)
		return 1;
	if (m->probe)
		return fault_probe(p, len, 1) == 0;
	last = first + (len - 1);
	if (last < first)
		return 0;	/* wraps around the address space */
	/* the area holding first; areas are disjoint and not adjacent */
	hi = m->nareas;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mappings_area *a = &m->areas[mid];

		if (first < a->start)
			hi = mid;
		else if (first >= a->end)
			lo = mid + 1;
		else
			return last < a->end;
	}
	return 0;
}
