/*
 * fuzz-options.c - the command line of every subcommand: an input is a
 * command (its first byte picks one) and its arguments (the rest, split
 * at NUL bytes), run in-process in a scratch directory holding two valid
 * profiles, a.prf and b.prf, that the arguments may name.  `record` only
 * parses its options (running programs is not for a fuzzer).  An exit
 * (cli_die) comes back here through cli_exit_hook.
 */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <setjmp.h>
#include <unistd.h>

#include "cli.h"
#include "cmd-record.h"
#include "fuzz.h"

#define MAX_ARGS 24
#define MAX_ARG 256

/* LeakSanitizer's switch, when it is there: an exit abandons allocations. */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

static const struct cmd *const commands[] = {
	&cmd_record, &cmd_report, &cmd_export, &cmd_check, &cmd_merge, &cmd_diff,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static char dir[64];
static int null_fd, stdout_fd;
static jmp_buf back;

static void
come_back(int status)
{
	longjmp(back, status + 1);
}

static void
remove_dir(void)
{
	char cmd[96];

	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: could not remove %s\n", dir);
}

/* Copy a valid profile of the corpus to name in the scratch directory. */
static void
place_profile(const char *from, const char *name)
{
	char to[128], buf[65536];
	int in = open(from, O_RDONLY), out;
	ssize_t n;

	snprintf(to, sizeof to, "%s/%s", dir, name);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		fuzz_fail("cannot copy %s (run from the top of the source tree, "
		    "or set FUZZ_PROFILE)", from);
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			fuzz_fail("cannot write %s", to);
	close(in);
	close(out);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *profile = getenv("FUZZ_PROFILE");
	char from[PATH_MAX];

	(void)argc, (void)argv;
	if (profile == NULL)
		profile = "tests/corpus/prf/ok-rec-split-perf";
	if (realpath(profile, from) == NULL)
		fuzz_fail("%s: no such profile (set FUZZ_PROFILE)", profile);
	/* libFuzzer's -merge runs us again, from the directory we move to */
	setenv("FUZZ_PROFILE", from, 1);
	snprintf(dir, sizeof dir, "/tmp/profil-fuzz-options.XXXXXX");
	if (mkdtemp(dir) == NULL)
		fuzz_fail("cannot make a directory in /tmp");
	atexit(remove_dir);
	place_profile(from, "a.prf");
	place_profile(from, "b.prf");
	if (chdir(dir) < 0)
		fuzz_fail("cannot enter %s", dir);
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	stdout_fd = dup(1);
	if (null_fd < 0 || stdout_fd < 0 || dup2(null_fd, 0) < 0)
		fuzz_fail("cannot open /dev/null");
	cli_exit_hook = come_back;
	return 0;
}

/* One command line; an exit comes back here. */
static void
run(const struct cmd *cmd, int argc, char **argv)
{
	struct record_opts o;
	const char *output;
	pid_t attach;

	if (setjmp(back) != 0)
		return;
	if (cmd == &cmd_record)
		record_parse(argc, argv, &o, &output, &attach);
	else
		cmd->exec(argc, argv);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char args[MAX_ARGS][MAX_ARG + 1];
	char *argv[MAX_ARGS + 2];
	const struct cmd *cmd;
	int argc = 1;
	size_t i = 1;

	if (size == 0)
		return 0;
	cmd = commands[data[0] % NCOMMANDS];
	argv[0] = (char *)cmd->name;
	while (i < size && argc <= MAX_ARGS) {
		size_t len = 0;

		while (i < size && data[i] != '\0' && len < MAX_ARG)
			args[argc - 1][len++] = (char)data[i++];
		args[argc - 1][len] = '\0';
		argv[argc] = args[argc - 1];
		argc++;
		while (i < size && data[i] != '\0')	/* the rest of a long one */
			i++;
		i++;
	}
	argv[argc] = NULL;

	cli_name = cmd->name;
	optind = 0;		/* glibc: start getopt afresh */
	fflush(stdout);
	dup2(null_fd, 1);
	if (__lsan_disable != NULL)
		__lsan_disable();
	run(cmd, argc, argv);
	if (__lsan_enable != NULL)
		__lsan_enable();
	fflush(stdout);
	dup2(stdout_fd, 1);
	/* what a command wrote may stay (the next input may read it), but
	 * the profiles the arguments name keep being valid ones */
	return 0;
}

const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	(void)name, (void)data, (void)size;
	return NULL;	/* the promise is that nothing breaks */
}
