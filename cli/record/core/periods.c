/*
 * periods.c - rolling profiles (periods.h): when a period is due, its
 * profile's header and file, the files kept.  Invariant: period k covers
 * [its start, the next's start) of the records' clock, and every sample
 * and nanosecond off the CPU the builder took in it is in its profile
 * and no other.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "codec/prf.h"
#include "outfile.h"
#include "periods.h"
#include "prffile.h"
#include "record.h"

int
periods_parse(const char *s, uint64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v > 0))
		return -1;
	if (strcmp(end, "") == 0 || strcmp(end, "s") == 0)
		v *= 1e9;
	else if (strcmp(end, "ms") == 0)
		v *= 1e6;
	else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
		v *= 60e9;
	else if (strcmp(end, "h") == 0)
		v *= 3600e9;
	else
		return -1;
	if (v < 1e8 || v > 1e6 * 1e9)	/* 0.1 s to 11 days */
		return -1;
	*ns = (uint64_t)v;
	return 0;
}

int
periods_template_ok(const char *tmpl)
{
	return tmpl != NULL && (strstr(tmpl, "%t") != NULL ||
	    strstr(tmpl, "%n") != NULL);
}

void
periods_begin(struct periods *p, uint64_t origin,
    const struct timespec *wall_origin)
{
	p->origin = p->start = origin;
	p->wall_origin = *wall_origin;
	p->taken = p->weight_sq = 0;
	p->n = 0;
	if (p->keep > 0 && p->kept == NULL)
		p->kept = xcalloc(p->keep, sizeof *p->kept);
}

int
periods_due(const struct periods *p, uint64_t now)
{
	return p->every_ns > 0 && now >= p->start + p->every_ns;
}

int
periods_poll_ms(const struct periods *p, uint64_t now, int ms)
{
	uint64_t left;

	if (p == NULL || p->every_ns == 0)
		return ms;
	left = p->start + p->every_ns > now ? p->start + p->every_ns - now : 0;
	left = (left + 999999) / 1000000;
	return left < (uint64_t)ms ? (int)left : ms;
}

/* The period's start on the wall clock, ns since the epoch. */
static int64_t
wall_of(const struct periods *p, uint64_t t)
{
	return (int64_t)p->wall_origin.tv_sec * 1000000000 +
	    p->wall_origin.tv_nsec + (int64_t)(t - p->origin);
}

/* The template with %t (the start, UTC, to the ms) and %n expanded. */
static char *
name_of(const struct periods *p, const char *program, pid_t pid)
{
	char out[PATH_MAX], stamp[64];
	int64_t at = wall_of(p, p->start);
	time_t secs = (time_t)(at / 1000000000);
	struct tm tm;
	size_t n = 0;

	gmtime_r(&secs, &tm);
	n = strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
	snprintf(stamp + n, sizeof stamp - n, ".%03dZ",
	    (int)(at / 1000000 % 1000));
	n = 0;
	for (const char *s = p->tmpl; *s && n < sizeof out - 64; s++) {
		if (s[0] == '%' && s[1] == 't') {
			n += (size_t)snprintf(out + n, sizeof out - n, "%s", stamp);
			s++;
		} else if (s[0] == '%' && s[1] == 'c') {
			const char *base = strrchr(program, '/');

			n += (size_t)snprintf(out + n, sizeof out - n, "%s",
			    base != NULL ? base + 1 : program);
			s++;
		} else if (s[0] == '%' && s[1] == 'n') {
			n += (size_t)snprintf(out + n, sizeof out - n, "%04u",
			    p->n + 1);
			s++;
		} else
			out[n++] = *s;
	}
	out[n] = '\0';
	return prffile_path(out, program, pid);
}

/* The header of a period's profile q, ending at end. */
static void
header(const struct periods *p, struct profil_profile *q, uint64_t end)
{
	q->start_ns = wall_of(p, p->start);
	q->duration_ns = end > p->start ? end - p->start : 0;
	/* the period's CPU time as its samples tell it */
	q->cpu_ns = q->samples * q->interval_ns;
	q->taken = q->taken > p->taken ? q->taken - p->taken : 0;
	q->weight_sq = q->weight_sq > p->weight_sq ?
	    q->weight_sq - p->weight_sq : 0;
	if (q->taken > 0 || q->weight_sq > 0) {
		if (q->weight_sq < q->taken)
			q->weight_sq = q->taken;
		if (q->weight_sq < q->samples)
			q->weight_sq = q->samples;
	}
}

/* name written: the oldest kept beyond keep removed. */
static void
keep(struct periods *p, const char *name)
{
	unsigned at;

	if (p->keep == 0)
		return;
	at = p->n % p->keep;
	if (p->kept[at] != NULL && strcmp(p->kept[at], name) != 0)
		unlink(p->kept[at]);
	free(p->kept[at]);
	p->kept[at] = xstrdup(name);
}

/* q to path, atomically (outfile.h). */
static int
write_profile(const struct profil_profile *q, const char *path, char *cause,
    size_t cause_size)
{
	struct outfile of;
	void *data = NULL;
	size_t size;

	if (outfile_open(&of, path, PRF_MAGIC, cause, cause_size) < 0)
		return -1;
	if (profil_profile_encode(q, &data, &size) < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(&of, NULL);
		return -1;
	}
	if (outfile_write(&of, data, size, cause, cause_size) < 0) {
		free(data);
		outfile_abort(&of, NULL);
		return -1;
	}
	free(data);
	return outfile_commit(&of, NULL, cause, cause_size);
}

int
periods_write(struct periods *p, struct builder *b,
    const struct record_opts *o, pid_t pid, uint64_t taken,
    uint64_t weight_sq, uint64_t now, char *cause, size_t cause_size)
{
	struct record_result r = { .taken = taken, .weight_sq = weight_sq };
	struct profil_profile *q;
	char *path;
	int rc;

	builder_timeline_end(b, now);
	q = builder_finish(b);
	prffile_header(q, o, &r, &p->wall_origin);
	header(p, q, now);
	if (p->sink != NULL) {
		p->sink(p->sink_arg, q);
		rc = 0;
	} else {
		path = name_of(p, o->argv[0], pid);
		rc = write_profile(q, path, cause, cause_size);
		if (rc == 0)
			keep(p, path);
		profil_profile_free(q);
		free(path);
	}
	builder_reset(b, now);
	p->start = now;
	p->taken = taken;
	p->weight_sq = weight_sq;
	p->n++;
	return rc;
}

void
periods_close(struct periods *p, struct profil_profile *q, uint64_t end)
{
	header(p, q, end);
}

char *
periods_last(struct periods *p, struct profil_profile *q, pid_t pid,
    uint64_t end)
{
	periods_close(p, q, end);
	return name_of(p, q->argc > 0 ? q->argv[0] : "profile", pid);
}

void
periods_end(struct periods *p, const char *last)
{
	if (last != NULL)
		keep(p, last);
	for (unsigned i = 0; i < p->keep; i++)
		free(p->kept[i]);
	free(p->kept);
	p->kept = NULL;
}
