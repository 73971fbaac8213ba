/*
 * flame-checks.h - what the tests of the flame graph share
 * (flame-checks.c): the page written, its flame graph data decoded, the
 * tree the page's script relies on checked, and the page checked in a
 * browser.
 */
#ifndef PROFIL_TEST_FLAME_CHECKS_H
#define PROFIL_TEST_FLAME_CHECKS_H

#include <stddef.h>

/* The page's flame graph data (flame.c's JSON), decoded. */
struct flame {
	unsigned long long total;
	size_t nfuncs, n;
	char **name, **object;
	int *flags;
	long *parent, *func;
	unsigned long long *count;
	double *err;		/* each box's 95% error, in points */
	int timed;		/* the page has a timeline: boxes under 0.1%
				   of the run may be drawn (under 0.1% of
				   every hundredth of it are not) */
};

/* `profil report --html PAGE prf`, which must succeed; the page's text. */
char *html_of_with(const char *prf, const char *page, const char *option);

/* The same without an option. */
char *html_of(const char *prf, const char *page);

/* The flame graph data of the page's text, decoded into fl. */
void flame_parse(struct flame *fl, const char *page);

/* What flame_parse gave fl, freed. */
void flame_free(struct flame *fl);

/* The function of box i, "(root)" for the root. */
const char *node_name(const struct flame *fl, long i);

/*
 * What the script relies on: the root first (every sample), a parent
 * before its children (preorder: a subtree is one run of nodes), children
 * heaviest first and within their parent's count, nothing under 0.1% (of
 * a page without a timeline).
 */
void flame_check_tree(const struct flame *fl);

/*
 * tests/browser/check-html.sh [option] PAGE SHOT EXPECT (JSON), which
 * must print "ok": the page in headless Chromium (check-html.js; with
 * option "--time", check-html-time.js).  Skips where chromium or node is
 * missing, unless PROFIL_REQUIRE_BROWSER is set.
 */
void browser_check_with(const char *option, const char *page,
    const char *shot, const char *expect);
/* The same, its output (NULL if skipped), which need not say "ok". */
const char *browser_output(const char *option, const char *page,
    const char *shot, const char *expect);
void browser_check(const char *page, const char *shot, const char *expect);

#endif
