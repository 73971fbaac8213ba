/*
 * test-prf.c - the .prf format: what is written is read back the same;
 * every malformed file is refused with a cause naming what and where,
 * without first building what a hostile stack tree describes; saving is
 * atomic, never follows a symlink, makes a 0644 file whatever the umask,
 * and a save that fails late leaves the old file and no temporary one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include <profil.h>
#include "codec/prf.h"

static struct profil_bucket exe_buckets[] = {
	{ 0x1000, 5 }, { 0x1004, 7 }, { 0x2000, 1 }, { 0x9ffc, 1000000 },
};
static struct profil_bucket lib_buckets[] = {
	{ 0x20000, 3 }, { 0x20001, 4 }, { 0x20002, 5 }, { 0x20004, 6 },
};
static char *argv_[] = { "./app", "--flag", "", NULL };

static void
sample_profile(struct profil_profile *p, struct profil_object o[2],
    struct profil_thread t[2], struct profil_process *pr)
{
	memset(p, 0, sizeof *p);
	memset(o, 0, 2 * sizeof *o);
	o[0].path = "/usr/bin/app";
	memcpy(o[0].build_id, "\x01\x02\x03\x04\x05", 5);
	o[0].build_id_len = 5;
	o[0].lowpc = 0x1000;
	o[0].highpc = 0xa000;
	o[0].bucket_bytes = 4;
	o[0].samples = 5 + 7 + 1 + 1000000;
	o[0].nbuckets = 4;
	o[0].buckets = exe_buckets;
	o[1].path = "/lib/libm.so.6";
	o[1].lowpc = 0x20000;
	o[1].highpc = 0x20010;
	o[1].bucket_bytes = 1;
	o[1].samples = 18;	/* dense: every bucket but one is hit */
	o[1].nbuckets = 4;
	o[1].buckets = lib_buckets;
	p->interval_ns = 1000000;
	p->bucket_bytes = 4;
	p->engine = "perf";
	p->argc = 3;
	p->argv = argv_;
	p->start_ns = 1763700000000000000;
	p->duration_ns = 2500000000u;
	p->cpu_ns = 2400000000u;
	p->kernel = 11;
	p->unknown = 2;
	p->lost = 9;
	p->samples = o[0].samples + o[1].samples + 11 + 2;
	p->nobjects = 2;
	p->objects = o;
	t[0] = (struct profil_thread){ 100, 100, "app", p->samples - 10 };
	t[1] = (struct profil_thread){ 100, 101, "worker", 10 };
	p->nthreads = 2;
	p->threads = t;
	*pr = (struct profil_process){ 100, 1, "./app --flag", 0, p->samples };
	p->nprocesses = 1;
	p->processes = pr;
}

static void *
encoded(const struct profil_profile *p, size_t *size)
{
	void *data;

	assert_int_equal(profil_profile_encode(p, &data, size), 0);
	return data;
}

static void
test_round_trip(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	char cause[256] = "";
	size_t size;
	void *data;

	(void)state;
	sample_profile(&p, o, t, &pr);
	data = encoded(&p, &size);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_true(q->interval_ns == p.interval_ns);
	assert_string_equal(q->engine, "perf");
	assert_int_equal(q->argc, 3);
	assert_string_equal(q->argv[1], "--flag");
	assert_string_equal(q->argv[2], "");
	assert_true(q->start_ns == p.start_ns && q->cpu_ns == p.cpu_ns);
	assert_true(q->samples == p.samples && q->lost == 9 && q->kernel == 11);
	assert_int_equal(q->nobjects, 2);
	for (int i = 0; i < 2; i++) {
		assert_string_equal(q->objects[i].path, o[i].path);
		assert_int_equal(q->objects[i].build_id_len, o[i].build_id_len);
		assert_memory_equal(q->objects[i].build_id, o[i].build_id,
		    o[i].build_id_len);
		assert_int_equal(q->objects[i].nbuckets, o[i].nbuckets);
		assert_memory_equal(q->objects[i].buckets, o[i].buckets,
		    o[i].nbuckets * sizeof *o[i].buckets);
	}
	assert_int_equal(q->nthreads, 2);
	assert_string_equal(q->threads[1].name, "worker");
	assert_int_equal(q->nprocesses, 1);
	assert_string_equal(q->processes[0].command, "./app --flag");
	profil_profile_free(q);
	free(data);
}

/* Sparse histograms cost what was hit, not the object's size. */
static void
test_size_follows_hits_not_range(void **state)
{
	struct profil_profile p;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	size_t small, big;
	void *a, *b;

	(void)state;
	sample_profile(&p, o, t, &pr);
	a = encoded(&p, &small);
	o[0].highpc = 0x1000 + (1ull << 40);	/* a huge object, same hits */
	b = encoded(&p, &big);
	assert_int_equal(small, big);
	assert_true(small < 400);
	free(a);
	free(b);
}

