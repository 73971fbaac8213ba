/*
 * test-cli.c - the command line itself, end to end on the real command:
 * options after the operands (never after record's PROGRAM), conflicting
 * views refused; every subcommand's --help describing every option; how
 * each process ended (report --pid), the program's children reaped by it
 * too; merge refusing one file named twice;
 * what is not a profile (a directory, an empty file, a FIFO) said so;
 * export --format gmon making its directory; and record finding out before
 * the program runs that its output cannot be written, leaving no temporary
 * file behind on any path.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

/* One line on stderr, from the named subcommand. */
static void
assert_one_line(const struct run *r, const char *command)
{
	char prefix[64];
	size_t len = strlen(r->err);

	snprintf(prefix, sizeof prefix, "profil: %s: ", command);
	if (strncmp(r->err, prefix, strlen(prefix)) != 0 || len == 0 ||
	    strchr(r->err, '\n') != r->err + len - 1)
		fail_msg("not one '%s' line: [%s]", prefix, r->err);
}

/* NAME in the scratch directory, in buf (PATH_MAX bytes), kept. */
static char *
scratch(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", tmpdir, name);
	return buf;
}

static int
exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* A recording of workload split, made once. */
static const char *
shared_profile(void)
{
	static char prf[PATH_MAX];
	char *prog[] = { workload, "split", "0.11", NULL };

	if (prf[0] == '\0') {
		scratch(prf, "cli.prf");
		record_ok(prf, prog);
	}
	return prf;
}

static void
copy_file(const char *from, const char *to)
{
	char cmd[PATH_MAX * 2 + 16];

	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

/* ---- options after operands ------------------------------------------- */

static int
lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void
test_options_after_operands(void **state)
{
	const char *prf = shared_profile();
	char copy[PATH_MAX], pb[PATH_MAX], gdir[PATH_MAX], merged[PATH_MAX];
	char expect[PATH_MAX + 32];
	char nope[PATH_MAX], rec[PATH_MAX];
	char *after[] = { profil_bin, "report", (char *)prf, "--limit", "1",
	    "--format", "csv", NULL };
	char *before[] = { profil_bin, "report", "--limit", "1", "--format",
	    "csv", (char *)prf, NULL };
	char *view[] = { profil_bin, "report", (char *)prf, "--pid", "--format",
	    "json", NULL };
	char *export[] = { profil_bin, "export", (char *)prf, "--format", "pprof",
	    "-o", pb, NULL };
	char *gmon[] = { profil_bin, "export", (char *)prf, "-o", gdir,
	    "--format", "gmon", NULL };
	char *merge[] = { profil_bin, "merge", (char *)prf, copy, "-o", merged,
	    "-q", NULL };
	char *diff[] = { profil_bin, "diff", (char *)prf, copy, "--format", "csv",
	    "--limit", "1", NULL };
	char *check[] = { profil_bin, "check", (char *)prf, "-q", NULL };
	char *dashes[] = { profil_bin, "report", "--format", "csv", "--",
	    (char *)prf, NULL };
	char *dash_file[] = { profil_bin, "check", "-q", "--", "-q", NULL };
	char *program[] = { profil_bin, "record", "-q", "-o", rec, "/bin/echo",
	    "-o", nope, "--limit", "1", NULL };
	struct run r, r2;

	(void)state;
	scratch(copy, "cli-copy.prf");
	scratch(pb, "cli.pb.gz");
	scratch(gdir, "cli-gmon");
	scratch(merged, "cli-merged.prf");
	scratch(nope, "nope.prf");
	scratch(rec, "echo.prf");
	copy_file(prf, copy);
	assert_int_equal(mkdir(gdir, 0755), 0);

	run(&r, after);
	assert_int_equal(r.status, 0);
	assert_int_equal(lines(r.out), 2);
	run(&r2, before);
	assert_string_equal(r.out, r2.out);
	run(&r, view);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"exit_status\": "));
	run(&r, export);
	assert_int_equal(r.status, 0);
	assert_true(exists(pb));
	run(&r, gmon);
	assert_int_equal(r.status, 0);
	run(&r, merge);
	if (r.status != 0)
		fail_msg("merge: %s", r.err);
	assert_string_equal(r.err, "");
	assert_true(exists(merged));
	run(&r, diff);
	assert_int_equal(r.status, 0);
	assert_int_equal(lines(r.out), 2);
	run(&r, check);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");

	/* a bare -- ends the options: what follows is an operand */
	run(&r, dashes);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "function,object,", 16) == 0);
	run(&r, dash_file);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "check");
	assert_non_null(strstr(r.err, "-q: "));

	/* record's options stop at the program: the rest is the program's */
	run(&r, program);
	assert_int_equal(r.status, 0);
	snprintf(expect, sizeof expect, "-o %s --limit 1\n", nope);
	assert_string_equal(r.out, expect);
	assert_true(exists(rec));
	assert_false(exists(nope));
}

/* ---- conflicting views ------------------------------------------------ */

