/*
 * complete.c - bash's completion of profil (complete.h): the commands'
 * option tables written as three bash functions that answer what a word
 * is, then one fixed script that reads the command line with them.
 * Invariant: everything the tables say is written as a bare word, so the
 * script needs no quoting of what it is given (checked, or no script).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "complete.h"

/* Whether s is a word the script can hold without quoting. */
static int
plain_word(const char *s)
{
	return *s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@") == strlen(s);
}

/* rows' names ("--output -o ..."), after "\t<case>) REPLY='". */
static int
write_names(FILE *out, const char *label, const struct cli_opt *rows,
    char *cause, size_t cause_size)
{
	const char *sep = "";

	fprintf(out, "\t%s) REPLY='", label);
	for (; rows->name != NULL || rows->help != NULL; rows++) {
		if (rows->name == NULL)
			continue;
		if (!plain_word(rows->name)) {
			snprintf(cause, cause_size, "option '%s': not a plain "
			    "word", rows->name);
			return -1;
		}
		fprintf(out, "%s--%s", sep, rows->name);
		sep = " ";
		if (rows->flags & CLI_SHORT)
			fprintf(out, " -%c", rows->val);
	}
	fprintf(out, "' ;;\n");
	return 0;
}

/*
 * What each option of cmd's takes, as _profil_argument's case lines: the
 * kind (@file, @dir, @pid), the words it takes, @any (a value with
 * nothing to offer), @optional (only after "=": the next word is not
 * its); none for an option that takes nothing.
 */
static int
write_arguments(FILE *out, const char *cmd, const struct cli_opt *rows,
    char *cause, size_t cause_size)
{
	for (; rows->name != NULL || rows->help != NULL; rows++) {
		const char *takes = rows->arg != NULL ? rows->arg : "@any";

		if (rows->name == NULL || rows->has_arg == no_argument)
			continue;
		if (rows->has_arg == optional_argument)
			takes = "@optional";
		for (const char *w = takes; *w != '\0'; w += strcspn(w, " "),
		    w += strspn(w, " ")) {
			char word[128];

			snprintf(word, sizeof word, "%.*s", (int)strcspn(w, " "), w);
			if (!plain_word(word)) {
				snprintf(cause, cause_size, "%s --%s: '%s' is not "
				    "a plain word", cmd, rows->name, word);
				return -1;
			}
		}
		fprintf(out, "\t'%s --%s'", cmd, rows->name);
		if (rows->flags & CLI_SHORT)
			fprintf(out, "|'%s -%c'", cmd, rows->val);
		fprintf(out, ") REPLY='%s' ;;\n", takes);
	}
	return 0;
}

/*
 * The script's logic: it asks the tables above what a word is, never
 * names an option itself.  Plain bash: bash-completion's _command_offset
 * completes record's PROGRAM and its arguments where it is loaded, the
 * program's names otherwise.
 */