static void
expect_refusal(const void *data, size_t size, const char *words)
{
	char cause[256] = "";
	struct profil_profile *q = profil_profile_parse(data, size, cause,
	    sizeof cause);

	if (q != NULL)
		fail_msg("accepted a bad file (expected '%s')", words);
	assert_int_equal(errno, EINVAL);
	if (strstr(cause, words) == NULL)
		fail_msg("cause '%s' does not say '%s'", cause, words);
}

static void
test_every_truncation_is_refused(void **state)
{
	struct profil_profile p;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	size_t size, cut;
	uint8_t *data;

	(void)state;
	sample_profile(&p, o, t, &pr);
	data = encoded(&p, &size);
	expect_refusal(data, 0, "bad magic");
	for (cut = 1; cut < size; cut++) {
		uint8_t *copy = malloc(cut);	/* exact size: ASan sees overreads */
		char cause[256] = "";

		memcpy(copy, data, cut);
		assert_null(profil_profile_parse(copy, cut, cause, sizeof cause));
		if (cut >= PRF_MAGIC_LEN + 4 && strstr(cause, "truncated") == NULL &&
		    strstr(cause, "cut short") == NULL)
			fail_msg("cut at %zu: cause '%s'", cut, cause);
		free(copy);
	}
	free(data);
}

static void
test_damage_is_refused(void **state)
{
	struct profil_profile p;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	size_t size, i;
	uint8_t *data;

	(void)state;
	sample_profile(&p, o, t, &pr);
	data = encoded(&p, &size);
	/* flipping any bit after the version is caught (checksum or worse) */
	for (i = PRF_MAGIC_LEN + 4; i < size - 4; i++) {
		char cause[256] = "";

		data[i] ^= 0x10;
		assert_null(profil_profile_parse(data, size, cause, sizeof cause));
		data[i] ^= 0x10;
	}
	data[0] = 'X';
	expect_refusal(data, size, "bad magic");
	data[0] = 0x89;
	data[PRF_MAGIC_LEN] = 3;	/* 1 and 2 (wall profiles) are known */
	expect_refusal(data, size, "unsupported version 3");
	data[PRF_MAGIC_LEN] = 1;
	data[PRF_MAGIC_LEN + 4 + 4] = 0xff;	/* header length past the end */
	data[PRF_MAGIC_LEN + 4 + 5] = 0xff;
	data[PRF_MAGIC_LEN + 4 + 6] = 0xff;
	expect_refusal(data, size, "truncated header record at byte 12");
	free(data);

	/* trailing garbage */
	sample_profile(&p, o, t, &pr);
	data = encoded(&p, &size);
	data = realloc(data, size + 3);
	memcpy(data + size, "abc", 3);
	expect_refusal(data, size + 3, "after the end record");
	free(data);
}

static void
test_counts_must_add_up(void **state)
{
	struct profil_profile p;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	size_t size;
	void *data;

	(void)state;
	sample_profile(&p, o, t, &pr);
	p.samples += 1;
	data = encoded(&p, &size);
	expect_refusal(data, size, "counts do not add up");
	free(data);

	sample_profile(&p, o, t, &pr);
	t[1].samples += 1;
	data = encoded(&p, &size);
	expect_refusal(data, size, "threads have");
	free(data);

	sample_profile(&p, o, t, &pr);
	o[0].samples -= 1;
	p.samples -= 1;
	t[0].samples -= 1;
	pr.samples -= 1;
	data = encoded(&p, &size);
	expect_refusal(data, size, "do not add up to the object's samples");
	free(data);

	sample_profile(&p, o, t, &pr);
	exe_buckets[3].addr = 0xa000;		/* at highpc: outside */
	data = encoded(&p, &size);
	exe_buckets[3].addr = 0x9ffc;
	expect_refusal(data, size, "beyond the object's range");
	free(data);
}

/*
 * The weights record (record --samples): read back as written, absent
 * when a profile has none, and refused when its figures cannot be.
 */
static void
test_weights_record(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	char cause[256] = "";
	size_t size, plain;
	void *data;

	(void)state;
	sample_profile(&p, o, t, &pr);
	free(encoded(&p, &plain));
	p.taken = 4000;
	p.weight_sq = 3 * p.samples;
	p.budget = 10000;
	p.slowest_ns = 8 * p.interval_ns;
	data = encoded(&p, &size);
	assert_int_equal(size, plain + 8 + 32);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_true(q->taken == 4000 && q->weight_sq == 3 * p.samples);
	assert_true(q->budget == 10000 && q->slowest_ns == 8 * p.interval_ns);
	profil_profile_free(q);
	free(data);

	p.weight_sq = p.taken - 1;
	data = encoded(&p, &size);
	expect_refusal(data, size, "less than the samples taken");
	free(data);
	p.weight_sq = p.samples - 1;
	p.taken = 10;
	data = encoded(&p, &size);
	expect_refusal(data, size, "less than the 1000044 samples");
	free(data);
	p.weight_sq = p.samples;
	p.slowest_ns = p.interval_ns * 3 / 2;
	data = encoded(&p, &size);
	expect_refusal(data, size, "not a whole number of intervals");
	free(data);
}

