/*
 * fuzz-prf.c - the .prf reader (lib/prf.c over lib/rio.c) fed anything:
 * it must return a profile or a non-empty cause, and a profile it accepts
 * must survive encoding: read back equal, and encoded again to the same
 * bytes.  Each input is also tried with its checksum made right, or
 * almost no mutation would get past it.
 */
#include <string.h>

#include <profil.h>

#include "fuzz.h"

static int
same_str(const char *a, const char *b)
{
	return (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
}

/* Which field of a and b differs, or NULL when the profiles are equal. */
static const char *
profile_difference(const struct profil_profile *a,
    const struct profil_profile *b)
{
	size_t i;

	if (a->interval_ns != b->interval_ns || a->bucket_bytes != b->bucket_bytes ||
	    a->start_ns != b->start_ns || a->duration_ns != b->duration_ns ||
	    a->cpu_ns != b->cpu_ns || a->samples != b->samples ||
	    a->kernel != b->kernel || a->unknown != b->unknown ||
	    a->lost != b->lost || !same_str(a->engine, b->engine))
		return "header";
	if (a->argc != b->argc)
		return "argc";
	for (i = 0; i < (size_t)a->argc; i++)
		if (!same_str(a->argv[i], b->argv[i]))
			return "argv";
	if (a->nobjects != b->nobjects)
		return "number of objects";
	for (i = 0; i < a->nobjects; i++) {
		const struct profil_object *x = &a->objects[i], *y = &b->objects[i];

		if (!same_str(x->path, y->path) || x->build_id_len != y->build_id_len ||
		    memcmp(x->build_id, y->build_id, x->build_id_len) != 0 ||
		    x->lowpc != y->lowpc || x->highpc != y->highpc ||
		    x->bucket_bytes != y->bucket_bytes || x->samples != y->samples)
			return "object";
		if (x->nbuckets != y->nbuckets || (x->nbuckets > 0 &&
		    memcmp(x->buckets, y->buckets, x->nbuckets * sizeof *x->buckets)))
			return "buckets";
	}
	if (a->nthreads != b->nthreads)
		return "number of threads";
	for (i = 0; i < a->nthreads; i++)
		if (a->threads[i].pid != b->threads[i].pid ||
		    a->threads[i].tid != b->threads[i].tid ||
		    a->threads[i].samples != b->threads[i].samples ||
		    !same_str(a->threads[i].name, b->threads[i].name))
			return "thread";
	if (a->nprocesses != b->nprocesses)
		return "number of processes";
	for (i = 0; i < a->nprocesses; i++)
		if (a->processes[i].pid != b->processes[i].pid ||
		    a->processes[i].ppid != b->processes[i].ppid ||
		    a->processes[i].exit_status != b->processes[i].exit_status ||
		    a->processes[i].samples != b->processes[i].samples ||
		    !same_str(a->processes[i].command, b->processes[i].command))
			return "process";
	return NULL;
}

/* Buckets sorted by address, non-empty, inside [lowpc, highpc). */
static void
check_buckets(const struct profil_object *o)
{
	for (size_t i = 0; i < o->nbuckets; i++) {
		const struct profil_bucket *b = &o->buckets[i];

		if (b->count == 0 || b->addr < o->lowpc || b->addr >= o->highpc ||
		    (i > 0 && b->addr <= o->buckets[i - 1].addr))
			fuzz_fail("%s: bucket %zu (%#llx) out of order or range",
			    o->path, i, (unsigned long long)b->addr);
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	return 0;
}

static void
check_input(const uint8_t *data, size_t size)
{
	struct profil_profile *p, *q;
	void *first, *second;
	size_t first_size, second_size;
	const char *diff;
	char cause[256] = "";

	p = profil_profile_parse(data, size, cause, sizeof cause);
	if (p == NULL) {
		if (cause[0] == '\0')
			fuzz_fail("refused without a cause");
		return;
	}
	for (size_t i = 0; i < p->nobjects; i++)
		check_buckets(&p->objects[i]);
	if (profil_profile_encode(p, &first, &first_size) < 0)
		fuzz_fail("an accepted profile does not encode");
	q = profil_profile_parse(first, first_size, cause, sizeof cause);
	if (q == NULL)
		fuzz_fail("an accepted profile, encoded, is refused: %s", cause);
	if ((diff = profile_difference(p, q)) != NULL)
		fuzz_fail("read back different: %s", diff);
	if (profil_profile_encode(q, &second, &second_size) < 0)
		fuzz_fail("a profile read back does not encode");
	if (second_size != first_size || memcmp(first, second, first_size) != 0)
		fuzz_fail("encoding is not stable: %zu bytes, then %zu",
		    first_size, second_size);
	free(first);
	free(second);
	profil_profile_free(p);
	profil_profile_free(q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fixed = fuzz_fix_checksum(data, size);

	check_input(data, size);
	if (fixed != NULL)
		check_input(fixed, size);
	free(fixed);
	return 0;
}

const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	static char why[320];
	char cause[256] = "";
	struct profil_profile *p = profil_profile_parse(data, size, cause,
	    sizeof cause);
	int accepted = p != NULL;

	profil_profile_free(p);
	if (strncmp(name, "ok-", 3) == 0 && !accepted) {
		snprintf(why, sizeof why, "a valid profile is refused: %s", cause);
		return why;
	}
	if (strncmp(name, "bad-", 4) == 0 && accepted)
		return "a malformed profile is accepted";
	return NULL;
}
