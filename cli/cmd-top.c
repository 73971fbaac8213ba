/*
 * cmd-top.c - `profil top [options] [--] PROGRAM [ARGS...] | -p PID`: the
 * newest seconds of a recording, shown as they come.  The recording is
 * record's (cmd-record.h), cut into periods of a quarter second whose
 * profiles come here (record/core/periods.h's sink) instead of to files;
 * the window keeps the newest (top/window.h), a frame shows them once a
 * second (top/frame.h), on the whole terminal or as blocks of text in a
 * pipe (top/screen.h).  Keys are read at each period's end, inside the
 * engine's loop (either engine's): the sink returns within a frame's
 * drawing.
 */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <profil.h>

#include "cli.h"
#include "cmd-record.h"
#include "record/core/launch.h"
#include "record/core/periods.h"
#include "record/core/prffile.h"
#include "report/report.h"
#include "top/frame.h"
#include "top/screen.h"
#include "top/strips.h"
#include "top/window.h"

#define TOP_PERIOD_NS	250000000ull	/* a period: keys read at its end */
#define TOP_FRAME_NS	1000000000ull	/* a frame this often */
#define TOP_WINDOW_NS	5000000000ull	/* the window, unless --window */
#define TOP_WINDOW_MAX	60000000000ull	/* its periods all kept: bounded */
#define TOP_LIMIT	10		/* functions a block of text shows */
/* --window's getopt value: none of record's, which top's others are */
#define TOP_WINDOW_KEY	0x100

/* The windows w and W step through (ns). */
static const uint64_t window_steps[] = { 500000000ull, 1000000000ull,
	2000000000ull, 5000000000ull, 10000000000ull, 20000000000ull,
	30000000000ull, TOP_WINDOW_MAX };
#define NSTEPS (sizeof window_steps / sizeof window_steps[0])

struct top {
	struct record_opts o;
	struct record_result r;		/* r.pid: the program, once started */
	struct periods periods;
	struct top_window window;
	struct top_threads threads;	/* the window's periods' threads */
	struct top_screen screen;
	pid_t attach;
	const char *name;		/* what is profiled, its base name */
	int sort;			/* SORT_SAMPLES or SORT_INCLUSIVE */
	int paused;
	int stopping;			/* q: the recording asked to end */
	int utf8, colour;
	long limit;			/* --limit: a block's functions */
	uint64_t next_frame;		/* the run's ns due for one */
	const char *status;		/* the header's last word, or NULL */
	char status_buf[64], hold_buf[80];
};

/* The state the engine's loop hands back to the sink; and atexit's. */
static struct top top;

/* Whether the locale's characters are UTF-8 (the strips' blocks). */
static int
utf8_locale(void)
{
	const char *vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };

	for (size_t i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);

		if (v != NULL && *v != '\0')
			return strcasestr(v, "UTF-8") != NULL ||
			    strcasestr(v, "utf8") != NULL;
	}
	return 0;
}

/* The window's frame, drawn now (a block of text, in a pipe). */
static void
draw(struct top *t)
{
	struct top_frame fr = { .run_start_ns = (int64_t)
	    t->periods.wall_origin.tv_sec * 1000000000 +
	    t->periods.wall_origin.tv_nsec, .span_ns = t->window.span_ns,
	    .sort = t->sort, .status = t->status, .limit = t->limit,
	    .colour = t->colour, .utf8 = t->utf8, .keys = t->screen.keys >= 0 };
	struct profil_profile *m = NULL;
	struct top_strips s;
	char title[PATH_MAX], cause[512], *text = NULL;
	pid_t pid = t->attach != 0 ? t->attach : t->r.pid;
	int64_t start, end;
	FILE *frame, *out = stdout;
	size_t len = 0;

	snprintf(title, sizeof title, "%.32s (pid %d)", t->name, (int)pid);
	fr.title = title;
	if (t->screen.full) {
		top_screen_size(&t->screen, &fr.rows, &fr.columns);
		fr.limit = -1;
	}
	top_window_span(&t->window, &start, &end);
	top_strips_build(&s, &t->threads, start, end,
	    top_frame_strip_columns(&fr));
	if (top_window_merge(&t->window, &m, cause, sizeof cause) < 0)
		fr.status = cause;
	if ((frame = open_memstream(&text, &len)) == NULL)
		cli_die(1, "out of memory");
	/* report's views print on stdout: the frame is made whole first */
	stdout = frame;
	top_frame_print(&fr, m, &s);
	if (!t->screen.full)
		putchar('\n');
	stdout = out;
	fclose(frame);
	/* a pipe no one reads any more (top | head): the end, as q */
	if (top_screen_draw(&t->screen, text, len) < 0 && !t->stopping) {
		t->stopping = 1;
		kill(getpid(), SIGTERM);
	}
	free(text);
	top_strips_free(&s);
	profil_profile_free(m);
}

