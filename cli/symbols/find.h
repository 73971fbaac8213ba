/*
 * find.h - where the file of a profiled object is now: at its recorded
 * path, under a --symfs directory (as a copy of the machine it was
 * recorded on), in a debug-file directory by build-id, or fetched by
 * build-id from a debuginfod server (DEBUGINFOD_URLS).  A file counts
 * only if its build-id is the recorded one.
 */
#ifndef PROFIL_SYMBOLS_FIND_H
#define PROFIL_SYMBOLS_FIND_H

#include <profil.h>

/*
 * Where to look besides the recorded path, set once by the command:
 * symfs (NULL: none) is a root the recorded paths are found under, and
 * debug_dirs (colon-separated, NULL: none) hold .build-id/xx/yyyy files.
 */
void find_search_set(const char *symfs, const char *debug_dirs);

/* The --help lines of --symfs and of --debug-dir, for every command naming. */
#define FIND_HELP_SYMFS \
	"      --symfs DIR        find the profiled files under DIR, a copy of the\n" \
	"                         recording machine's root (default: their paths)\n"
#define FIND_HELP_DEBUG_DIR \
	"      --debug-dir DIRS   look for them by build-id in these directories\n" \
	"                         too (DIR/.build-id/xx/rest; colon-separated);\n" \
	"                         DEBUGINFOD_URLS set: from debuginfod as well\n"
/*
 * Their rows in a command's options' table (struct cli_opt, cli.h, with
 * <getopt.h>), which getopt gives as 'S' and 'D'.
 */
#define FIND_OPTIONS \
	{ "symfs", required_argument, 'S', 0, CLI_DIR, FIND_HELP_SYMFS }, \
	{ "debug-dir", required_argument, 'D', 0, CLI_DIR, FIND_HELP_DEBUG_DIR }

/*
 * libdwfl's search path for separate debug files: its default, then the
 * debug directories and the symfs root.  Lives until the next
 * find_search_set.
 */
char **find_debuginfo_path(void);

/*
 * A readable file that is object o (path with its build-id): malloc'd
 * path, or NULL with *problem when none is found ("the file on disk is
 * not the one profiled (build-id differs)", ...).  *debug_only is set
 * when the file found is a separate debug file (names and lines, no
 * code).
 */
char *find_object(const struct profil_object *o, int *debug_only,
    const char **problem);

#endif
