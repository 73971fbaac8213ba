/*
 * timeline-text.c - report --timeline as text (timeline-view.h): a strip
 * per thread, a character a column, the axis under them and the phases
 * as a table.  Invariant: every line fits the width asked (the strips
 * are that wide less their labels), and the columns are the run cut
 * evenly, never finer than its slices.
 *
 *      cpu |@@@@@@@@@@@@                 @@@@@@@@@@@@@|   busy: ' .:-=+*#%@'
 *     wait |            iiiiiiiiiiiiiiiii             |   what it waited in
 *          +----------+----------+----------+---------+
 *          0          1          2          3      3.62 s
 */
#include <ctype.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "table.h"
#include "timeline-view.h"

#define LABEL_W		6	/* " wait |" less its bar */
#define MIN_COLUMNS	10
/* --wide: a column per slice (or bin) */
#define WIDE_COLUMNS	PHASES_MAX_BINS
/* A wait is shown where it took a quarter of the column or more. */
#define WAIT_SHOWN	0.25

/* The letter of each kind of waiting (symbols/offcpu.h's order). */
static const char wait_letters[OFFCPU_NKINDS] = { 'i', 'p', 'l', 's', 'c',
	'f', 'R', 'o' };

/* How the text is drawn: its width in columns, its units, its glyphs. */
struct drawing {
	int width;		/* of the text's lines (0: any) */
	size_t ncols;		/* columns of the strips */
	double unit_ns;		/* 1e9 (s) or 1e6 (ms) */
	const char *unit;
	int decimals;		/* of the phases' times */
	int fancy;		/* UTF-8: blocks and an en dash */
};