static const char script[] =
"# _profil_command WORD: the command WORD names (an unambiguous prefix\n"
"# is enough, as for profil itself), in REPLY; 1 if none\n"
"_profil_command() {\n"
"\tlocal c found=\n"
"\tfor c in $_profil_commands; do\n"
"\t\t[[ $c == \"$1\" ]] && { REPLY=$c; return 0; }\n"
"\t\t[[ $c == \"$1\"* ]] || continue\n"
"\t\t[[ -n $found ]] && return 1\n"
"\t\tfound=$c\n"
"\tdone\n"
"\tREPLY=$found\n"
"\t[[ -n $found ]]\n"
"}\n"
"\n"
"# _profil_takes COMMAND WORD: what option WORD takes, as _profil_argument\n"
"# says; WORD may be a prefix of long ones that take the same (--form)\n"
"_profil_takes() {\n"
"\tlocal o kind=\n"
"\t_profil_argument \"$1 $2\"\n"
"\t[[ $REPLY != @none || $2 != --?* ]] && return\n"
"\t_profil_options $1\n"
"\tfor o in $REPLY; do\n"
"\t\t[[ $o == \"$2\"* ]] || continue\n"
"\t\t_profil_argument \"$1 $o\"\n"
"\t\t[[ -n $kind && $REPLY != \"$kind\" ]] && { REPLY=@none; return; }\n"
"\t\tkind=$REPLY\n"
"\tdone\n"
"\tREPLY=${kind:-@none}\n"
"}\n"
"\n"
"_profil_words() {\t# WORDS...: those that begin as the word does\n"
"\tCOMPREPLY+=($(compgen -W \"$*\" -- \"$cur\"))\n"
"}\n"
"\n"
"_profil_files() {\t# COMPGEN-ARGS...: file names, one a line\n"
"\tlocal IFS=$'\\n'\n"
"\tcompopt -o filenames 2>/dev/null\n"
"\tCOMPREPLY+=($(compgen \"$@\" -- \"$cur\"))\n"
"}\n"
"\n"
"_profil_value() {\t# KIND: the completion of a value of that kind\n"
"\tcase $1 in\n"
"\t@file) _profil_files -f ;;\n"
"\t@dir) _profil_files -d ;;\n"
"\t@prf) _profil_files -f -X '!*.prf'; _profil_files -d ;;\n"
"\t@pid) _profil_words $(cd /proc 2>/dev/null && echo [0-9]*) ;;\n"
"\t@any | @optional | @none) ;;\n"
"\t*) _profil_words $1 ;;\n"
"\tesac\n"
"}\n"
"\n"
"_profil() {\n"
"\tlocal cur=${COMP_WORDS[COMP_CWORD]} cmd w i takes= program= ends=\n"
"\tlocal REPLY\n"
"\tCOMPREPLY=()\n"
"\tif ((COMP_CWORD == 1)); then\n"
"\t\tif [[ $cur == -* ]]; then\n"
"\t\t\t_profil_options ''\n"
"\t\t\t_profil_words $REPLY\n"
"\t\telse\n"
"\t\t\t_profil_words $_profil_commands help\n"
"\t\tfi\n"
"\t\treturn 0\n"
"\tfi\n"
"\tif [[ ${COMP_WORDS[1]} == help ]]; then\n"
"\t\t((COMP_CWORD == 2)) && _profil_words $_profil_commands\n"
"\t\treturn 0\n"
"\tfi\n"
"\t_profil_command \"${COMP_WORDS[1]}\" || return 0\n"
"\tcmd=$REPLY\n"
"\t_profil_operands $cmd\n"
"\tlocal operands=$REPLY\n"
"\t# the words before this one: which is an option's value, where\n"
"\t# the options end (record: at its PROGRAM, or after --)\n"
"\tfor ((i = 2; i < COMP_CWORD; i++)); do\n"
"\t\tw=${COMP_WORDS[i]}\n"
"\t\tif [[ -n $takes ]]; then\n"
"\t\t\ttakes=\n"
"\t\telif [[ $w == [=:] ]]; then\n"
"\t\t\t((i++))\t# --format=json, /a:/b: bash split them\n"
"\t\telif [[ -z $ends && $w == -- ]]; then\n"
"\t\t\tends=$i\n"
"\t\telif [[ -z $ends && $w == -?* ]]; then\n"
"\t\t\t_profil_takes $cmd \"$w\"\n"
"\t\t\tcase $REPLY in @none | @optional) ;; *) takes=$REPLY ;; esac\n"
"\t\t\t[[ ${COMP_WORDS[i + 1]} == = ]] && takes=\n"
"\t\telif [[ $operands == @program ]]; then\n"
"\t\t\tprogram=$i\n"
"\t\t\tbreak\n"
"\t\tfi\n"
"\tdone\n"
"\tif [[ -z $program && -n $ends && $operands == @program ]] &&\n"
"\t    ((ends + 1 <= COMP_CWORD)); then\n"
"\t\tprogram=$((ends + 1))\n"
"\tfi\n"
"\tif [[ -n $program ]]; then\t# the program's words: its own completion\n"
"\t\tif declare -F _command_offset >/dev/null; then\n"
"\t\t\t_command_offset $program\n"
"\t\telif ((program == COMP_CWORD)); then\n"
"\t\t\t_profil_files -c\n"
"\t\telse\n"
"\t\t\t_profil_files -f\n"
"\t\tfi\n"
"\t\treturn 0\n"
"\tfi\n"
"\t# the value of an option given with it (--format=json) or the next of\n"
"\t# a list (--debug-dir /a:/b): bash split them at = and :, and cur may\n"
"\t# be one of those; i is where the value's first word is\n"
"\ti=$COMP_CWORD\n"
"\t[[ $cur == [=:] ]] && { cur=; ((i++)); }\n"
"\tif [[ ${COMP_WORDS[i - 1]} == [=:] ]]; then\n"
"\t\twhile ((i > 4)) && [[ ${COMP_WORDS[i - 1]} == : ]]; do ((i -= 2)); done\n"
"\t\tw=${COMP_WORDS[i - 1]}\n"
"\t\t[[ $w == = ]] && w=${COMP_WORDS[i - 2]}\n"
"\t\t_profil_takes $cmd \"$w\"\n"
"\t\t_profil_value \"$REPLY\"\n"
"\t\treturn 0\n"
"\tfi\n"
"\tif [[ -n $takes ]]; then\n"
"\t\t_profil_value \"$takes\"\n"
"\telif [[ -z $ends && $cur == -* ]]; then\n"
"\t\t_profil_options $cmd\n"
"\t\t_profil_words $REPLY\n"
"\telif [[ $operands == @program ]]; then\n"
"\t\tif declare -F _command_offset >/dev/null; then\n"
"\t\t\t_command_offset $COMP_CWORD\n"
"\t\telse\n"
"\t\t\t_profil_files -c\n"
"\t\tfi\n"
"\telse\n"
"\t\t_profil_value \"$operands\"\n"
"\tfi\n"
"\treturn 0\n"
"}\n"
"complete -F _profil profil\n";

