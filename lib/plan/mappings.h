/*
 * mappings.h - is memory writable?  Asked of the process's mappings
 * (/proc/self/maps), not of the memory: no page is touched, so a large
 * sparse buffer stays sparse.
 *
 * One reading serves a whole check (every counter span of a plan); it is
 * a snapshot, and memory unmapped after it is the fault fixup's business
 * (fault.h).  Where /proc/self/maps cannot be read (/proc not mounted,
 * no fd left) or does not parse, the answer comes from fault_probe,
 * which writes to one byte of every page (and so makes each resident):
 * slower and heavier, as exact.
 *
 * Writable means every byte lies in mappings with write permission, one
 * after the other; an unmapped hole, PROT_NONE or read-only memory is
 * not.  A mapping that has write permission and faults all the same
 * (a shared file mapping past the end of its file, a guard region, a
 * protection key) passes here and turns its range off at the first
 * sample, as memory that goes away while counting does.
 *
 * Layer: above fault (the fallback), below plan.
 */
#ifndef PROFIL_MAPPINGS_H
#define PROFIL_MAPPINGS_H

#include <stddef.h>
#include <stdint.h>

struct mappings_area {
	uintptr_t start, end;		/* [start, end) */
};

struct mappings {
	struct mappings_area *areas;	/* writable, sorted, none adjacent */
	size_t nareas;
	int probe;			/* 1: no reading; ask fault_probe */
};

/*
 * Read the writable mappings of this process into m (mappings_free
 * releases them).  Never fails: without a reading, m->probe is set.
 */
void mappings_read(struct mappings *m);
void mappings_free(struct mappings *m);

/*
 * 1 if every byte of [p, p + len) can be written (len 0: yes), 0 if not.
 * In probe mode it needs fault_install().
 */
int mappings_writable(const struct mappings *m, const void *p, size_t len);

/*
 * Parse one line of /proc/PID/maps ("start-end perms ..."; no newline,
 * len bytes, not NUL-terminated).  0 with the range and whether it has
 * write permission, or -1 if the line is not one.  Exposed for tests.
 */
int mappings_parse_line(const char *line, size_t len, uintptr_t *start,
    uintptr_t *end, int *writable);

#endif