static void
test_conflicting_views_refused(void **state)
{
	static const char *const pairs[][4] = {
		/* first, its value, second, its value */
		{ "--threads", NULL, "--objects", NULL },
		{ "--objects", NULL, "--threads", NULL },
		{ "--pid", NULL, "--threads", NULL },
		{ "--processes", NULL, "--objects", NULL },
		{ "--histogram", NULL, "--annotate", "six" },
		{ "--annotate", "six", "--histogram", NULL },
		{ "--histogram=six", NULL, "--histogram=three", NULL },
		{ "--annotate", "six", "--annotate", "three" },
		{ "--html", "page.html", "--pid", NULL },
		{ "--threads", NULL, "--html", "page.html" },
		{ "--inline", NULL, "--threads", NULL },
		{ "--histogram=six", NULL, "--inline", NULL },
	};
	const char *prf = shared_profile();
	char page[PATH_MAX];
	struct run r;

	(void)state;
	scratch(page, "page.html");
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		char *argv[12] = { profil_bin, "report" };
		int n = 2;

		for (int k = 0; k < 4; k += 2) {
			argv[n++] = (char *)pairs[i][k];
			if (pairs[i][k + 1] != NULL)
				argv[n++] = strcmp(pairs[i][k + 1], "page.html") == 0 ?
				    page : (char *)pairs[i][k + 1];
		}
		argv[n++] = (char *)prf;
		argv[n] = NULL;
		run(&r, argv);
		if (r.status != 2)
			fail_msg("report %s %s: exit %d", pairs[i][0], pairs[i][2],
			    r.status);
		assert_one_line(&r, "report");
		assert_string_equal(r.out, "");
		/* both named, as given (--histogram=six: its name is enough) */
		for (int k = 0; k < 4; k += 2) {
			char name[64];

			snprintf(name, sizeof name, "%.*s",
			    (int)strcspn(pairs[i][k], "="), pairs[i][k]);
			if (strstr(r.err, name) == NULL)
				fail_msg("does not name %s: %s", name, r.err);
		}
		assert_false(exists(page));
	}

	/* one view given twice is no conflict */
	char *twice[] = { profil_bin, "report", "--threads", (char *)prf,
	    "--threads", NULL };
	run(&r, twice);
	assert_int_equal(r.status, 0);
}

/* ---- --help ----------------------------------------------------------- */

