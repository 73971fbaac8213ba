/*
 * html.c - `profil report --html FILE`: one self-contained page
 * (inline CSS, inline script, inline SVG; nothing fetched): the run, the
 * object split, the timeline when the profile has one (a track per
 * thread, windows of the run: html.h), the flame graph of the call
 * stacks (flame.h), a picture per busy object of where in its code the
 * time went (bars with the function on hover) and the flat table,
 * sortable.  Every name is HTML-escaped (in the page's JSON data,
 * JSON-escaped with < > & as \u escapes): C++ names are full of < > &.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "html.h"
#include "outfile.h"
#include "profile/wall-view.h"
#include "report.h"
#include "share.h"

#define PICTURE_BINS 200	/* bars per object picture */
#define PICTURE_OBJECTS 4	/* busiest objects drawn */
#define TABLE_ROWS 2000		/* flat rows on the page at most */
#define PEAK_LABELS 6		/* names written over the highest bars */

static const char style[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:72em;"
"padding:0 1em;color:#222}\n"
"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\n"
"table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right;"
"white-space:nowrap}\n"
"td.n,th.n{text-align:left;white-space:normal}\n"
"th{cursor:pointer;border-bottom:1px solid #888;user-select:none}\n"
"th.up::after{content:' \\25b2'}th.down::after{content:' \\25bc'}\n"
"tr:nth-child(even) td{background:#f5f5f5}\n"
".bar{display:inline-block;height:.8em;background:#c0392b;"
"vertical-align:middle}\n"
".err{color:#888}.meta td{text-align:left}\n"
"svg{display:block;margin:.5em 0}svg rect.b{fill:#c0392b}"
"svg rect.b:hover{fill:#e67e22}\n"
".key{display:inline-block;width:.8em;height:.8em;margin-right:.4em}\n"
".split{display:flex;height:1.4em;width:100%;margin:.5em 0}"
".split div{height:100%}\n"
".flame{position:relative}.fg-tools{display:flex;gap:.8em;align-items:center}\n"
"#flame-svg{font-size:12px}#flame-svg g.fg-box{cursor:pointer}\n"
"#flame-svg rect{stroke:#fff;stroke-width:.5}"
"#flame-svg g.fg-box:hover rect{stroke:#222;stroke-width:1}\n"
"#flame-svg g.fg-dim rect{opacity:.45}#flame-svg g.fg-match rect{fill:#d020e0}\n"
"#flame-svg text{pointer-events:none;fill:#111}\n"
".fg-tip{position:absolute;z-index:1;pointer-events:none;background:#fffff4;"
"border:1px solid #999;padding:4px 8px;max-width:40em;"
"box-shadow:0 2px 6px rgba(0,0,0,.2);overflow-wrap:anywhere}\n"
".fg-note{color:#666}\n"
".tl{display:flex;margin:.5em 0;user-select:none}"
".tl-names{flex:none;width:11em;padding-right:.5em}\n"
".tl-name{height:42px;line-height:30px;overflow:hidden;white-space:nowrap;"
"text-overflow:ellipsis;text-align:right}.tl-tid{color:#888;font-size:.85em}\n"
".tl-plot{position:relative;flex:auto;min-width:0;cursor:crosshair}"
"#tl-canvas{display:block;width:100%}\n"
".tl-sel{position:absolute;top:0;background:rgba(41,128,185,.18);"
"border:1px solid #2980b9;border-width:0 1px;pointer-events:none}\n"
".tl-window{font-variant-numeric:tabular-nums}"
".tl-phases ol{margin:.2em 0 .6em;padding-left:1.5em}"
".tl-phases li{cursor:pointer}.tl-phases li:hover{text-decoration:underline}\n"
".tl-whole{color:#a04000}\n";

/* Sorting by a click on a header; numbers sort by their data-v. */
static const char script[] =
"document.querySelectorAll('table.sortable').forEach(function(t){\n"
" t.querySelectorAll('th').forEach(function(th,i){\n"
"  th.addEventListener('click',function(){\n"
"   var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
"   var up=!th.classList.contains('up');\n"
"   t.querySelectorAll('th').forEach(function(h){h.classList.remove('up','down');});\n"
"   th.classList.add(up?'up':'down');\n"
"   rows.sort(function(a,b){\n"
"    var x=a.cells[i].getAttribute('data-v'),y=b.cells[i].getAttribute('data-v');\n"
"    var c=(x!==null&&y!==null)?(parseFloat(x)-parseFloat(y)):\n"
"     a.cells[i].textContent.localeCompare(b.cells[i].textContent);\n"
"    return up?c:-c;});\n"
"   rows.forEach(function(r){body.appendChild(r);});\n"
"  });\n"
" });\n"
"});\n";

static const char *const palette[] = { "#c0392b", "#2980b9", "#27ae60",
    "#8e44ad", "#d35400", "#16a085", "#7f8c8d", "#2c3e50" };

/* What a section the timeline's windows leave as it is says of itself. */
static void
whole_run_note(FILE *fp, int timed)
{
	if (timed)
		fputs("<p class=\"tl-whole\" hidden>Of the whole run, not of the "
		    "window chosen on the timeline.</p>\n", fp);
}

static void
meta(FILE *fp, const struct profil_profile *p)
{
	char when[64] = "", rates[64];
	time_t t = (time_t)(p->start_ns / 1000000000);
	struct tm tm;

	if (p->start_ns > 0 && gmtime_r(&t, &tm) != NULL)
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	fputs("<table class=\"meta\">\n<tr><th class=\"n\">command</th><td>", fp);
	for (int i = 0; i < p->argc; i++) {
		html_escape(fp, p->argv[i]);
		fputc(' ', fp);
	}
	fprintf(fp, "</td></tr>\n<tr><th class=\"n\">started</th><td>%s</td></tr>\n",
	    when);
	if (report_weighted(p))
		fprintf(fp, "<tr><th class=\"n\">samples</th><td>%llu taken "
		    "(%llu lost) at %s, %s engine; counts are in %.0f us "
		    "intervals (%llu), and the errors those of %.0f samples of "
		    "equal weight</td></tr>\n",
		    (unsigned long long)p->taken, (unsigned long long)p->lost,
		    report_rates(p, rates, sizeof rates), p->engine,
		    (double)p->interval_ns / 1e3,
		    (unsigned long long)wall_view_cpu_samples(p),
		    (double)wall_view_cpu_samples(p) / report_error_scale(p));
	else	/* (of a wall view: the CPU's, its time off it is no sample) */
		fprintf(fp, "<tr><th class=\"n\">samples</th><td>%llu (%llu "
		    "lost), %.0f Hz, %s engine</td></tr>\n",
		    (unsigned long long)wall_view_cpu_samples(p),
		    (unsigned long long)p->lost,
		    p->interval_ns ? 1e9 / (double)p->interval_ns : 0.0,
		    p->engine);
	fprintf(fp, "<tr><th class=\"n\">CPU time</th><td>%.3f s in %.3f s of "
	    "wall time</td></tr>\n", (double)p->cpu_ns / 1e9,
	    (double)p->duration_ns / 1e9);
	/* a wall view: the threads' time, on the CPU and off it */
	if (wall_view_object(p) >= 0) {
		uint64_t on = wall_view_cpu_samples(p);

		double seen;

		fprintf(fp, "<tr><th class=\"n\">wall profile</th><td>%.3f s of "
		    "the threads' time: %.3f s on the CPU, %.3f s off it</td>"
		    "</tr>\n", (double)p->samples * (double)p->interval_ns / 1e9,
		    (double)on * (double)p->interval_ns / 1e9,
		    (double)(p->samples - on) * (double)p->interval_ns / 1e9);
		if (report_unsampled(p, &seen))
			fprintf(fp, "<tr><th class=\"n\">sampled</th><td>%.3f s, "
			    "%.0f%% of the CPU time (the rest went unsampled: "
			    "threads or processes shorter than a sampling period)"
			    "</td></tr>\n", seen / 1e9,
			    100 * seen / (double)p->cpu_ns);
	} else if (p->cpu_ns > 0 && p->interval_ns > 0) {
		/* as the text caption's note: time the clocks never saw */
		double seen;
		int unsampled = report_unsampled(p, &seen);

		fprintf(fp, "<tr><th class=\"n\">sampled</th><td>%.3f s, %.0f%% "
		    "of the CPU time%s</td></tr>\n", seen / 1e9,
		    100 * seen / (double)p->cpu_ns, unsampled ? " (the rest went "
		    "unsampled: threads or processes shorter than a sampling "
		    "period, or kernel time where only user mode may be "
		    "sampled)" : "");
	}
	fputs("</table>\n", fp);
}

static void
objects(FILE *fp, const struct profil_profile *p, const struct share_basis *b,
    int timed)
{
	uint64_t total = p->samples + p->lost;
	size_t n, i;
	struct object_share *v = report_object_shares(p, &n);
	struct share_part all;

	share_part_init(&all, SHARE_TIME);
	share_part_all(b, &all);
	share_part_cpu(&all, p->lost);

	fputs("<h2>Objects</h2>\n", fp);
	whole_run_note(fp, timed);
	fputs("<div class=\"split\" id=\"split\">", fp);
	for (i = 0; i < n && v[i].n > 0; i++) {
		fprintf(fp, "<div style=\"width:%.3f%%;background:%s\" title=\"",
		    report_percent(v[i].n, total), palette[i % 8]);
		html_escape(fp, v[i].name);
		/* a wall view's shares are of time: its seconds, then */
		if (b->off_obj >= 0)
			fprintf(fp, ": %.3f s, %.2f%%\"></div>", (double)v[i].n *
			    (double)p->interval_ns / 1e9,
			    report_percent(v[i].n, total));
		else
			fprintf(fp, ": %llu samples, %.2f%%\"></div>",
			    (unsigned long long)v[i].n,
			    report_percent(v[i].n, total));
	}
	fputs("</div>\n<table class=\"sortable\" id=\"objects\"><thead><tr>"
	    "<th class=\"n\">object</th><th>samples</th><th>%</th><th>&plusmn;95%</th>"
	    "<th>seconds</th></tr></thead><tbody>\n", fp);
	for (i = 0; i < n && v[i].n > 0; i++) {
		struct share_part part;
		double sec, pct, err;

		/* a wall view's [off-cpu] is time: CPU samples, none */
		if (strcmp(v[i].path, WALL_VIEW_OBJECT) == 0) {
			share_part_init(&part, SHARE_TIME);
			for (size_t k = 0; k < p->nstacks; k++)
				if (share_stack_offcpu(b, k))
					share_part_stack(b, &part, k);
		} else {
			share_part_init(&part, SHARE_CODE);
			share_part_cpu(&part, v[i].n);
		}
		sec = (double)part.amount * (double)p->interval_ns / 1e9;
		pct = share_percent(&part, &all);
		err = share_error95(b, &part, &all);
		fprintf(fp, "<tr><td class=\"n\"><span class=\"key\" style=\""
		    "background:%s\"></span>", palette[i % 8]);
		html_escape(fp, v[i].path[0] ? v[i].path : v[i].name);
		fprintf(fp, "</td><td data-v=\"%llu\">%llu</td><td data-v=\"%.4f\">"
		    "%.2f</td><td class=\"err\" data-v=\"%.4f\">%.2f</td><td "
		    "data-v=\"%.4f\">%.3f</td></tr>\n",
		    (unsigned long long)part.cpu, (unsigned long long)part.cpu, pct,
		    pct, err, err, sec, sec);
		share_part_free(&part);
	}
	fputs("</tbody></table>\n", fp);
	share_part_free(&all);
	free(v);
}

/*
 * Names over the highest bars, highest first, skipping any that would
 * overlap a name already placed (about 90 px apart).
 */
static void
label_peaks(FILE *fp, const struct hist_bin *bins, size_t n, double bw,
    double h, uint64_t most)
{
	double placed[PEAK_LABELS];
	size_t nplaced = 0;
	char *used = xcalloc(n, 1);

	while (nplaced < PEAK_LABELS) {
		size_t best = n;
		int clear = 1;

		for (size_t i = 0; i < n; i++)
			if (!used[i] && bins[i].samples > 0 && bins[i].label != NULL &&
			    (best == n || bins[i].samples > bins[best].samples))
				best = i;
		if (best == n)
			break;
		used[best] = 1;
		double x = ((double)best + 0.5) * bw;
		for (size_t k = 0; k < nplaced; k++)
			if (x - placed[k] < 90 && placed[k] - x < 90)
				clear = 0;
		if (!clear)
			continue;
		double bh = (double)bins[best].samples * (h - 18) / (double)most;
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		    "text-anchor=\"middle\" fill=\"#333\">", x,
		    h - bh - 3 < 11 ? 11 : h - bh - 3);
		html_escape(fp, bins[best].label);
		fputs("</text>\n", fp);
		placed[nplaced++] = x;
	}
	free(used);
}

