/*
 * test-report.c - the report views beyond the flat table, end to end on
 * real recordings: --histogram, --annotate's source lines, C++ names,
 * [vdso] symbols, fitting 80 columns, colour, captions and names at any
 * width, the HTML page (checked in headless Chromium when present), the
 * newest profile by default, an object that is a FIFO, a wall profile's
 * views, a share of nothing.  Exact checks compare two views of one
 * profile; the few that depend on how many samples fell where (at least
 * so many in a function, a share above a bound, a 6:3:1 split) have their
 * runs sized for it (e2e.h, record_for).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

/* Columns of a CSV line (the text between commas; no quoted commas). */
static int
csv_fields(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, ',');
		if (line == NULL)
			break;
		*line++ = '\0';
	}
	return n;
}

/* Display width of a UTF-8 line: code points, escapes not counted. */
static int
display_width(const char *s, const char *end)
{
	int w = 0;

	for (; s < end; s++) {
		if (*s == '\033') {
			while (s < end && *s != 'm')
				s++;
			continue;
		}
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	}
	return w;
}

/* What test_histogram needs of it: over 100 samples in six. */
static double
shared_need(void)
{
	return e2e_samples_for_count(100, 0.6, 4);
}

static const char *
shared_profile(void)
{
	static char prf[PATH_MAX];
	static struct run r;
	char *prog[] = { workload, "split", E2E_CPU, NULL };
	struct shares s;

	if (prf[0] == '\0') {
		snprintf(prf, sizeof prf, "%s", tmp("split.prf"));
		record_for(&s, &r, "auto", prf, prog, 1, shared_need(),
		    e2e_split_samples);
	}
	return prf;
}

static void
test_histogram(void **state)
{
	const char *prf = shared_profile();
	double six = flat_samples(prf, "six");
	uint64_t sum = 0, prev_end = 0, width = 0;
	struct run r;
	char *line, *next;
	int bins = 0;

	(void)state;
	if (six <= 100)
		fail_msg("%.0f samples in six, over 100 wanted (sized for %.0f "
		    "in the split)", six, shared_need());
	/* one function: every bin labelled with it, samples add up exactly */
	char *fn[] = { profil_bin, "report", "--histogram=six", "--format", "csv",
	    (char *)prf, NULL };
	run(&r, fn);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "start,end,function,samples,percent,error95\n",
	    43) == 0);
	for (line = strchr(r.out, '\n') + 1; *line; line = next) {
		char *f[8];

		next = strchr(line, '\n');
		assert_non_null(next);
		*next++ = '\0';
		assert_int_equal(csv_fields(line, f, 8), 6);
		uint64_t start = strtoull(f[0], NULL, 10), end = strtoull(f[1], NULL, 10);
		assert_string_equal(f[2], "six");
		if (bins > 0)
			assert_true(start == prev_end);	/* contiguous */
		if (bins == 0)
			width = end - start;
		else if (next[0] != '\0')
			assert_true(end - start == width);	/* equal, but the last */
		prev_end = end;
		sum += strtoull(f[3], NULL, 10);
		bins++;
	}
	assert_true(bins >= 2 && bins <= 40);
	assert_int_equal((double)sum, six);

	/* a bare --histogram takes a target before the file; --limit bars */
	char *bare[] = { profil_bin, "report", "--histogram", "three", "--limit",
	    "5", (char *)prf, NULL };
	run(&r, bare);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "three in workload"));

	/* the object: text fits 80 columns, the longest bar is the busiest bin */
	char *obj[] = { profil_bin, "report", "--histogram=workload", (char *)prf,
	    NULL };
	run(&r, obj);
	assert_int_equal(r.status, 0);
	int longest = -1, at_longest = 0, most = -1, at_most = 0, row = 0;
	for (line = r.out; *line; line = next + 1, row++) {
		unsigned long n;
		char addr[32], name[256], *bar;

		next = strchr(line, '\n');
		assert_non_null(next);
		assert_true(display_width(line, next) <= 80);
		if (sscanf(line, "%31s %255s %lu", addr, name, &n) != 3 ||
		    strncmp(addr, "0x", 2) != 0)
			continue;
		bar = memchr(line, '#', (size_t)(next - line));
		int len = bar ? (int)(next - bar) : 0;
		if (len > longest)
			longest = len, at_longest = row;
		if ((int)n > most)
			most = (int)n, at_most = row;
	}
	assert_true(longest > 20);
	assert_int_equal(at_longest, at_most);

	char *none[] = { profil_bin, "report", "--histogram=nosuch", (char *)prf,
	    NULL };
	run(&r, none);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "nosuch"));
	assert_null(strchr(strchr(r.err, '\n') + 1, '\n'));	/* one line */
}