static const char *const commands[] = {
	"record", "report", "export", "check", "merge", "diff",
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* man/profil.1, above the test binaries (build/tests or build/san-x/tests). */
static char *
read_man_page(void)
{
	char path[PATH_MAX], *text;
	FILE *f = NULL;
	long size;

	snprintf(path, sizeof path, "%s", bindir);
	for (int up = 0; up < 5 && f == NULL; up++) {
		char try[PATH_MAX + 16];

		snprintf(try, sizeof try, "%s/man/profil.1", path);
		f = fopen(try, "r");
		if (strrchr(path, '/') != NULL)
			*strrchr(path, '/') = '\0';
	}
	if (f == NULL)
		fail_msg("man/profil.1 not found above %s", bindir);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = malloc((size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
	text[size] = '\0';
	fclose(f);
	return text;
}

/*
 * The options profil.1 lists for command (".It Fl o Ar file" is "-o",
 * ".It Fl -objects" is "--objects"), into opts; their number.
 */
static int
man_options(const char *man, const char *command, char opts[][64], int max)
{
	char heading[64];
	const char *at, *end;
	int n = 0;

	snprintf(heading, sizeof heading, "\n.Ss %s\n", command);
	at = strstr(man, heading);
	assert_non_null(at);
	at += strlen(heading);
	end = strstr(at, "\n.Ss ");
	if (end == NULL || (strstr(at, "\n.Sh ") != NULL && strstr(at, "\n.Sh ") < end))
		end = strstr(at, "\n.Sh ");
	at--;	/* at the newline that ends the heading */
	for (; at != NULL && at < end && n < max; at = strchr(at, '\n')) {
		at++;
		if (strncmp(at, ".It Fl ", 7) == 0) {
			size_t len = strcspn(at + 7, " \n");

			snprintf(opts[n++], 64, "-%.*s", (int)len, at + 7);
		}
	}
	return n;
}

/*
 * The entry of option in help: the line that introduces it (indented,
 * the option as a word in it) and its continuation lines; NULL if none.
 */
static const char *
help_entry(const char *help, const char *option, char *entry, size_t size)
{
	size_t len = strlen(option);

	for (const char *line = help; *line; ) {
		const char *eol = strchr(line, '\n'), *at;

		if (eol == NULL)
			eol = line + strlen(line);
		for (at = line; line[0] == ' ' && (at = strstr(at, option)) != NULL &&
		    at < eol; at++)
			if (at[-1] == ' ' && strchr(" ,[=\n", at[len]) != NULL) {
				const char *next = eol;

				/* continuation lines start deep, not with an option */
				while (*next == '\n' && strncmp(next + 1, "      ", 6) == 0 &&
				    next[1 + strspn(next + 1, " ")] != '-')
					next = strchr(next + 1, '\n') ? strchr(next + 1, '\n') :
					    next + strlen(next);
				snprintf(entry, size, "%.*s", (int)(next - line), line);
				return entry;
			}
		line = *eol ? eol + 1 : eol;
	}
	return NULL;
}

static void
test_help_describes_every_option(void **state)
{
	/* options with a default, which their line must state */
	static const char *const with_default[][2] = {
		{ "record", "-o" }, { "record", "-F" }, { "record", "-b" },
		{ "record", "-e" }, { "record", "--no-children" },
		{ "report", "--format" }, { "report", "--limit" },
		{ "report", "--sort" }, { "report", "--color" }, { "report", "--wide" },
		{ "report", "--min-percent" }, { "report", "--histogram" },
		{ "export", "-o" }, { "merge", "-o" }, { "diff", "--format" },
		{ "diff", "--limit" }, { "diff", "--min-change" },
	};
	char *man = read_man_page(), opts[64][64], entry[4096];
	struct run r, again;

	(void)state;
	for (size_t c = 0; c < NCOMMANDS; c++) {
		char *help[] = { profil_bin, (char *)commands[c], "--help", NULL };
		char *via[] = { profil_bin, "help", (char *)commands[c], NULL };
		int n = man_options(man, commands[c], opts, 64);

		run(&r, help);
		assert_int_equal(r.status, 0);
		assert_string_equal(r.err, "");
		if (strstr(r.out, "(undocumented)") != NULL)
			fail_msg("profil %s --help: an option without its line:\n%s",
			    commands[c], r.out);
		for (const char *line = r.out; *line; ) {
			const char *eol = strchr(line, '\n');
			int width = 0;

			assert_non_null(eol);
			for (const char *s = line; s < eol; s++)
				width += ((unsigned char)*s & 0xc0) != 0x80;
			if (width > 80)
				fail_msg("profil %s --help: %d columns: %.*s", commands[c],
				    width, (int)(eol - line), line);
			line = eol + 1;
		}
		/* every option of the man page has a line of its own */
		if (strcmp(commands[c], "check") != 0 && strcmp(commands[c],
		    "export") != 0)
			assert_true(n >= 2);
		for (int i = 0; i < n; i++)
			if (help_entry(r.out, opts[i], entry, sizeof entry) == NULL)
				fail_msg("profil %s --help does not describe %s:\n%s",
				    commands[c], opts[i], r.out);
		for (size_t i = 0; i < sizeof with_default / sizeof with_default[0];
		    i++) {
			if (strcmp(with_default[i][0], commands[c]) != 0)
				continue;
			if (help_entry(r.out, with_default[i][1], entry,
			    sizeof entry) == NULL || strstr(entry, "default") == NULL)
				fail_msg("profil %s --help: %s without its default:\n%s",
				    commands[c], with_default[i][1], r.out);
		}
		/* "profil help CMD" says the same */
		run(&again, via);
		assert_int_equal(again.status, 0);
		assert_string_equal(again.out, r.out);
	}
	free(man);

	char *top[] = { profil_bin, "help", NULL };
	char *bad[] = { profil_bin, "help", "nosuch", NULL };
	run(&r, top);
	assert_int_equal(r.status, 0);
	for (size_t c = 0; c < NCOMMANDS; c++)
		assert_non_null(strstr(r.out, commands[c]));
	run(&r, bad);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "nosuch"));
}

/* option ("-q", "--inline") in text as a word of its own */
static int
names_option(const char *text, size_t len, const char *option)
{
	size_t n = strlen(option);

	for (const char *at = text; (at = memmem(at, len - (size_t)(at - text),
	    option, n)) != NULL; at++)
		if ((at == text || strchr(" [|.", at[-1]) != NULL) &&
		    strchr(" ]|\n[=", at[n]) != NULL)
			return 1;
	return 0;
}

/*
 * Every option a command's --help describes is in its usage line and in
 * the man page's SYNOPSIS for it (long or short form): report's usage and
 * the SYNOPSIS of export and diff left out --symfs and --debug-dir.
 */
static void
test_usage_and_synopsis_name_every_option(void **state)
{
	char *man = read_man_page(), *syn, *syn_end;
	struct run r;

	(void)state;
	syn = strstr(man, ".Sh SYNOPSIS\n");
	assert_non_null(syn);
	syn_end = strstr(syn, "\n.Sh DESCRIPTION");
	assert_non_null(syn_end);
	*syn_end = '\0';
	for (size_t c = 0; c < NCOMMANDS; c++) {
		char *help[] = { profil_bin, (char *)commands[c], "--help", NULL };
		char usage[2048] = "", head[64];
		const char *line, *eol;

		run(&r, help);
		assert_int_equal(r.status, 0);
		/* the usage line: "usage: ..." and its indented continuations */
		for (line = r.out; *line && (line == r.out || *line == ' ');
		    line = *eol ? eol + 1 : eol) {
			eol = strchr(line, '\n');
			assert_non_null(eol);
			snprintf(usage + strlen(usage), sizeof usage - strlen(usage),
			    "%.*s ", (int)(eol - line), line);
		}
		for (; *line; line = *eol ? eol + 1 : eol) {
			char shrt[8] = "", lng[64] = "", want[80];
			int named = 0;

			eol = strchr(line, '\n');
			assert_non_null(eol);
			if (sscanf(line, " -%1[a-zA-Z], --%60[a-z-]", shrt, lng) != 2 &&
			    sscanf(line, " --%60[a-z-]", lng) != 1)
				continue;
			if (strcmp(lng, "help") == 0 || strcmp(lng, "version") == 0)
				continue;
			snprintf(want, sizeof want, "--%s", lng);
			named = names_option(usage, strlen(usage), want);
			snprintf(want, sizeof want, "-%s", shrt);
			named |= shrt[0] != '\0' &&
			    names_option(usage, strlen(usage), want);
			if (!named)
				fail_msg("profil %s: --%s is not in the usage line: %s",
				    commands[c], lng, usage);
			/* in the SYNOPSIS: each ".Cm command" entry, up to .Nm */
			named = 0;
			snprintf(head, sizeof head, "\n.Cm %s\n", commands[c]);
			for (const char *at = strstr(syn, head); at != NULL;
			    at = strstr(at + 1, head)) {
				const char *end = strstr(at + 1, "\n.Nm");
				char fl[80];
				size_t len = end ? (size_t)(end - at) : strlen(at);

				snprintf(fl, sizeof fl, "Fl -%s", lng);
				named |= names_option(at, len, fl);
				snprintf(fl, sizeof fl, "Fl %s", shrt);
				named |= shrt[0] != '\0' && names_option(at, len, fl);
			}
			if (!named)
				fail_msg("profil.1 SYNOPSIS: %s without --%s",
				    commands[c], lng);
		}
	}
	free(man);
}

/*
 * The man pages format without a warning (the tree view's column list
 * could not be broken at 80 columns), at the widths terminals have.
 */
static void
test_man_pages_format_cleanly(void **state)
{
	char *man = read_man_page(), cmd[3 * PATH_MAX], *dir;
	static const char *const pages[] = { "profil.1", "profil.3", "profil.5" };
	static const int widths[] = { 65, 80, 120 };
	struct run r;

	(void)state;
	free(man);
	/* read_man_page found man/ above us: the same search, for its path */
	dir = realpath(bindir, NULL);
	assert_non_null(dir);
	while (strrchr(dir, '/') != NULL) {
		snprintf(cmd, sizeof cmd, "%s/man/profil.1", dir);
		if (access(cmd, R_OK) == 0)
			break;
		*strrchr(dir, '/') = '\0';
	}
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
		for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
			char *argv[] = { "/bin/sh", "-c", cmd, NULL };

			snprintf(cmd, sizeof cmd, "groff -mandoc -ww -z -Tutf8 "
			    "-rLL=%dn %s/man/%s", widths[w], dir, pages[i]);
			run(&r, argv);
			if (r.status != 0 || r.err[0] != '\0')
				fail_msg("%s at %d columns: %s", pages[i], widths[w],
				    r.err);
		}
	free(dir);
}

