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
#include "funcs.h"
#include "table.h"

#define base_name funcs_base_name

enum { VIEW_FLAT, VIEW_OBJECTS, VIEW_THREADS, VIEW_PROCESSES };
enum { SORT_SAMPLES, SORT_FUNCTION, SORT_OBJECT };

struct options {
	int view, format, sort;
	double min_percent;
	long limit;
};

static int
by_samples(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->object, y->object);
}

static int
by_function(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;
	int c = strcmp(x->function, y->function);

	return c ? c : by_samples(a, b);
}

static int
by_object(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;
	int c = strcmp(x->object, y->object);

	return c ? c : by_samples(a, b);
}

static double
percent(uint64_t k, uint64_t n)
{
	return n ? 100.0 * (double)k / (double)n : 0.0;
}

/* Flat: columns in machine order; text shows them gprof-like. */
static const struct col flat_cols[] = {
	{ "function", "function", COL_STR },
	{ "object", "object", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%self", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "cumulative", "cum%", COL_PCT },
	{ "seconds", "self s", COL_SEC },
};
static const int flat_text[] = { 3, 4, 5, 6, 2, 0, 1, -1 };

static void
flat_view(const struct profil_profile *p, struct funcs *f,
    const struct options *o, const char *caption)
{
	struct table t;
	double cumulative = 0;
	size_t i;

	if (f->nrows > 1 && o->sort != SORT_SAMPLES)
		qsort(f->rows, f->nrows, sizeof *f->rows, o->sort == SORT_FUNCTION ?
		    by_function : o->sort == SORT_OBJECT ? by_object : by_samples);
	table_init(&t, flat_cols, 7);
	for (i = 0; i < f->nrows; i++) {
		const struct func_row *r = &f->rows[i];
		double pct = percent(r->samples, p->samples);
		union cell *c;

		cumulative += pct;
		if (pct < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = r->function;
		c[1].s = r->object;
		c[2].i = (int64_t)r->samples;
		c[3].d = pct;
		c[4].d = table_error95(r->samples, p->samples);
		c[5].d = cumulative;
		c[6].d = (double)r->samples * (double)p->interval_ns / 1e9;
	}
	table_print(&t, o->format, flat_text, caption);
	table_free(&t);
}

static const struct col object_cols[] = {
	{ "object", "object", COL_STR },
	{ "path", "path", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
};
static const int object_text[] = { 3, 4, 5, 2, 0, 1, -1 };

/*
 * Objects: the program, each library, the kernel, unknown code and lost
 * samples, as shares of every sample taken (lost included).
 */
static void
objects_view(const struct profil_profile *p, const struct options *o,
    const char *caption)
{
	uint64_t total = p->samples + p->lost;
	struct { const char *name, *path; uint64_t n; } *v;
	size_t n = 0, i, j;
	struct table t;

	v = xcalloc(p->nobjects + 3, sizeof *v);
	for (i = 0; i < p->nobjects; i++)
		v[n++] = (typeof(*v)){ base_name(p->objects[i].path),
		    p->objects[i].path, p->objects[i].samples };
	v[n++] = (typeof(*v)){ "[kernel]", "", p->kernel };
	v[n++] = (typeof(*v)){ "[unknown]", "", p->unknown };
	v[n++] = (typeof(*v)){ "[lost]", "", p->lost };
	for (i = 1; i < n; i++)	/* insertion sort by samples, few rows */
		for (j = i; j > 0 && v[j].n > v[j - 1].n; j--) {
			typeof(*v) tmp = v[j];
			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	table_init(&t, object_cols, 6);
	for (i = 0; i < n; i++) {
		union cell *c;

		if (v[i].n == 0 && (o->format == FORMAT_TEXT || v[i].path[0] == 0))
			continue;
		if (percent(v[i].n, total) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = v[i].name;
		c[1].s = v[i].path;
		c[2].i = (int64_t)v[i].n;
		c[3].d = percent(v[i].n, total);
		c[4].d = table_error95(v[i].n, total);
		c[5].d = (double)v[i].n * (double)p->interval_ns / 1e9;
	}
	table_print(&t, o->format, object_text, caption);
	table_free(&t);
	free(v);
}

static const struct col thread_cols[] = {
	{ "pid", "pid", COL_INT },
	{ "tid", "tid", COL_INT },
	{ "name", "name", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
};
static const int thread_text[] = { 4, 5, 6, 3, 0, 1, 2, -1 };

static void
threads_view(const struct profil_profile *p, const struct options *o,
    const char *caption)
{
	struct table t;
	size_t i;

	if (p->nthreads == 0 && o->format == FORMAT_TEXT)
		printf("(this profile has no per-thread figures: the %s engine "
		    "does not record them)\n\n", p->engine);
	table_init(&t, thread_cols, 7);
	for (i = 0; i < p->nthreads; i++) {
		const struct profil_thread *th = &p->threads[i];
		union cell *c;

		if (percent(th->samples, p->samples) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].i = th->pid;
		c[1].i = th->tid;
		c[2].s = th->name;
		c[3].i = (int64_t)th->samples;
		c[4].d = percent(th->samples, p->samples);
		c[5].d = table_error95(th->samples, p->samples);
		c[6].d = (double)th->samples * (double)p->interval_ns / 1e9;
	}
	table_print(&t, o->format, thread_text, caption);
	table_free(&t);
}

static const struct col process_cols[] = {
	{ "pid", "pid", COL_INT },
	{ "ppid", "ppid", COL_INT },
	{ "command", "command", COL_STR },
	{ "exit_status", "status", COL_INT },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
};
static const int process_text[] = { 5, 6, 7, 4, 0, 1, 3, 2, -1 };

static void
processes_view(const struct profil_profile *p, const struct options *o,
    const char *caption)
{
	struct table t;
	size_t i;

	table_init(&t, process_cols, 8);
	for (i = 0; i < p->nprocesses; i++) {
		const struct profil_process *pr = &p->processes[i];
		union cell *c;

		if (percent(pr->samples, p->samples) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].i = pr->pid;
		c[1].i = pr->ppid;
		c[2].s = pr->command;
		c[3].i = pr->exit_status;
		c[4].i = (int64_t)pr->samples;
		c[5].d = percent(pr->samples, p->samples);
		c[6].d = table_error95(pr->samples, p->samples);
		c[7].d = (double)pr->samples * (double)p->interval_ns / 1e9;
	}
	table_print(&t, o->format, process_text, caption);
	table_free(&t);
}

static int
report_exec(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "objects", no_argument, NULL, 'O' },
		{ "threads", no_argument, NULL, 'T' },
		{ "pid", no_argument, NULL, 'P' },
		{ "processes", no_argument, NULL, 'P' },
		{ "min-percent", required_argument, NULL, 'm' },
		{ "limit", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { VIEW_FLAT, FORMAT_TEXT, SORT_SAMPLES, 0, -1 };
	const char *file = "profil.prf";
	struct profil_profile *p;
	struct funcs f = { 0 };
	char cause[256], caption[512], *end;
	unsigned long v;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:f:n:h", options, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") == 0)
				o.format = FORMAT_TEXT;
			else if (strcmp(optarg, "csv") == 0)
				o.format = FORMAT_CSV;
			else if (strcmp(optarg, "json") == 0)
				o.format = FORMAT_JSON;
			else
				cli_die(EXIT_USAGE, "--format: unknown format '%s' "
				    "(text, csv or json)", optarg);
			break;
		case 'O':
			o.view = VIEW_OBJECTS;
			break;
		case 'T':
			o.view = VIEW_THREADS;
			break;
		case 'P':
			o.view = VIEW_PROCESSES;
			break;
		case 'm':
			o.min_percent = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || !(o.min_percent >= 0) ||
			    o.min_percent > 100)
				cli_die(EXIT_USAGE, "--min-percent: '%s' is not a "
				    "percentage from 0 to 100", optarg);
			break;
		case 'n':
			if (cli_parse_ulong(optarg, 0, 100000000, &v) < 0)
				cli_die(EXIT_USAGE, "--limit: '%s' is not a number of "
				    "rows", optarg);
			o.limit = (long)v;
			break;
		case 's':
			if (strcmp(optarg, "samples") == 0)
				o.sort = SORT_SAMPLES;
			else if (strcmp(optarg, "function") == 0)
				o.sort = SORT_FUNCTION;
			else if (strcmp(optarg, "object") == 0)
				o.sort = SORT_OBJECT;
			else
				cli_die(EXIT_USAGE, "--sort: unknown key '%s' "
				    "(samples, function or object)", optarg);
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
	snprintf(caption, sizeof caption, "%llu samples (%.2f s of CPU at "
	    "%.0f Hz), %llu lost, %s engine; percentages +- their 95%% "
	    "sampling error", (unsigned long long)p->samples,
	    (double)p->cpu_ns / 1e9, p->interval_ns ? 1e9 / (double)p->interval_ns : 0,
	    (unsigned long long)p->lost, p->engine);

	if (o.view == VIEW_FLAT) {
		funcs_build(&f, p, 1);
		flat_view(p, &f, &o, caption);
	} else if (o.view == VIEW_OBJECTS)
		objects_view(p, &o, caption);
	else if (o.view == VIEW_THREADS)
		threads_view(p, &o, caption);
	else
		processes_view(p, &o, caption);
	c = cli_finish_stdout(0);
	funcs_free(&f);
	profil_profile_free(p);
	return c;
}

const struct cmd cmd_report = {
	"report", "[--objects | --threads | --pid] [--format text|csv|json] "
	    "[--min-percent P] [--limit N] [--sort samples|function|object] [FILE]",
	"print where the time went (the flat profile)",
	report_exec,
};
