/*
 * window-parse.c - --time's START..END read (window.h), resolved to
 * whole slices of a profile's timeline, and said in words.  Invariant:
 * every figure is exact: a bound is kept as ns, or as billionths of a
 * percent, and compared and divided in units of 1e-11 ns (128 bits), so
 * that rounding out to slices is floor and ceiling of the true bound.
 */
#include <stdio.h>
#include <string.h>

#include "window.h"

#define NS_PER_S	1000000000ull
/* a bound's units: ns * PERCENT_ONE * 100; so a percentage is exact */
#define PERCENT_ONE	1000000000ull	/* 1% in a percent bound's value */
#define UNITS_PER_NS	((unsigned __int128)PERCENT_ONE * 100)

static const struct {
	const char *name;
	uint64_t scale;		/* the value of 1 of it: ns, or 1e-9 % */
	int percent;
} units[] = {
	{ "", NS_PER_S, 0 }, { "s", NS_PER_S, 0 }, { "ms", 1000000, 0 },
	{ "us", 1000, 0 }, { "\xc2\xb5s", 1000, 0 }, { "ns", 1, 0 },
	{ "%", PERCENT_ONE, 1 },
};

/*
 * The len bytes at s, a decimal and its unit, into *b; 0, or -1 with a
 * cause.  Digits past what the unit resolves (a tenth of a ns) are cut.
 */
static int
parse_bound(const char *s, size_t len, struct window_bound *b, char *cause,
    size_t size)
{
	unsigned __int128 whole = 0, frac = 0, div = 1, v;
	size_t i = 0, u;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		if (whole <= UINT64_MAX)	/* past it: too large, said below */
			whole = whole * 10 + (unsigned)(s[i] - '0');
	if (i == 0)
		goto not_time;
	if (i < len && s[i] == '.') {
		size_t from = ++i;

		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (div < (unsigned __int128)1e18) {
				frac = frac * 10 + (unsigned)(s[i] - '0');
				div *= 10;
			}
		if (i == from)
			goto not_time;
	}
	for (u = 0; u < sizeof units / sizeof units[0]; u++)
		if (strlen(units[u].name) == len - i &&
		    memcmp(units[u].name, s + i, len - i) == 0)
			break;
	if (u == sizeof units / sizeof units[0])
		goto not_time;
	v = whole * units[u].scale + frac * units[u].scale / div;
	if (whole > UINT64_MAX || v > UINT64_MAX) {
		snprintf(cause, size, "'%.*s' is too large", (int)len, s);
		return -1;
	}
	if (units[u].percent && v > 100 * PERCENT_ONE) {
		snprintf(cause, size, "'%.*s' is more than the whole run",
		    (int)len, s);
		return -1;
	}
	*b = (struct window_bound){ 1, units[u].percent, (uint64_t)v };
	return 0;
not_time:
	snprintf(cause, size, "'%.*s' is not a time: a number and s, ms, us, "
	    "ns or %% of the run (a bare number is seconds)", (int)len, s);
	return -1;
}

int
window_parse(const char *text, struct window_spec *w, char *cause,
    size_t cause_size)
{
	const char *dots = strstr(text, "..");
	size_t n;

	memset(w, 0, sizeof *w);
	w->text = text;
	if (dots == NULL) {
		snprintf(cause, cause_size, "not START..END (either may be "
		    "empty: 1.5s..3s, 90%%.., ..500ms)");
		return -1;
	}
	if (dots > text &&
	    parse_bound(text, (size_t)(dots - text), &w->start, cause,
	    cause_size) < 0)
		return -1;
	if ((n = strlen(dots + 2)) > 0 &&
	    parse_bound(dots + 2, n, &w->end, cause, cause_size) < 0)
		return -1;
	if (w->start.given && w->end.given &&
	    w->start.percent == w->end.percent &&
	    w->end.value <= w->start.value) {
		snprintf(cause, cause_size, w->end.value == w->start.value ?
		    "START and END are one time: an empty window" :
		    "END is before START");
		return -1;
	}
	return 0;
}

/* b in units of 1e-11 ns after the run's start (run ns long). */
static unsigned __int128
bound_units(const struct window_bound *b, uint64_t run)
{
	if (b->percent)
		return (unsigned __int128)run * b->value;
	return (unsigned __int128)b->value * UNITS_PER_NS;
}

int
window_slices(const struct profil_profile *p, const struct window_spec *w,
    uint64_t *first, uint64_t *end, char *cause, size_t cause_size)
{
	uint64_t run = window_run_ns(p);
	unsigned __int128 a, b, slice;

	if (p->slice_ns == 0 || p->nslices == 0) {
		snprintf(cause, cause_size, "no timeline to cut a window from "
		    "(recorded with --no-timeline or --no-call-graph, or by a "
		    "profil older than timelines)");
		return WINDOW_BAD_PROFILE;
	}
	slice = (unsigned __int128)p->slice_ns * UNITS_PER_NS;
	a = w->start.given ? bound_units(&w->start, run) : 0;
	b = w->end.given ? bound_units(&w->end, run) :
	    (unsigned __int128)run * UNITS_PER_NS;
	if (w->start.given && a >= (unsigned __int128)run * UNITS_PER_NS) {
		snprintf(cause, cause_size, "the window starts at %.3f s, past "
		    "the %s's end (%.3f s)", (double)(a / UNITS_PER_NS) / 1e9,
		    run == p->duration_ns ? "run" : "timeline",
		    (double)run / 1e9);
		return WINDOW_BAD_PROFILE;
	}
	if (b <= a) {
		snprintf(cause, cause_size, "END (%.3f s) is %s START (%.3f s)",
		    (double)(b / UNITS_PER_NS) / 1e9, b < a ? "before" :
		    "at", (double)(a / UNITS_PER_NS) / 1e9);
		return WINDOW_BAD_OPTION;
	}
	*first = (uint64_t)(a / slice);
	*end = w->end.given ? (uint64_t)((b + slice - 1) / slice) : p->nslices;
	if (*end > p->nslices)
		*end = p->nslices;
	if (*first >= *end) {
		snprintf(cause, cause_size, "the window starts at %.3f s, past "
		    "the timeline's end (%.3f s)", (double)(a / UNITS_PER_NS) /
		    1e9, (double)p->slice_ns * (double)p->nslices / 1e9);
		return WINDOW_BAD_PROFILE;
	}
	return 0;
}

const char *
window_describe(const struct profil_profile *p, uint64_t first, uint64_t end,
    char *buf, size_t size)
{
	uint64_t run = window_run_ns(p), from = first * p->slice_ns;
	uint64_t to = end * p->slice_ns;
	int decimals = 2;

	/* as many decimals as tell one slice from the next */
	for (uint64_t unit = NS_PER_S / 100; decimals < 6 && unit > p->slice_ns;
	    unit /= 10)
		decimals++;
	if (to > run)
		to = run;
	snprintf(buf, size, "window %.*f\xe2\x80\x93%.*f s of %.*f s",
	    decimals, (double)from / 1e9, decimals, (double)to / 1e9,
	    decimals, (double)run / 1e9);
	return buf;
}

int
window_replace(struct profil_profile **p, const struct window_spec *w,
    char *label, size_t label_size, char *cause, size_t cause_size)
{
	struct profil_profile *q;
	uint64_t first, end;
	int rc;

	if ((rc = window_slices(*p, w, &first, &end, cause, cause_size)) < 0)
		return rc;
	q = profile_window(*p, first, end);
	window_describe(*p, first, end, label, label_size);
	profil_profile_free(*p);
	*p = q;
	return 0;
}