/* -V is --version; an ambiguous prefix names what it could be. */
static void
test_version_and_ambiguous_prefix(void **state)
{
	char *v[] = { profil_bin, "-V", NULL };
	char *version[] = { profil_bin, "--version", NULL };
	char *re[] = { profil_bin, "re", NULL };
	struct run r, again;

	(void)state;
	run(&r, v);
	assert_int_equal(r.status, 0);
	assert_true(strncmp(r.out, "profil ", 7) == 0);
	run(&again, version);
	assert_string_equal(r.out, again.out);
	run(&r, re);
	assert_int_equal(r.status, 2);
	if (strstr(r.err, "record") == NULL || strstr(r.err, "report") == NULL ||
	    strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
		fail_msg("profil re: %s", r.err);
}

/* ---- report --pid: how each process ended ------------------------------- */

struct status_case {
	int32_t status;
	const char *words;
};

static const struct status_case status_cases[] = {
	{ 0, "exit 0" },
	{ 3 << 8, "exit 3" },
	{ 11, "signal 11 (SIGSEGV)" },
	{ 0x80 | 6, "signal 6 (SIGABRT), core dumped" },
	{ 9, "signal 9 (SIGKILL)" },
	{ 40, "signal 40" },		/* real-time: no fixed name */
	{ -1, "ended" },		/* its status could not be learnt */
	{ -2, "running" },		/* still running when it ended */
	{ 0x137f, "unknown (0x137f)" },	/* stopped: no final status */
	{ 0x10000, "unknown (0x10000)" },
};
#define NSTATUS (sizeof status_cases / sizeof status_cases[0])

/* A profile of one process per status case, pids 100, 101, ... */
static void
save_status_profile(const char *path)
{
	struct profil_profile *p = calloc(1, sizeof *p);
	char cause[256];

	assert_non_null(p);
	p->interval_ns = 1000000;
	p->bucket_bytes = 1;
	p->engine = strdup("perf");
	p->argc = 1;
	p->argv = calloc(2, sizeof *p->argv);
	p->argv[0] = strdup("app");
	p->processes = calloc(NSTATUS, sizeof *p->processes);
	for (size_t i = 0; i < NSTATUS; i++) {
		p->processes[i] = (struct profil_process){ (uint32_t)(100 + i), 1,
		    strdup("app"), status_cases[i].status, 10 + i };
		p->samples += 10 + i;
	}
	p->nprocesses = NSTATUS;
	p->unknown = p->samples;
	p->cpu_ns = p->samples * p->interval_ns;
	if (profil_profile_save(p, path, cause, sizeof cause) < 0)
		fail_msg("save %s: %s", path, cause);
	profil_profile_free(p);
}

/*
 * The line of r's output that holds key ("\n101," for a line that starts
 * so, or "\"pid\": 101,").
 */
static const char *
line_with(const struct run *r, const char *key, char *line, size_t size)
{
	const char *at = strstr(r->out, key), *start, *end;

	if (at == NULL)
		fail_msg("no line with [%s] in:\n%s", key, r->out);
	at += key[0] == '\n';
	for (start = at; start > r->out && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	snprintf(line, size, "%.*s", (int)(end ? end - start :
	    (long)strlen(start)), start);
	return line;
}

static void
test_pid_status_in_words(void **state)
{
	char prf[PATH_MAX], line[1024], key[64], want[256];
	char *csv[] = { profil_bin, "report", "--pid", "--format", "csv", prf, NULL };
	char *json[] = { profil_bin, "report", "--pid", "--format", "json", prf,
	    NULL };
	char *text[] = { profil_bin, "report", "--pid", prf, NULL };
	struct run r;

	(void)state;
	scratch(prf, "status.prf");
	save_status_profile(prf);

	/* CSV: the documented columns as they were, status appended */
	run(&r, csv);
	assert_int_equal(r.status, 0);
	static const char header[] = "pid,ppid,command,exit_status,samples,"
	    "percent,error95,seconds,status\n";
	assert_true(strncmp(r.out, header, strlen(header)) == 0);
	for (size_t i = 0; i < NSTATUS; i++) {
		snprintf(key, sizeof key, "\n%zu,1,app,%d,", 100 + i,
		    status_cases[i].status);
		line_with(&r, key, line, sizeof line);
		/* ", core dumped": quoted, as CSV quotes a comma */
		snprintf(want, sizeof want, strchr(status_cases[i].words, ',') ?
		    ",\"%s\"" : ",%s", status_cases[i].words);
		if (strcmp(line + strlen(line) - strlen(want), want) != 0)
			fail_msg("status %d: [%s], want it to end [%s]",
			    status_cases[i].status, line, want);
	}
	/* JSON: exit_status a number, status last */
	run(&r, json);
	assert_int_equal(r.status, 0);
	for (size_t i = 0; i < NSTATUS; i++) {
		snprintf(key, sizeof key, "\"pid\": %zu,", 100 + i);
		line_with(&r, key, line, sizeof line);
		snprintf(want, sizeof want, "\"exit_status\": %d, ",
		    status_cases[i].status);
		assert_non_null(strstr(line, want));
		snprintf(want, sizeof want, "\"status\": \"%s\"}",
		    status_cases[i].words);
		if (strstr(line, want) == NULL)
			fail_msg("[%s] has no [%s]", line, want);
	}
	/* text: the words, whole, on the process's line */
	run(&r, text);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "  status  "));
	for (size_t i = 0; i < NSTATUS; i++) {
		snprintf(key, sizeof key, "  %zu  ", 100 + i);
		line_with(&r, key, line, sizeof line);
		snprintf(want, sizeof want, "  %s ", status_cases[i].words);
		if (strstr(line, want) == NULL)
			fail_msg("[%s] has no [%s]", line, want);
	}
}

