/*
 * views.h - the views of `profil report`, an entry each, as the command
 * table is (cli/profil.c): the option that picks a view, what it takes,
 * what it reads besides the profile, and the function that shows it.
 * cmd-report.c reads the options this table names, builds what the view
 * reads and calls it; a new view is its function (report.h) and a line
 * here, and its line of report's --help (cmd-report.c; cli_help marks
 * an option without one).
 */
#ifndef PROFIL_REPORT_VIEWS_H
#define PROFIL_REPORT_VIEWS_H

#include <stddef.h>

#include <profil.h>

#include "model/funcs.h"
#include "model/stacks.h"
#include "report.h"

/* What a view reads besides the profile (report_view.reads): */
#define VIEW_FUNCS	 1	/* the function rows (model/funcs.h) */
#define VIEW_STACKS	 2	/* the stacks named (model/stacks.h) */
#define VIEW_SOME_STACKS 4	/* the stacks named, when the profile has
				   them (the flat view's inclusive columns) */
#define VIEW_INLINES	 8	/* --inline goes with it: inlined functions
				   rows and frames of their own */

/* What the command gives a view: the profile, and what the view reads. */
struct report_input {
	const struct profil_profile *p;	/* a profile, or a wall view of one */
	struct funcs *f;		/* built with VIEW_FUNCS, else empty
					   (the flat view sorts its rows) */
	const struct stacks *s;		/* named with VIEW_STACKS (or
					   VIEW_SOME_STACKS and stacks), else
					   NULL */
	const struct profil_profile *recorded;	/* the profile as read, of
					   which p is the view (p itself
					   when not a wall view) */
};

struct report_view {
	const char *option;	/* the long option that picks it; NULL: the
				   default (the flat profile) */
	const char *alias;	/* another name of that option, or NULL */
	int has_arg;		/* getopt's no_argument, required_argument or
				   optional_argument: the argument is
				   report_options.target */
	int key;		/* getopt's value for it (what a misused
				   option is named by: "-O") */
	unsigned reads;		/* VIEW_* */
	/* 0, or -1 with a one-line cause (printed nothing) */
	int (*show)(const struct report_input *in,
	    const struct report_options *o, char *cause, size_t cause_size);
};

/* Every view, the default first; report_nviews of them. */
extern const struct report_view report_views[];
extern const size_t report_nviews;

/* The view whose option has getopt value key, or NULL. */
const struct report_view *report_view_of_key(int key);

#endif