int
complete_bash(FILE *out, const struct cmd *const *cmds, size_t n,
    const struct cli_opt *top, char *cause, size_t cause_size)
{
	fprintf(out, "# bash completion for profil(1), written by `profil "
	    "--bash-completion` from the\n# tables its --help is printed "
	    "from: regenerate it, do not edit it.\n\n");
	fprintf(out, "_profil_commands='");
	for (size_t i = 0; i < n; i++) {
		if (!plain_word(cmds[i]->name)) {
			snprintf(cause, cause_size, "command '%s': not a plain "
			    "word", cmds[i]->name);
			return -1;
		}
		fprintf(out, "%s%s", i ? " " : "", cmds[i]->name);
	}
	fprintf(out, "'\n\n# _profil_options COMMAND: its options, in REPLY "
	    "('': profil's own)\n_profil_options() {\n\tcase $1 in\n");
	if (write_names(out, "''", top, cause, cause_size) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (write_names(out, cmds[i]->name, cli_options(cmds[i]), cause,
		    cause_size) < 0)
			return -1;
	fprintf(out, "\t*) REPLY= ;;\n\tesac\n}\n\n"
	    "# _profil_argument 'COMMAND OPTION': what OPTION's value is, in "
	    "REPLY: @file,\n# @dir, @pid, the words it takes, @any (nothing "
	    "to offer), @optional (only\n# after '=', as --histogram=TARGET), "
	    "@none (it takes none)\n_profil_argument() {\n\tcase $1 in\n");
	for (size_t i = 0; i < n; i++)
		if (write_arguments(out, cmds[i]->name, cli_options(cmds[i]),
		    cause, cause_size) < 0)
			return -1;
	fprintf(out, "\t*) REPLY=@none ;;\n\tesac\n}\n\n"
	    "# _profil_operands COMMAND: what its operands are, in REPLY: "
	    "@prf (.prf files)\n# or @program (a program and its arguments)\n"
	    "_profil_operands() {\n\tcase $1 in\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "\t%s) REPLY=%s ;;\n", cmds[i]->name,
		    cmds[i]->operands);
	fprintf(out, "\tesac\n}\n\n%s", script);
	return 0;
}