/* How real processes ended, as recorded: exit, signal, not waited for. */
static void
test_pid_status_recorded(void **state)
{
	char prf[PATH_MAX];
	char *csv[] = { profil_bin, "report", "--pid", "--format", "csv", prf, NULL };
	char *exit3[] = { profil_bin, "record", "-q", "-o", prf, workload, "exit",
	    "3", NULL };
	char *crash[] = { profil_bin, "record", "-q", "-o", prf, workload,
	    "crash", NULL };
	char *forkexec[] = { workload, "forkexec", "0.022", NULL };
	struct rlimit no_core = { 0, 0 }, saved;
	struct run r;

	(void)state;
	scratch(prf, "ended.prf");
	run(&r, exit3);
	assert_int_equal(r.status, 3);
	run(&r, csv);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, ",768,"));
	assert_non_null(strstr(r.out, ",exit 3\n"));

	/* no core file: the words must not say one was dumped */
	assert_int_equal(getrlimit(RLIMIT_CORE, &saved), 0);
	no_core.rlim_max = saved.rlim_max;	/* the soft limit only: it comes back */
	assert_int_equal(setrlimit(RLIMIT_CORE, &no_core), 0);
	run(&r, crash);
	assert_int_equal(setrlimit(RLIMIT_CORE, &saved), 0);
	assert_int_equal(r.status, 128 + 11);
	run(&r, csv);
	assert_int_equal(r.status, 0);
	/* a core_pattern pipe dumps whatever the limit: then it says so */
	if (strstr(r.out, ",139,") != NULL)
		assert_non_null(strstr(r.out, ",signal 11 (SIGSEGV), core dumped\n"));
	else
		assert_non_null(strstr(r.out, ",11,") != NULL &&
		    strstr(r.out, ",signal 11 (SIGSEGV)\n") != NULL ? r.out : NULL);

	/*
	 * the child the program waited for itself: its status, or where
	 * it could not be learnt "ended", never "unknown", which read as a
	 * failure (test_descendants_status: when it is known)
	 */
	record_ok(prf, forkexec);
	run(&r, csv);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.out, "unknown"));
	assert_non_null(strstr(r.out, ",exit 0\n"));
}

/*
 * Whether this kernel keeps an ended process's wait status for its
 * pidfds (PIDFD_INFO_EXIT, Linux 6.15), probed on a child of ours reaped
 * by its own parent, as the recorder meets the program's children.
 */
static int
pidfd_keeps_exit(void)
{
	struct { uint64_t mask, cgroupid; uint32_t ids[11]; int32_t exit_code; }
	    info;
	int pids[2], go[2], fd = -1, kept = 0;
	pid_t parent, child = 0;

	assert_int_equal(pipe(pids), 0);
	assert_int_equal(pipe(go), 0);
	if ((parent = fork()) == 0) {
		close(pids[0]);
		close(go[1]);
		if ((child = fork()) == 0) {
			char byte;

			/* ends (8) when the test closes its end of go */
			_exit(read(go[0], &byte, 1) == 0 ? 8 : 7);
		}
		close(go[0]);
		if (write(pids[1], &child, sizeof child) != sizeof child)
			_exit(1);
		waitpid(child, NULL, 0);
		_exit(0);
	}
	close(pids[1]);
	close(go[0]);
	if (read(pids[0], &child, sizeof child) == sizeof child)
		fd = (int)syscall(SYS_pidfd_open, child, 0);
	close(pids[0]);
	close(go[1]);			/* the child ends, reaped by its parent */
	waitpid(parent, NULL, 0);
	memset(&info, 0, sizeof info);
	info.mask = 1ull << 3;		/* PIDFD_INFO_EXIT */
	if (fd >= 0 && ioctl(fd, _IOWR(0xFF, 11, info), &info) == 0 &&
	    (info.mask & (1ull << 3)))
		kept = info.exit_code == 8 << 8;
	if (fd >= 0)
		close(fd);
	return kept;
}

/* The program's children released one by one (run_acting's act). */
struct release {
	char fifo[2][PATH_MAX + 16];
	int next;
	pid_t last;
};

/*
 * When the recorder has heard of the program's child (it holds a pidfd
 * of it) and the child reads its FIFO, write it a line: it ends.  Done
 * with the second.
 */
static int
release_child(pid_t recorder, void *arg)
{
	struct release *rel = arg;
	pid_t program = e2e_child_of(recorder), child;
	int fd;

	if (program == 0 || (child = e2e_child_of(program)) == 0 ||
	    child == rel->last || !e2e_holds_pidfd(recorder, child))
		return 0;
	/* no reader yet: ENXIO, try again */
	if ((fd = open(rel->fifo[rel->next], O_WRONLY | O_NONBLOCK)) < 0)
		return 0;
	assert_int_equal(write(fd, "go\n", 3), 3);
	close(fd);
	rel->last = child;
	return ++rel->next == 2;
}

/*
 * How the program's own children ended, which the program reaps: a
 * shell's two children, one that exits 3 and one killed by SIGSEGV.
 * Each waits on a FIFO until the recorder has heard of it, so that
 * their statuses are learnt in every way the recorder has (exits.h);
 * where this kernel keeps them for pidfds (or the recorder may read the
 * kernel's process events) they are exact, else "ended", never another
 * status.  Both engines, as root and as nobody (the recorder too).
 */