/*
 * burn and area take the program's time 1:1 (45% each allowed): over 200
 * samples of burn, with 4 standard errors to spare, and start-up's
 */
static double
annotate_need(void)
{
	return E2E_STARTUP + e2e_samples_for_count(200, 0.45, 4);
}

static void
test_annotate_source_lines(void **state)
{
	static struct run out;
	const char *prf = tmp("cxx.prf");
	char *prog[] = { cxx_workload, "burn", E2E_CPU, NULL };
	const char *name = "geo::Burner<double>::burn";
	double burn, sum = 0, hot = 0, most = 0;
	char *line, *next;
	struct shares s;
	struct run r;

	(void)state;
	record_for(&s, &out, "auto", prf, prog, 1, annotate_need(), NULL);
	/* C++ names are demangled in every view */
	char *flat[] = { profil_bin, "report", "--format", "csv", (char *)prf, NULL };
	run(&r, flat);
	assert_non_null(strstr(r.out, "geo::Burner<double>::burn(long) const"));
	assert_non_null(strstr(r.out, "\ngeo::area(int),"));
	assert_null(strstr(r.out, "_ZN3geo"));
	burn = flat_samples(prf, strstr(r.out, "geo::Burner<double>::burn(long) const") ?
	    strtok(strstr(r.out, "geo::Burner"), ",") : name);
	if (burn <= 200)
		fail_msg("%.0f samples in burn of %.0f, over 200 wanted (sized "
		    "for %.0f)", burn, s.total, annotate_need());

	/* the lines add up to the function; the marked line is the hot one */
	char *ann[] = { profil_bin, "report", "--annotate", (char *)name,
	    "--format", "csv", (char *)prf, NULL };
	run(&r, ann);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "file,line,samples,percent,error95,source\n", 41) == 0);
	for (line = strchr(r.out, '\n') + 1; *line; line = next) {
		char *f[8];
		double n;

		next = strchr(line, '\n');
		*next++ = '\0';
		assert_true(csv_fields(line, f, 8) >= 6);
		assert_non_null(strstr(f[0], "cxx-workload.cc"));
		n = atof(f[2]);
		sum += n;
		if (n > most) {
			most = n;
			hot = strstr(f[5], "HOT") != NULL;
		}
	}
	assert_int_equal(sum, burn);
	assert_true(hot);
	/* text: the source text is shown beside the counts */
	char *text[] = { profil_bin, "report", "--annotate", "geo::area(int)",
	    (char *)prf, NULL };
	run(&r, text);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "x = x * 0.5 + i;"));
	assert_non_null(strstr(r.out, "source /"));
}

/*
 * Where clock_gettime uses the vDSO, it has 85% of the program's time:
 * none of it in 11 samples happens once in 1e9 runs, so no sample there
 * says the vDSO was not used.
 */
