/*
 * views.c - the table of report's views (views.h) and, for each, how its
 * function is called with what the command built.  Invariant: a view's
 * key is no other option's of report's, and its reads name everything
 * its function dereferences.
 */
#include <getopt.h>

#include "timeline-view.h"
#include "views.h"

static int
show_flat(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	(void)cause, (void)cause_size;
	report_flat(in->p, in->f, in->s, o);
	return 0;
}

static int
show_objects(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	(void)cause, (void)cause_size;
	report_objects(in->p, o);
	return 0;
}

static int
show_threads(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	(void)cause, (void)cause_size;
	report_threads(in->p, o);
	return 0;
}

static int
show_processes(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	(void)cause, (void)cause_size;
	report_processes(in->p, o);
	return 0;
}

static int
show_histogram(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	return report_histogram(in->p, in->f, o, cause, cause_size);
}

static int
show_annotate(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	return report_annotate(in->p, in->f, o, cause, cause_size);
}

static int
show_callers(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	return report_calls(in->p, in->s, o, 0, cause, cause_size);
}

static int
show_callees(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	return report_calls(in->p, in->s, o, 1, cause, cause_size);
}

static int
show_tree(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	return report_tree(in->p, in->s, o, cause, cause_size);
}

static int
show_html(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	return report_html(in->p, in->recorded, in->f, in->s, o->target, cause,
	    cause_size);
}

static int
show_timeline(const struct report_input *in, const struct report_options *o,
    char *cause, size_t cause_size)
{
	return report_timeline(in->p, in->s, o, cause, cause_size);
}

#define CALL_VIEW	(VIEW_FUNCS | VIEW_STACKS | VIEW_INLINES)

/* In the order report's options list them (--help, getopt's prefixes). */
const struct report_view report_views[] = {
	{ NULL, NULL, no_argument, 0,
	    VIEW_FUNCS | VIEW_SOME_STACKS | VIEW_INLINES, show_flat },
	{ "objects", NULL, no_argument, 'O', 0, show_objects },
	{ "threads", NULL, no_argument, 'T', 0, show_threads },
	{ "pid", "processes", no_argument, 'P', 0, show_processes },
	{ "histogram", NULL, optional_argument, 'H', VIEW_FUNCS,
	    show_histogram },
	{ "annotate", NULL, required_argument, 'a', VIEW_FUNCS, show_annotate },
	{ "callers", NULL, required_argument, 'r', CALL_VIEW, show_callers },
	{ "callees", NULL, required_argument, 'e', CALL_VIEW, show_callees },
	{ "tree", NULL, no_argument, 't', CALL_VIEW, show_tree },
	{ "html", NULL, required_argument, 'w', CALL_VIEW, show_html },
	{ "timeline", NULL, no_argument, 'L', CALL_VIEW, show_timeline },
};
const size_t report_nviews = sizeof report_views / sizeof report_views[0];

const struct report_view *
report_view_of_key(int key)
{
	for (size_t i = 1; i < report_nviews; i++)
		if (report_views[i].key == key)
			return &report_views[i];
	return NULL;
}
