/*
 * cli.h - what the subcommands of `profil` share: the command table entry
 * each cmd-*.c exports with its options' table, one-line error reporting,
 * and allocation that exits on failure (the command's business, never
 * the library's).
 */
#ifndef PROFIL_CLI_H
#define PROFIL_CLI_H

#include <stddef.h>

/*
 * One option of a subcommand, in the one table that describes it: what
 * getopt reads (name, has_arg, val), its lines of --help, and what the
 * shell completes its argument with (complete.c).  A subcommand's table
 * is in the order of its --help and ends with a row of NULLs; a row
 * without a name is a line of --help that is no option's ("Options stop
 * at PROGRAM ...").
 */
struct cli_opt {
	const char *name;	/* the long option, without "--" */
	int has_arg;		/* getopt's no_argument, required_argument or
				   optional_argument */
	int val;		/* what getopt returns for it */
	unsigned flags;		/* CLI_SHORT: -val is its short option too */
	const char *arg;	/* what its argument is, for the shell:
				   CLI_FILE, CLI_DIR, CLI_PID, or the words it
				   takes ("text csv json"); NULL: nothing to
				   offer (a number, a function's name) */
	const char *help;	/* its lines of --help as printed, each ending
				   in "\n"; NULL: another name of an option
				   whose lines name it ("also --colour") */
};
#define CLI_SHORT	1
#define CLI_FILE	"@file"
#define CLI_DIR		"@dir"
#define CLI_PID		"@pid"

/* What a subcommand's operands are (struct cmd's operands): */
#define CLI_PROFILES	"@prf"		/* .prf files */
#define CLI_PROGRAM	"@program"	/* a program and its arguments: the
					   options stop at it */

struct cmd {
	const char *name;
	const char *usage;		/* after "profil NAME " */
	const char *summary;
	int (*exec)(int argc, char **argv);	/* argv[0] is the name */
	/*
	 * Its options' table (struct cli_opt), what getopt reads and --help
	 * prints after the usage line; or NULL, and made_options makes it
	 * when first asked (report's, from the table of its views).  Read
	 * either with cli_options.
	 */
	const struct cli_opt *options;
	const char *operands;		/* CLI_PROFILES or CLI_PROGRAM */
	const struct cli_opt *(*made_options)(void);
};

/* cmd's options' table (struct cmd's options, or what made_options makes). */
const struct cli_opt *cli_options(const struct cmd *cmd);

extern const struct cmd cmd_record, cmd_report, cmd_export, cmd_check;
extern const struct cmd cmd_merge, cmd_diff, cmd_archive, cmd_top;

#define EXIT_USAGE 2

/* "profil: NAME: message" on stderr.  cli_name is the running command. */
extern const char *cli_name;
__attribute__((format(printf, 1, 2))) void cli_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void cli_warn(const char *fmt, ...);
/*
 * Set only where the commands run inside another program (the options
 * fuzz target): cli_die calls it instead of exit (it must not return),
 * and cli_finish_stdout flushes stdout without closing it.
 */
extern void (*cli_exit_hook)(int status);

/* cli_error, then exit(status). */
__attribute__((noreturn, format(printf, 2, 3))) void cli_die(int status,
    const char *fmt, ...);

/*
 * The modules below the commands print nothing: an error is a cause they
 * return, and a warning a line they hand to the caller's cli_warn_fn
 * (NULL: none wanted), as jit_end does.  cli_say formats such a line and
 * hands it over; cli_warn_line is what a command passes to have it said
 * as cli_warn says its own ("profil: NAME: warning: " and the line).
 */
typedef void cli_warn_fn(const char *line);
__attribute__((format(printf, 2, 3))) void cli_say(cli_warn_fn *warn,
    const char *fmt, ...);
void cli_warn_line(const char *line);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/* Parse an unsigned decimal in [min, max]; -1 if it is not one. */
int cli_parse_ulong(const char *s, unsigned long min, unsigned long max,
    unsigned long *out);

/* Parse a percentage from 0 to 100; -1 if it is not one. */
int cli_parse_percent(const char *s, double *out);

/* The argument of --limit (a number of rows), or a usage exit. */
long cli_option_limit(const char *arg);

/*
 * cmd's next option (its table's), as getopt_long returns it; *row (may
 * be NULL) is set to the row of a long option found.  Options come after
 * the operands too, as GNU tools take them ("profil report FILE --limit
 * 1"; a bare "--" ends the options; POSIXLY_CORRECT in the environment
 * stops at the first operand, as it does for them), but for a command
 * whose operands are CLI_PROGRAM, where they stop at the program (record:
 * what follows is the program's).  Set optind = 0 before the first call
 * to start afresh.
 */
int cli_getopt(int argc, char **argv, const struct cmd *cmd, int *row);

/* One line for getopt's '?' or ':' (opterr = 0, optstring "+:..."). */
void cli_bad_option(int c, int optopt_, const char *arg);

/*
 * Long options of which one at most may be given (report's views):
 * *chosen keeps the first, by name as given ("processes" for --processes)
 * and value (NULL when none); a different one exits 2 with one line
 * naming both ("--threads and --objects: one view at a time", WHAT being
 * "view").  The same option with the same value again is harmless.  The
 * strings must outlive *chosen (argv's and the option table's do).
 */
struct cli_choice {
	const char *option, *value;	/* option NULL: none chosen yet */
};
void cli_choose(struct cli_choice *chosen, const char *option,
    const char *value, const char *what);

/*
 * --help: the usage line, the summary and the lines of cmd's options'
 * table on stdout, then a line for any option of the table that no line
 * names, so an option added without its lines still shows, marked
 * "(undocumented)" for the tests to catch.  Returns cli_finish_stdout(0).
 */
int cli_help(const struct cmd *cmd);

/*
 * first, then text, on stdout in lines of at most width columns (0: any)
 * broken at spaces, a [bracketed group] kept whole where it fits; a
 * longer word overflows.  Lines after the first are indented.  CLI_GLUE
 * in text is a space never broken at, printed as one: a figure and its
 * error bar ("91.61%" CLI_GLUE "±" CLI_GLUE "0.88") stay on one line.
 */
void cli_print_wrapped(const char *first, const char *text, int indent,
    int width);
#define CLI_GLUE	"\x1f"

/* Flush and close stdout, exiting with an error if that failed. */
int cli_finish_stdout(int status);

/*
 * qsort's order of struct profil_symbol as the .prf symbols record keeps
 * them: by object, then start (docs/prf-format.md).
 */
int cli_symbol_order(const void *a, const void *b);

#endif