static void
test_vdso_symbols(void **state)
{
	static struct run out;
	const char *prf = tmp("vdso.prf");
	char *prog[] = { cxx_workload, "clock", E2E_CPU, NULL };
	struct shares s;
	struct run r;

	(void)state;
	record_for(&s, &out, "auto", prf, prog, 1,
	    E2E_STARTUP + ceil(log(1e-9) / log(1 - 0.85)), NULL);
	char *flat[] = { profil_bin, "report", "--format", "csv", (char *)prf, NULL };
	run(&r, flat);
	assert_int_equal(r.status, 0);
	/* time in the vDSO is named, not lumped into [[vdso]] */
	if (strstr(r.out, ",[vdso],") == NULL)
		SKIP("this kernel's clock_gettime did not use the vDSO");
	assert_non_null(strstr(r.out, "clock_gettime,[vdso],"));
	assert_null(strstr(r.out, "[[vdso]]"));
}

static void
test_width_and_colour(void **state)
{
	const char *prf = tmp("cxx.prf");	/* from test_annotate_source_lines */
	struct run r;
	char *line, *next;

	(void)state;
	char *plain[] = { profil_bin, "report", (char *)prf, NULL };
	setenv("COLUMNS", "80", 1);
	run(&r, plain);
	assert_int_equal(r.status, 0);
	assert_null(strchr(r.out, '\033'));	/* not a terminal: no colour */
	assert_null(strstr(r.out, "note:"));	/* the samples stand for the run */
	for (line = r.out; *line; line = next + 1) {
		next = strchr(line, '\n');
		if (display_width(line, next) > 80)
			fail_msg("wider than 80: %.*s", (int)(next - line), line);
	}
	assert_non_null(strstr(r.out, "..."));	/* the long name was cut */
	char *wide[] = { profil_bin, "report", "--wide", (char *)prf, NULL };
	run(&r, wide);
	assert_non_null(strstr(r.out, "geo::Burner<double>::burn(long) const"));
	char *always[] = { profil_bin, "report", "--color=always", (char *)prf, NULL };
	run(&r, always);
	assert_non_null(strstr(r.out, "\033[1;31m"));	/* a share above 10% */
	char *bad[] = { profil_bin, "report", "--color=sometimes", (char *)prf, NULL };
	run(&r, bad);
	assert_int_equal(r.status, 2);
	unsetenv("COLUMNS");
}

static void
test_html_page(void **state)
{
	const char *prf = tmp("cxx.prf"), *html = tmp("page.html");
	const char *png = tmp("page.png");
	char cmd[PATH_MAX * 4], *page;
	struct run r;
	FILE *f;
	long size;

	(void)state;
	char *argv[] = { profil_bin, "report", "--html", (char *)html, (char *)prf,
	    NULL };
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");
	f = fopen(html, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	page = malloc((size_t)size + 1);
	assert_int_equal(fread(page, 1, (size_t)size, f), (size_t)size);
	page[size] = '\0';
	fclose(f);
	/* self-contained, names escaped, the parts there */
	assert_null(strstr(page, " src="));
	assert_null(strstr(page, "<link"));
	assert_null(strstr(page, "Burner<double>"));
	assert_non_null(strstr(page, "geo::Burner&lt;double&gt;::burn(long) const"));
	assert_non_null(strstr(page, "<svg"));
	assert_non_null(strstr(page, "id=\"flat\""));
	free(page);

	/* unwritable: one line, exit 1, nothing left behind */
	char *bad[] = { profil_bin, "report", "--html", "/nonexistent/x.html",
	    (char *)prf, NULL };
	run(&r, bad);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "/nonexistent/x.html"));

	/* a real browser: no console errors, table sorts, picture drawn */
	/* make check runs from the top of the source tree */
	snprintf(cmd, sizeof cmd, "tests/browser/check-html.sh");
	if (access(cmd, X_OK) != 0 || system("command -v chromium >/dev/null && "
	    "command -v node >/dev/null") != 0) {
		if (getenv("PROFIL_REQUIRE_BROWSER") != NULL)
			fail_msg("PROFIL_REQUIRE_BROWSER is set but chromium, node "
			    "or %s is missing", cmd);
		SKIP("chromium or node not installed (PROFIL_REQUIRE_BROWSER=1 "
		    "makes it a failure)");
	}
	char *check[] = { cmd, (char *)html, (char *)png, NULL };
	run(&r, check);
	if (r.status != 0)
		fail_msg("browser check failed (%d): %s%s", r.status, r.out, r.err);
	assert_non_null(strstr(r.out, "ok"));
}