/* Period q kept in the window, its threads summed up (strips.h). */
static void
keep(struct top *t, struct profil_profile *q)
{
	int64_t start, end;

	top_threads_add(&t->threads, q);
	top_window_push(&t->window, q);
	top_window_span(&t->window, &start, &end);
	top_threads_trim(&t->threads, start);
}

/* q: the recording asked to end; again, a program that would not: killed. */
static void
stop(struct top *t)
{
	if (!t->stopping) {
		t->stopping = 1;
		t->status = "stopping";
		/*
		 * The recorder's own way: the attach loop detaches on it, the
		 * run passes it on to the program (launch.h) and ends with it
		 */
		kill(getpid(), SIGTERM);
	} else if (t->attach == 0 && t->r.pid > 0) {
		t->status = "stopping: SIGKILL sent";
		kill(t->r.pid, SIGKILL);
	}
}

/* The next window of the steps, smaller (dir -1) or larger (+1). */
static uint64_t
step_window(uint64_t now, int dir)
{
	if (dir < 0) {
		for (size_t i = NSTEPS; i-- > 0;)
			if (window_steps[i] < now)
				return window_steps[i];
	} else {
		for (size_t i = 0; i < NSTEPS; i++)
			if (window_steps[i] > now)
				return window_steps[i];
	}
	return now;
}

/* What key does: 1 if the frame should be drawn again now. */
static int
act(struct top *t, int key)
{
	int64_t start, end;

	switch (key) {
	case 'q':
	case 'Q':
	case 3:		/* Ctrl-C, a key in raw mode */
		stop(t);
		return 1;
	case 's':
		t->sort = t->sort == SORT_SAMPLES ? SORT_INCLUSIVE :
		    SORT_SAMPLES;
		return 1;
	case 'w':
	case 'W':
		top_window_resize(&t->window, step_window(t->window.span_ns,
		    key == 'w' ? -1 : 1));
		top_window_span(&t->window, &start, &end);
		top_threads_trim(&t->threads, start);
		return 1;
	case 'p':
		t->paused = !t->paused;
		if (!t->stopping)
			t->status = t->paused ? "paused" : NULL;
		return 1;
	default:
		return 0;
	}
}

/* The keys pressed since the last period: 1 to draw again now. */
static int
keys(struct top *t)
{
	int key, redraw = 0;

	while ((key = top_screen_key(&t->screen)) >= 0)
		redraw |= act(t, key);
	return redraw;
}

/*
 * A period ended (periods.h's sink, inside the engine's loop): kept,
 * the keys read, and a frame drawn once a second unless paused.
 */
static void
top_period(void *arg, struct profil_profile *q)
{
	struct top *t = arg;
	int64_t origin = (int64_t)t->periods.wall_origin.tv_sec * 1000000000 +
	    t->periods.wall_origin.tv_nsec;
	uint64_t at = (uint64_t)(q->start_ns - origin) + q->duration_ns;
	int redraw;

	keep(t, q);
	redraw = keys(t);
	if (at >= t->next_frame) {
		t->next_frame = (at / TOP_FRAME_NS + 1) * TOP_FRAME_NS;
		redraw |= !t->paused;
	}
	if (redraw)
		draw(t);
}

/*
 * Options into t (the recording's as record takes them), the window's
 * length into *span_ns: -1 to go on, else the status to exit with.
 */
