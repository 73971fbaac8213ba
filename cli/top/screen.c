/*
 * screen.c - top's terminal (screen.h).  Invariant: once
 * top_screen_open took the terminal, it is given back exactly once,
 * by top_screen_close, at exit or on a crash, whichever comes first:
 * the keys' settings, the screen and the standard streams as they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "screen.h"

/* The last of what was set aside shown after. */
#define ASIDE_SHOWN	65536

static struct top_screen *taken;	/* open, to give back at exit */
static struct termios keys_were;
static int keys_raw;			/* keys_were to set back */
static volatile sig_atomic_t signalled;

static void
on_stop(int sig)
{
	(void)sig;
	signalled = 1;
}

/* A write to a pipe no one reads fails (EPIPE), not the command. */
static void
on_pipe(int sig)
{
	(void)sig;
}

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void
at_exit(void)
{
	if (taken != NULL)
		top_screen_close(taken);
}

/*
 * The screen as it was, the keys' settings and the standard streams:
 * what a crash must give back too, so async-signal-safe (write,
 * tcsetattr, dup2; no stdio, no malloc).
 */
static void
give_back(struct top_screen *s)
{
	static const char leave[] = "\033[?7h\033[?25h\033[?1049l";

	if (s->entered && s->out >= 0 &&
	    write(s->out, leave, sizeof leave - 1) < 0) {
		/* a terminal gone: nothing more to give back there */
	}
	s->entered = 0;
	if (keys_raw && s->keys >= 0)
		tcsetattr(s->keys, TCSANOW, &keys_were);
	keys_raw = 0;
	for (int fd = 0; fd <= 2; fd++)
		if (s->saved[fd] >= 0)
			dup2(s->saved[fd], fd);
}

/* The signals of a crash, and what handled them before us. */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
	SIGABRT };
#define NCRASH (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction before_crash[NCRASH];

/*
 * A crash: the terminal given back, then the signal to whoever handled
 * it before (a sanitizer's report, or the default: death).  A fault
 * recurs on return, a sent signal is sent again.
 */
static void
on_crash(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (taken != NULL)
		give_back(taken);
	taken = NULL;
	for (size_t i = 0; i < NCRASH; i++)
		if (crash_signals[i] == sig)
			sigaction(sig, &before_crash[i], NULL);
	if (info->si_code <= 0)
		raise(sig);
}

/*
 * Handlers, not SIG_IGN: a program started after keeps its default
 * dispositions (exec resets handlers, not what is ignored).
 */
static void
handle_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = on_pipe;
	sigaction(SIGPIPE, &sa, NULL);
}

/* On a crash, the terminal given back first (on_crash). */
static void
handle_crashes(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO;
	for (size_t i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &sa, &before_crash[i]);
}

/* A file for what is written meanwhile: unnamed, in TMPDIR or memory. */
static int
aside_file(void)
{
	const char *dir = getenv("TMPDIR");
	int fd = open(dir != NULL && *dir ? dir : "/tmp",
	    O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	return fd >= 0 ? fd : memfd_create("profil-top", MFD_CLOEXEC);
}

/* fd (a terminal) kept in s->saved[fd] and replaced by to. */
static int
set_aside(struct top_screen *s, int fd, int to)
{
	s->saved[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return s->saved[fd] < 0 || dup2(to, fd) < 0 ? -1 : 0;
}

/* The keys' terminal: no echo, no line editing, no signals from keys. */
static int
raw_keys(struct top_screen *s)
{
	struct termios raw;

	s->keys = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (s->keys < 0 || tcgetattr(s->keys, &keys_were) < 0)
		return -1;
	raw = keys_were;
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	raw.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	keys_raw = 1;
	return tcsetattr(s->keys, TCSANOW, &raw);
}

int
top_screen_open(struct top_screen *s, char *cause, size_t cause_size)
{
	static int registered;
	int null;

	memset(s, 0, sizeof *s);
	s->out = s->keys = s->aside = -1;
	s->saved[0] = s->saved[1] = s->saved[2] = -1;
	handle_signals();
	if (!isatty(STDOUT_FILENO))
		return 0;
	s->full = 1;
	fflush(stdout);
	fflush(stderr);
	s->out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	s->aside = aside_file();
	if (s->out < 0 || s->aside < 0)
		goto fail;
	taken = s;
	if (!registered && atexit(at_exit) == 0)
		registered = 1;
	handle_crashes();
	if (isatty(STDIN_FILENO)) {
		if (raw_keys(s) < 0)
			goto fail;
		if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
			goto fail;
		if (set_aside(s, STDIN_FILENO, null) < 0) {
			close(null);
			goto fail;
		}
		close(null);
	}
	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
		if (isatty(fd) && set_aside(s, fd, s->aside) < 0)
			goto fail;
	return 0;
fail:
	snprintf(cause, cause_size, "cannot take the terminal: %s",
	    strerror(errno));
	top_screen_close(s);
	return -1;
}

void
top_screen_size(const struct top_screen *s, int *rows, int *columns)
{
	struct winsize ws;

	*rows = 24;
	*columns = 80;
	if (s->out >= 0 && ioctl(s->out, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_row > 0 && ws.ws_col > 0) {
		*rows = ws.ws_row;
		*columns = ws.ws_col;
	}
}

/*
 * One line of text (n bytes) to at most columns columns on the screen:
 * escapes ("\033[...m") and UTF-8 continuation bytes take none.
 */
static size_t
cut_line(const char *line, size_t n, int columns, char *out)
{
	size_t k = 0;
	int used = 0, escaped = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c == 0x1b && i + 1 < n && line[i + 1] == '[') {
			size_t end = i + 2;

			while (end < n && !((unsigned char)line[end] >= 0x40 &&
			    (unsigned char)line[end] <= 0x7e))
				end++;
			end = end < n ? end + 1 : n;
			memcpy(out + k, line + i, end - i);
			k += end - i;
			i = end - 1;
			escaped = 1;
			continue;
		}
		if ((c & 0xc0) != 0x80 && used++ >= columns)
			continue;
		if ((c & 0xc0) == 0x80 && used > columns)
			continue;
		out[k++] = (char)c;
	}
	if (escaped) {
		memcpy(out + k, "\033[m", 3);
		k += 3;
	}
	return k;
}

int
top_screen_draw(struct top_screen *s, const char *frame, size_t len)
{
	static const char enter[] = "\033[?1049h\033[?25l\033[?7l";
	int rows, columns, row = 0, rc;
	char *buf, *at;
	size_t size = len * 2 + 64 + sizeof enter;

	if (!s->full) {
		if (fwrite(frame, 1, len, stdout) != len || fflush(stdout) != 0)
			return -1;
		return 0;
	}
	top_screen_size(s, &rows, &columns);
	buf = at = xmalloc(size + (size_t)rows * 8);
	if (!s->entered)
		at += sprintf(at, "%s", enter);
	at += sprintf(at, "\033[H");
	for (const char *line = frame, *end = frame + len; line < end &&
	    row < rows; row++) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = (size_t)((nl != NULL ? nl : end) - line);

		/*
		 * The row cleared first: cleared after, a line as wide as the
		 * screen would lose its last character, where the cursor
		 * stays.  No newline on the last row: it would scroll.
		 */
		at += sprintf(at, "\033[K");
		at += cut_line(line, n, columns, at);
		if (row + 1 < rows)
			at += sprintf(at, "\r\n");
		line += n + 1;
	}
	at += sprintf(at, "\033[J");
	rc = write_all(s->out, buf, (size_t)(at - buf));
	free(buf);
	s->entered = 1;
	return rc;
}

