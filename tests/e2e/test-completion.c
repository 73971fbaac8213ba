/*
 * test-completion.c - bash's completion of profil (build/bash-completion/
 * profil, written by `profil --bash-completion`), run in bash as bash
 * runs it (COMP_WORDS split at '=' and ':', COMP_CWORD, _profil, then
 * COMPREPLY read) against what the command itself says: every option
 * each --help lists is completed and nothing else; the fixed values of
 * an option are the ones the command names when it refuses another;
 * profiles for the commands that read them; a program and then its own
 * words after record.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "harness.h"

static char script[PATH_MAX];

#define MAX_WORDS 256

/* Words, one a line of text (copies), into words; their number. */
static int
split_lines(const char *text, char words[][128], int max)
{
	int n = 0;

	for (const char *at = text; *at && n < max; ) {
		size_t len = strcspn(at, "\n");

		if (len > 0)
			snprintf(words[n++], 128, "%.*s", (int)len, at);
		at += len + (at[len] == '\n');
	}
	return n;
}

static int
has_word(char words[][128], int n, const char *w)
{
	for (int i = 0; i < n; i++)
		if (strcmp(words[i], w) == 0)
			return 1;
	return 0;
}

/*
 * What the completion offers for the command line words (the last the
 * one being completed, as bash splits them), run in directory dir;
 * into got, one a word; their number.
 */
static int
complete_in(const char *dir, char *const words[], char got[][128])
{
	static const char body[] =
	    "f=$1; cd \"$2\" || exit 9; shift 2; source \"$f\" || exit 8; "
	    "COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); "
	    "_profil; printf '%s\\n' \"${COMPREPLY[@]}\"";
	char *argv[64] = { "/bin/bash", "--norc", "--noprofile", "-c", (char *)body,
	    "bash", script, (char *)dir };
	struct run r;
	int n = 8;

	for (int i = 0; words[i] != NULL && n < 63; i++)
		argv[n++] = words[i];
	argv[n] = NULL;
	run(&r, argv);
	if (r.status != 0 || r.err[0] != '\0')
		fail_msg("completion of '%s ...' failed (%d): %s", words[0],
		    r.status, r.err);
	return split_lines(r.out, got, MAX_WORDS);
}

static int
complete(char *const words[], char got[][128])
{
	return complete_in(tmpdir, words, got);
}

/* The commands `profil --help` lists ("  record   run a program..."). */
static int
commands(char names[][128])
{
	char *argv[] = { profil_bin, "--help", NULL };
	struct run r;
	const char *at;
	int n = 0;

	run(&r, argv);
	assert_int_equal(r.status, 0);
	at = strstr(r.out, "commands:\n");
	assert_non_null(at);
	for (at = strchr(at, '\n') + 1; strncmp(at, "  ", 2) == 0; ) {
		sscanf(at, " %127s", names[n++]);
		at = strchr(at, '\n') + 1;
	}
	assert_true(n >= 7);
	return n;
}

/*
 * The options a --help lists: each line that introduces one ("  -o,
 * --output FILE  ...", "      --pid, --processes a row ...") gives its
 * names, as opts; with takes[i] set when the name is followed by its
 * value ("--format FORMAT", "-e, --engine ENGINE"), not when the value
 * is only after '=' ("--histogram[=TARGET]").  Their number.
 */
