/*
 * report.c - what the views of `profil report` (and record's and diff's
 * messages) figure from a profile alike (report.h): shares, the error
 * scale of weighted samples, the rates, what went unsampled or was cut.
 */
#include <stdio.h>

#include "profile/wall-view.h"
#include "report.h"

double
report_percent(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0.0;
}

const char *
report_share_of(double part_s, double whole_s, char *buf, size_t size)
{
	if (whole_s < REPORT_SHOWN_ZERO_S)
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, " (%.0f%%)", 100 * part_s / whole_s);
	return buf;
}

double
report_error_scale(const struct profil_profile *p)
{
	/* of the CPU samples: a wall view's time off the CPU is no sample */
	uint64_t samples = wall_view_cpu_samples(p);

	if (p->weight_sq == 0 || samples == 0 || p->weight_sq <= samples)
		return 1;
	return (double)p->weight_sq / (double)samples;
}

int
report_weighted(const struct profil_profile *p)
{
	return p->taken > 0 && (p->budget > 0 || report_error_scale(p) > 1.005);
}

const char *
report_rates(const struct profil_profile *p, char *buf, size_t size)
{
	double hz = p->interval_ns ? 1e9 / (double)p->interval_ns : 0;

	if (p->slowest_ns > p->interval_ns)
		snprintf(buf, size, "%.0f Hz down to %.0f Hz", hz,
		    1e9 / (double)p->slowest_ns);
	else
		snprintf(buf, size, "%.0f Hz", hz);
	return buf;
}

int
report_unsampled(const struct profil_profile *p, double *seen_ns)
{
	/* of a wall view, its CPU samples: its time off the CPU is not CPU */
	*seen_ns = (double)(wall_view_cpu_samples(p) + p->lost) *
	    (double)p->interval_ns;
	return p->interval_ns > 0 && p->cpu_ns >= 50 * p->interval_ns &&
	    *seen_ns < 0.8 * (double)p->cpu_ns;
}

double
report_stack_ns(const struct profil_profile *p, const struct profil_stack *st)
{
	/* a wall view's off-CPU stacks count intervals too: off_ns is exact */
	if (st->off_ns > 0)
		return (double)st->off_ns;
	return (double)st->count * (double)p->interval_ns;
}

int
report_stack_cut(const struct profil_profile *p, const struct profil_stack *st,
    uint64_t *reason)
{
	const struct profil_frame *last;

	if (st->depth == 0)
		return 0;
	last = &p->frames[st->frames[st->depth - 1]];
	*reason = last->addr;
	return last->object == PROFIL_FRAME_CUT;
}

double
report_cut_share(const struct profil_profile *p, uint64_t reason)
{
	double cut = 0, all = 0;
	uint64_t why;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profil_stack *st = &p->stacks[i];
		double ns = report_stack_ns(p, st);

		all += ns;
		if (report_stack_cut(p, st, &why) &&
		    (reason == REPORT_CUT_ANY || why == reason))
			cut += ns;
	}
	return all > 0 ? cut / all : 0;
}
