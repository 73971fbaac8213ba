/*
 * flame-checks.c - the flame graph's data read off the page that `profil
 * report --html` writes (flame-checks.h): its JSON decoded, here, with no
 * code of the report's, and checked as the tree the page's script needs;
 * and the page checked in headless Chromium (tests/browser/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "flame-checks.h"
#include "harness.h"

/* A whole file, NUL-terminated; malloc'd. */
static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	long size;
	char *s;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	s = malloc((size_t)size + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)size, f), (size_t)size);
	s[size] = '\0';
	fclose(f);
	return s;
}

char *
html_of_with(const char *prf, const char *page, const char *option)
{
	char *argv[] = { profil_bin, "report", "--html", (char *)page, (char *)prf,
	    (char *)option, NULL };
	struct run r;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report --html exited %d: %s", r.status, r.err);
	return slurp(page);
}

char *
html_of(const char *prf, const char *page)
{
	return html_of_with(prf, page, NULL);
}

/* A JSON string at *s (escapes \" \\ \/ \uXXXX below 0x80), malloc'd. */
static char *
json_string(const char **s)
{
	const char *p = *s;
	char *out = malloc(strlen(p) + 1), *o = out;

	assert_true(*p == '"');
	for (p++; *p != '"'; p++) {
		assert_true(*p != '\0' && (unsigned char)*p >= 0x20);
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		p++;
		if (*p == 'u') {
			unsigned v;

			assert_int_equal(sscanf(p + 1, "%4x", &v), 1);
			assert_true(v > 0 && v < 0x80);
			*o++ = (char)v;
			p += 4;
		} else {
			assert_non_null(strchr("\"\\/", *p));
			*o++ = *p;
		}
	}
	*o = '\0';
	*s = p + 1;
	return out;
}

/* The numbers of "key":[a,b,...] in data, into a malloc'd array. */
static size_t
json_numbers(const char *data, const char *key, long long **out)
{
	const char *p = strstr(data, key);
	size_t n = 0, cap = 64;
	long long *v = malloc(cap * sizeof *v);

	assert_non_null(p);
	p += strlen(key);
	while (*p != ']') {
		char *end;

		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof *v);
		v[n++] = strtoll(p, &end, 10);
		assert_true(end != p);
		p = *end == ',' ? end + 1 : end;
	}
	*out = v;
	return n;
}

void
flame_parse(struct flame *fl, const char *page)
{
	const char *data = strstr(page, "<script type=\"application/json\" "
	    "id=\"flame-data\">"), *p;
	long long *v;
	size_t cap = 64;

	memset(fl, 0, sizeof *fl);
	assert_non_null(data);
	fl->timed = strstr(page, "id=\"timeline-data\"") != NULL;
	assert_int_equal(sscanf(strstr(data, "\"total\":"), "\"total\":%llu",
	    &fl->total), 1);
	fl->name = malloc(cap * sizeof *fl->name);
	fl->object = malloc(cap * sizeof *fl->object);
	fl->flags = malloc(cap * sizeof *fl->flags);
	p = strstr(data, "\"funcs\":[") + 9;
	while (*p != ']') {
		while (*p == '\n' || *p == ',')
			p++;
		assert_true(*p == '[');
		p++;
		if (fl->nfuncs == cap) {
			cap *= 2;
			fl->name = realloc(fl->name, cap * sizeof *fl->name);
			fl->object = realloc(fl->object, cap * sizeof *fl->object);
			fl->flags = realloc(fl->flags, cap * sizeof *fl->flags);
		}
		fl->name[fl->nfuncs] = json_string(&p);
		assert_true(*p++ == ',');
		fl->object[fl->nfuncs] = json_string(&p);
		assert_true(*p++ == ',');
		fl->flags[fl->nfuncs++] = (int)strtol(p, (char **)&p, 10);
		assert_true(*p++ == ']');
	}
	fl->n = json_numbers(data, "\"parent\":[", (long long **)&fl->parent);
	assert_int_equal(json_numbers(data, "\"func\":[", (long long **)&fl->func),
	    fl->n);
	assert_int_equal(json_numbers(data, "\"count\":[", &v), fl->n);
	fl->count = (unsigned long long *)v;
	fl->err = calloc(fl->n, sizeof *fl->err);
	p = strstr(data, "\"err\":[");
	assert_non_null(p);
	p += 7;
	for (size_t i = 0; i < fl->n; i++) {
		char *end;

		fl->err[i] = strtod(p, &end);
		assert_true(end != p);
		p = *end == ',' ? end + 1 : end;
	}
	assert_true(*p == ']');
}