static int
help_options(const char *help, char opts[][128], int *takes, int max)
{
	int n = 0;

	/* past the usage line and its continuations */
	help = strstr(help, "\n\n");
	assert_non_null(help);
	for (const char *line = help; *line && n < max; ) {
		const char *at = line + strspn(line, " ");
		size_t len = strcspn(line, "\n");
		int first = n;

		while (at[0] == '-' && at[1] != ' ' && n < max) {
			size_t w = strspn(at, "-abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
			const char *value = at + w + (at[w] == ' ');
			size_t vlen = strcspn(value, " ,\n");

			snprintf(opts[n], 128, "%.*s", (int)w, at);
			takes[n++] = 0;
			at += w;
			if (strncmp(at, ", -", 3) == 0) {
				at += 2;
				continue;
			}
			/*
			 * a value after the names: "FORMAT", "FILE|DIR", or one
			 * of its values before the column of the text
			 * ("--format pprof   one gzipped ...", not "--processes
			 * a row ..."); then maybe another option's names
			 * ("--time-before START..END, --time-after ...")
			 */
			if (at[0] == ' ' && value[0] != ' ' &&
			    ((value[0] >= 'A' && value[0] <= 'Z') ||
			    strncmp(value + vlen, "  ", 2) == 0 ||
			    strncmp(value + vlen, ", -", 3) == 0))
				for (int i = first; i < n; i++)
					takes[i] = 1;
			if (at[0] != ' ' || strncmp(value + vlen, ", -", 3) != 0)
				break;
			at = value + vlen + 2;
			first = n;
		}
		line += len + (line[len] == '\n');
	}
	return n;
}

static void
help_of(const char *command, struct run *r)
{
	char *argv[] = { profil_bin, (char *)command, "--help", NULL };

	run(r, argv);
	assert_int_equal(r->status, 0);
}

/* option as a word of its own anywhere in text ("also --colour") */
static int
names(const char *text, const char *option)
{
	size_t n = strlen(option);

	for (const char *at = text; (at = strstr(at, option)) != NULL; at++)
		if ((at == text || strchr(" ,[(|'", at[-1]) != NULL) &&
		    strchr(" ,[]=)|'\n", at[n]) != NULL)
			return 1;
	return 0;
}

/* Every option each --help lists is completed, and none it does not list. */
static void
test_every_option_completed(void **state)
{
	char cmds[16][128], opts[MAX_WORDS][128], got[MAX_WORDS][128];
	int takes[MAX_WORDS], ncmds = commands(cmds), total = 0;
	char *top[] = { "profil", "", NULL }, *dash[] = { "profil", "-", NULL };
	struct run r;
	int n;

	(void)state;
	/* the commands, and help */
	n = complete(top, got);
	for (int c = 0; c < ncmds; c++)
		if (!has_word(got, n, cmds[c]))
			fail_msg("profil <TAB> does not offer %s", cmds[c]);
	assert_true(has_word(got, n, "help"));
	assert_int_equal(n, ncmds + 1);
	/* profil's own options: those its --help names */
	{
		char *argv[] = { profil_bin, "--help", NULL };

		run(&r, argv);
		n = complete(dash, got);
		assert_true(n >= 3);
		for (int i = 0; i < n; i++)
			if (!names(r.out, got[i]))
				fail_msg("profil -<TAB> offers %s, which profil --help "
				    "does not name:\n%s", got[i], r.out);
	}
	for (int c = 0; c < ncmds; c++) {
		char *words[] = { "profil", cmds[c], "-", NULL };
		int nopts, ngot;

		help_of(cmds[c], &r);
		nopts = help_options(r.out, opts, takes, MAX_WORDS);
		ngot = complete(words, got);
		assert_true(nopts >= 2);
		for (int i = 0; i < nopts; i++)
			if (!has_word(got, ngot, opts[i]))
				fail_msg("profil %s -<TAB> does not offer %s, which its "
				    "--help lists", cmds[c], opts[i]);
		for (int i = 0; i < ngot; i++)
			if (!names(r.out, got[i]))
				fail_msg("profil %s -<TAB> offers %s, which its --help "
				    "does not name", cmds[c], got[i]);
		/* "--" offers the long ones only */
		words[2] = "--";
		for (int i = 0, k = complete(words, got); i < k; i++)
			assert_true(strncmp(got[i], "--", 2) == 0);
		total += nopts;
	}
	print_message("%d options of %d commands completed\n", total, ncmds);
}

/*
 * The list a refusal names: "... 'zz' (text, csv or json)", "... 'zz' is
 * not auto, always or never": the words after the quoted value, into
 * words; their number.
 */
static int
refusal_list(const char *message, char words[][128], int max)
{
	const char *at = strstr(message, "'zz-no-such'");
	char list[512], *w, *save;
	int n = 0;

	assert_non_null(at);
	snprintf(list, sizeof list, "%s", at + strlen("'zz-no-such'"));
	for (w = strtok_r(list, " ,()\n", &save); w != NULL && n < max;
	    w = strtok_r(NULL, " ,()\n", &save))
		if (strcmp(w, "is") != 0 && strcmp(w, "not") != 0 &&
		    strcmp(w, "or") != 0)
			snprintf(words[n++], 128, "%s", w);
	return n;
}

/*
 * An option's fixed values are what the command takes: for every option
 * whose value the completion offers words for (in an empty directory:
 * not files), the command refuses another value naming exactly those,
 * both as "--format VALUE" and "--format=VALUE".
 */
static void
test_fixed_values_are_the_commands(void **state)
{
	char cmds[16][128], opts[MAX_WORDS][128], got[MAX_WORDS][128];
	char listed[64][128], seen[4096] = " ";
	int takes[MAX_WORDS], ncmds = commands(cmds);
	static const char *const expected[] = {
		" record -e ", " record --engine ", " report --format ",
		" export --format ", " diff --format ", " report --sort ",
		" report --color ",
	};
	const char *empty = tmp("empty");
	struct run r;

	(void)state;
	assert_int_equal(mkdir(empty, 0755), 0);
	for (int c = 0; c < ncmds; c++) {
		int nopts;

		help_of(cmds[c], &r);
		nopts = help_options(r.out, opts, takes, MAX_WORDS);
		for (int i = 0; i < nopts; i++) {
			char *words[] = { "profil", cmds[c], opts[i], "", NULL };
			char *eq[] = { "profil", cmds[c], opts[i], "=", NULL };
			char *bad[] = { profil_bin, cmds[c], opts[i], "zz-no-such",
			    NULL };
			int n, nlisted, number = 1;

			if (!takes[i])
				continue;
			n = complete_in(empty, words, got);
			for (int k = 0; k < n; k++)
				number &= strspn(got[k], "0123456789") == strlen(got[k]);
			if (n == 0 || number)	/* files, directories, pids */
				continue;
			run(&r, bad);
			if (r.status != 2)
				fail_msg("profil %s %s zz-no-such: exit %d, not 2", cmds[c],
				    opts[i], r.status);
			assert_one_line(&r, cmds[c]);
			nlisted = refusal_list(r.err, listed, 64);
			for (int k = 0; k < n; k++)
				if (!has_word(listed, nlisted, got[k]))
					fail_msg("profil %s %s <TAB> offers %s; the command "
					    "takes: %s", cmds[c], opts[i], got[k], r.err);
			for (int k = 0; k < nlisted; k++)
				if (!has_word(got, n, listed[k]))
					fail_msg("profil %s %s <TAB> does not offer %s, which "
					    "the command takes: %s", cmds[c], opts[i],
					    listed[k], r.err);
			if (strncmp(opts[i], "--", 2) == 0)
				assert_int_equal(complete_in(empty, eq, got), n);
			if (strlen(seen) + 160 < sizeof seen)
				snprintf(seen + strlen(seen), 160, "%.60s %.60s ",
				    cmds[c], opts[i]);
		}
	}
	for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
		if (strstr(seen, expected[i]) == NULL)
			fail_msg("no values completed for%s(seen:%s)", expected[i],
			    seen);
}

/* The commands that read profiles are offered .prf files (and folders). */
static void
test_profiles_for_the_readers(void **state)
{
	static const char *const readers[] = {
		"report", "export", "check", "merge", "diff", "archive",
	};
	char got[MAX_WORDS][128], dir[PATH_MAX];
	FILE *f;

	(void)state;
	scratch(dir, "files");
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(tmp("files/sub"), 0755), 0);
	for (int i = 0; i < 3; i++) {
		const char *names[] = { "files/a.prf", "files/b.prf", "files/c.txt" };

		f = fopen(tmp(names[i]), "w");
		assert_non_null(f);
		fclose(f);
	}
	for (size_t c = 0; c < sizeof readers / sizeof readers[0]; c++) {
		char *words[] = { "profil", (char *)readers[c], "", NULL };
		char *after[] = { "profil", (char *)readers[c], "a.prf", "", NULL };
		char *prefix[] = { "profil", (char *)readers[c], "a", NULL };
		int n = complete_in(dir, words, got);

		if (n != 3 || !has_word(got, n, "a.prf") ||
		    !has_word(got, n, "b.prf") || !has_word(got, n, "sub"))
			fail_msg("profil %s <TAB>: %d words, not a.prf b.prf sub",
			    readers[c], n);
		assert_int_equal(complete_in(dir, after, got), 3);
		assert_int_equal(complete_in(dir, prefix, got), 1);
		assert_string_equal(got[0], "a.prf");
	}
	/* an option's file is any file: export -o */
	{
		char *words[] = { "profil", "export", "-o", "", NULL };

		assert_int_equal(complete_in(dir, words, got), 4);
	}
}