/*
 * One object's picture: its sampled address range in PICTURE_BINS bars,
 * height by samples; hovering a bar names its function (SVG <title>).
 */
static void
picture(FILE *fp, const struct profil_profile *p, const struct funcs *f,
    size_t oi)
{
	const struct profil_object *ob = &p->objects[oi];
	const double w = 960, h = 140, axis = 18;
	uint64_t lo = ob->buckets[0].addr, most = 0;
	uint64_t hi = ob->buckets[ob->nbuckets - 1].addr +
	    (ob->bucket_bytes ? ob->bucket_bytes : 1);
	size_t n;
	struct hist_bin *bins = report_bins(ob, f->tabs[oi], lo, hi,
	    PICTURE_BINS, &n);
	double bw = w / (double)n;

	for (size_t i = 0; i < n; i++)
		if (bins[i].samples > most)
			most = bins[i].samples;
	fputs("<h3>", fp);
	html_escape(fp, ob->path);
	fprintf(fp, "</h3>\n<svg class=\"hist\" width=\"%.0f\" height=\"%.0f\" "
	    "viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "role=\"img\">\n", w, h + axis, w, h + axis);
	for (size_t i = 0; i < n; i++) {
		double bh;

		if (bins[i].samples == 0)
			continue;
		bh = (double)bins[i].samples * (h - 18) / (double)most;
		if (bh < 1)
			bh = 1;
		fprintf(fp, "<rect class=\"b\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
		    "height=\"%.2f\"><title>", (double)i * bw, h - bh,
		    bw > 1.5 ? bw - 0.5 : bw, bh);
		html_escape(fp, bins[i].label ? bins[i].label : "(no function)");
		fprintf(fp, " @ %#llx: %llu samples (%.2f%%)</title></rect>\n",
		    (unsigned long long)bins[i].start,
		    (unsigned long long)bins[i].samples,
		    report_percent(bins[i].samples, p->samples));
	}
	label_peaks(fp, bins, n, bw, h, most);
	fprintf(fp, "<line x1=\"0\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
	    "stroke=\"#888\"/>\n<text x=\"0\" y=\"%.0f\" font-size=\"12\">%#llx"
	    "</text>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" "
	    "text-anchor=\"end\">%#llx</text>\n</svg>\n", h, w, h, h + axis - 4,
	    (unsigned long long)lo, w, h + axis - 4, (unsigned long long)hi);
	report_bins_free(bins, n);
}

