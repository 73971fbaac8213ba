/*
 * e2e.c - what the end-to-end tests share: running the real `profil`
 * command and the test workloads (tests/programs/workload.c) in a scratch
 * directory, and reading the flat profile back as CSV.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <profil.h>

#include "e2e.h"
#include "harness.h"

char bindir[PATH_MAX - 64], profil_bin[PATH_MAX], workload[PATH_MAX];
char workload_static[PATH_MAX], cxx_workload[PATH_MAX];
char tmpdir[] = "/tmp/profil-e2e-XXXXXX";
int e2e_flat_when_sanitized;
const char *e2e_rate_when_sanitized = "5000";

static void
drain_into(int fd, char *buf, size_t size)
{
	size_t n = 0, over = 0;
	ssize_t got;
	char rest[4096];

	while ((got = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)got;
	buf[n] = '\0';
	/*
	 * Full: read the rest all the same, or the program blocks on a full
	 * pipe and the test with it; then say so, as a test reading part of
	 * an output would tell wrong.
	 */
	while ((got = read(fd, rest, sizeof rest)) > 0)
		over += (size_t)got;
	if (over > 0)
		fail_msg("an output of %zu bytes, over the %zu a test reads",
		    n + over, size - 1);
}

/* Read what fd has now into buf (used bytes *n of size); 0 at EOF. */
static int
read_some(int fd, char *buf, size_t size, size_t *n)
{
	ssize_t got = read(fd, buf + *n, size - 1 - *n);

	if (got > 0) {
		*n += (size_t)got;
		buf[*n] = '\0';
	}
	return got != 0 && *n < size - 1;
}

/*
 * Start argv (NULL-terminated) with stdin from input, in its own process
 * group; its pid, and its stdout and stderr read ends in *out, *err.
 */
static pid_t
start(char *const argv[], const char *input, int *out_fd, int *err_fd)
{
	int in[2], out[2], err[2];
	pid_t pid;

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/*
		 * Its own group, as a shell's foreground job, and the
		 * signals a terminal sends at their defaults even if we were
		 * started in the background (which ignores SIGINT, SIGQUIT).
		 */
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(in[1]);
		close(out[0]);
		close(err[0]);
		execv(argv[0], argv);
		_exit(99);
	}
	setpgid(pid, pid);	/* before any kill(-pid): the child may not have run */
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (input != NULL && write(in[1], input, strlen(input)) < 0)
		fail_msg("write stdin: %s", strerror(errno));
	close(in[1]);
	*out_fd = out[0];
	*err_fd = err[0];
	return pid;
}