/* Without a FILE, report reads the newest .prf file of its directory. */
static void
test_default_profile_is_the_newest(void **state)
{
	const char *dir = tmp("cwd");
	char cmd[PATH_MAX * 3];
	struct run r;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(cmd, sizeof cmd, "cd %s && touch -d '2001-01-01' old.prf && "
	    "cp %s new.prf && exec %s report --format csv", dir,
	    shared_profile(), profil_bin);
	char *sh[] = { "/bin/sh", "-c", cmd, NULL };
	run(&r, sh);
	assert_int_equal(r.status, 0);	/* old.prf (empty) would fail */
	assert_non_null(strstr(r.out, "\nsix,workload,"));
	snprintf(cmd, sizeof cmd, "cd %s && rm *.prf && exec %s report", dir,
	    profil_bin);
	run(&r, sh);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "no .prf file here"));
}

/* A profile naming a FIFO as its program: report must not block on it. */
static void
test_object_that_is_a_fifo(void **state)
{
	const char *fifo = tmp("fifo"), *prf = tmp("fifo.prf");
	char cause[256];
	struct profil_profile *p;
	struct run r;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0644), 0);
	p = profil_profile_read(shared_profile(), cause, sizeof cause);
	assert_non_null(p);
	free(p->objects[0].path);
	p->objects[0].path = strdup(fifo);
	assert_int_equal(profil_profile_save(p, prf, cause, sizeof cause), 0);
	profil_profile_free(p);
	char *argv[] = { "/usr/bin/timeout", "20", profil_bin, "report", (char *)prf,
	    NULL };
	run(&r, argv);
	assert_int_equal(r.status, 0);	/* 124 if it blocked */
	assert_non_null(strstr(r.err, "not a regular file"));
	assert_non_null(strstr(r.out, "[fifo]"));
}

/* The CSV of report with args (NULL-ended) on prf, header line left out. */
static char *
csv_of(const char *prf, const char *a, const char *b)
{
	char *argv[] = { profil_bin, "report", "--format", "csv", (char *)prf,
	    (char *)a, (char *)b, NULL };
	static struct run r;
	char *nl;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report %s exited %d: %s", a ? a : "", r.status, r.err);
	nl = strchr(r.out, '\n');
	assert_non_null(nl);
	return strdup(nl + 1);
}

/*
 * A wall profile's views (record --wall of sh running the workload, then
 * sleep 0.3): the sleep is 0.3 s blocked in the sleep process's thread
 * (--threads), 0.3 s of "sleep" among the kinds of waiting (--objects),
 * and a flat row [off-cpu: clock_nanosleep] that is all wall and no CPU;
 * --cpu leaves every off-CPU row out and counts the CPU samples alone.
 * The margins: switch intervals are exact, so what is left is the
 * sleep's own overshoot (timer slack, 50 us by default) and the blocks
 * of the sleep process's start (page faults of exec, some milliseconds
 * on a loaded machine); and, below, that a thread's wait for a CPU once
 * woken is runnable, not blocked, its total the kernel's count but its
 * part at each block the thread's mean wake-up (wall-truth.c): a few
 * ms either way on a loaded machine (0.298 s seen): 0.295 s to 0.35 s.
 */