static void
flat(FILE *fp, const struct profil_profile *p, const struct funcs *f,
    const struct share_basis *b)
{
	double cumulative = 0, top = f->nrows ?
	    report_percent(f->rows[0].samples, p->samples) : 1;
	struct share_part all;

	share_part_init(&all, SHARE_TIME);
	share_part_all(b, &all);

	fputs("<h2>Functions</h2>\n<p>Click a heading to sort. &plusmn;95%: "
	    "the sampling error of the share, in points.</p>\n"
	    "<table class=\"sortable\" id=\"flat\"><thead><tr><th>%self</th>"
	    "<th>&plusmn;95%</th><th>cum%</th><th>self s</th><th>samples</th>"
	    "<th class=\"n\">function</th><th class=\"n\">object</th><th "
	    "class=\"n\"></th></tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < f->nrows && i < TABLE_ROWS; i++) {
		const struct func_row *r = &f->rows[i];
		struct share_part self;
		double pct, err, sec;

		share_part_row(b, &self, r);
		pct = share_percent(&self, &all);
		err = share_error95(b, &self, &all);
		sec = (double)self.amount * (double)p->interval_ns / 1e9;

		cumulative += pct;
		fprintf(fp, "<tr><td data-v=\"%.4f\">%.2f</td><td class=\"err\" "
		    "data-v=\"%.4f\">%.2f</td><td data-v=\"%.4f\">%.2f</td><td "
		    "data-v=\"%.6f\">%.3f</td><td data-v=\"%llu\">%llu</td>"
		    "<td class=\"n\">", pct, pct, err, err, cumulative, cumulative,
		    sec, sec, (unsigned long long)self.cpu,
		    (unsigned long long)self.cpu);
		share_part_free(&self);
		html_escape(fp, r->function);
		fputs("</td><td class=\"n\">", fp);
		html_escape(fp, r->object);
		fprintf(fp, "</td><td class=\"n\" data-v=\"%.4f\"><span class=\"bar\" "
		    "style=\"width:%.1fpx\"></span></td></tr>\n", pct,
		    top > 0 ? 120.0 * pct / top : 0);
	}
	fputs("</tbody></table>\n", fp);
	share_part_free(&all);
	if (f->nrows > TABLE_ROWS)
		fprintf(fp, "<p>%zu more functions with fewer samples are left "
		    "out; profil report lists them all.</p>\n",
		    f->nrows - TABLE_ROWS);
}

