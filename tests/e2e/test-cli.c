/*
 * test-cli.c - the command line itself, end to end on the real command:
 * options after the operands (never after record's PROGRAM), conflicting
 * views refused; every subcommand's --help describing every option, its
 * usage and synopsis naming them, the man pages formatted cleanly;
 * --version and unambiguous prefixes; merge refusing one file named
 * twice; what is not a profile (a directory, an empty file, a FIFO) said
 * so; export --format gmon making its directory.
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
	"record", "report", "export", "check", "merge", "diff", "top",
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
		{ "top", "-F" }, { "top", "-e" }, { "top", "--window" },
		{ "top", "--limit" },
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
		cmocka_unit_test(test_merge_refuses_one_file_twice),
		cmocka_unit_test(test_not_a_profile_said_so),
		cmocka_unit_test(test_export_gmon_makes_its_directory),
	};
	return cmocka_run_group_tests(tests, e2e_setup, e2e_teardown);
}
