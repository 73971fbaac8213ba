/*
 * cmd-report.c - `profil report [--format text|csv] [FILE]`: the flat
 * profile, one row per function with its samples, its share of all
 * samples and its object, plus rows for the kernel and unknown code.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <profil.h>

#include "cli.h"
#include "symbols.h"

struct row {
	const char *function;
	const char *object;		/* basename of the object's path */
	uint64_t samples;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

static void
add_row(struct rows *r, const char *function, const char *object,
    uint64_t samples)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->v = xrealloc(r->v, r->cap * sizeof *r->v);
	}
	r->v[r->n++] = (struct row){ function, object, samples };
}

static int
by_samples(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->object, y->object);
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/*
 * Fold one object's buckets into function rows.  Buckets are sorted, so
 * consecutive ones usually fall in the same function: one lookup each
 * time the address leaves the current function.
 */
static void
object_rows(struct rows *rows, const struct profil_object *o,
    struct symtab *t, char **unresolved)
{
	const char *name = NULL;
	uint64_t start = 1, end = 0, sum = 0, lost = 0;
	size_t i;

	for (i = 0; i < o->nbuckets; i++) {
		uint64_t addr = o->buckets[i].addr;

		if (name == NULL || addr < start || addr >= end) {
			if (name != NULL && sum > 0)
				add_row(rows, name, base_name(o->path), sum);
			sum = 0;
			name = symtab_lookup(t, addr, &start, &end);
		}
		if (name != NULL)
			sum += o->buckets[i].count;
		else
			lost += o->buckets[i].count;
	}
	if (name != NULL && sum > 0)
		add_row(rows, name, base_name(o->path), sum);
	if (lost > 0) {
		/* code outside any known function: one row for the object */
		size_t len = strlen(base_name(o->path)) + 16;

		*unresolved = xmalloc(len);
		snprintf(*unresolved, len, "[%s]", base_name(o->path));
		add_row(rows, *unresolved, base_name(o->path), lost);
	}
}

/* Rows with the same function and object are merged (split buckets). */
static void
merge_rows(struct rows *r)
{
	size_t i, j, out = 0;

	for (i = 0; i < r->n; i++) {
		for (j = 0; j < out; j++)
			if (r->v[j].function == r->v[i].function &&
			    r->v[j].object == r->v[i].object)
				break;
		if (j < out)
			r->v[j].samples += r->v[i].samples;
		else
			r->v[out++] = r->v[i];
	}
	r->n = out;
}

static void
csv_field(const char *s)
{
	if (strpbrk(s, ",\"\n") == NULL) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static int
report_exec(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = "profil.prf", *format = "text";
	struct profil_profile *p;
	struct rows rows = { NULL, 0, 0 };
	struct symtab **tabs;
	char **unresolved;
	char cause[256];
	size_t i;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:f:h", options, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "csv") != 0)
				cli_die(EXIT_USAGE, "--format: unknown format '%s' "
				    "(text or csv)", optarg);
			format = optarg;
			break;
		case 'h':
			printf("usage: profil report %s\n", cmd_report.usage);
			return cli_finish_stdout(0);
		default:
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc)
		cli_die(EXIT_USAGE, "one profile at a time ('%s' is extra)",
		    argv[optind]);
	p = profil_profile_read(file, cause, sizeof cause);
	if (p == NULL)
		cli_die(1, "%s: %s", file, cause);

	tabs = xcalloc(p->nobjects, sizeof *tabs);
	unresolved = xcalloc(p->nobjects, sizeof *unresolved);
	for (i = 0; i < p->nobjects; i++) {
		const char *problem;

		tabs[i] = symtab_open(&p->objects[i], &problem);
		if (problem != NULL && p->objects[i].samples > 0 &&
		    p->objects[i].path[0] == '/')
			cli_warn("%s: %s; its samples show as [%s]",
			    p->objects[i].path, problem,
			    base_name(p->objects[i].path));
		object_rows(&rows, &p->objects[i], tabs[i], &unresolved[i]);
	}
	merge_rows(&rows);
	if (p->kernel > 0)
		add_row(&rows, "[kernel]", "[kernel]", p->kernel);
	if (p->unknown > 0)
		add_row(&rows, "[unknown]", "[unknown]", p->unknown);
	if (rows.n > 1)
		qsort(rows.v, rows.n, sizeof *rows.v, by_samples);

	if (strcmp(format, "csv") == 0) {
		printf("function,object,samples,percent\n");
		for (i = 0; i < rows.n; i++) {
			csv_field(rows.v[i].function);
			putchar(',');
			csv_field(rows.v[i].object);
			printf(",%llu,%.4f\n", (unsigned long long)rows.v[i].samples,
			    p->samples ? 100.0 * (double)rows.v[i].samples /
			    (double)p->samples : 0.0);
		}
	} else {
		printf("%llu samples, %.2f s CPU, %s engine, %llu lost\n\n",
		    (unsigned long long)p->samples, (double)p->cpu_ns / 1e9,
		    p->engine, (unsigned long long)p->lost);
		printf("%9s %8s  %-32s %s\n", "samples", "percent", "function",
		    "object");
		for (i = 0; i < rows.n; i++)
			printf("%9llu %7.2f%%  %-32s %s\n",
			    (unsigned long long)rows.v[i].samples,
			    p->samples ? 100.0 * (double)rows.v[i].samples /
			    (double)p->samples : 0.0, rows.v[i].function,
			    rows.v[i].object);
	}
	c = cli_finish_stdout(0);
	for (i = 0; i < p->nobjects; i++) {
		symtab_close(tabs[i]);
		free(unresolved[i]);
	}
	free(tabs);
	free(unresolved);
	free(rows.v);
	profil_profile_free(p);
	return c;
}

const struct cmd cmd_report = {
	"report", "[--format text|csv] [FILE]",
	"print where the time went (the flat profile)",
	report_exec,
};