static void fix_checksum(uint8_t *data, size_t size);

/*
 * The refused record (what the timer engine's recorder refused of the
 * memory the program could write): read back as written, absent when
 * nothing was refused, so a file of before it reads as it did, and
 * refused when it says nothing or comes twice.
 */
static void
test_refused_record(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	char cause[256] = "";
	size_t size, plain, twice;
	unsigned char *data, *copy;

	(void)state;
	sample_profile(&p, o, t, &pr);
	free(encoded(&p, &plain));
	p.refused = 37;
	data = encoded(&p, &size);
	assert_int_equal(size, plain + 8 + 8);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_int_equal(q->refused, 37);
	profil_profile_free(q);

	/* the record's count made 0 (it sits just before the end record) */
	memset(data + size - 8 - 4 - 8, 0, 8);
	fix_checksum(data, size);
	expect_refusal(data, size, "none refused");
	/* and written twice */
	data[size - 8 - 4 - 8] = 1;
	twice = size + 16;
	copy = malloc(twice);
	assert_non_null(copy);
	memcpy(copy, data, size - 12);
	memcpy(copy + size - 12, data + size - 12 - 16, 16);
	memcpy(copy + size + 4, data + size - 12, 12);
	fix_checksum(copy, twice);
	expect_refusal(copy, twice, "a second refused record");
	free(copy);
	free(data);
}

/* Atomic save: the old file survives a failed write; symlinks are replaced. */
static void
saving(void)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	char dir[] = "/tmp/profil-test-XXXXXX", path[256], link[256], cause[256];
	struct stat st;
	struct rlimit small = { 100, 100 };

	sample_profile(&p, o, t, &pr);
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof path, "%s/a.prf", dir);
	snprintf(link, sizeof link, "%s/victim", dir);
	CHECK(profil_profile_save(&p, path, cause, sizeof cause) == 0, "%s", cause);
	q = profil_profile_read(path, cause, sizeof cause);
	CHECK(q != NULL, "read back: %s", cause);
	profil_profile_free(q);

	/* a symlink at the path is replaced, its target untouched */
	int fd = open(link, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && write(fd, "keep", 4) == 4, "victim");
	close(fd);
	unlink(path);
	CHECK(symlink(link, path) == 0, "symlink");
	CHECK(profil_profile_save(&p, path, cause, sizeof cause) == 0, "%s", cause);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "still a symlink");
	CHECK(stat(link, &st) == 0 && st.st_size == 4, "followed the symlink");

	/* a write that fails (file size limit, like ENOSPC) keeps the old file */
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0, "setrlimit");
	errno = 0;
	CHECK(profil_profile_save(&p, path, cause, sizeof cause) == -1,
	    "a 100-byte limit did not stop the write");
	CHECK(errno == EFBIG, "errno %d", errno);
	q = profil_profile_read(path, cause, sizeof cause);
	CHECK(q != NULL, "old file damaged: %s", cause);
	profil_profile_free(q);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "ls %s | wc -l", dir);
	FILE *ls = popen(cmd, "r");
	int files = 0;
	CHECK(ls && fscanf(ls, "%d", &files) == 1, "ls");
	pclose(ls);
	CHECK(files == 2, "temporary file left behind (%d files)", files);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "cleanup");
}

static void
test_save_is_atomic(void **state)
{
	(void)state;
	FORKED(saving, 30);
}

/* How many names in dir hold ".tmp.": temporary files left behind. */
static int
temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	CHECK(d != NULL, "opendir %s", dir);
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

/*
 * Failures found late, after the data is written: the rename over a
 * directory (EISDIR; as root, where no permission bit stops a write);
 * the file made 0644 under any umask; a directory that does not exist.
 */
static void
saving_failures(void)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	char dir[] = "/tmp/profil-test-XXXXXX", path[256], inner[300];
	char cause[256] = "", cmd[300];
	struct stat st;

	sample_profile(&p, o, t, &pr);
	CHECK(mkdtemp(dir) != NULL, "mkdtemp");

	umask(077);
	snprintf(path, sizeof path, "%s/a.prf", dir);
	CHECK(profil_profile_save(&p, path, cause, sizeof cause) == 0, "%s", cause);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644,
	    "mode %o, not 0644", (unsigned)(st.st_mode & 07777));

	/* written whole, linked beside it, then the rename is refused */
	snprintf(path, sizeof path, "%s/d.prf", dir);
	snprintf(inner, sizeof inner, "%s/keep", path);
	CHECK(mkdir(path, 0755) == 0, "mkdir");
	int fd = open(inner, O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && write(fd, "keep", 4) == 4 && close(fd) == 0, "keep");
	errno = 0;
	CHECK(profil_profile_save(&p, path, cause, sizeof cause) == -1,
	    "saved over a directory");
	CHECK(errno == EISDIR, "errno %d", errno);
	CHECK(strcmp(cause, strerror(EISDIR)) == 0, "cause: %s", cause);
	CHECK(lstat(path, &st) == 0 && S_ISDIR(st.st_mode), "directory replaced");
	CHECK(stat(inner, &st) == 0 && st.st_size == 4, "directory emptied");
	CHECK(temporaries(dir) == 0, "temporary file left after a failed rename");

	/* a directory that is not there: nothing made, the cause says why */
	snprintf(path, sizeof path, "%s/none/a.prf", dir);
	errno = 0;
	CHECK(profil_profile_save(&p, path, cause, sizeof cause) == -1,
	    "saved into no directory");
	CHECK(errno == ENOENT, "errno %d", errno);
	CHECK(strcmp(cause, strerror(ENOENT)) == 0, "cause: %s", cause);

	snprintf(path, sizeof path, "%s/a.prf", dir);
	q = profil_profile_read(path, cause, sizeof cause);
	CHECK(q != NULL, "first file damaged: %s", cause);
	profil_profile_free(q);
	CHECK(temporaries(dir) == 0, "temporary file left");
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0, "cleanup");
}