void
flame_free(struct flame *fl)
{
	for (size_t i = 0; i < fl->nfuncs; i++) {
		free(fl->name[i]);
		free(fl->object[i]);
	}
	free(fl->name);
	free(fl->object);
	free(fl->flags);
	free(fl->parent);
	free(fl->func);
	free(fl->count);
	free(fl->err);
}

const char *
node_name(const struct flame *fl, long i)
{
	return fl->func[i] < 0 ? "(root)" : fl->name[fl->func[i]];
}

void
flame_check_tree(const struct flame *fl)
{
	unsigned long long *children = calloc(fl->n, sizeof *children);
	long *last = calloc(fl->n, sizeof *last);

	assert_true(fl->n >= 2);
	assert_int_equal(fl->parent[0], -1);
	assert_int_equal(fl->func[0], -1);
	assert_int_equal(fl->count[0], fl->total);
	for (size_t i = 1; i < fl->n; i++) {
		long p = fl->parent[i];

		assert_true(p >= 0 && (size_t)p < i);
		assert_true(fl->func[i] >= 0 && (size_t)fl->func[i] < fl->nfuncs);
		assert_true(fl->count[i] > 0);
		assert_true(fl->timed || fl->count[i] * 1000 >= fl->total);
		/* a new child of p comes after p's earlier children's subtrees,
		   and no heavier than them */
		if (last[p] != 0)
			assert_true(fl->count[last[p]] >= fl->count[i]);
		for (long a = (long)i - 1; a != p; a = fl->parent[a])
			assert_true(a > p);	/* i - 1 is in p's subtree */
		last[p] = (long)i;
		children[p] += fl->count[i];
	}
	for (size_t i = 0; i < fl->n; i++)
		if (children[i] > fl->count[i])
			fail_msg("box %zu (%s): its children have %llu samples, it "
			    "has %llu", i, node_name(fl, (long)i), children[i],
			    fl->count[i]);
	free(children);
	free(last);
}

/* 1 if the browser check can run; skips (or fails, when required) if not. */
static int
browser_ready(void)
{
	if (access("tests/browser/check-html.sh", X_OK) == 0 &&
	    system("command -v chromium >/dev/null && command -v node "
	    ">/dev/null") == 0)
		return 1;
	if (getenv("PROFIL_REQUIRE_BROWSER") != NULL)
		fail_msg("PROFIL_REQUIRE_BROWSER is set but chromium, node or "
		    "tests/browser/check-html.sh is missing");
	SKIP("chromium or node not installed (PROFIL_REQUIRE_BROWSER=1 "
	    "makes it a failure)");
	return 0;
}

const char *
browser_output(const char *option, const char *page, const char *shot,
    const char *expect)
{
	/* make check runs from the top of the source tree */
	char *check[6] = { "tests/browser/check-html.sh" };
	size_t n = 1;
	static struct run r;

	if (!browser_ready())
		return NULL;
	if (option != NULL)
		check[n++] = (char *)option;
	check[n++] = (char *)page;
	check[n++] = (char *)shot;
	check[n++] = (char *)expect;
	check[n] = NULL;
	run(&r, check);
	if (r.status != 0)
		fail_msg("browser check failed (%d): %s%s", r.status, r.out, r.err);
	return r.out;
}

void
browser_check_with(const char *option, const char *page, const char *shot,
    const char *expect)
{
	const char *out = browser_output(option, page, shot, expect);

	if (out != NULL && strstr(out, "ok") == NULL)
		fail_msg("browser check failed: %s", out);
}

void
browser_check(const char *page, const char *shot, const char *expect)
{
	browser_check_with(NULL, page, shot, expect);
}
