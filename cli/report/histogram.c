/*
 * histogram.c - PROHIST's view: the address range of one function
 * or object cut into equal bins (whole buckets each), one bar per bin,
 * labelled with the function that has the most samples in it.
 *
 *     lo                                                     hi
 *     |  bin 0  |  bin 1  |  ...                  | bin n-1  |
 *     |b|b|b|b|b|  buckets of the object, bucket_bytes each
 *
 * A bucket belongs to the bin holding its first byte; bins are a whole
 * number of buckets wide, so none is split between two bins.
 */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "profile/wall-view.h"
#include "report.h"
#include "share.h"
#include "table.h"

/* The object named (basename or path) target, or -1. */
static long
find_object(const struct profil_profile *p, const char *target)
{
	for (size_t i = 0; i < p->nobjects; i++)
		if (strcmp(p->objects[i].path, target) == 0 ||
		    strcmp(funcs_base_name(p->objects[i].path), target) == 0)
			return (long)i;
	return -1;
}

/* The sampled extent of object oi: [first bucket, last bucket end). */
static void
sampled_extent(const struct profil_object *ob, uint64_t *lo, uint64_t *hi)
{
	*lo = ob->buckets[0].addr;
	*hi = ob->buckets[ob->nbuckets - 1].addr + (ob->bucket_bytes ?
	    ob->bucket_bytes : 1);
}

/* Pick what to draw: object index and [lo, hi); a name for the caption. */
static int
choose(const struct profil_profile *p, const struct funcs *f,
    const char *target, size_t *oi, uint64_t *lo, uint64_t *hi,
    const char **name, char *cause, size_t cause_size)
{
	const struct func_row *row;
	long k, off = wall_view_object(p);

	if (target == NULL) {
		k = -1;
		/* (a wall view's [off-cpu] is time, not code: no addresses) */
		for (size_t i = 0; i < p->nobjects; i++)
			if (p->objects[i].samples > 0 && (long)i != off && (k < 0 ||
			    p->objects[i].samples > p->objects[k].samples))
				k = (long)i;
		if (k < 0) {
			snprintf(cause, cause_size, "no samples in any object to "
			    "draw");
			return -1;
		}
	} else if ((k = find_object(p, target)) < 0) {
		row = funcs_find(f, target);
		if (row == NULL) {
			snprintf(cause, cause_size, "no function or object named "
			    "'%s' has samples in this profile", target);
			return -1;
		}
		if (row->object_index == FUNC_NO_OBJECT) {
			snprintf(cause, cause_size, "%s has no addresses to draw",
			    target);
			return -1;
		}
		if (row->end > row->start &&
		    (long)row->object_index != off) {
			*oi = row->object_index;
			*lo = row->start;
			*hi = row->end;
			*name = row->function;
			return 0;
		}
		k = (long)row->object_index;
	}
	if (k == off) {
		snprintf(cause, cause_size, "%s is time off the CPU, not code: "
		    "it has no addresses to draw (--objects splits it by kind)",
		    target);
		return -1;
	}
	if (p->objects[k].nbuckets == 0) {
		snprintf(cause, cause_size, "%s has no samples", p->objects[k].path);
		return -1;
	}
	*oi = (size_t)k;
	*name = funcs_base_name(p->objects[k].path);
	sampled_extent(&p->objects[k], lo, hi);
	return 0;
}

static void
close_run(struct hist_bin *bin, const char *fname, uint64_t run)
{
	if (fname != NULL && run > bin->label_samples) {
		bin->label = fname;
		bin->label_samples = run;
	}
}

struct hist_bin *
report_bins(const struct profil_object *ob, struct symtab *tab, uint64_t lo,
    uint64_t hi, size_t nbins, size_t *count)
{
	uint64_t bucket = ob->bucket_bytes ? ob->bucket_bytes : 1;
	uint64_t span = hi - lo, width, fstart = 1, fend = 0;
	const char *fname = NULL;
	uint64_t run = 0;
	struct hist_bin *bins;
	size_t n, i, b = 0;

	width = (span + nbins - 1) / nbins;
	width = (width + bucket - 1) / bucket * bucket;
	/* bins on multiples of their width read better, when buckets allow */
	if (lo % width % bucket == 0 && hi - (lo - lo % width) <= width * nbins)
		lo -= lo % width;
	span = hi - lo;
	n = (size_t)((span + width - 1) / width);
	bins = xcalloc(n, sizeof *bins);
	for (i = 0; i < n; i++) {
		bins[i].start = lo + i * width;
		bins[i].end = bins[i].start + width < hi ? bins[i].start + width : hi;
	}
	/*
	 * Buckets in order: a run is consecutive buckets of one function in
	 * one bin; when it ends, it labels its bin if it beats the label.
	 */
	for (i = 0; i < ob->nbuckets; i++) {
		uint64_t addr = ob->buckets[i].addr;
		size_t at;

		if (addr < lo || addr >= hi)
			continue;
		at = (size_t)((addr - lo) / width);
		if (at != b || fname == NULL || addr < fstart || addr >= fend) {
			close_run(&bins[b], fname, run);
			b = at;
			run = 0;
			fname = symtab_lookup(tab, addr, &fstart, &fend);
		}
		bins[at].samples += ob->buckets[i].count;
		run += ob->buckets[i].count;
	}
	close_run(&bins[b], fname, run);
	for (i = 0; i < n; i++) {
		/* empty bins are labelled with what they hold */
		if (bins[i].label == NULL)
			bins[i].label = symtab_lookup(tab, bins[i].start, &fstart,
			    &fend);
		if (bins[i].label != NULL &&
		    (bins[i].demangled = funcs_display_name(bins[i].label)) != NULL)
			bins[i].label = bins[i].demangled;
	}
	*count = n;
	return bins;
}