static void
test_save_failures_leave_no_trace(void **state)
{
	(void)state;
	FORKED(saving_failures, 30);
}

static void
test_read_errors(void **state)
{
	char cause[256] = "";

	(void)state;
	assert_null(profil_profile_read("/nonexistent/x.prf", cause, sizeof cause));
	assert_int_equal(errno, ENOENT);
	assert_null(profil_profile_read("/tmp", cause, sizeof cause));
	assert_string_equal(cause, "is a directory");
	assert_null(profil_profile_read("/dev/null", cause, sizeof cause));
	assert_string_equal(cause, "not a regular file");
	/* no buffer for the cause: none written, whatever the error (a
	 * directory wrote one through NULL) */
	assert_null(profil_profile_read("/tmp", NULL, sizeof cause));
	assert_int_equal(errno, EINVAL);
	assert_null(profil_profile_read("/nonexistent/x.prf", NULL, sizeof cause));
	assert_int_equal(errno, ENOENT);
	assert_null(profil_profile_parse("not a profile", 13, NULL, sizeof cause));
	assert_int_equal(errno, EINVAL);
}

/* The CPU seconds op(arg) takes, the fastest of 3 calls. */
static double
fastest_cpu_seconds(void (*op)(void *), void *arg)
{
	double best = 1e9;

	for (int i = 0; i < 3; i++) {
		struct timespec a, b;
		double t;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		op(arg);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		t = (double)(b.tv_sec - a.tv_sec) +
		    (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		if (t < best)
			best = t;
	}
	return best;
}

struct parse_job {
	const void *data;
	size_t size;
	char *cause;
	size_t cause_size;
};

static void
parse_once(void *arg)
{
	struct parse_job *j = arg;

	profil_profile_free(profil_profile_parse(j->data, j->size, j->cause,
	    j->cause_size));
}

/* CPU seconds the bytes take to parse (the fastest of 3), and its cause. */
static double
parse_seconds(const void *data, size_t size, char *cause, size_t cause_size)
{
	struct parse_job j = { data, size, cause, cause_size };

	return fastest_cpu_seconds(parse_once, &j);
}

/*
 * A few kilobytes of stack tree can describe 2^24 frames and more: 4097
 * stacks ending at one node 4096 deep.  The reader refuses that file,
 * and does so from the sizes alone, in about the time one stack of 4096
 * frames takes to read, not after building 64 MiB of frames (it took
 * 3000 times as long); and so a file of 2^24 frames whose counts do not
 * add up.
 */
static void
test_stack_sizes_checked_first(void **state)
{
	enum { DEPTH = PRF_MAX_DEPTH, STACKS = (1 << 24) / PRF_MAX_DEPTH + 1 };
	static struct profil_frame frames[DEPTH];
	static uint32_t chain[DEPTH];
	static struct profil_stack stacks[STACKS];
	struct profil_bucket bucket = { 0x1000, STACKS };
	struct profil_object o = { .path = "/a", .lowpc = 0x1000,
	    .highpc = 0x1000 + DEPTH, .bucket_bytes = 1, .samples = STACKS,
	    .nbuckets = 1, .buckets = &bucket };
	struct profil_profile p = { .interval_ns = 1000000, .bucket_bytes = 1,
	    .engine = "perf", .argv = argv_, .samples = STACKS, .nobjects = 1,
	    .objects = &o, .nframes = DEPTH, .frames = frames, .nstacks = 1,
	    .stacks = stacks };
	char cause[256] = "";
	void *one, *many;
	size_t one_size, many_size;
	double t_one, t_many;

	(void)state;
	for (uint32_t i = 0; i < DEPTH; i++) {
		frames[i] = (struct profil_frame){ 0, 0x1000 + i };
		chain[i] = i;
	}
	for (int i = 0; i < STACKS; i++)
		stacks[i] = (struct profil_stack){ .pid = 1,
		    .tid = (uint32_t)i + 1, .count = 1, .depth = DEPTH,
		    .frames = chain };
	/* one stack 4096 deep with every sample: readable */
	stacks[0].count = STACKS;
	one = encoded(&p, &one_size);
	stacks[0].count = 1;
	p.nstacks = STACKS;
	many = encoded(&p, &many_size);
	t_one = parse_seconds(one, one_size, cause, sizeof cause);
	assert_string_equal(cause, "");
	t_many = parse_seconds(many, many_size, cause, sizeof cause);
	assert_non_null(strstr(cause, "more stack frames than this reader takes"));
	print_message("one stack %.3f ms, %d of them %.3f ms (refused)\n",
	    1e3 * t_one, STACKS, 1e3 * t_many);
	if (t_many > 100 * t_one + 0.002)
		fail_msg("refusing 2^24 frames took %.1f ms, reading 4096 %.3f ms",
		    1e3 * t_many, 1e3 * t_one);
	free(many);
	/*
	 * Exactly 2^24 frames, a size the reader takes, but counts one short
	 * of the header's: refused as fast, before the frames are built.
	 */
	p.nstacks = STACKS - 1;
	many = encoded(&p, &many_size);
	t_many = parse_seconds(many, many_size, cause, sizeof cause);
	assert_non_null(strstr(cause, "do not add up"));
	print_message("%d stacks whose counts do not add up: %.3f ms (refused)\n",
	    STACKS - 1, 1e3 * t_many);
	if (t_many > 100 * t_one + 0.002)
		fail_msg("refusing 2^24 frames that do not add up took %.1f ms, "
		    "reading 4096 %.3f ms", 1e3 * t_many, 1e3 * t_one);
	free(one);
	free(many);
}

static void
encode_once(void *arg)
{
	void *data;
	size_t size;

	assert_int_equal(profil_profile_encode(arg, &data, &size), 0);
	free(data);
}

/* CPU seconds p takes to encode (the fastest of 3). */
static double
encode_seconds(const struct profil_profile *p)
{
	return fastest_cpu_seconds(encode_once, (void *)p);
}

/*
 * Recursion 4096 deep (one frame under ever deeper parents) encodes in
 * about the time 4096 different frames do: the encoder's table of tree
 * nodes once put all such nodes in two slots (4096^2 probes for each
 * stack, 100 times as long).
 */
static void
test_recursion_encodes_in_linear_time(void **state)
{
	enum { DEPTH = PRF_MAX_DEPTH };
	static struct profil_frame frames[DEPTH];
	static uint32_t chain[DEPTH], same[DEPTH];
	struct profil_stack stacks[8];
	struct profil_bucket bucket = { 0x1000, 8 };
	struct profil_object o = { .path = "/a", .lowpc = 0x1000,
	    .highpc = 0x1000 + DEPTH, .bucket_bytes = 1, .samples = 8,
	    .nbuckets = 1, .buckets = &bucket };
	struct profil_profile p = { .interval_ns = 1000000, .bucket_bytes = 1,
	    .engine = "perf", .argv = argv_, .samples = 8, .nobjects = 1,
	    .objects = &o, .nframes = DEPTH, .frames = frames, .nstacks = 8,
	    .stacks = stacks };
	double t_chain, t_same;

	(void)state;
	for (uint32_t i = 0; i < DEPTH; i++) {
		frames[i] = (struct profil_frame){ 0, 0x1000 + i };
		chain[i] = i;
		same[i] = 0;
	}
	/* 8 threads' stacks: the nodes of the 7 after the first are found */
	for (uint32_t i = 0; i < 8; i++)
		stacks[i] = (struct profil_stack){ .pid = 1, .tid = i + 1,
		    .count = 1, .depth = DEPTH, .frames = chain };
	t_chain = encode_seconds(&p);
	for (int i = 0; i < 8; i++)
		stacks[i].frames = same;
	t_same = encode_seconds(&p);
	print_message("%d frames %.3f ms, one frame %d times %.3f ms\n", DEPTH,
	    1e3 * t_chain, DEPTH, 1e3 * t_same);
	if (t_same > 10 * t_chain + 0.001)
		fail_msg("recursion took %.3f ms to encode, a chain %.3f ms",
		    1e3 * t_same, 1e3 * t_chain);
}

/* ---- wall profiles (record --wall): version 2 ------------------------------- */

/*
 * A wall profile: app's 10 samples at 0x10 under main (0x50), and time
 * off the CPU at 3 stacks of its threads: 500 ms in clock_nanosleep
 * under 0x20 (measured), 3 ms preempted at the last sample's stack (all
 * sampled, on 4 looks), 1 ms blocked where is not known.
 */
static struct profil_bucket wall_bucket = { 0x10, 10 };
static struct profil_object wall_app;
static struct profil_frame wall_frames[] = {
	{ 0, 0x10 }, { 0, 0x20 }, { 0, 0x50 },
	{ PROFIL_FRAME_OFFCPU, 230 },			/* clock_nanosleep */
	{ PROFIL_FRAME_OFFCPU, PROFIL_OFFCPU_RUNNABLE },
	{ PROFIL_FRAME_OFFCPU, PROFIL_OFFCPU_BLOCKED },
	{ PROFIL_FRAME_CUT, PROFIL_CUT_NOT_TAKEN },
};
static uint32_t on_cpu[] = { 0, 2 }, asleep[] = { 3, 1, 2 },
    preempted[] = { 4, 0, 2 }, unplaced[] = { 5, 6 };
static struct profil_stack wall_stacks[4];
static struct profil_wall wall_stats;
static struct profil_thread wall_threads[2];

static void
wall_profile(struct profil_profile *p)
{
	wall_app = (struct profil_object){ .path = "/bin/app", .lowpc = 0,
	    .highpc = 0x100, .bucket_bytes = 1, .samples = 10, .nbuckets = 1,
	    .buckets = &wall_bucket };
	wall_stacks[0] = (struct profil_stack){ .pid = 7, .tid = 7,
	    .count = 10, .depth = 2, .frames = on_cpu };
	wall_stacks[1] = (struct profil_stack){ .pid = 7, .tid = 7,
	    .depth = 3, .frames = asleep, .off_ns = 500000000 };
	wall_stacks[2] = (struct profil_stack){ .pid = 7, .tid = 8,
	    .depth = 3, .frames = preempted, .off_ns = 3000000,
	    .sampled_ns = 3000000, .observations = 4 };
	wall_stacks[3] = (struct profil_stack){ .pid = 7, .tid = 8,
	    .depth = 2, .frames = unplaced, .off_ns = 1000000,
	    .sampled_ns = 1000000 };
	wall_stats = (struct profil_wall){ .poll_ns = 5000000, .switches = 12,
	    .reads = 3, .unread_ns = 0 };
	wall_threads[0] = (struct profil_thread){ 7, 7, "app", 10 };
	wall_threads[1] = (struct profil_thread){ 7, 8, "waiter", 0 };
	memset(p, 0, sizeof *p);
	p->interval_ns = 1000000;
	p->bucket_bytes = 1;
	p->engine = "perf";
	p->argc = 1;
	p->argv = argv_;
	p->duration_ns = 504000000;
	p->samples = 10;
	p->nobjects = 1;
	p->objects = &wall_app;
	p->nthreads = 2;
	p->threads = wall_threads;
	p->nframes = sizeof wall_frames / sizeof wall_frames[0];
	p->frames = wall_frames;
	p->nstacks = 4;
	p->stacks = wall_stacks;
	p->wall = &wall_stats;
}

static uint32_t
file_version(const uint8_t *data)
{
	return (uint32_t)data[PRF_MAGIC_LEN] | (uint32_t)data[PRF_MAGIC_LEN + 1] << 8 |
	    (uint32_t)data[PRF_MAGIC_LEN + 2] << 16 |
	    (uint32_t)data[PRF_MAGIC_LEN + 3] << 24;
}

static void
test_wall_round_trip(void **state)
{
	struct profil_profile p, *q;
	char cause[256] = "";
	size_t size;
	uint8_t *data;

	(void)state;
	wall_profile(&p);
	data = encoded(&p, &size);
	assert_int_equal(file_version(data), 2);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_non_null(q->wall);
	assert_memory_equal(q->wall, &wall_stats, sizeof wall_stats);
	assert_int_equal(q->nframes, p.nframes);
	assert_memory_equal(q->frames, wall_frames, sizeof wall_frames);
	assert_int_equal(q->nstacks, p.nstacks);
	for (size_t i = 0; i < p.nstacks; i++) {
		const struct profil_stack *a = &p.stacks[i], *b = &q->stacks[i];

		assert_int_equal(b->pid, a->pid);
		assert_int_equal(b->tid, a->tid);
		assert_int_equal(b->count, a->count);
		assert_int_equal(b->off_ns, a->off_ns);
		assert_int_equal(b->sampled_ns, a->sampled_ns);
		assert_int_equal(b->observations, a->observations);
		assert_int_equal(b->depth, a->depth);
		assert_memory_equal(b->frames, a->frames,
		    a->depth * sizeof *a->frames);
	}
	assert_int_equal(q->nthreads, 2);
	assert_string_equal(q->threads[1].name, "waiter");
	assert_true(q->samples == 10 && q->duration_ns == p.duration_ns);
	profil_profile_free(q);
	free(data);
}

/*
 * A CPU profile is still written as version 1 (readers of version 1 read
 * it), stacks and all, and reads back with no wall data.
 */
static void
test_cpu_profile_stays_version_1(void **state)
{
	struct profil_profile p, *q;
	char cause[256] = "";
	size_t size;
	uint8_t *data;

	(void)state;
	wall_profile(&p);
	p.wall = NULL;
	p.nstacks = 1;		/* the samples' stack only */
	p.nframes = 3;
	data = encoded(&p, &size);
	assert_int_equal(file_version(data), 1);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_null(q->wall);
	assert_int_equal(q->nstacks, 1);
	assert_true(q->stacks[0].count == 10 && q->stacks[0].off_ns == 0);
	profil_profile_free(q);
	free(data);
}

/* The byte offset of the first record of tag in data, or 0. */
static size_t
record_at(const uint8_t *data, size_t size, unsigned tag)
{
	for (size_t at = PRF_MAGIC_LEN + 4; at + 8 <= size;) {
		unsigned t = data[at] | data[at + 1] << 8;
		size_t len = (size_t)data[at + 4] | (size_t)data[at + 5] << 8 |
		    (size_t)data[at + 6] << 16 | (size_t)data[at + 7] << 24;

		if (t == tag)
			return at;
		at += 8 + len;
	}
	return 0;
}

static size_t
record_size(const uint8_t *data, size_t at)
{
	return 8 + ((size_t)data[at + 4] | (size_t)data[at + 5] << 8 |
	    (size_t)data[at + 6] << 16 | (size_t)data[at + 7] << 24);
}

/* The end record's checksum made right after an edit (CRC-32, zlib's). */
static void
fix_checksum(uint8_t *data, size_t size)
{
	size_t end = record_at(data, size, PRF_TAG_END);
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < end; i++) {
		crc ^= data[i];
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
	}
	crc = ~crc;
	for (int k = 0; k < 4; k++)
		data[end + 8 + k] = (uint8_t)(crc >> 8 * k);
}

