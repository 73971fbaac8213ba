/*
 * test-prf.c - the .prf format: what is written is read back the same,
 * its size following the code hit, not the range; every malformed file
 * is refused with a cause naming what and where, without first building
 * what a hostile stack tree describes; deep recursion encodes in linear
 * time; saving is atomic, never follows a symlink, makes a 0644 file
 * whatever the umask, and a save that fails late leaves the old file and
 * no temporary one.  The optional records are test-prfrecords.c's.
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

#include "prf-checks.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_size_follows_hits_not_range),
		cmocka_unit_test(test_every_truncation_is_refused),
		cmocka_unit_test(test_damage_is_refused),
		cmocka_unit_test(test_counts_must_add_up),
		cmocka_unit_test(test_save_is_atomic),
		cmocka_unit_test(test_save_failures_leave_no_trace),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_stack_sizes_checked_first),
		cmocka_unit_test(test_recursion_encodes_in_linear_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