static void
test_descendants_status(void **state)
{
	static const char *const engines[] = { "perf", "timer" };
	char dir[PATH_MAX], prf[PATH_MAX + 16], cmd[4 * PATH_MAX];
	char *csv[] = { profil_bin, "report", "--pid", "--format", "csv", prf,
	    NULL };
	int exact = pidfd_keeps_exit();
	struct release rel;
	struct run r;

	(void)state;
	scratch(dir, "descendants");
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(chmod(tmpdir, 0711), 0);
	snprintf(prf, sizeof prf, "%s/d.prf", dir);
	for (int as_nobody = 0; as_nobody <= (geteuid() == 0); as_nobody++)
		for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
			char *argv[16];
			int n = 0;

			if (strcmp(engines[e], "perf") == 0 && (as_nobody ?
			    harness_perf_paranoid() > 2 : !harness_perf_allowed()))
				continue;
			memset(&rel, 0, sizeof rel);
			for (int k = 0; k < 2; k++) {
				snprintf(rel.fifo[k], sizeof rel.fifo[k], "%s/go%d",
				    dir, k);
				unlink(rel.fifo[k]);
				assert_int_equal(mkfifo(rel.fifo[k], 0666), 0);
				assert_int_equal(chmod(rel.fifo[k], 0666), 0);
			}
			unlink(prf);
			snprintf(cmd, sizeof cmd, "ulimit -c 0; "
			    "sh -c 'read x <%s; exit 3'; "
			    "sh -c 'read x <%s; kill -SEGV $$'; exit 0",
			    rel.fifo[0], rel.fifo[1]);
			if (as_nobody)
				n += e2e_as_nobody(argv + n);
			argv[n++] = profil_bin;
			argv[n++] = "record";
			argv[n++] = "-q";
			argv[n++] = "-e";
			argv[n++] = (char *)engines[e];
			argv[n++] = "-o";
			argv[n++] = prf;
			argv[n++] = "/bin/sh";
			argv[n++] = "-c";
			argv[n++] = cmd;
			argv[n] = NULL;
			run_acting(&r, argv, release_child, &rel, 60);
			if (r.status != 0)
				fail_msg("record -e %s%s: exit %d: %s", engines[e],
				    as_nobody ? " as nobody" : "", r.status, r.err);
			run(&r, csv);
			assert_int_equal(r.status, 0);
			if (exact ? strstr(r.out, ",768,") == NULL ||
			    strstr(r.out, ",exit 3\n") == NULL ||
			    strstr(r.out, ",11,") == NULL ||
			    strstr(r.out, ",signal 11 (SIGSEGV)\n") == NULL :
			    strstr(r.out, "unknown") != NULL)
				fail_msg("-e %s%s: the children's statuses:\n%s",
				    engines[e], as_nobody ? " as nobody" : "", r.out);
		}
	assert_int_equal(chmod(tmpdir, 0700), 0);
}

/* ---- merge: one file twice -------------------------------------------- */

static void
test_merge_refuses_one_file_twice(void **state)
{
	const char *prf = shared_profile();
	char out[PATH_MAX], hardlink[PATH_MAX], sym[PATH_MAX], other[PATH_MAX];
	char copy[PATH_MAX], dotted[PATH_MAX * 2];
	char *same[] = { profil_bin, "merge", "-o", out, (char *)prf, (char *)prf,
	    NULL };
	char *by_path[] = { profil_bin, "merge", "-o", out, (char *)prf, dotted,
	    NULL };
	char *hard[] = { profil_bin, "merge", "-o", out, hardlink, copy,
	    (char *)prf, NULL };
	char *soft[] = { profil_bin, "merge", "-o", out, sym, (char *)prf, NULL };
	char *fine[] = { profil_bin, "merge", "-q", "-o", out, (char *)prf, copy,
	    NULL };
	char *const *refused[] = { same, by_path, hard, soft };
	struct run r;

	(void)state;
	scratch(out, "twice.prf");
	scratch(hardlink, "hard.prf");
	scratch(sym, "sym.prf");
	scratch(copy, "copy.prf");
	scratch(other, "sub");
	assert_int_equal(mkdir(other, 0755), 0);
	snprintf(dotted, sizeof dotted, "%s/../%s", other, strrchr(prf, '/') + 1);
	assert_int_equal(link(prf, hardlink), 0);
	assert_int_equal(symlink(prf, sym), 0);
	copy_file(prf, copy);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		run(&r, refused[i]);
		if (r.status != 2)
			fail_msg("merge %zu: exit %d (%s)", i, r.status, r.err);
		assert_one_line(&r, "merge");
		assert_non_null(strstr(r.err, "same file"));
		assert_false(exists(out));
	}
	/* the two names it gives are the two given */
	run(&r, hard);
	assert_non_null(strstr(r.err, hardlink));
	assert_non_null(strstr(r.err, prf));
	/* a copy is another file: summed, as asked */
	run(&r, fine);
	assert_int_equal(r.status, 0);
	assert_true(exists(out));
}

/* ---- what is not a profile, said for what it is ------------------------ */

/*
 * Every command that reads a .prf says, in one line and exit 1, that a
 * directory is one (an unreadable one too, which open(2) refuses with
 * EACCES: checked as nobody when we are root, root reading any), that an
 * empty file is empty (not "bad magic"), and that a FIFO is no regular
 * file, at once: opened as a file is, a FIFO without a writer blocked
 * the reader for ever.
 */