/* The wall profile p encoded, then refused saying words. */
static void
expect_wall_refusal(const struct profil_profile *p, const char *words)
{
	size_t size;
	void *data = encoded(p, &size);

	expect_refusal(data, size, words);
	free(data);
}

/*
 * What a wall profile's stacks and records must be, each refused with a
 * one-line cause: off-CPU frames only at leaves, off-CPU time only there
 * and never with samples, no more of it sampled than there is, off-CPU
 * frames only with the wall record, that record only in version 2 and
 * only once.
 */
static void
test_wall_refusals(void **state)
{
	struct profil_profile p;
	uint32_t inside[] = { 0, 3, 2 }, at_app[] = { 1, 2 };
	uint8_t *data, *copy, *wallrec;
	size_t size, at, len;
	char cause[256];

	(void)state;
	wall_profile(&p);
	wall_stacks[0].frames = inside;
	wall_stacks[0].depth = 3;
	expect_wall_refusal(&p, "an off-CPU frame that is not a stack's leaf");

	wall_profile(&p);
	wall_stacks[1].frames = at_app;
	wall_stacks[1].depth = 2;
	expect_wall_refusal(&p, "off-CPU time is not at an off-CPU leaf");

	wall_profile(&p);
	wall_stacks[0].off_ns = 1;	/* samples and time off the CPU */
	expect_wall_refusal(&p, "bad stack");

	wall_profile(&p);
	wall_stacks[1].count = 1;	/* the same, the other way */
	p.samples++;
	wall_app.samples++;
	wall_bucket.count++;
	wall_threads[0].samples++;
	expect_wall_refusal(&p, "bad stack");
	wall_bucket.count--;

	wall_profile(&p);
	wall_stacks[2].sampled_ns = wall_stacks[2].off_ns + 1;
	expect_wall_refusal(&p, "bad stack");

	/* the wall record taken out: a version 2 file says how it was taken */
	wall_profile(&p);
	data = encoded(&p, &size);
	at = record_at(data, size, PRF_TAG_WALL);
	assert_true(at > 0);
	len = record_size(data, at);
	wallrec = malloc(len);
	memcpy(wallrec, data + at, len);
	memmove(data + at, data + at + len, size - at - len);
	fix_checksum(data, size - len);
	expect_refusal(data, size - len,
	    "a version 2 file without its wall record");
	free(data);
	/* a second wall record, after the first */
	data = encoded(&p, &size);
	copy = malloc(size + len);
	memcpy(copy, data, at + len);
	memcpy(copy + at + len, wallrec, len);
	memcpy(copy + at + 2 * len, data + at + len, size - at - len);
	fix_checksum(copy, size + len);
	expect_refusal(copy, size + len, "a second wall record");
	free(copy);
	free(data);
	/* a wall record in a version 1 file (a CPU profile's), before its end */
	p.wall = NULL;
	p.nstacks = 1;
	p.nframes = 3;
	data = encoded(&p, &size);
	assert_int_equal(file_version(data), 1);
	at = record_at(data, size, PRF_TAG_END);
	copy = malloc(size + len);
	memcpy(copy, data, at);
	memcpy(copy + at, wallrec, len);
	memcpy(copy + at + len, data + at, size - at);
	fix_checksum(copy, size + len);
	expect_refusal(copy, size + len, "a wall record in a version 1 file");
	free(copy);
	free(data);
	free(wallrec);

	/* the refusals are one line */
	wall_profile(&p);
	wall_stacks[1].frames = at_app;
	wall_stacks[1].depth = 2;
	data = encoded(&p, &size);
	assert_null(profil_profile_parse(data, size, cause, sizeof cause));
	assert_null(strchr(cause, '\n'));
	free(data);
}