/* Read the rest of pid's output into r, and wait for it. */
static void
finish(struct run *r, pid_t pid, int out, int err)
{
	int status;

	drain_into(out, r->out, sizeof r->out);
	drain_into(err, r->err, sizeof r->err);
	close(out);
	close(err);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Run argv (NULL-terminated) with stdin from input, in its own process
 * group if pgrp; kill_after_ms > 0 sends sig to the group (or the
 * recorder, or its child) then.  Waits at most 120 s.
 */
void
run_full(struct run *r, char *const argv[], const char *input, int sig,
    int whom, unsigned kill_after_ms)
{
	int out, err;
	pid_t pid;

	memset(r, 0, sizeof *r);
	pid = start(argv, input, &out, &err);
	if (kill_after_ms > 0) {
		struct timespec ts = { kill_after_ms / 1000,
		    (long)(kill_after_ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
		if (whom == TO_GROUP) {
			kill(-pid, sig);
		} else if (whom == TO_RECORDER) {
			kill(pid, sig);
		} else {
			char cmd[64];
			FILE *f;
			int child = 0;

			/*
			 * a sanitized recorder on a loaded machine may not
			 * have started the program yet: wait for it (10 s)
			 */
			snprintf(cmd, sizeof cmd, "pgrep -P %d", (int)pid);
			for (int tries = 0; child == 0 && tries < 100; tries++) {
				struct timespec tenth = { 0, 100000000 };

				if (tries > 0)
					nanosleep(&tenth, NULL);
				f = popen(cmd, "r");
				assert_non_null(f);
				if (fscanf(f, "%d", &child) != 1)
					child = 0;
				pclose(f);
			}
			assert_true(child > 0);
			kill(child, sig);
		}
	}
	finish(r, pid, out, err);
}

void
run_acting(struct run *r, char *const argv[],
    int (*act)(pid_t pid, void *arg), void *arg, double within_s)
{
	struct timespec t0, now;
	size_t nout = 0, nerr = 0;
	int out, err, done = 0;
	pid_t pid;

	memset(r, 0, sizeof *r);
	pid = start(argv, NULL, &out, &err);
	fcntl(out, F_SETFL, O_NONBLOCK);
	fcntl(err, F_SETFL, O_NONBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!done) {
		struct pollfd fds[2] = { { out, POLLIN, 0 }, { err, POLLIN, 0 } };
		siginfo_t info;

		/* what it writes meanwhile, so that it never blocks on a pipe */
		poll(fds, 2, 2);
		if (fds[0].revents)
			read_some(out, r->out, sizeof r->out, &nout);
		if (fds[1].revents)
			read_some(err, r->err, sizeof r->err, &nerr);
		done = act(pid, arg);
		info.si_pid = 0;
		if (!done && waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG |
		    WNOWAIT) == 0 && info.si_pid == pid)
			fail_msg("%s ended (%d) before the test's condition came: %s",
			    argv[0], info.si_status, r->err);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!done && (double)(now.tv_sec - t0.tv_sec) +
		    (double)(now.tv_nsec - t0.tv_nsec) / 1e9 > within_s) {
			kill(-pid, SIGKILL);
			fail_msg("%s: the test's condition did not come in %.0f s",
			    argv[0], within_s);
		}
	}
	fcntl(out, F_SETFL, 0);
	fcntl(err, F_SETFL, 0);
	/* drain_into appends to nothing: keep what was read so far */
	{
		struct run rest;

		memset(&rest, 0, sizeof rest);
		finish(&rest, pid, out, err);
		snprintf(r->out + nout, sizeof r->out - nout, "%s", rest.out);
		snprintf(r->err + nerr, sizeof r->err - nerr, "%s", rest.err);
		r->status = rest.status;
	}
}

pid_t
e2e_child_of(pid_t pid)
{
	char path[64];
	FILE *f;
	int child = 0;

	snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid,
	    (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	if (fscanf(f, "%d", &child) != 1)
		child = 0;
	fclose(f);
	return child;
}

int
e2e_runs(pid_t pid, const char *path)
{
	char link[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof exe - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	return strcmp(exe, path) == 0;
}

double
e2e_cpu_seconds(pid_t pid)
{
	char path[64];
	unsigned long long ns;
	FILE *f;
	int ok;

	snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	ok = fscanf(f, "%llu", &ns) == 1;
	fclose(f);
	return ok ? (double)ns / 1e9 : -1;
}

/*
 * 1 if one of holder's open files satisfies match: given the file's
 * /proc/HOLDER/fd link target and its /proc/HOLDER/fdinfo path.
 */
static int
holds(pid_t holder, int (*match)(const char *target, const char *info,
    const void *arg), const void *arg)
{
	char dir[64], path[PATH_MAX], target[256];
	struct dirent *e;
	int found = 0;
	DIR *d;

	snprintf(dir, sizeof dir, "/proc/%d/fd", (int)holder);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while (!found && (e = readdir(d)) != NULL) {
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if ((n = readlink(path, target, sizeof target - 1)) <= 0)
			continue;
		target[n] = '\0';
		snprintf(path, sizeof path, "/proc/%d/fdinfo/%s", (int)holder,
		    e->d_name);
		found = match(target, path, arg);
	}
	closedir(d);
	return found;
}

static int
is_pidfd_of(const char *target, const char *info, const void *arg)
{
	char line[128];
	int found = 0;
	FILE *f;

	if (strstr(target, "pidfd") == NULL || (f = fopen(info, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "Pid:", 4) == 0 &&
		    atoi(line + 4) == *(const pid_t *)arg)
			found = 1;
	fclose(f);
	return found;
}

int
e2e_holds_pidfd(pid_t holder, pid_t pid)
{
	return holds(holder, is_pidfd_of, &pid);
}

static int
is_perf_event(const char *target, const char *info, const void *arg)
{
	(void)info;
	(void)arg;
	return strcmp(target, "anon_inode:[perf_event]") == 0;
}

int
e2e_holds_perf_event(pid_t holder)
{
	return holds(holder, is_perf_event, NULL);
}

void
run(struct run *r, char *const argv[])
{
	run_full(r, argv, NULL, 0, 0, 0);
}

char *const *
e2e_as_user(char *const argv[])
{
	static char *vec[64];
	size_t n;

	if (geteuid() != 0)
		return argv;
	if (access("/usr/bin/setpriv", X_OK) < 0)
		return NULL;
	chmod(tmpdir, 0777);
	n = e2e_as_nobody(vec);
	while (*argv != NULL && n < 63)
		vec[n++] = *argv++;
	vec[n] = NULL;
	return vec;
}

const char *
tmp(const char *name)
{
	static char paths[8][PATH_MAX];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return p;
}

struct e2e_phase
e2e_phase_of(const char *err, const char *name, int64_t start_ns)
{
	char key[32];
	const char *at;
	unsigned long long t0, t1;

	snprintf(key, sizeof key, "phase %s ", name);
	if ((at = strstr(err, key)) == NULL ||
	    sscanf(at + strlen(key), "%llu %llu", &t0, &t1) != 2)
		fail_msg("the program did not say its phase %s: %s", name, err);
	return (struct e2e_phase){ ((double)t0 - (double)start_ns) / 1e9,
	    ((double)t1 - (double)start_ns) / 1e9 };
}

int
e2e_in_phase(const struct e2e_phase *ph, double slice_s, uint32_t slice)
{
	double t0 = slice * slice_s, t1 = t0 + slice_s;

	return t1 >= ph->t0 - slice_s && t0 <= ph->t1 + slice_s;
}

char *
scratch(char *buf, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", tmpdir, name);
	return buf;
}

int
exists(const char *path)
{
	return access(path, F_OK) == 0;
}

void
assert_one_line(const struct run *r, const char *command)
{
	char prefix[64];
	size_t len = strlen(r->err);

	snprintf(prefix, sizeof prefix, "profil: %s: ", command);
	if (strncmp(r->err, prefix, strlen(prefix)) != 0 || len == 0 ||
	    strchr(r->err, '\n') != r->err + len - 1)
		fail_msg("not one '%s' line: [%s]", prefix, r->err);
}

unsigned long long
checked_samples(const char *prf)
{
	struct run r;
	char *argv[] = { profil_bin, "check", (char *)prf, NULL };
	const char *ok;
	unsigned long long n;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("check %s: %s", prf, r.err);
	ok = strstr(r.out, ": ok: ");
	assert_non_null(ok);
	assert_int_equal(sscanf(ok, ": ok: %llu samples", &n), 1);
	return n;
}

double
e2e_prf_error_scale(const char *prf)
{
	char cause[256];
	struct profil_profile *p = profil_profile_read(prf, cause, sizeof cause);
	double scale = p != NULL ? e2e_error_scale(p) : 1;

	profil_profile_free(p);
	return scale;
}

void
report(struct shares *s, const char *prf)
{
	char *argv[] = { profil_bin, "report", "--format", "csv", (char *)prf, NULL };

	report_run(s, argv);
	s->scale = e2e_prf_error_scale(prf);
}

void
e2e_folded(const char *prf, struct run *r)
{
	char *argv[] = { profil_bin, "export", "--format", "folded", "-o", "-",
	    (char *)prf, NULL };

	run(r, argv);
	if (r->status != 0)
		fail_msg("export folded exited %d: %s", r->status, r->err);
}

double
flat_samples(const char *prf, const char *function)
{
	struct shares s;

	report(&s, prf);
	return samples_of(&s, function, NULL);
}

void
report_run(struct shares *s, char *const argv[])
{
	struct run r;

	run(&r, argv);
	if (r.status != 0)
		fail_msg("report failed (%d): %s", r.status, r.err);
	/* the stable columns come first (profil.1) */
	assert_true(strncmp(r.out, "function,object,samples,percent,", 32) == 0);
	memcpy(s->csv, r.out, sizeof s->csv);
	s->total = 0;
	s->scale = 1;
	for (char *line = strchr(s->csv, '\n') + 1; *line; ) {
		char *end = strchr(line, '\n'), *f3 = line;
		for (int k = 0; k < 2 && f3; k++)
			f3 = strchr(f3, ',') ? strchr(f3, ',') + 1 : NULL;
		if (f3 != NULL)
			s->total += atof(f3);
		if (end == NULL)
			break;
		line = end + 1;
	}
}

double
samples_of(const struct shares *s, const char *function, const char *object)
{
	double sum = 0;
	const char *line = strchr(s->csv, '\n') + 1;

	while (*line) {
		char fn[512], obj[512] = "";
		double n;
		int ok;

		/* the object may be empty (a cut stack's made-up caller) */
		ok = sscanf(line, "%511[^,],%511[^,],%lf", fn, obj, &n) == 3 ||
		    (sscanf(line, "%511[^,],,%lf", fn, &n) == 2 && !(obj[0] = 0));
		if (ok && (function == NULL || strcmp(fn, function) == 0) &&
		    (object == NULL || strcmp(obj, object) == 0))
			sum += n;
		line = strchr(line, '\n');
		if (line == NULL)
			break;
		line++;
	}
	return sum;
}


char *
e2e_rate_arg(void)
{
	return getenv("PROFIL_TEST_SANITIZED") ?
	    (char *)e2e_rate_when_sanitized : "5000";
}

void
record_run(struct run *r, const char *engine, const char *prf,
    char **program)
{
	int sanitized = getenv("PROFIL_TEST_SANITIZED") != NULL;
	char *argv[32] = { profil_bin, "record", "-q", "-F", e2e_rate_arg(),
	    "-o", (char *)prf, "-e", (char *)engine };
	int i = 9;

	/* sanitized, the recorder keeps up with less (Makefile, check) */
	if (sanitized && e2e_flat_when_sanitized) {
		argv[i++] = "--no-call-graph";
	} else if (sanitized) {
		argv[i++] = "--stack-size";
		argv[i++] = "8192";
	}

	for (; *program && i < 31; program++)
		argv[i++] = *program;
	argv[i] = NULL;
	/* where perf events are refused (a container), -e perf is refused */
	if (strcmp(engine, "perf") == 0 && !harness_perf_allowed())
		SKIP("perf events refused here: the perf engine cannot run");
	run(r, argv);
	if (r->status != 0)
		fail_msg("record exited %d: %s", r->status, r->err);
}

void
record_with(const char *engine, const char *prf, char **program)
{
	static struct run r;	/* 72 KiB: not on the test's stack */

	record_run(&r, engine, prf, program);
}

void
record_ok(const char *prf, char **program)
{
	record_with("auto", prf, program);
}

double
e2e_rate(void)
{
	return atof(e2e_rate_arg());
}

double
e2e_samples_for_share(double p, double k, double within)
{
	if (within <= 0)
		fail_msg("a margin of %g leaves nothing for sampling error", within);
	return p * (1 - p) * (k / within) * (k / within);
}

const char *
e2e_cpu_for(double samples, double per)
{
	static char bufs[8][32];
	static int next;
	char *b = bufs[next++ % 8];

	/* 15% more: kernel samples, start-up, a recorder behind; 10 ms at least */
	snprintf(b, sizeof bufs[0], "%.3f", fmax(0.01, 1.15 * samples /
	    (e2e_rate() * per)));
	return b;
}

double
e2e_samples_for_count(double least, double p, double k)
{
	double sd = k * sqrt(p * (1 - p));
	double x = (sd + sqrt(sd * sd + 4 * p * least)) / (2 * p);

	return x * x;
}

double
e2e_samples_for_share_above(double p, double least)
{
	return fmax(e2e_samples_for_share(p, 4, (p - least) / 2),
	    E2E_STARTUP / ((p - least) / 2));
}

double
e2e_split_samples(const struct shares *s)
{
	return samples_of(s, "six", NULL) + samples_of(s, "three", NULL) +
	    samples_of(s, "one", NULL);
}

void
e2e_program_for(char **argv, size_t max, char **program, char *cpu)
{
	size_t i;

	for (i = 0; program[i] != NULL && i + 1 < max; i++)
		argv[i] = strcmp(program[i], E2E_CPU) == 0 ? cpu : program[i];
	argv[i] = NULL;
}

double
e2e_longer(double cpu, double got, double need, int *runs)
{
	if (++*runs >= 4)
		fail_msg("%.0f samples in the fourth run, %.0f wanted", got, need);
	/*
	 * What was missing, and a third more: a tenth more fell short
	 * again once in CI (a signal handler's samples, 41 of 49 in the
	 * third run); more where got is a few samples, whose count is
	 * noisy (3 standard errors of it: 8 of 10 in the fourth run, where
	 * samples came once a tick); 8x at most a time.
	 */
	return fmax(cpu, 0.01) * (got > need / 8 ? fmin(8, (1.3 + 3 /
	    sqrt(fmax(got, 1))) * need / got) : 8);
}


void
record_for(struct shares *s, struct run *r, const char *engine,
    const char *prf, char **program, double per, double need,
    double (*count)(const struct shares *))
{
	int runs = 0;

	for (double cpu = atof(e2e_cpu_for(need, per));;) {
		char *argv[32], arg[32];
		double got;

		snprintf(arg, sizeof arg, "%.3f", cpu);
		e2e_program_for(argv, 32, program, arg);
		record_run(r, engine, prf, argv);
		report(s, prf);
		/*
		 * as many samples as the counts are worth: where a CPU-time
		 * timer fires once a tick (the timer engine without perf
		 * events, at HZ 250) each weighs the ticks it stands for
		 */
		got = (count != NULL ? count(s) : s->total) / s->scale;
		if (got >= need)
			return;
		cpu = e2e_longer(cpu, got, need, &runs);
	}
}

void
scale_profile(struct profil_profile *p, uint64_t k)
{
	p->samples *= k;
	p->kernel *= k;
	p->unknown *= k;
	p->lost *= k;
	for (size_t i = 0; i < p->nobjects; i++) {
		p->objects[i].samples *= k;
		for (size_t j = 0; j < p->objects[i].nbuckets; j++)
			p->objects[i].buckets[j].count *= k;
	}
	if (p->kernel_code != NULL) {
		p->kernel_code->code.samples *= k;
		for (size_t j = 0; j < p->kernel_code->code.nbuckets; j++)
			p->kernel_code->code.buckets[j].count *= k;
	}
	for (size_t i = 0; i < p->nthreads; i++)
		p->threads[i].samples *= k;
	for (size_t i = 0; i < p->nprocesses; i++)
		p->processes[i].samples *= k;
	for (size_t i = 0; i < p->nstacks; i++)
		p->stacks[i].count *= k;
	/* the timeline's samples too (time off the CPU stays as it was) */
	for (size_t i = 0; i < p->ntimeline; i++)
		if (p->stacks[p->timeline[i].stack].off_ns == 0)
			p->timeline[i].value *= k;
	/* k times the samples, each weighing what it did */
	p->taken *= k;
	p->weight_sq *= k;
}

void
add_unit_weights(struct profil_profile *p, uint64_t n)
{
	if (p->taken > 0 || p->weight_sq > 0) {
		p->taken += n;
		p->weight_sq += n;
	}
}

size_t
e2e_as_nobody(char **argv)
{
	static char *words[] = { "/usr/bin/setpriv", "--reuid=nobody",
	    "--regid=nogroup", "--clear-groups" };

	if (geteuid() != 0)
		return 0;
	for (size_t i = 0; i < 4; i++)
		argv[i] = words[i];
	return 4;
}

int
e2e_setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", bindir, sizeof bindir - 1);

	(void)state;
	if (n < 0 || mkdtemp(tmpdir) == NULL)
		return -1;
	/* GNU getopt stops at the first operand under POSIXLY_CORRECT */
	unsetenv("POSIXLY_CORRECT");
	bindir[n] = '\0';
	*strrchr(bindir, '/') = '\0';
	snprintf(workload, sizeof workload, "%s/workload", bindir);
	snprintf(workload_static, sizeof workload_static, "%s/workload-static", bindir);
	snprintf(cxx_workload, sizeof cxx_workload, "%s/cxx-workload", bindir);
	snprintf(profil_bin, sizeof profil_bin, "%s/../profil", bindir);
	return 0;
}

int
e2e_teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int
csv_field(const char **at, char *buf, size_t size)
{
	const char *s = *at;
	size_t n = 0;

	if (*s == '\n' || *s == '\0')
		return 0;
	if (*s == '"') {
		for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
			if (*s == '"')
				s++;
			if (n + 1 < size)
				buf[n++] = *s;
		}
		if (*s == '"')
			s++;
	} else
		for (; *s && *s != ',' && *s != '\n'; s++)
			if (n + 1 < size)
				buf[n++] = *s;
	buf[n] = '\0';
	if (*s == ',')
		s++;
	*at = s;
	return 1;
}

double
e2e_wilson95(double k, double n, double scale)
{
	const double z = 1.959964;
	double p;

	if (n <= 0)
		return 0;
	p = k / n;
	n /= scale;
	/* (p + z^2/2n +- z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n) */
	return 100 * z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) /
	    (1 + z * z / n);
}

double
e2e_error_scale(const struct profil_profile *p)
{
	return p->weight_sq > p->samples ? (double)p->weight_sq /
	    (double)p->samples : 1;
}

void
e2e_drop_timeline(struct profil_profile *p)
{
	free(p->timeline);
	p->timeline = NULL;
	p->ntimeline = 0;
	p->slice_ns = p->nslices = 0;
}