static void
test_wall_views(void **state)
{
	const char *prf = tmp("wall-views.prf");
	char script[PATH_MAX + 64], *csv, *line, *save, *f[12];
	char *argv[] = { profil_bin, "record", "-q", "--wall", "-o", (char *)prf,
	    "sh", "-c", script, NULL };
	char *cpu_only[] = { profil_bin, "report", "--cpu", (char *)tmp("report.prf"),
	    NULL };
	struct profil_profile *p;
	struct run r;
	char cause[256];
	double sleep_thread = -1, sleep_kind = -1, cpu_pct = -1, wall_pct = -1;
	uint64_t cpu_samples = 0;

	(void)state;
	if (!harness_perf_allowed())
		SKIP("perf events refused here: --wall needs the perf engine");
	snprintf(script, sizeof script, "%s split 0.05 && sleep 0.3", workload);
	run(&r, argv);
	assert_int_equal(r.status, 0);
	p = profil_profile_read(prf, cause, sizeof cause);
	if (p == NULL)
		fail_msg("%s", cause);
	assert_non_null(p->wall);

	csv = csv_of(prf, "--threads", NULL);
	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n",
	    &save)) {
		assert_int_equal(csv_fields(line, f, 12), 10);
		if (strcmp(f[2], "sleep") == 0)
			sleep_thread = atof(f[8]);
	}
	free(csv);
	if (sleep_thread < 0.295 || sleep_thread > 0.35)
		fail_msg("the sleep thread blocked %.4f s", sleep_thread);

	csv = csv_of(prf, "--objects", NULL);
	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n",
	    &save)) {
		assert_int_equal(csv_fields(line, f, 12), 6);
		if (strcmp(f[0], "[off-cpu: sleep]") == 0)
			sleep_kind = atof(f[5]);
	}
	free(csv);
	if (sleep_kind < 0.295 || sleep_kind > 0.35)
		fail_msg("[off-cpu: sleep] has %.4f s", sleep_kind);

	csv = csv_of(prf, NULL, NULL);
	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n",
	    &save)) {
		assert_int_equal(csv_fields(line, f, 12), 12);
		if (strcmp(f[0], "[off-cpu: clock_nanosleep]") == 0) {
			wall_pct = atof(f[8]);
			cpu_pct = atof(f[10]);
			/* the sleep was measured, not sampled: no error bar */
			if (atof(f[4]) > 0.01)
				fail_msg("measured sleep with a %s-point error",
				    f[4]);
		}
	}
	free(csv);
	if (!(wall_pct > 0 && cpu_pct == 0))
		fail_msg("[off-cpu: clock_nanosleep]: %.2f%% of wall, %.2f%% on "
		    "the CPU", wall_pct, cpu_pct);

	csv = csv_of(prf, "--cpu", NULL);
	for (line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n",
	    &save)) {
		assert_int_equal(csv_fields(line, f, 12), 10);
		if (strstr(f[0], "[off-cpu") != NULL)
			fail_msg("--cpu shows %s", f[0]);
		cpu_samples += strtoull(f[2], NULL, 10);
	}
	free(csv);
	assert_true(cpu_samples == p->samples);
	profil_profile_free(p);

	/*
	 * The off-CPU leaves are time, not code: the histogram's default is
	 * the busiest object with code, and asking for an address picture
	 * or source lines of a leaf is a one-line error.
	 */
	run(&r, (char *[]){ profil_bin, "report", "--histogram", (char *)prf,
	    NULL });
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "[off-cpu]:"));
	run(&r, (char *[]){ profil_bin, "report", "--histogram",
	    "[off-cpu: clock_nanosleep]", (char *)prf, NULL });
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "time off the CPU, not code"));
	run(&r, (char *[]){ profil_bin, "report", "--annotate",
	    "[off-cpu: clock_nanosleep]", (char *)prf, NULL });
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "time off the CPU, not code"));
	assert_null(strchr(strchr(r.err, '\n') + 1, '\n'));

	/* --cpu of a CPU profile: one line, a usage error */
	run(&r, (char *[]){ profil_bin, "record", "-q", "-o", (char *)tmp("report.prf"),
	    workload, "split", "0.02", NULL });
	assert_int_equal(r.status, 0);
	run(&r, cpu_only);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "CPU profile already"));
	assert_null(strchr(strchr(r.err, '\n') + 1, '\n'));
}

/* ---- captions, names, shares of nothing ---------------------------------- */

/* The first non-blank text of the table's header: where a caption ends. */
static const char *const headers[] = { "%wall", "%incl", "%", "%self" };

