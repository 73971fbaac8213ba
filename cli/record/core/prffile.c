/*
 * prffile.c - the .prf file `profil record` writes (prffile.h); the
 * writing is cli/outfile.c's, as for every file the command writes.  The
 * temporary file is made before the program runs and stays until the
 * profile is in place: any exit before that removes it (atexit), but only
 * the recorder's own, never a forked child's.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "codec/prf.h"
#include "prffile.h"

char *
prffile_path(const char *tmpl, const char *program, pid_t pid)
{
	char name[PATH_MAX], out[PATH_MAX], cwd[PATH_MAX];
	const char *slash = strrchr(program, '/');
	size_t n = 0;

	if (tmpl == NULL) {
		snprintf(name, sizeof name, "%s.prf", slash ? slash + 1 : program);
		tmpl = name;
	}
	for (const char *s = tmpl; *s && n < sizeof out - 24; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			n += (size_t)snprintf(out + n, sizeof out - n, "%d", (int)pid);
			s++;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	if (out[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return xstrdup(out);
	char *abs = xmalloc(strlen(cwd) + strlen(out) + 2);
	sprintf(abs, "%s/%s", cwd, out);
	return abs;
}

/*
 * The directory the profile goes to must exist and be writable now.  0,
 * or -1 with a cause.
 */
static int
check_output_dir(const char *path, char *cause, size_t cause_size)
{
	char *copy = xstrdup(path);
	const char *dir = dirname(copy);
	struct stat st;
	int ok;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(cause, cause_size, "%s: no such directory", dir);
		ok = -1;
	} else if (access(dir, W_OK) < 0) {
		snprintf(cause, cause_size, "%s: cannot write there: %s", dir,
		    strerror(errno));
		ok = -1;
	} else {
		ok = 0;
	}
	free(copy);
	return ok;
}

/*
 * The temporary file the profile will be written to, open from before the
 * program runs until the profile is in place; removed by any exit before
 * that (cli_die deep in an engine included).  Only by the recorder: a
 * forked child that calls exit() must not take it away.
 */
static struct outfile *pending;
static pid_t pending_owner;

void
prffile_remove_pending(void)
{
	if (pending != NULL && getpid() == pending_owner)
		outfile_abort(pending, NULL);
	pending = NULL;
}

int
prffile_open(struct outfile *out, const char *path, char *cause,
    size_t cause_size)
{
	static int registered;

	if (check_output_dir(path, cause, cause_size) < 0)
		return -1;
	if (outfile_open(out, path, PRF_MAGIC, cause, cause_size) < 0)
		return -1;
	if (!registered && atexit(prffile_remove_pending) == 0)
		registered = 1;
	pending = out;
	pending_owner = getpid();
	return 0;
}

void
prffile_header(struct profil_profile *p, const struct record_opts *o,
    const struct record_result *r, const struct timespec *start)
{
	p->interval_ns = o->period_ns;
	p->engine = xstrdup(o->engine->name);
	for (p->argc = 0; o->argv[p->argc] != NULL; p->argc++)
		;
	p->argv = xcalloc((size_t)p->argc + 1, sizeof *p->argv);
	for (int c = 0; c < p->argc; c++)
		p->argv[c] = xstrdup(o->argv[c]);
	p->start_ns = (int64_t)start->tv_sec * 1000000000 + start->tv_nsec;
	p->duration_ns = r->wall_ns;
	p->cpu_ns = r->cpu_ns;
	p->taken = r->taken;
	p->weight_sq = r->weight_sq;
	/*
	 * Every sample weighs 1 or more, so its square adds at least as much
	 * as it: but the timer engine's handler adds the two in turn, and a
	 * program killed or crashing between them (test-adversary's stack
	 * overflow) left one short, and a profile its reader refused.
	 */
	if (p->taken > 0 || p->weight_sq > 0) {
		if (p->weight_sq < p->taken)
			p->weight_sq = p->taken;
		if (p->weight_sq < p->samples)
			p->weight_sq = p->samples;
	}
	p->budget = o->samples;
	p->refused = r->refused;
	p->slowest_ns = r->slowest_ns;
}

int
prffile_commit(struct outfile *out, const struct profil_profile *p,
    const char *path, char *cause, size_t cause_size)
{
	void *data = NULL;
	size_t size;
	int rc;

	pending = NULL;
	if (outfile_may_replace(path, PRF_MAGIC, cause, cause_size) < 0) {
		outfile_abort(out, NULL);
		return -1;
	}
	out->path = path;
	if (profil_profile_encode(p, &data, &size) < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(out, NULL);
		return -1;
	}
	rc = outfile_write(out, data, size, cause, cause_size);
	free(data);
	if (rc < 0) {
		outfile_abort(out, NULL);
		return -1;
	}
	return outfile_commit(out, NULL, cause, cause_size);
}