/*
 * Kept source lines (a JIT runtime's, tag 10) come back as written, and
 * each way they can be wrong is refused with a cause: a file index out of
 * range, a line 0, lines out of order or twice at one address, a line of
 * no object of the profile.
 */
static char *line_files_[] = { "gen.js", "lib.js" };

static void
lines_profile(struct profil_profile *p, struct profil_object o[2],
    struct profil_thread t[2], struct profil_process *pr,
    struct profil_line *l)
{
	sample_profile(p, o, t, pr);
	l[0] = (struct profil_line){ 0, 0, 0x1000, 10 };
	l[1] = (struct profil_line){ 0, 1, 0x1004, 7 };
	l[2] = (struct profil_line){ 1, 0, 0x20000, 12 };
	p->nline_files = 2;
	p->line_files = line_files_;
	p->nlines = 3;
	p->lines = l;
}

static void
expect_lines_refusal(const struct profil_profile *p, const char *words)
{
	size_t size;
	void *data = encoded(p, &size);

	expect_refusal(data, size, words);
	free(data);
}

static void
test_lines_record(void **state)
{
	struct profil_profile p, *q;
	struct profil_object o[2];
	struct profil_thread t[2];
	struct profil_process pr;
	struct profil_line l[3];
	char cause[256] = "";
	size_t size;
	void *data;

	(void)state;
	lines_profile(&p, o, t, &pr, l);
	data = encoded(&p, &size);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_int_equal(q->nline_files, 2);
	assert_string_equal(q->line_files[1], "lib.js");
	assert_int_equal(q->nlines, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(q->lines[i].object, l[i].object);
		assert_int_equal(q->lines[i].file, l[i].file);
		assert_true(q->lines[i].addr == l[i].addr);
		assert_int_equal(q->lines[i].line, l[i].line);
	}
	profil_profile_free(q);
	free(data);

	lines_profile(&p, o, t, &pr, l);
	l[1].file = 2;
	expect_lines_refusal(&p, "bad line");
	lines_profile(&p, o, t, &pr, l);
	l[2].line = 0;
	expect_lines_refusal(&p, "bad line");
	lines_profile(&p, o, t, &pr, l);
	l[1].addr = 0x1000;	/* twice at one address */
	expect_lines_refusal(&p, "lines out of order");
	lines_profile(&p, o, t, &pr, l);
	l[1] = l[2], l[2] = (struct profil_line){ 0, 0, 0x2000, 3 };
	expect_lines_refusal(&p, "lines out of order");
	lines_profile(&p, o, t, &pr, l);
	l[2].object = 2;	/* there are two objects */
	expect_lines_refusal(&p, "a kept source line belongs to no object");
}

