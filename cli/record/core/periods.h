/*
 * periods.h - rolling profiles (record --every): one complete profile a
 * period, written as the recording goes, each a file of its own (-o's
 * %t: the period's start, %n: its number; %c the program's name, %p
 * its pid), consecutive and without
 * overlap, so that the periods' samples and time sum to the run's.  An
 * engine asks at each wake-up whether a period is due, and when one is,
 * brings its accounts to the builder (the wall time cut there) and hands
 * the builder over: its counts become the period's profile and start
 * again.  The last period is the one the recording ends with.
 */
#ifndef PROFIL_RECORD_PERIODS_H
#define PROFIL_RECORD_PERIODS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <profil.h>

#include "builder.h"

struct record_opts;

struct periods {
	uint64_t every_ns;		/* a period's length */
	unsigned keep;			/* the last so many files (0: all) */
	const char *tmpl;		/* -o, with %t or %n */
	uint64_t origin;		/* the recording's start (clock.h) */
	struct timespec wall_origin;	/* the same, on CLOCK_REALTIME */
	uint64_t start;			/* this period's start */
	uint64_t taken, weight_sq;	/* the engine's, at its start */
	unsigned n;			/* periods written */
	char **kept;			/* their names, the last keep */
	/*
	 * Where a period's profile goes instead of a file (profil top):
	 * given q, its header filled, to keep (free with
	 * profil_profile_free); NULL: files.
	 */
	void (*sink)(void *arg, struct profil_profile *q);
	void *sink_arg;
};

/* "60s", "500ms", "2m", "1h" (a bare number: seconds) into *ns; 0 or -1. */
int periods_parse(const char *s, uint64_t *ns);

/* Whether tmpl names each period apart (%t or %n). */
int periods_template_ok(const char *tmpl);

/* The recording starts at origin (and wall_origin): the first period. */
void periods_begin(struct periods *p, uint64_t origin,
    const struct timespec *wall_origin);

/* Whether a period ends at now; how long to wait for the next, in ms. */
int periods_due(const struct periods *p, uint64_t now);
int periods_poll_ms(const struct periods *p, uint64_t now, int ms);

/*
 * The period ending at now: b's profile (every account brought to it)
 * with the header o and the engine's weights so far give it, written
 * atomically; b reset for the next.  0, or -1 with a cause (the
 * recording goes on).  pid expands %p.
 */
int periods_write(struct periods *p, struct builder *b,
    const struct record_opts *o, pid_t pid, uint64_t taken,
    uint64_t weight_sq, uint64_t now, char *cause, size_t cause_size);

/*
 * The last period's profile q (from builder_finish, its header filled
 * for the whole run): made the period's, and its file's name (malloc'd).
 * Its file is the caller's to write; then periods_end.  periods_close
 * makes it the period's alone, for a sink's caller (no file).
 */
void periods_close(struct periods *p, struct profil_profile *q, uint64_t end);
char *periods_last(struct periods *p, struct profil_profile *q, pid_t pid,
    uint64_t end);
void periods_end(struct periods *p, const char *last);

#endif