/* record: its options, then a program, then the program's own words. */
static void
test_record_program(void **state)
{
	char got[MAX_WORDS][128];
	char *program[] = { "profil", "record", "-o", "x.prf", "-e", "timer",
	    "tru", NULL };
	char *after[] = { "profil", "record", "-q", "true", "--o", NULL };
	char *dashdash[] = { "profil", "record", "--", "tru", NULL };
	char *prefix[] = { "profil", "record", "--out", "x.prf", "tru", NULL };
	char *options[] = { "profil", "record", "-q", "--o", NULL };
	int n;

	(void)state;
	n = complete(program, got);
	assert_true(has_word(got, n, "true"));
	n = complete(dashdash, got);
	assert_true(has_word(got, n, "true"));
	/* --out is --output: x.prf its value, tru the program */
	n = complete(prefix, got);
	assert_true(has_word(got, n, "true"));
	n = complete(options, got);
	assert_true(has_word(got, n, "--output"));
	/* after the program: never record's --output */
	n = complete(after, got);
	assert_false(has_word(got, n, "--output"));
}

/* The installed script is what the command writes now. */
static void
test_script_is_the_commands(void **state)
{
	char *argv[] = { profil_bin, "--bash-completion", NULL };
	char *cmp[] = { "/usr/bin/cmp", "-", script, NULL };
	struct run r, same;

	(void)state;
	run(&r, argv);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	run_full(&same, cmp, r.out, 0, TO_GROUP, 0);
	if (same.status != 0)
		fail_msg("%s is not what profil --bash-completion writes now",
		    script);
}

static int
setup(void **state)
{
	int rc = e2e_setup(state);

	snprintf(script, sizeof script, "%s/../bash-completion/profil", bindir);
	if (access(script, R_OK) != 0)
		fail_msg("%s: not built", script);
	return rc;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_option_completed),
		cmocka_unit_test(test_fixed_values_are_the_commands),
		cmocka_unit_test(test_profiles_for_the_readers),
		cmocka_unit_test(test_record_program),
		cmocka_unit_test(test_script_is_the_commands),
	};
	return cmocka_run_group_tests(tests, setup, e2e_teardown);
}
