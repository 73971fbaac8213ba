/*
 * prf-lines.c - the lines record (tag 10, docs/prf-format.md): source
 * lines the profile keeps for code whose file is not there to tell them
 * (generated code's, from a JIT runtime's jitdump file).
 *
 *     lines := nfiles:varint file:str{nfiles} n:varint line{n}
 *     line  := object:varint addr:varint file:varint line:varint
 */
#include <stdlib.h>

#include "codec/prf.h"
#include "codec/prf-internal.h"

void
prf_encode_lines(struct rio_out *out, const struct profil_profile *p)
{
	rio_put_varint(out, p->nline_files);
	for (size_t i = 0; i < p->nline_files; i++)
		rio_put_str(out, p->line_files[i]);
	rio_put_varint(out, p->nlines);
	for (size_t i = 0; i < p->nlines; i++) {
		const struct profil_line *l = &p->lines[i];

		rio_put_varint(out, l->object);
		rio_put_varint(out, l->addr);
		rio_put_varint(out, l->file);
		rio_put_varint(out, l->line);
	}
}

int
prf_decode_lines(struct decoder *d, struct rio_in *in, const char **why)
{
	struct profil_profile *p = d->p;
	uint64_t n = rio_get_varint(in);

	if (p->line_files != NULL || p->lines != NULL)
		return *why = "a second lines record", -1;
	/* a file name takes a byte at least, a line four */
	if (in->failed || n > rio_left(in))
		return *why = "truncated", -1;
	if ((p->line_files = calloc(n ? n : 1, sizeof *p->line_files)) == NULL)
		return *why = "out of memory", -1;
	for (uint64_t i = 0; i < n; i++) {
		p->line_files[i] = rio_get_str(in, PRF_MAX_PATH);
		if (in->failed || p->line_files[i] == NULL)
			return *why = "truncated", -1;
		p->nline_files++;
	}
	n = rio_get_varint(in);
	if (in->failed || n > rio_left(in) / 4)
		return *why = "truncated", -1;
	if ((p->lines = calloc(n ? n : 1, sizeof *p->lines)) == NULL)
		return *why = "out of memory", -1;
	for (uint64_t i = 0; i < n; i++) {
		struct profil_line *l = &p->lines[i];
		uint64_t object = rio_get_varint(in), addr = rio_get_varint(in);
		uint64_t file = rio_get_varint(in), line = rio_get_varint(in);

		if (in->failed)
			return *why = "truncated", -1;
		if (object > UINT32_MAX || file >= p->nline_files ||
		    line == 0 || line > INT32_MAX)
			return *why = "bad line", -1;
		*l = (struct profil_line){ (uint32_t)object, (uint32_t)file,
		    addr, (uint32_t)line };
		p->nlines++;
		if (i > 0 && (l[-1].object > l->object ||
		    (l[-1].object == l->object && l[-1].addr >= l->addr)))
			return *why = "lines out of order", -1;
	}
	return 0;
}