static void
test_not_a_profile_said_so(void **state)
{
	const char *good = shared_profile();
	char dir[PATH_MAX], sealed[PATH_MAX], empty[PATH_MAX], fifo[PATH_MAX];
	char out[PATH_MAX];
	static const struct { const char *name, *says; } inputs[] = {
		{ "adir", "is a directory" },
		{ "sealed", "is a directory" },
		{ "empty.prf", "empty" },
		{ "fifo.prf", "not a regular file" },
	};
	static const char *const readers[] = { "report", "export", "merge",
	    "diff", "check", "archive" };
	int as_nobody = geteuid() == 0;
	struct run r;

	(void)state;
	scratch(dir, "adir");
	scratch(sealed, "sealed");
	scratch(empty, "empty.prf");
	scratch(fifo, "fifo.prf");
	scratch(out, "notaprofile-out.prf");
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(sealed, 0), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	copy_file("/dev/null", empty);
	/* nobody may pass through the scratch directory, not list it */
	assert_int_equal(chmod(tmpdir, 0711), 0);
	for (size_t c = 0; c < sizeof readers / sizeof readers[0]; c++)
		for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
			char path[PATH_MAX], want[PATH_MAX + 128];
			char *argv[16] = { "/usr/bin/timeout", "20" };
			int n = 2, nobody = as_nobody && strcmp(inputs[i].name,
			    "sealed") == 0;

			scratch(path, inputs[i].name);
			if (nobody)
				n += e2e_as_nobody(argv + n);
			argv[n++] = profil_bin;
			argv[n++] = (char *)readers[c];
			if (strcmp(readers[c], "export") == 0) {
				argv[n++] = "--format";
				argv[n++] = "folded";
				argv[n++] = "-o";
				argv[n++] = "-";
			} else if (strcmp(readers[c], "merge") == 0) {
				argv[n++] = "-o";
				argv[n++] = out;
			}
			argv[n++] = path;
			/* the bad one first, a good one beside it */
			if (strcmp(readers[c], "merge") == 0 ||
			    strcmp(readers[c], "diff") == 0)
				argv[n++] = (char *)good;
			argv[n] = NULL;
			run(&r, argv);
			if (nobody && strstr(r.err, "setpriv:") != NULL)
				continue;	/* no setpriv or no user nobody */
			if (r.status != 1)
				fail_msg("%s %s: exit %d (124: it hung): %s",
				    readers[c], inputs[i].name, r.status, r.err);
			assert_one_line(&r, readers[c]);
			snprintf(want, sizeof want, "profil: %s: %s: %s",
			    readers[c], path, inputs[i].says);
			if (strncmp(r.err, want, strlen(want)) != 0)
				fail_msg("[%s], want [%s...]", r.err, want);
			assert_false(exists(out));
		}
	assert_int_equal(chmod(tmpdir, 0700), 0);
}

/* ---- export --format gmon -o DIR ---------------------------------------- */

static void
test_export_gmon_makes_its_directory(void **state)
{
	const char *prf = shared_profile();
	char dir[PATH_MAX], deep[PATH_MAX], file[PATH_MAX], bad[PATH_MAX];
	char bad_dir[PATH_MAX], out[PATH_MAX + 32];
	char *make[] = { profil_bin, "export", "--format", "gmon", "-o", dir,
	    (char *)prf, NULL };
	char *missing_parent[] = { profil_bin, "export", "--format", "gmon", "-o",
	    deep, (char *)prf, NULL };
	char *not_dir[] = { profil_bin, "export", "--format", "gmon", "-o", file,
	    (char *)prf, NULL };
	char *unreadable[] = { profil_bin, "export", "--format", "gmon", "-o",
	    bad_dir, bad, NULL };
	struct run r;
	struct stat st;

	(void)state;
	scratch(dir, "gmon-new");
	scratch(deep, "no-parent/gmon-new");
	scratch(file, "cli.prf");	/* the shared profile: a file */
	scratch(bad, "not-a-profile.prf");
	scratch(bad_dir, "gmon-never");
	run(&r, make);
	if (r.status != 0)
		fail_msg("export: %s", r.err);
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(out, sizeof out, "%s/gmon.workload.out", dir);
	assert_true(exists(out));
	/* again, into the directory it made: fine */
	run(&r, make);
	assert_int_equal(r.status, 0);

	/* one level, as mkdir: a missing parent is an error, nothing made */
	run(&r, missing_parent);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "export");
	assert_non_null(strstr(r.err, "no-parent/gmon-new"));
	scratch(deep, "no-parent");
	assert_false(exists(deep));
	/* a file there is not a directory */
	run(&r, not_dir);
	assert_int_equal(r.status, 2);
	assert_one_line(&r, "export");
	/* a profile that cannot be read makes no directory */
	FILE *f = fopen(bad, "w");
	assert_non_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	run(&r, unreadable);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "export");
	assert_false(exists(bad_dir));
}

/* ---- record -o: found out before the program runs --------------------- */

/* Files in dir whose name holds ".tmp." (what outfile.c writes first). */
static int
temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

/*
 * record -o output, of a program that would leave marker: refused (exit
 * 2, one line) before the program ran, nothing left in dir (if not NULL).
 */
static void
refused_before_running(const char *output, const char *dir)
{
	char marker[PATH_MAX], script[PATH_MAX + 16];
	char *argv[] = { profil_bin, "record", "-q", "-o", (char *)output,
	    "/bin/sh", "-c", script, NULL };
	struct run r;

	scratch(marker, "ran");
	unlink(marker);
	snprintf(script, sizeof script, "touch %s", marker);
	run(&r, argv);
	if (r.status != 2 || exists(marker))
		fail_msg("-o %s: exit %d, the program %s: %s", output, r.status,
		    exists(marker) ? "ran" : "did not run", r.err);
	assert_one_line(&r, "record");
	if (dir != NULL)
		assert_int_equal(temporaries(dir), 0);
}