int
top_screen_key(struct top_screen *s)
{
	struct pollfd pfd = { s->keys, POLLIN, 0 };
	ssize_t n;

	if (s->next == s->npending) {
		s->next = s->npending = 0;
		if (s->keys < 0 || poll(&pfd, 1, 0) != 1 ||
		    (n = read(s->keys, s->pending, sizeof s->pending)) <= 0)
			return -1;
		s->npending = (size_t)n;
	}
	/* an escape (an arrow, a function key): not ours, all of it */
	if (s->pending[s->next] == 0x1b) {
		s->next = s->npending;
		return -1;
	}
	return s->pending[s->next++];
}

int
top_screen_wait_key(struct top_screen *s, int ms, int *signalled_)
{
	struct pollfd pfd = { s->keys, POLLIN, 0 };
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	sigset_t mask;
	int key;

	*signalled_ = 0;
	if ((key = top_screen_key(s)) >= 0 || s->keys < 0)
		return key;
	/* the stopping signals let in while waiting, and only then */
	sigprocmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGHUP);
	sigdelset(&mask, SIGQUIT);
	if (!signalled)
		ppoll(&pfd, 1, ms < 0 ? NULL : &ts, &mask);
	if (signalled) {
		*signalled_ = 1;
		return -1;
	}
	return top_screen_key(s);
}

/* The last ASIDE_SHOWN bytes of what was set aside, on fd. */
static void
show_aside(int aside, int fd)
{
	char buf[8192], note[160];
	off_t size = lseek(aside, 0, SEEK_END), from = 0;
	ssize_t n;

	if (size <= 0)
		return;
	if (size > ASIDE_SHOWN) {
		from = size - ASIDE_SHOWN;
		snprintf(note, sizeof note, "profil: top: %lld bytes of output "
		    "before these not shown\n", (long long)from);
		write_all(fd, note, strlen(note));
	}
	if (lseek(aside, from, SEEK_SET) < 0)
		return;
	while ((n = read(aside, buf, sizeof buf)) > 0)
		if (write_all(fd, buf, (size_t)n) < 0)
			return;
}

void
top_screen_close(struct top_screen *s)
{
	if (!s->full)
		return;
	s->full = 0;
	taken = NULL;
	fflush(stdout);		/* what is buffered: set aside too */
	fflush(stderr);
	give_back(s);
	if (s->keys >= 0)
		close(s->keys);
	s->keys = -1;
	for (int fd = 0; fd <= 2; fd++)
		if (s->saved[fd] >= 0)
			close(s->saved[fd]);
	if (s->aside >= 0) {
		show_aside(s->aside, STDOUT_FILENO);
		close(s->aside);
		s->aside = -1;
	}
	if (s->out >= 0)
		close(s->out);
	s->out = -1;
}