/* Whether line (len bytes) is a table's header line. */
static int
header_line(const char *line, size_t len)
{
	size_t lead = strspn(line, " ");

	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
		size_t n = strlen(headers[i]);

		if (lead + n <= len && strncmp(line + lead, headers[i], n) == 0 &&
		    (line[lead + n] == ' ' || lead + n == len))
			return 1;
	}
	return 0;
}

/*
 * The caption of report's output out: its lines before the table's
 * header, joined by one space each into buf (a blank line as "|"), and
 * checked as they come: none wider than width columns, none ending in
 * a figure (a word with no letter: "1.00", "95%", "±") unless the
 * caption's paragraph ends there (the --wide output's line, whole).
 */
static void
caption_of(const char *out, int width, const char *wide, char *buf,
    size_t size, const char *how)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const char *line = out; *line;) {
		size_t len = strcspn(line, "\n");
		const char *last = line + len;

		if (header_line(line, len))
			return;
		if (width > 0 && display_width(line, line + len) > width)
			fail_msg("%s: a caption line wider than %d: %.*s", how, width,
			    (int)len, line);
		while (last > line && last[-1] != ' ')
			last--;
		if (len > 0) {
			int letter = 0;

			for (const char *c = last; c < line + len; c++)
				letter |= (*c >= 'a' && *c <= 'z') ||
				    (*c >= 'A' && *c <= 'Z');
			/* a figure at a line's end: the end of a paragraph only */
			if (!letter && !strchr(",;:", line[len - 1]) && wide != NULL) {
				char para_end[256];

				snprintf(para_end, sizeof para_end, "%.*s\n",
				    (int)(line + len - last), last);
				if (strstr(wide, para_end) == NULL)
					fail_msg("%s: a line ends in a figure: %.*s", how,
					    (int)len, line);
			}
		}
		used += (size_t)snprintf(buf + used, size - used, "%s%.*s",
		    used ? (len ? " " : " |") : "", (int)len, line);
		if (used >= size)
			fail_msg("%s: the caption is too long to check", how);
		line += len + (line[len] == '\n');
	}
	fail_msg("%s: no table after the caption", how);
}

/*
 * A wall profile's captions (and its notes; a function's callers; the
 * tree's) at 60, 80, 100 and 120 columns and in a pipe (80): every
 * word there, in order, no line wider than the width, none broken after
 * a figure ("1.00\ns off it" broke a number from its unit; "± = 95%
 * error\nof what was sampled" a phrase); the objects view's names
 * whole ("[off-cpu: oth..."), the line within 80 columns.
 */
