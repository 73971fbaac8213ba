/*
 * top-checks.h - what the tests of `profil top` share: a terminal to
 * run it in (tmux, on a server of the test's own), its screen read as
 * top draws it (or a block of top's text in a pipe): the header, the
 * threads' lines, the table of functions; and waiting for a screen
 * that says something, with a deadline.
 */
#ifndef PROFIL_TEST_TOP_CHECKS_H
#define PROFIL_TEST_TOP_CHECKS_H

#include <stddef.h>
#include <sys/types.h>

#include "e2e.h"

/* What a screen (or a block of text) says. */
struct row {
	double self, self_err, incl, incl_err;
	char function[64];
};
struct thread_line {
	unsigned tid;
	char name[32];
	char strip[512];	/* between its bars */
	double cpu;		/* % of the window */
	char rest[128];		/* what it waited in */
};
struct frame {
	int header;		/* the header line was found */
	int pid;		/* what is profiled (its main thread's tid) */
	double span, s0, s1;	/* window asked; its start, end in the run */
	char sort[16], status[128];
	struct thread_line threads[16];
	int nthreads;
	struct row rows[64];
	int nrows;
};

/* Find tmux on PATH: 0, or -1 when there is none. */
int screen_init(void);

/* tmux ARGS... (NULL-ended) on the test's server; its output in r. */
void screen_tmux(struct run *r, ...);

/* The test's tmux server gone, whatever it ran (a cmocka teardown). */
int screen_down(void **state);

/* argv started with /dev/null for its input and output: its pid. */
pid_t screen_spawn(char *const argv[]);

/*
 * A session of columns x rows, on a server of its own (the test's until
 * the next session), running command (a shell's line) and
 * then, once it ends, a line "EXIT=status icanon echo (tty)": its
 * status and the terminal's line settings ("-icanon -echo" were they
 * left raw), the session kept open to read.
 */
void screen_session(int columns, int rows, const char *command);

/* Keys typed in the session (tmux send-keys). */
void screen_keys(const char *keys);

/*
 * text's frame (a screen, or a block from its "profil top:" line on):
 * its header, thread lines and table; what it cannot read left 0.
 */
void frame_parse(const char *text, struct frame *f);

/* f's row of function, or NULL. */
const struct row *frame_row(const struct frame *f, const char *function);

/* The first of a, b, c in f's table (its order), or "". */
const char *frame_leading(const struct frame *f);

/*
 * Capture the screen until done(frame, text, arg) says so (into f, the
 * text in text), within_s seconds at most: then fail with the screen.
 */
typedef int screen_done(const struct frame *f, const char *text,
    const void *arg);
void screen_wait(struct frame *f, char *text, size_t size, screen_done *done,
    const void *arg, double within_s, const char *what);

/* Conditions: sorted by arg ("self"); a window of *(double *)arg s; a
   status with arg in it; arg anywhere on the screen. */
screen_done screen_sorted_by, screen_window_of, screen_status_has,
    screen_text_has;

double screen_now(void);
void screen_sleep_ms(long ms);

#endif