static int
top_parse(struct top *t, int argc, char **argv, const char **output,
    uint64_t *span_ns)
{
	int c, rate_given = 0;

	record_defaults(&t->o);
	t->limit = TOP_LIMIT;
	*span_ns = TOP_WINDOW_NS;
	*output = NULL;
	while ((c = cli_getopt(argc, argv, &cmd_top, NULL)) != -1) {
		if (c == 'h')
			return cli_help(&cmd_top);
		if (c == TOP_WINDOW_KEY) {
			if (periods_parse(optarg, span_ns) < 0 ||
			    *span_ns < TOP_PERIOD_NS || *span_ns > TOP_WINDOW_MAX)
				cli_die(EXIT_USAGE, "--window: '%s' is not a "
				    "time from 0.25 s to 60 s (5s, 500ms, 1m)",
				    optarg);
		} else if (c == 'n') {
			t->limit = cli_option_limit(optarg);
		} else if (!record_option(c, &t->o, output, &t->attach,
		    &rate_given)) {
			cli_bad_option(c, optopt, argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	record_settle(&t->o, t->attach, rate_given);
	return -1;
}

/* How the recording ended, for the last frame's header. */
static const char *
ended(struct top *t)
{
	char words[40];

	if (t->stopping)
		return t->attach != 0 ? "detached" : "stopped";
	if (t->attach != 0)
		return launch_alive(t->attach) ? "detached" :
		    "the process ended";
	snprintf(t->status_buf, sizeof t->status_buf, "ended: %s",
	    report_exit_status(t->r.status, words, sizeof words));
	return t->status_buf;
}

/*
 * Whether the last frame stays up until q: on a screen with keys, when
 * what was profiled ended of itself (not stopped by q, or by a signal
 * passed on to it: then the command is ending as asked).
 */
static int
hold(const struct top *t)
{
	int sig = WIFSIGNALED(t->r.status) ? WTERMSIG(t->r.status) : 0;

	if (!t->screen.full || t->screen.keys < 0 || t->stopping)
		return 0;
	if (t->attach != 0)
		return !launch_alive(t->attach);
	return sig != SIGINT && sig != SIGTERM && sig != SIGHUP &&
	    sig != SIGQUIT;
}

/* The last frame, up until q (or a signal) where it should stay. */
static void
last_frame(struct top *t)
{
	int signalled = 0, key;

	t->status = ended(t);
	if (!hold(t)) {
		draw(t);
		return;
	}
	snprintf(t->hold_buf, sizeof t->hold_buf, "%s; q to quit", t->status);
	t->status = t->hold_buf;
	draw(t);
	while ((key = top_screen_wait_key(&t->screen, -1, &signalled)) != 'q' &&
	    key != 'Q' && key != 3 && !signalled)
		if ((key == 's' || key == 'w' || key == 'W') && act(t, key))
			draw(t);
}

/* The window at the end into path (the pending file out): 0 or 1. */
static int
keep_window(struct top *t, struct outfile *out, const char *path)
{
	struct profil_profile *m;
	char cause[PATH_MAX + 256];
	int64_t start, end;
	int64_t origin = (int64_t)t->periods.wall_origin.tv_sec * 1000000000 +
	    t->periods.wall_origin.tv_nsec;

	if (top_window_merge(&t->window, &m, cause, sizeof cause) < 0) {
		cli_error("cannot write the profile: %s", cause);
		prffile_remove_pending();
		return 1;
	}
	if (prffile_commit(out, m, path, cause, sizeof cause) < 0) {
		cli_error("cannot write the profile: %s (any previous file "
		    "there is unchanged)", cause);
		profil_profile_free(m);
		return 1;
	}
	top_window_span(&t->window, &start, &end);
	fprintf(stderr, "profil: top: the last %.2f s of the run (%.2f-%.2f "
	    "s), %llu samples; wrote %s\n", (double)(end - start) / 1e9,
	    (double)(start - origin) / 1e9, (double)(end - origin) / 1e9,
	    (unsigned long long)m->samples, path);
	profil_profile_free(m);
	return 0;
}

static int
top_exec(int argc, char **argv)
{
	struct top *t = &top;
	struct profil_profile *p;
	struct outfile out;
	const char *output, *slash;
	char cause[PATH_MAX + 256], *path = NULL, **cmdline = NULL;
	uint64_t end, span_ns;
	int c, status = 0;

	if ((c = top_parse(t, argc, argv, &output, &span_ns)) >= 0)
		return c;
	if ((c = record_target(argc, argv, &t->o, t->attach, &cmdline)) >= 0)
		return c;
	slash = strrchr(t->o.argv[0], '/');
	t->name = slash != NULL ? slash + 1 : t->o.argv[0];
	launch_hold_signals();	/* before there is a file to leave behind */
	t->o.engine = record_choose_engine(&t->o, t->attach);
	t->periods.every_ns = TOP_PERIOD_NS;
	t->periods.sink = top_period;
	t->periods.sink_arg = t;
	t->o.periods = &t->periods;
	if (output != NULL) {
		path = prffile_path(output, t->o.argv[0], 0);
		if (prffile_open(&out, path, cause, sizeof cause) < 0)
			cli_die(1, "%s", cause);
	}
	t->utf8 = utf8_locale();
	if (top_screen_open(&t->screen, cause, sizeof cause) < 0)
		cli_die(1, "%s", cause);
	t->colour = t->screen.full && getenv("NO_COLOR") == NULL &&
	    getenv("TERM") != NULL && strcmp(getenv("TERM"), "dumb") != 0;
	t->next_frame = TOP_FRAME_NS;
	top_window_init(&t->window, span_ns);
	top_threads_init(&t->threads);
	if ((p = record_run(&t->o, t->attach, &t->r, &end)) == NULL) {
		top_screen_close(&t->screen);
		free(path);
		return 1;
	}
	periods_close(&t->periods, p, end);
	keep(t, p);
	last_frame(t);
	top_screen_close(&t->screen);
	if (path != NULL) {
		free(path);
		path = prffile_path(output, t->o.argv[0], t->attach != 0 ?
		    t->attach : t->r.pid);
		status = keep_window(t, &out, path);
	}
	top_window_free(&t->window);
	top_threads_free(&t->threads);
	free(path);
	free(t->r.unseen);
	if (cmdline != NULL) {
		for (c = 0; cmdline[c] != NULL; c++)
			free(cmdline[c]);
		free(cmdline);
	}
	return cli_finish_stdout(status);
}

static const struct cli_opt top_options[] = {
	{ "pid", required_argument, 'p', CLI_SHORT, CLI_PID,
	    "  -p, --pid PID        attach to a running process until it exits or q\n" },
	{ "wall", no_argument, 'w', 0, NULL,
	    "      --wall           wall-clock time: what the threads wait in too\n" },
	{ "engine", required_argument, 'e', CLI_SHORT, "auto perf timer",
	    "  -e, --engine ENGINE  auto (default: perf when permitted, else timer),\n"
	    "                       perf or timer (-p: perf)\n" },
	{ "freq", required_argument, 'F', CLI_SHORT, NULL,
	    "  -F, --freq HZ        samples per CPU-second (default 1000)\n" },
	{ "window", required_argument, TOP_WINDOW_KEY, 0, NULL,
	    "      --window TIME    the newest TIME shown (default 5s; 250ms to 60s)\n" },
	{ "limit", required_argument, 'n', CLI_SHORT, NULL,
	    "  -n, --limit N        functions a block shows when the output is no\n"
	    "                       terminal (default 10; a screen shows what fits)\n" },
	{ "output", required_argument, 'o', CLI_SHORT, CLI_FILE,
	    "  -o, --output FILE    at the end, the last window as a profile (%p in\n"
	    "                       FILE is the pid)\n" },
	{ "help", no_argument, 'h', CLI_SHORT, NULL,
	    "  -h, --help           this help\n" },
	{ NULL, 0, 0, 0, NULL,
	    "On a terminal: the whole screen, redrawn every second; keys q quit\n"
	    "(stops the program, or detaches), w/W a smaller/larger window, s sort\n"
	    "by self or inclusive time, p pause.  Elsewhere: a block of text every\n"
	    "second.  Options stop at PROGRAM (or at --): what follows is the\n"
	    "program's.\n" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

const struct cmd cmd_top = {
	"top", "[-F HZ] [-e ENGINE] [--wall] [--window TIME] [--limit N] "
	    "[-o FILE] [--] PROGRAM [ARGS...] | -p PID",
	"show the newest seconds of a program's profile as it runs",
	top_exec, top_options, CLI_PROGRAM, NULL,
};
