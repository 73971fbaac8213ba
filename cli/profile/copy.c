/*
 * copy.c - a deep copy of a profile (copy.h), made field by field.
 * Invariant: the copy shares no pointer with the original, so that
 * freeing or changing one never touches the other; a field added to
 * struct profil_profile that points to memory is copied here too.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "copy.h"

/* n elements of size bytes at v, in memory of their own; NULL for none. */
static void *
dup_array(const void *v, size_t n, size_t size)
{
	void *c;

	if (v == NULL || n == 0)
		return NULL;
	c = xcalloc(n, size);
	memcpy(c, v, n * size);
	return c;
}

static char *
dup_string(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

static void
copy_object(struct profil_object *c, const struct profil_object *o)
{
	*c = *o;
	c->path = dup_string(o->path);
	c->buckets = dup_array(o->buckets, o->nbuckets, sizeof *o->buckets);
}

/* The arrays of strings and of records with strings in them. */
static void
copy_named(struct profil_profile *q, const struct profil_profile *p)
{
	q->argv = p->argv != NULL ? xcalloc((size_t)p->argc + 1,
	    sizeof *q->argv) : NULL;
	for (int i = 0; q->argv != NULL && i < p->argc; i++)
		q->argv[i] = dup_string(p->argv[i]);
	q->objects = dup_array(p->objects, p->nobjects, sizeof *p->objects);
	for (size_t i = 0; i < p->nobjects; i++)
		copy_object(&q->objects[i], &p->objects[i]);
	q->threads = dup_array(p->threads, p->nthreads, sizeof *p->threads);
	for (size_t i = 0; i < p->nthreads; i++)
		q->threads[i].name = dup_string(p->threads[i].name);
	q->processes = dup_array(p->processes, p->nprocesses,
	    sizeof *p->processes);
	for (size_t i = 0; i < p->nprocesses; i++)
		q->processes[i].command = dup_string(p->processes[i].command);
	q->symbols = dup_array(p->symbols, p->nsymbols, sizeof *p->symbols);
	for (size_t i = 0; i < p->nsymbols; i++)
		q->symbols[i].name = dup_string(p->symbols[i].name);
	q->line_files = dup_array(p->line_files, p->nline_files,
	    sizeof *p->line_files);
	for (size_t i = 0; i < p->nline_files; i++)
		q->line_files[i] = dup_string(p->line_files[i]);
}

struct profil_profile *
profile_copy(const struct profil_profile *p)
{
	struct profil_profile *q = xmalloc(sizeof *q);

	*q = *p;
	q->engine = dup_string(p->engine);
	copy_named(q, p);
	if (p->kernel_code != NULL) {
		q->kernel_code = xmalloc(sizeof *q->kernel_code);
		*q->kernel_code = *p->kernel_code;
		copy_object(&q->kernel_code->code, &p->kernel_code->code);
		q->kernel_code->release = dup_string(p->kernel_code->release);
	}
	q->lines = dup_array(p->lines, p->nlines, sizeof *p->lines);
	q->frames = dup_array(p->frames, p->nframes, sizeof *p->frames);
	q->fp_frames = dup_array(p->fp_frames, p->nfp_frames,
	    sizeof *p->fp_frames);
	q->stacks = dup_array(p->stacks, p->nstacks, sizeof *p->stacks);
	for (size_t i = 0; i < p->nstacks; i++)
		q->stacks[i].frames = dup_array(p->stacks[i].frames,
		    p->stacks[i].depth, sizeof *p->stacks[i].frames);
	q->wall = dup_array(p->wall, 1, sizeof *p->wall);
	q->timeline = dup_array(p->timeline, p->ntimeline,
	    sizeof *p->timeline);
	return q;
}

void
profile_drop_stacks(struct profil_profile *q, const unsigned char *drop)
{
	uint32_t *to = xcalloc(q->nstacks + 1, sizeof *to);
	size_t k = 0, n = 0;

	for (size_t i = 0; i < q->nstacks; i++) {
		if (drop[i]) {
			free(q->stacks[i].frames);
			continue;
		}
		to[i] = (uint32_t)k;
		q->stacks[k++] = q->stacks[i];
	}
	for (size_t i = 0; i < q->ntimeline; i++)
		if (!drop[q->timeline[i].stack]) {
			q->timeline[n] = q->timeline[i];
			q->timeline[n++].stack = to[q->timeline[i].stack];
		}
	q->nstacks = k;
	q->ntimeline = n;
	free(to);
}
