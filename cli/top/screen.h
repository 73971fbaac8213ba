/*
 * screen.h - the terminal `profil top` draws on: when standard output
 * is one, the whole screen (the alternate screen, given back as it was
 * at the end, whatever the way out), keys read one at a time from
 * standard input without waiting when that is a terminal too, and what
 * the profiled program and the command itself would write to the
 * terminal meanwhile set aside and shown after.  Otherwise plain text on
 * standard output, as it comes.
 */
#ifndef PROFIL_TOP_SCREEN_H
#define PROFIL_TOP_SCREEN_H

#include <stddef.h>

struct top_screen {
	int full;		/* standard output is a terminal */
	int out;		/* the terminal drawn on, or -1 */
	int keys;		/* the terminal keys come from, or -1 */
	int entered;		/* the alternate screen is up */
	int aside;		/* what was written to the terminal meanwhile */
	int saved[3];		/* standard input, output, error as they were,
				   or -1 where left alone */
	unsigned char pending[32];	/* keys read, not yet taken */
	size_t npending, next;
};

/*
 * Take the terminal, if standard output is one (s->full): the keys'
 * terminal in raw mode (no echo, no line editing, Ctrl-C a key), the
 * program's standard input /dev/null and its standard output and error
 * (where they are the terminal) a file set aside; a handler that only
 * interrupts a wait for SIGINT, SIGTERM, SIGHUP and SIGQUIT (while the
 * recording runs they are the recorder's, blocked).  Given back at exit
 * too, and on a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, then
 * passed on to what handled them before).  0, or -1 with a cause (the
 * terminal left as it was).
 */
int top_screen_open(struct top_screen *s, char *cause, size_t cause_size);

/*
 * Draw frame (len bytes of lines) over the whole screen, from the top,
 * as many lines as fit and each cut at the screen's edge; the first
 * call brings the alternate screen up.  Plain text, not full: frame
 * written to standard output as it is.  0, or -1 (errno) if it could
 * not be written.
 */
int top_screen_draw(struct top_screen *s, const char *frame, size_t len);

/* The screen's rows and columns (24 x 80 if it cannot say). */
void top_screen_size(const struct top_screen *s, int *rows, int *columns);

/* A key pressed since the last call, without waiting; -1 if none. */
int top_screen_key(struct top_screen *s);

/*
 * Wait for a key (its value) at most ms milliseconds (-1: for ever):
 * -1 when none came or a signal above came (*signalled set then).
 */
int top_screen_wait_key(struct top_screen *s, int ms, int *signalled);

/*
 * Give the terminal back: the screen as it was, the keys' settings, the
 * standard streams; then what was set aside written on it (its last 64
 * KiB, saying how much came before).  Done once; nothing when not full.
 */
void top_screen_close(struct top_screen *s);

#endif