/*
 * The fp frames record: the frames whose callers were found by frame
 * pointer come back as written; indices out of order, or past the
 * frames of the stacks, are refused.
 */
static void
test_fp_frames_record(void **state)
{
	struct profil_profile p, *q;
	uint32_t fp[2] = { 0, 2 };
	char cause[256] = "";
	size_t size;
	void *data;

	(void)state;
	wall_profile(&p);
	p.nfp_frames = 2;
	p.fp_frames = fp;
	data = encoded(&p, &size);
	q = profil_profile_parse(data, size, cause, sizeof cause);
	if (q == NULL)
		fail_msg("parse: %s", cause);
	assert_int_equal(q->nfp_frames, 2);
	assert_int_equal(q->fp_frames[0], 0);
	assert_int_equal(q->fp_frames[1], 2);
	profil_profile_free(q);
	free(data);

	fp[0] = 2;	/* twice the same */
	data = encoded(&p, &size);
	expect_refusal(data, size, "fp frames out of order");
	free(data);
	fp[0] = 0;
	fp[1] = (uint32_t)p.nframes;	/* one past the last */
	data = encoded(&p, &size);
	expect_refusal(data, size, "no frame of the stacks");
	free(data);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_size_follows_hits_not_range),
		cmocka_unit_test(test_every_truncation_is_refused),
		cmocka_unit_test(test_damage_is_refused),
		cmocka_unit_test(test_counts_must_add_up),
		cmocka_unit_test(test_weights_record),
		cmocka_unit_test(test_save_is_atomic),
		cmocka_unit_test(test_save_failures_leave_no_trace),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_stack_sizes_checked_first),
		cmocka_unit_test(test_recursion_encodes_in_linear_time),
		cmocka_unit_test(test_wall_round_trip),
		cmocka_unit_test(test_cpu_profile_stays_version_1),
		cmocka_unit_test(test_wall_refusals),
		cmocka_unit_test(test_lines_record),
		cmocka_unit_test(test_fp_frames_record),
		cmocka_unit_test(test_refused_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