static void
test_record_checks_its_output_first(void **state)
{
	char long_name[PATH_MAX * 2], ro[PATH_MAX], full[PATH_MAX];
	char path[PATH_MAX + 32];
	char name[300];

	(void)state;
	/* where creating a file fails though the directory looks writable */
	refused_before_running("/proc/x.prf", NULL);
	refused_before_running("/proc/self/x.prf", NULL);
	if (exists("/sys/kernel"))
		refused_before_running("/sys/kernel/x.prf", NULL);
	/* a name the file system refuses */
	memset(name, 'n', 290);
	snprintf(name + 290, 10, ".prf");
	snprintf(long_name, sizeof long_name, "%s/%s", tmpdir, name);
	refused_before_running(long_name, tmpdir);
	/* %p may name the file, not a directory (one only known later) */
	scratch(path, "run-%p/x.prf");
	refused_before_running(path, NULL);

	/* a read-only file system, and one with no inode left (as root) */
	scratch(ro, "ro");
	scratch(full, "noinode");
	assert_int_equal(mkdir(ro, 0755), 0);
	assert_int_equal(mkdir(full, 0755), 0);
	if (mount("profil-test", ro, "tmpfs", MS_RDONLY, "size=64k") < 0)
		SKIP("not allowed to mount here (not root, or a container)");
	snprintf(path, sizeof path, "%s/x.prf", ro);
	refused_before_running(path, ro);
	assert_int_equal(umount(ro), 0);

	assert_int_equal(mount("profil-test", full, "tmpfs", 0,
	    "size=1m,nr_inodes=8"), 0);
	for (int i = 0; ; i++) {	/* use up every inode */
		FILE *f;

		snprintf(path, sizeof path, "%s/f%d", full, i);
		if ((f = fopen(path, "w")) == NULL)
			break;
		fclose(f);
		assert_true(i < 100);
	}
	snprintf(path, sizeof path, "%s/x.prf", full);
	refused_before_running(path, full);
	assert_int_equal(umount(full), 0);
}

/*
 * The profile is written to a file with no name while the program runs
 * (created before it, so a failure to create it stops record first;
 * named only to be renamed over the output), the program does not
 * inherit it, and no path leaves a temporary file behind: success, a
 * program not found, the recorder stopped by SIGTERM or a Ctrl-C (the
 * profile is written), a disk that fills while the program runs (as
 * root).  (SIGKILL: test-record.)
 */
static void
test_record_leaves_no_temporary_file(void **state)
{
	char dir[PATH_MAX], prf[PATH_MAX + 16], script[PATH_MAX * 2];
	char *look[] = { profil_bin, "record", "-q", "-o", prf, "/bin/sh", "-c",
	    script, NULL };
	char *missing[] = { profil_bin, "record", "-q", "-o", prf,
	    "/nonexistent/program", NULL };
	char *forever[] = { profil_bin, "record", "-q", "-o", prf, workload,
	    "forever", NULL };
	char *check[] = { profil_bin, "check", prf, NULL };
	struct run r;

	(void)state;
	scratch(dir, "outdir");
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(prf, sizeof prf, "%s/x.prf", dir);

	/*
	 * while the program runs: nothing in the directory, and nothing of
	 * it among the program's fds (an unnamed file shows as "DIR/#INODE
	 * (deleted)" there)
	 */
	snprintf(script, sizeof script, "echo in:; ls -A %s; echo fds:; "
	    "for f in /proc/$$/fd/*; do readlink $f; done", dir);
	run(&r, look);
	assert_int_equal(r.status, 0);
	if (strncmp(r.out, "in:\nfds:\n", 9) != 0)
		fail_msg("a file beside the output while the program runs:\n%s",
		    r.out);
	if (strstr(r.out, dir) != NULL)
		fail_msg("the program holds the output open:\n%s", r.out);
	assert_true(exists(prf));
	assert_int_equal(temporaries(dir), 0);

	unlink(prf);
	run(&r, missing);
	assert_int_equal(r.status, 127);
	assert_int_equal(temporaries(dir), 0);
	assert_false(exists(prf));

	run_full(&r, forever, NULL, SIGTERM, TO_RECORDER, 400);
	assert_int_equal(r.status, 128 + SIGTERM);
	assert_int_equal(temporaries(dir), 0);
	run(&r, check);
	assert_int_equal(r.status, 0);
	unlink(prf);
	run_full(&r, forever, NULL, SIGINT, TO_GROUP, 400);
	assert_int_equal(temporaries(dir), 0);
	run(&r, check);
	assert_int_equal(r.status, 0);

	/* the disk fills while the program runs: an error, nothing left */
	assert_int_equal(unlink(prf), 0);
	if (mount("profil-test", dir, "tmpfs", 0, "size=64k") < 0)
		SKIP("not allowed to mount here (not root, or a container)");
	snprintf(script, sizeof script, "dd if=/dev/zero of=%s/fill bs=4k "
	    "2>/dev/null; exit 0", dir);
	run(&r, look);
	assert_int_equal(r.status, 1);
	assert_one_line(&r, "record");
	assert_non_null(strstr(r.err, "No space left on device"));
	assert_int_equal(temporaries(dir), 0);
	assert_false(exists(prf));
	assert_int_equal(umount(dir), 0);
}

static int
setup(void **state)
{
	/* GNU getopt stops at the first operand under POSIXLY_CORRECT */
	unsetenv("POSIXLY_CORRECT");
	return e2e_setup(state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_after_operands),
		cmocka_unit_test(test_conflicting_views_refused),
		cmocka_unit_test(test_help_describes_every_option),
		cmocka_unit_test(test_usage_and_synopsis_name_every_option),
		cmocka_unit_test(test_man_pages_format_cleanly),
		cmocka_unit_test(test_version_and_ambiguous_prefix),
		cmocka_unit_test(test_pid_status_in_words),
		cmocka_unit_test(test_pid_status_recorded),
		cmocka_unit_test(test_descendants_status),
		cmocka_unit_test(test_merge_refuses_one_file_twice),
		cmocka_unit_test(test_not_a_profile_said_so),
		cmocka_unit_test(test_export_gmon_makes_its_directory),
		cmocka_unit_test(test_record_checks_its_output_first),
		cmocka_unit_test(test_record_leaves_no_temporary_file),
	};
	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