/* Unicode blocks on a UTF-8 terminal, as histogram.c's bars. */
static int
want_fancy(void)
{
	setlocale(LC_CTYPE, "");
	return isatty(STDOUT_FILENO) &&
	    strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

static void
plan(struct drawing *d, const struct tldata *t,
    const struct report_options *o)
{
	int width = o->style.columns;
	size_t want = width <= 0 ? WIDE_COLUMNS : width > LABEL_W + 1 +
	    MIN_COLUMNS ? (size_t)(width - LABEL_W - 1) : MIN_COLUMNS;
	double span;

	d->width = width > 0 ? width : 0;
	d->ncols = want < t->nslices ? want : (size_t)t->nslices;
	d->unit_ns = t->span_ns >= 1000000000 ? 1e9 : 1e6;
	d->unit = d->unit_ns == 1e9 ? "s" : "ms";
	/* enough places to tell a 200th of the run */
	span = (double)t->span_ns / d->unit_ns;
	d->decimals = (int)ceil(-log10(span / 200));
	if (d->decimals < 0)
		d->decimals = 0;
	if (d->decimals > 3)
		d->decimals = 3;
	d->fancy = want_fancy();
}

/* The shade of a column busy on the CPU for a share of its time. */
static const char *
shade(double busy, int fancy)
{
	static const char *const blocks[] = { " ", "\u2581", "\u2582",
	    "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char *const ascii[] = { " ", ".", ":", "-", "=", "+", "*",
	    "#", "%", "@" };
	int top = fancy ? 8 : 9;
	long level;

	if (!(busy > 0))
		return " ";
	level = busy >= 1 ? top : lround(busy * top);
	if (level < 1)
		level = 1;		/* any time at all shows */
	return fancy ? blocks[level] : ascii[level];
}

/* The letter of the wait that took most of a column, or ' '. */
static char
wait_letter(const struct tldata_column *c)
{
	double off = 0;
	int best = 0;

	for (int k = 0; k < OFFCPU_NKINDS; k++) {
		off += c->off_ns[k];
		if (c->off_ns[k] > c->off_ns[best])
			best = k;
	}
	if (off < WAIT_SHOWN * (double)(c->end_ns - c->start_ns))
		return ' ';
	return wait_letters[best];
}

/*
 * A thread's name (the program's to write) into buf, cut to 16 bytes,
 * with what a terminal would act on replaced.  Returns buf.
 */
static const char *
safe_name(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i < 16 && i + 1 < size; i++)
		buf[i] = iscntrl((unsigned char)s[i]) ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

/* A length of time in words: "2.10 ms", "1.50 s", "65.5 us". */
static const char *
duration(double ns, char *buf, size_t size)
{
	if (ns >= 1e9)
		snprintf(buf, size, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.1f us", ns / 1e3);
	return buf;
}

/*
 * Thread th's lines: what it is and its time, then its strips: the cpu
 * row, and a wall profile's wait row.
 */
static void
strip(const struct tldata *t, size_t th, const struct drawing *d,
    struct tldata_column *cols)
{
	const struct tldata_thread *tt = &t->threads[th];
	char head[160], name[20], on[32], off[32];
	int len;

	len = snprintf(head, sizeof head, "thread %u%s%s, pid %u: %s on the "
	    "CPU", tt->tid, tt->name[0] != '\0' ? " " : "",
	    safe_name(tt->name, name, sizeof name), tt->pid,
	    duration(tt->cpu_ns, on, sizeof on));
	if (t->wall && len > 0 && (size_t)len < sizeof head)
		snprintf(head + len, sizeof head - (size_t)len,
		    ", %s off it", duration(tt->off_ns, off, sizeof off));
	cli_print_wrapped("", head, 2, d->width);
	tldata_columns(t, th, cols, d->ncols);
	printf("%*s|", LABEL_W - 1, "cpu ");
	for (size_t j = 0; j < d->ncols; j++)
		fputs(shade(cols[j].cpu_ns / (double)(cols[j].end_ns -
		    cols[j].start_ns), d->fancy), stdout);
	puts("|");
	if (!t->wall)
		return;
	printf("%*s|", LABEL_W - 1, "wait ");
	for (size_t j = 0; j < d->ncols; j++)
		putchar(wait_letter(&cols[j]));
	puts("|");
}

/*
 * The round step of the axis's ticks, in ns: 1, 2 or 5 times a power of
 * ten of the unit, the smallest that leaves room for the labels (and two
 * spaces) between ticks; its labels' decimals in *decimals.
 */
static double
tick_step(const struct tldata *t, const struct drawing *d, int *decimals)
{
	static const double mult[] = { 1, 2, 5 };
	double span = (double)t->span_ns;

	for (int e = -9; e < 20; e++)
		for (int m = 0; m < 3; m++) {
			double step = mult[m] * pow(10, e) * d->unit_ns;
			double cols = step / span * (double)d->ncols;
			char widest[64];

			*decimals = e < 0 ? -e : 0;
			if (step < 1)
				continue;
			if (cols >= 2 + snprintf(widest, sizeof widest, "%.*f",
			    *decimals, span / d->unit_ns))
				return step;
		}
	*decimals = 0;
	return span;
}

/* v in the unit with decimals, trailing zeros cut ("1", "0.2"); its length. */
static size_t
tick_label(double v, int decimals, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "%.*f", decimals, v);

	if (memchr(buf, '.', len) != NULL) {
		while (buf[len - 1] == '0')
			len--;
		if (buf[len - 1] == '.')
			len--;
		buf[len] = '\0';
	}
	return len;
}

/*
 * The axis: a tick at each round time, labelled where there is room, and
 * the run's end with the unit right under the strips' end, always.
 */
static void
axis(const struct tldata *t, const struct drawing *d)
{
	size_t n = d->ncols, at = 0, limit = n + 1, len, end_at;
	char *ticks = xmalloc(n + 1), *labels = xmalloc(n + 64), end[48];
	int decimals;
	double step = tick_step(t, d, &decimals);

	memset(ticks, '-', n);
	memset(labels, ' ', n + 63);
	len = (size_t)snprintf(end, sizeof end, "%.*f %s", d->decimals,
	    (double)t->span_ns / d->unit_ns, d->unit);
	end_at = len < limit ? limit - len : 0;
	memcpy(labels + end_at, end, len);
	for (uint64_t i = 0; (double)i * step < (double)t->span_ns; i++) {
		double v = (double)i * step;
		size_t j = (size_t)(v / (double)t->span_ns * (double)n);
		char label[48];

		len = tick_label(v / d->unit_ns, decimals, label, sizeof label);
		ticks[j] = '+';
		/* no room before the end's label and a space: a tick alone */
		if (j < at || j + len + 1 > end_at)
			continue;
		memcpy(labels + j, label, len);
		at = j + len + 1;
	}
	ticks[n] = '\0';
	labels[end_at + strlen(end)] = '\0';
	printf("%*s%s\n%*s%s\n", LABEL_W, "", ticks, LABEL_W, "", labels);
	free(ticks);
	free(labels);
}

/*
 * The legend: the shades, and each kind of waiting the shown threads
 * did with its time and its most common wait.
 */
static void
legend(const struct tlview_shown *v, const struct drawing *d)
{
	const struct tldata *t = v->t;
	double *by_what = xcalloc(t->nwhats + 1, sizeof *by_what);
	char line[256], buf[32];

	/* (the scale's blank a glued space: a line breaks not in it) */
	snprintf(line, sizeof line, "cpu: the column's time on the CPU, '%s' "
	    "from none to all", d->fancy ? CLI_GLUE "\u2581\u2582\u2583"
	    "\u2584\u2585\u2586\u2587\u2588" : CLI_GLUE ".:-=+*#%@");
	cli_print_wrapped("", line, 2, d->width);
	if (!t->wall) {
		cli_print_wrapped("", "(blank: off the CPU or not running; "
		    "record --wall tells which, and what it waited in)", 1,
		    d->width);
		free(by_what);
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct tldata_thread *tt = &t->threads[v->threads[i]];

		for (size_t c = 0; c < tt->ncells; c++)
			by_what[tt->cells[c].what] += tt->cells[c].ns;
	}
	cli_print_wrapped("", "wait: what it waited in most, where off the CPU "
	    "a quarter of the column or more:", 2, d->width);
	for (int k = 0; k < OFFCPU_NKINDS; k++) {
		double total = 0, top = 0;
		uint64_t code = 0;

		for (size_t w = 0; w < t->nwhats; w++) {
			/* whats of one wait differ by who waited: sum them */
			double in_code = 0;

			if (!t->whats[w].off || t->whats[w].kind != k)
				continue;
			total += by_what[w];
			for (size_t x = 0; x < t->nwhats; x++)
				if (t->whats[x].off &&
				    t->whats[x].code == t->whats[w].code)
					in_code += by_what[x];
			if (in_code > top) {
				top = in_code;
				code = t->whats[w].code;
			}
		}
		if (total <= 0)
			continue;
		/* (runnable, page faults: a kind that is one wait) */
		snprintf(line, sizeof line, code <= PROFIL_OFFCPU_SYSCALL_MAX ?
		    "%s, %s (most in %s)" : "%s, %s", offcpu_kind_name(k),
		    duration(total, buf, sizeof buf), offcpu_what(code));
		printf("  %c ", wait_letters[k]);
		cli_print_wrapped("", line, 4, d->width);
	}
	free(by_what);
}

/*
 * What phase ph of thread th (or PHASES_PROGRAM) did, in words, into
 * buf: "97% on the CPU", "40% on the CPU, 55% runnable", "96% off the
 * CPU in read", "not running" (a wall profile's thread before its start
 * or after its end; between, its time was not seen); returns buf.
 */
static const char *
phase_words(const struct tldata *t, size_t th, const struct phase *ph,
    int interior, char *buf, size_t size)
{
	double len = (double)(ph->end_ns - ph->start_ns);
	double what = len > 0 ? 100 * ph->what_ns / len : 0;

	switch (ph->state) {
	case PHASE_ON_CPU:
		len = len > 0 ? len : 1;
		if (ph->runnable_ns >= 0.05 * len)
			snprintf(buf, size, "%.0f%% on the CPU, %.0f%% "
			    "runnable", 100 * (ph->what_ns - ph->runnable_ns) / len,
			    100 * ph->runnable_ns / len);
		else
			snprintf(buf, size, "%.0f%% on the CPU", what);
		break;
	case PHASE_OFF_CPU:
		snprintf(buf, size, "%.0f%% off the CPU in %s", what,
		    offcpu_what(ph->code));
		break;
	default:
		if (t->wall && th != PHASES_PROGRAM)
			snprintf(buf, size, interior ? "not seen, on the CPU "
			    "or off it" : "not running");
		else
			snprintf(buf, size, "off the CPU (%.0f%% on it)",
			    len > 0 ? 100 * ph->cpu_ns / len : 0);
	}
	return buf;
}

/* The phases of thread th (or PHASES_PROGRAM) as a table under caption. */
static void
phase_table(const struct tldata *t, size_t th, const struct phases *ph,
    const char *caption, const struct drawing *d,
    const struct report_options *o)
{
	struct col cols[] = {
		{ "span", "", COL_WORDS },
		{ "percent", "%run", COL_PCT },
		{ "function", "function", COL_STR },
		{ "doing", "doing", COL_WORDS },
	};
	static const int order[] = { 0, 1, 2, 3, -1 };
	char title[32], (*spans)[64] = xcalloc(ph->n + 1, sizeof *spans);
	char (*words)[128] = xcalloc(ph->n + 1, sizeof *words);
	struct table tab;

	snprintf(title, sizeof title, "%s %s", d->fancy ? "from\u2013to" :
	    "from-to", d->unit);
	cols[0].title = title;
	table_init(&tab, cols, 4);
	for (size_t i = 0; i < ph->n; i++) {
		const struct phase *p = &ph->v[i];
		const char *name = tldata_func_name(t, p->func);
		union cell *row = table_row(&tab);

		snprintf(spans[i], sizeof spans[i], "%.*f%s%.*f", d->decimals,
		    (double)p->start_ns / d->unit_ns, d->fancy ? "\u2013" : "-",
		    d->decimals, (double)p->end_ns / d->unit_ns);
		row[0].s = spans[i];
		row[1].d = 100.0 * (double)(p->end_ns - p->start_ns) /
		    (double)t->span_ns;
		row[2].s = name != NULL ? name : "-";
		row[3].s = phase_words(t, th, p, i > 0 && i + 1 < ph->n,
		    words[i], sizeof words[i]);
	}
	table_print(&tab, FORMAT_TEXT, order, caption, &o->style);
	table_free(&tab);
	free(words);
	free(spans);
}

void
tlview_text(const struct tlview_shown *v, const struct report_options *o)
{
	const struct tldata *t = v->t;
	struct drawing d;
	struct tldata_column *cols;
	char caption[256], a[32], b[32], slice[32], name[20];

	plan(&d, t, o);
	cols = xcalloc(d.ncols, sizeof *cols);
	if (o->caption != NULL)
		table_print_caption(o->caption, &o->style);
	snprintf(caption, sizeof caption, "The run, %s: a column each %s "
	    "(the profile's slices: %s)", duration((double)t->span_ns, a,
	    sizeof a), duration((double)t->span_ns / (double)d.ncols, b,
	    sizeof b), duration((double)t->slice_ns, slice, sizeof slice));
	cli_print_wrapped("", caption, 2, d.width);
	for (size_t i = 0; i < v->n; i++)
		strip(t, v->threads[i], &d, cols);
	axis(t, &d);
	if (v->left_out > 0)
		printf("(%zu more threads, by their time: --limit)\n",
		    v->left_out);
	legend(v, &d);
	putchar('\n');
	if (t->nthreads > 1) {
		phase_table(t, PHASES_PROGRAM, &v->program, "Phases of the "
		    "program, its threads together (what they ran most, on the "
		    "CPU or runnable, where they ran half a CPU or more, else "
		    "what they waited in most):", &d, o);
		putchar('\n');
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct tldata_thread *tt = &t->threads[v->threads[i]];

		snprintf(caption, sizeof caption, "Phases of thread %u%s%s:",
		    tt->tid, tt->name[0] != '\0' ? " " : "",
		    safe_name(tt->name, name, sizeof name));
		phase_table(t, v->threads[i], &v->phases[i], caption, &d, o);
		if (i + 1 < v->n)
			putchar('\n');
	}
	free(cols);
}