/*
 * The timeline (when rec, the profile as read, has one and p stacks),
 * then the flame graph, which it redraws for a window of the run.
 */
static void
graphs(FILE *fp, const struct profil_profile *p,
    const struct profil_profile *rec, const struct funcs *f,
    const struct stacks *s)
{
	struct flame_graph g;
	struct html_time h;

	if (p->nstacks == 0 || !html_time_has(rec)) {
		report_flame_html(fp, p, s);
		return;
	}
	flame_graph_build(&g, p, s);
	html_time_init(&h, rec, &g);
	html_time_prune(&h, &g);
	html_time_section(fp, &h, f);
	flame_graph_html(fp, &g);
	html_time_free(&h);
	flame_graph_free(&g);
}

static void
page(FILE *fp, const struct profil_profile *p,
    const struct profil_profile *rec, const struct funcs *f,
    const struct stacks *s)
{
	size_t order[PICTURE_OBJECTS], n = 0;
	struct share_basis b;
	int timed = p->nstacks > 0 && html_time_has(rec);

	fputs(OUTFILE_HTML "\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width\">\n<title>profil: ",
	    fp);
	html_escape(fp, p->argc > 0 ? p->argv[0] : "profile");
	fprintf(fp, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>Where the "
	    "time went: ", style);
	html_escape(fp, p->argc > 0 ? funcs_base_name(p->argv[0]) : "profile");
	fputs("<span id=\"tl-title\"></span></h1>\n", fp);
	meta(fp, p);
	share_basis_init(&b, p);
	objects(fp, p, &b, timed);
	graphs(fp, p, rec, f, s);
	/* the busiest objects, most samples first */
	for (size_t i = 0; i < p->nobjects; i++) {
		size_t k;

		/* (a wall view's [off-cpu] has no addresses to picture) */
		if (p->objects[i].nbuckets == 0 || (long)i == wall_view_object(p))
			continue;
		for (k = n; k > 0 && p->objects[order[k - 1]].samples <
		    p->objects[i].samples; k--)
			if (k < PICTURE_OBJECTS)
				order[k] = order[k - 1];
		if (k < PICTURE_OBJECTS) {
			order[k] = i;
			if (n < PICTURE_OBJECTS)
				n++;
		}
	}
	if (n > 0) {
		fputs("<h2>Where in the code</h2>\n", fp);
		whole_run_note(fp, timed);
		fputs("<p>Each bar is a range of addresses; its height, the "
		    "samples there. Hover a bar for its function.</p>\n", fp);
	}
	for (size_t k = 0; k < n; k++)
		picture(fp, p, f, order[k]);
	flat(fp, p, f, &b);
	share_basis_free(&b);
	fprintf(fp, "<script>\n%s</script>\n</body>\n</html>\n", script);
}

int
report_html(const struct profil_profile *p, const struct profil_profile *rec,
    const struct funcs *f, const struct stacks *s, const char *path,
    char *cause, size_t cause_size)
{
	struct outfile of;
	FILE *fp;

	if (outfile_open(&of, path, OUTFILE_HTML, cause, cause_size) < 0)
		return -1;
	if ((fp = fdopen(of.file.fd, "w")) == NULL) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(&of, NULL);
		return -1;
	}
	page(fp, p, rec != NULL ? rec : p, f, s);
	return outfile_commit(&of, fp, cause, cause_size);
}
