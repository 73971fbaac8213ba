/*
 * fpmarks.c - frames whose callers were found by frame pointer
 * (fpmarks.h): a set per kind of frame, by offset.
 */
#include <stdlib.h>

#include "cli.h"
#include "fpmarks.h"
#include "hmap.h"

/* one map per object that has such frames, and one for code in none */
static struct hmap *by_obj, unknown;
static size_t nobj, nmarked;

static struct hmap *
map_of(int obj, int grow)
{
	if (obj == BFRAME_UNKNOWN)
		return &unknown;
	if (obj < 0)
		return NULL;
	if ((size_t)obj >= nobj) {
		if (!grow)
			return NULL;
		by_obj = xrealloc(by_obj, ((size_t)obj + 1) * sizeof *by_obj);
		for (size_t i = nobj; i <= (size_t)obj; i++)
			hmap_init(&by_obj[i]);
		nobj = (size_t)obj + 1;
	}
	return &by_obj[obj];
}

void
fpmarks_add(const struct bframe *f)
{
	struct hmap *m = map_of(f->obj, 1);

	/* hmap's reserved key is no code address */
	if (m != NULL && f->value != UINT64_MAX && hmap_get(m, f->value) == 0) {
		hmap_add(m, f->value, 1);
		nmarked++;
	}
}

int
fpmarks_any(void)
{
	return nmarked > 0;
}

int
fpmarks_has(const struct bframe *f)
{
	const struct hmap *m = map_of(f->obj, 0);

	return m != NULL && f->value != UINT64_MAX && hmap_get(m, f->value) != 0;
}

void
fpmarks_clear(void)
{
	for (size_t i = 0; i < nobj; i++)
		hmap_free(&by_obj[i]);
	free(by_obj);
	by_obj = NULL;
	nobj = nmarked = 0;
	hmap_free(&unknown);
}
