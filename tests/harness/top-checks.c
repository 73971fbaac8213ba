/*
 * top-checks.c - a terminal for the tests of `profil top`, and its
 * screen read (top-checks.h).  Invariant: every tmux call goes to the
 * server of the test's own socket, never to another's.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "top-checks.h"

static char tmux_bin[PATH_MAX], sock[64];
static int sessions;

int
screen_init(void)
{
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof dirs, "%s", path != NULL ? path :
	    "/usr/bin:/bin");
	for (char *d = strtok(dirs, ":"); d != NULL; d = strtok(NULL, ":")) {
		snprintf(tmux_bin, sizeof tmux_bin, "%s/tmux", d);
		if (access(tmux_bin, X_OK) == 0)
			return 0;
	}
	tmux_bin[0] = '\0';
	return -1;
}

void
screen_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

double
screen_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
screen_tmux(struct run *r, ...)
{
	char *argv[32] = { tmux_bin, "-L", sock, "-f", "/dev/null" };
	size_t n = 5;
	va_list ap;

	va_start(ap, r);
	while (n < 31 && (argv[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	run(r, argv);
}

int
screen_down(void **state)
{
	static struct run r;

	(void)state;
	screen_tmux(&r, "kill-server", NULL);
	return 0;
}

pid_t
screen_spawn(char *const argv[])
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

void
screen_session(int columns, int rows, const char *command)
{
	static char line[10 * PATH_MAX];
	char x[16], y[16];
	char *argv[] = { tmux_bin, "-L", sock, "-f", "/dev/null", "new-session",
	    "-d", "-s", "top", "-x", x, "-y", y, line, NULL };
	pid_t pid;
	int status;

	/*
	 * A server of its own: a server killed (the last test's) may still
	 * hold its socket for a moment, and a session asked of it fails
	 */
	snprintf(sock, sizeof sock, "profil-test-top-%d-%d", (int)getpid(),
	    ++sessions);
	snprintf(x, sizeof x, "%d", columns);
	snprintf(y, sizeof y, "%d", rows);
	snprintf(line, sizeof line, "LANG=C.UTF-8 %s; echo \"EXIT=$? "
	    "$(stty -a | grep -o -- '-*icanon\\|-*echo ' | tr '\\n' ' ')"
	    "(tty)\"; exec sleep 600", command);

	/*
	 * Not run(): the server it starts keeps the client's output open,
	 * and run() would read it to its end, for ever
	 */
	pid = screen_spawn(argv);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("tmux new-session failed (status %d)", status);
}

void
screen_keys(const char *k)
{
	static struct run r;

	screen_tmux(&r, "send-keys", "-t", "top", k, NULL);
	assert_int_equal(r.status, 0);
}

static void
screen_capture(char *text, size_t size)
{
	static struct run r;

	screen_tmux(&r, "capture-pane", "-p", "-t", "top", NULL);
	snprintf(text, size, "%s", r.out);
}

/* One line of a table: "%self ± e %incl ± e self-s samples function". */
static int
parse_row(const char *line, struct row *w)
{
	double secs, samples;

	return sscanf(line, "%lf ± %lf %lf ± %lf %lf %lf %63s", &w->self,
	    &w->self_err, &w->incl, &w->incl_err, &secs, &samples,
	    w->function) == 7;
}

/*
 * text's frame (a screen, or a block from its "profil top:" line on):
 * its header, thread lines and table; what it cannot read left 0.
 */
void
frame_parse(const char *text, struct frame *f)
{
	int table = 0;

	memset(f, 0, sizeof *f);
	for (const char *line = text; line != NULL && *line != '\0';) {
		const char *nl = strchr(line, '\n');
		char buf[1024], *w;
		size_t n = nl != NULL ? (size_t)(nl - line) : strlen(line);
		struct thread_line *t = &f->threads[f->nthreads];

		snprintf(buf, sizeof buf, "%.*s", (int)n, line);
		line = nl != NULL ? nl + 1 : NULL;
		if (!f->header && (w = strstr(buf, "window ")) != NULL &&
		    sscanf(w, "window %lf s: %lf-%lf s, by %15[a-z]", &f->span,
		    &f->s0, &f->s1, f->sort) == 4) {
			/* what happens: "; STATUS" in text, on the right on a
			   screen, or on the next line, "[STATUS]" */
			f->header = 1;
			if (strstr(buf, "(pid ") != NULL)
				sscanf(strstr(buf, "(pid "), "(pid %d)", &f->pid);
			w = strstr(w, f->sort) + strlen(f->sort);
			w += strspn(w, " ;");
			snprintf(f->status, sizeof f->status, "%s", w);
			continue;
		}
		if (f->header && f->nthreads == 0 && !table && buf[0] == '[') {
			sscanf(buf + 1, "%127[^]]", f->status);
			continue;
		}
		if (f->header && !table && f->nthreads < 16 &&
		    sscanf(buf, "%u %31s", &t->tid, t->name) == 2 &&
		    (w = strrchr(buf, '|')) != NULL && w != strchr(buf, '|') &&
		    sscanf(w + 1, " %lf%%", &t->cpu) == 1) {
			snprintf(t->strip, sizeof t->strip, "%.*s",
			    (int)(w - strchr(buf, '|') - 1), strchr(buf, '|') + 1);
			w = strchr(w, '%');
			snprintf(t->rest, sizeof t->rest, "%s", w + 1);
			f->nthreads++;
			continue;
		}
		w = buf + strspn(buf, " ");	/* titles are aligned right */
		if (strncmp(w, "%self", 5) == 0 || strncmp(w, "%wall", 5) == 0)
			table = 1;
		else if (table && f->nrows < 64 &&
		    parse_row(buf, &f->rows[f->nrows]))
			f->nrows++;
	}
}

const struct row *
frame_row(const struct frame *f, const char *function)
{
	for (int i = 0; i < f->nrows; i++)
		if (strcmp(f->rows[i].function, function) == 0)
			return &f->rows[i];
	return NULL;
}

/* The first of a, b, c in f's table (its order), or "". */
const char *
frame_leading(const struct frame *f)
{
	for (int i = 0; i < f->nrows; i++)
		if (strlen(f->rows[i].function) == 1 &&
		    strchr("abc", f->rows[i].function[0]) != NULL)
			return f->rows[i].function;
	return "";
}

/*
 * Capture the screen until done(frame, arg) says so (into f, the text
 * in text), within_s seconds at most: then fail with the screen.
 */
void
screen_wait(struct frame *f, char *text, size_t size,
    int (*done)(const struct frame *, const char *, const void *),
    const void *arg, double within_s, const char *what)
{
	double until = screen_now() + within_s;

	for (;;) {
		screen_capture(text, size);
		frame_parse(text, f);
		if (done(f, text, arg))
			return;
		if (screen_now() > until)
			fail_msg("no screen with %s within %.0f s; the last:\n%s",
			    what, within_s, text);
		screen_sleep_ms(50);
	}
}

int
screen_sorted_by(const struct frame *f, const char *text, const void *arg)
{
	(void)text;
	return f->header && f->nrows > 0 && strcmp(f->sort, arg) == 0;
}

int
screen_window_of(const struct frame *f, const char *text, const void *arg)
{
	(void)text;
	return f->header && fabs(f->span - *(const double *)arg) < 1e-9;
}

int
screen_status_has(const struct frame *f, const char *text, const void *arg)
{
	(void)text;
	return f->header && strstr(f->status, arg) != NULL;
}

int
screen_text_has(const struct frame *f, const char *text, const void *arg)
{
	(void)f;
	return strstr(text, arg) != NULL;
}