void
report_bins_free(struct hist_bin *bins, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(bins[i].demangled);
	free(bins);
}

static const struct col hist_cols[] = {
	{ "start", "address", COL_INT },
	{ "end", "end", COL_INT },
	{ "function", "function", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
};

/* Unicode eighth blocks on a UTF-8 terminal; '#' anywhere else. */
static void
print_bar(double cells, int fancy)
{
	static const char *const eighths[] = { "", "\u258f", "\u258e",
	    "\u258d", "\u258c", "\u258b", "\u258a", "\u2589" };
	int whole = (int)cells, part = (int)((cells - whole) * 8);

	for (int i = 0; i < whole; i++)
		fputs(fancy ? "\u2588" : "#", stdout);
	if (fancy)
		fputs(eighths[part], stdout);
	else if (whole == 0 && cells > 0)
		putchar('.');
}

static void
print_text(const struct profil_profile *p, const struct hist_bin *bins, size_t n,
    const char *name, const struct profil_object *ob,
    const struct table_style *style)
{
	int columns = style->columns;
	uint64_t most = 0, in = 0;
	int addr_w = 3, label_w = 8, bar_w, fancy;
	char addr[32];

	for (size_t i = 0; i < n; i++) {
		int len = bins[i].label ? (int)strlen(bins[i].label) : 1;

		in += bins[i].samples;
		if (bins[i].samples > most)
			most = bins[i].samples;
		if (len > label_w)
			label_w = len;
	}
	snprintf(addr, sizeof addr, "%#llx", (unsigned long long)bins[n - 1].start);
	addr_w = (int)strlen(addr);
	if (columns <= 0)
		columns = 200;
	/* address, label, samples (8), percent (6), bar (at least 10) */
	if (label_w > columns - addr_w - 30)
		label_w = columns - addr_w - 30 < 12 ? 12 : columns - addr_w - 30;
	bar_w = columns - addr_w - label_w - 8 - 7 - 5;
	if (bar_w < 10)
		bar_w = 10;
	setlocale(LC_CTYPE, "");
	fancy = isatty(STDOUT_FILENO) && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	printf("%s%s%s: %llu samples (%.2f%% of all), %zu bars of %llu bytes "
	    "from %#llx\n\n", name, strcmp(name, funcs_base_name(ob->path)) ?
	    " in " : "", strcmp(name, funcs_base_name(ob->path)) ?
	    funcs_base_name(ob->path) : "",
	    (unsigned long long)in, report_percent(in, p->samples), n,
	    (unsigned long long)(bins[0].end - bins[0].start),
	    (unsigned long long)bins[0].start);
	printf("%-*s  %-*s %8s %6s\n", addr_w, "address", label_w, "function",
	    "samples", "%");
	for (size_t i = 0; i < n; i++) {
		const char *label = bins[i].label ? bins[i].label : "-";
		double pct = report_percent(bins[i].samples, p->samples);

		snprintf(addr, sizeof addr, "%#llx", (unsigned long long)bins[i].start);
		printf("%-*s  %-*.*s %8llu %6.2f%s", addr_w, addr, label_w, label_w,
		    label, (unsigned long long)bins[i].samples, pct,
		    bins[i].samples ? " " : "");
		fputs(table_colour_of(style, pct), stdout);
		print_bar(most ? (double)bins[i].samples * bar_w / (double)most : 0,
		    fancy);
		fputs(table_colour_end(style), stdout);
		putchar('\n');
	}
}

int
report_histogram(const struct profil_profile *p, const struct funcs *f,
    const struct report_options *o, char *cause, size_t cause_size)
{
	const char *name = NULL;
	uint64_t lo, hi;
	size_t oi, n, nbins;
	struct hist_bin *bins;

	if (choose(p, f, o->target, &oi, &lo, &hi, &name, cause, cause_size) < 0)
		return -1;
	nbins = o->limit > 0 ? (size_t)o->limit : 40;
	bins = report_bins(&p->objects[oi], f->tabs[oi], lo, hi, nbins, &n);
	if (o->format == FORMAT_TEXT) {
		print_text(p, bins, n, name, &p->objects[oi], &o->style);
	} else {
		struct share_basis b;
		struct share_part all;
		struct table t;

		share_basis_init(&b, p);
		share_part_init(&all, SHARE_TIME);
		share_part_all(&b, &all);
		table_init(&t, hist_cols, 6);
		for (size_t i = 0; i < n; i++) {
			union cell *c = table_row(&t);
			struct share_part bin;

			share_part_init(&bin, SHARE_CODE);
			share_part_cpu(&bin, bins[i].samples);
			c[0].i = (int64_t)bins[i].start;
			c[1].i = (int64_t)bins[i].end;
			c[2].s = bins[i].label ? bins[i].label : "";
			c[3].i = (int64_t)bins[i].samples;
			c[4].d = share_percent(&bin, &all);
			c[5].d = share_error95(&b, &bin, &all);
		}
		table_print(&t, o->format, NULL, NULL, &o->style);
		table_free(&t);
		share_part_free(&all);
		share_basis_free(&b);
	}
	report_bins_free(bins, n);
	return 0;
}
