/*
 * prf-checks.c - what the tests of the .prf codec share (prf-checks.h): a
 * profile whose every field is known, encoded, and the reader's refusals
 * checked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include <profil.h>

#include "prf-checks.h"

struct profil_bucket exe_buckets[4] = {
	{ 0x1000, 5 }, { 0x1004, 7 }, { 0x2000, 1 }, { 0x9ffc, 1000000 },
};
static struct profil_bucket lib_buckets[] = {
	{ 0x20000, 3 }, { 0x20001, 4 }, { 0x20002, 5 }, { 0x20004, 6 },
};
char *argv_[4] = { "./app", "--flag", "", NULL };

void
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

void *
encoded(const struct profil_profile *p, size_t *size)
{
	void *data;

	assert_int_equal(profil_profile_encode(p, &data, size), 0);
	return data;
}

void
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