static void
test_captions_and_names_at_any_width(void **state)
{
	const char *prf = tmp("widths.prf");
	char script[PATH_MAX + 64];
	char *argv[] = { profil_bin, "record", "-q", "--wall", "-e",
	    harness_perf_allowed() ? "perf" : "timer", "-o", (char *)prf, "sh",
	    "-c", script, NULL };
	static const char *const views[][3] = { { NULL }, { "--callers",
	    "clock_nanosleep" }, { "--tree" } };
	static struct run r;
	static char wide[8192], got[8192], want[8192];

	(void)state;
	snprintf(script, sizeof script, "%s split 0.05 && sleep 0.3", workload);
	run(&r, argv);
	assert_int_equal(r.status, 0);
	for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
		char *rep[] = { profil_bin, "report", "--wide", (char *)prf,
		    (char *)views[v][0], (char *)views[v][1], NULL };

		run(&r, rep);
		assert_int_equal(r.status, 0);
		snprintf(wide, sizeof wide, "%.8000s", r.out);
		caption_of(wide, 0, NULL, want, sizeof want, "--wide");
		for (int width = 40; width <= 120; width += 20) {
			char cols[16], how[64];

			snprintf(cols, sizeof cols, "%d", width);
			snprintf(how, sizeof how, "%s at %d columns",
			    views[v][0] ? views[v][0] : "flat", width);
			if (width == 40)	/* in a pipe, no COLUMNS: 80 */
				unsetenv("COLUMNS");
			else
				setenv("COLUMNS", cols, 1);
			rep[2] = (char *)prf;
			rep[3] = (char *)views[v][0];
			rep[4] = (char *)views[v][1];
			rep[5] = NULL;
			run(&r, rep);
			assert_int_equal(r.status, 0);
			caption_of(r.out, width == 40 ? 80 : width, wide, got,
			    sizeof got, how);
			/* the same words in the same order, the glue a space */
			if (strcmp(got, want) != 0)
				fail_msg("%s: the caption\n%s\nis not\n%s", how, got,
				    want);
		}
	}
	unsetenv("COLUMNS");

	/* the objects view: bracketed names whole, within 80 columns */
	char *objects[] = { profil_bin, "report", "--objects", (char *)prf, NULL };
	setenv("COLUMNS", "80", 1);
	run(&r, objects);
	unsetenv("COLUMNS");
	assert_int_equal(r.status, 0);
	for (const char *line = r.out; *line;) {
		size_t len = strcspn(line, "\n");
		const char *kind = strstr(line, "[off-cpu: ");

		if (display_width(line, line + len) > 80)
			fail_msg("--objects: wider than 80: %.*s", (int)len, line);
		if (kind != NULL && kind < line + len &&
		    memchr(kind, ']', (size_t)(line + len - kind)) == NULL)
			fail_msg("--objects: a name cut: %.*s", (int)len, line);
		line += len + (line[len] == '\n');
	}
	assert_non_null(strstr(r.out, "[off-cpu: sleep]"));
}

/*
 * Zero of zero: a wall profile of `true`, whose threads' time shows as
 * 0.00 s, gives no share of it, neither "(0%)" nor "(100%)", in record's
 * line or report's caption; one that shows time gives the share of it
 * off the CPU in both, the same.
 */
static void
test_share_of_nothing(void **state)
{
	const char *prf = tmp("true.prf");
	char *argv[] = { profil_bin, "record", "--wall", "-e",
	    harness_perf_allowed() ? "perf" : "timer", "-o", (char *)prf,
	    "true", NULL };
	char *rep[] = { profil_bin, "report", "--wide", (char *)prf, NULL };
	static struct run r;
	const char *line, *cap;
	char shown[16], off_share[16] = "", cap_share[16] = "", said[512];

	(void)state;
	run(&r, argv);
	assert_int_equal(r.status, 0);
	line = strstr(r.err, "profil: wall: ");
	assert_non_null(line);
	snprintf(said, sizeof said, "%.*s", (int)strcspn(line, "\n"), line);
	assert_int_equal(sscanf(said, "profil: wall: %15s", shown), 1);
	run(&r, rep);
	assert_int_equal(r.status, 0);
	cap = strstr(r.out, "off it");
	assert_non_null(cap);
	assert_non_null(strstr(said, "off it"));
	sscanf(strstr(said, "off it"), "off it (%15[^)]", off_share);
	sscanf(cap, "off it (%15[^)]", cap_share);
	print_message("threads' time %s s: record says (%s), report (%s)\n", shown,
	    off_share, cap_share);
	if (strcmp(shown, "0.00") == 0) {
		if (off_share[0] != '\0' || cap_share[0] != '\0')
			fail_msg("a share of 0.00 s: record (%s), report (%s)",
			    off_share, cap_share);
	} else if (strcmp(off_share, cap_share) != 0 || off_share[0] == '\0') {
		fail_msg("record says (%s) off the CPU, report (%s)", off_share,
		    cap_share);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_annotate_source_lines),
		cmocka_unit_test(test_vdso_symbols),
		cmocka_unit_test(test_width_and_colour),
		cmocka_unit_test(test_html_page),
		cmocka_unit_test(test_default_profile_is_the_newest),
		cmocka_unit_test(test_object_that_is_a_fifo),
		cmocka_unit_test(test_wall_views),
		cmocka_unit_test(test_captions_and_names_at_any_width),
		cmocka_unit_test(test_share_of_nothing),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
