/*
 * pprof.c - a profile as pprof's profile.proto (pprof.h): the Profile
 * message around the Samples of the stacks (pprof-stacks.c) or of the
 * flat profile (pprof-flat.c), and the file it is written to, gzipped.
 * Either way the samples/count values must add up to p->samples, which
 * is what the tools show as the total.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "cli.h"
#include "outfile.h"
#include "pprof-internal.h"

/* A ValueType message {type, unit} as field of out. */
static void
add_value_type(struct pprof_builder *b, struct pbuf *out, unsigned field,
    const char *type, const char *unit)
{
	pbuf_reset(&b->msg);
	pbuf_int(&b->msg, VALUE_TYPE_TYPE,
	    (int64_t)intern_add(&b->strings, type, NULL));
	pbuf_int(&b->msg, VALUE_TYPE_UNIT,
	    (int64_t)intern_add(&b->strings, unit, NULL));
	pbuf_message(out, field, &b->msg);
}

/* Free-form comments: the profiled command, the engine, lost samples. */
static void
add_comments(struct pprof_builder *b, struct pbuf *out)
{
	const struct profil_profile *p = b->p;
	size_t len = sizeof "command:" + sizeof "engine: " + strlen(p->engine);
	char *s, lost[64];
	uint64_t ids[3];
	size_t n = 0;

	for (int i = 0; i < p->argc; i++)
		len += strlen(p->argv[i]) + 1;
	s = xmalloc(len);
	strcpy(s, "command:");
	for (int i = 0; i < p->argc; i++)
		strcat(strcat(s, " "), p->argv[i]);
	ids[n++] = intern_add(&b->strings, s, NULL);
	sprintf(s, "engine: %s", p->engine);
	ids[n++] = intern_add(&b->strings, s, NULL);
	free(s);
	if (p->lost > 0) {
		snprintf(lost, sizeof lost, "lost samples: %llu (not in the totals)",
		    (unsigned long long)p->lost);
		ids[n++] = intern_add(&b->strings, lost, NULL);
	}
	pbuf_packed(out, PROFILE_COMMENT, ids, n);
}

int
export_pprof_encode(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, struct pbuf *out)
{
	struct pprof_builder b = { .p = p, .nvalues = p->wall != NULL ? 3 : 2 };
	struct pbuf head = { 0 };
	int rc;

	if (p->interval_ns == 0 || p->interval_ns > INT64_MAX ||
	    p->start_ns < 0 || p->duration_ns > INT64_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	intern_add(&b.strings, "", NULL);
	add_value_type(&b, &head, PROFILE_SAMPLE_TYPE, "samples", "count");
	add_value_type(&b, &head, PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
	if (p->wall != NULL)
		add_value_type(&b, &head, PROFILE_SAMPLE_TYPE, "wall",
		    "nanoseconds");
	rc = s != NULL && p->nstacks > 0 ? pprof_add_stacks(&b, f, s) :
	    pprof_add_flat(&b, f);
	if (rc == 0) {
		pbuf_append(out, &head);
		pbuf_append(out, &b.samples);
		pbuf_append(out, &b.mappings);
		pbuf_append(out, &b.locations);
		for (size_t i = 0; i < b.nfuncs; i++) {
			const struct pprof_function *fn = &b.funcs[i];

			pbuf_reset(&b.msg);
			pbuf_uint(&b.msg, FUNCTION_ID, i + 1);
			pbuf_int(&b.msg, FUNCTION_NAME, (int64_t)fn->name);
			pbuf_int(&b.msg, FUNCTION_SYSTEM_NAME, (int64_t)fn->system_name);
			pbuf_int(&b.msg, FUNCTION_FILENAME, (int64_t)fn->filename);
			pbuf_int(&b.msg, FUNCTION_START_LINE, fn->start_line);
			pbuf_message(out, PROFILE_FUNCTION, &b.msg);
		}
		/* every string is in the table by now: the comments go first */
		pbuf_reset(&head);
		add_comments(&b, &head);
		add_value_type(&b, &head, PROFILE_PERIOD_TYPE, "cpu", "nanoseconds");
		pbuf_int(&head, PROFILE_DEFAULT_SAMPLE_TYPE,
		    (int64_t)intern_add(&b.strings, p->wall != NULL ? "wall" :
		    "cpu", NULL));
		for (size_t i = 0; i < b.strings.n; i++)
			pbuf_string(out, PROFILE_STRING_TABLE, b.strings.strs[i]);
		pbuf_int(out, PROFILE_TIME_NANOS, p->start_ns);
		pbuf_int(out, PROFILE_DURATION_NANOS, (int64_t)p->duration_ns);
		pbuf_int(out, PROFILE_PERIOD, (int64_t)p->interval_ns);
		pbuf_append(out, &head);
	}
	intern_free(&b.strings);
	free(b.funcs);
	pbuf_free(&head);
	pbuf_free(&b.samples);
	pbuf_free(&b.mappings);
	pbuf_free(&b.locations);
	pbuf_free(&b.msg);
	pbuf_free(&b.line);
	return rc;
}

static int
write_all(int fd, const unsigned char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* data gzip-compressed into fd; 0, or -1 with errno. */
static int
write_gzip(int fd, const unsigned char *data, size_t len)
{
	unsigned char chunk[65536];
	z_stream z;
	int flush, rc;

	memset(&z, 0, sizeof z);
	/* windowBits 15 + 16: a gzip header and trailer around the stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK) {
		errno = ENOMEM;
		return -1;
	}
	do {
		size_t in = len > (1u << 30) ? (1u << 30) : len;

		z.next_in = (Bytef *)data;
		z.avail_in = (uInt)in;
		data += in;
		len -= in;
		flush = len == 0 ? Z_FINISH : Z_NO_FLUSH;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof chunk;
			rc = deflate(&z, flush);
			if (write_all(fd, chunk, sizeof chunk - z.avail_out) < 0) {
				int saved = errno;

				deflateEnd(&z);
				errno = saved;
				return -1;
			}
		} while (z.avail_out == 0);
	} while (flush != Z_FINISH);
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int
export_pprof_save(const struct profil_profile *p, const struct funcs *f,
    const struct stacks *s, const char *path, char *cause, size_t cause_size)
{
	struct pbuf msg = { 0 };
	struct outfile of;
	int rc;

	if (export_pprof_encode(p, f, s, &msg) < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		pbuf_free(&msg);
		return -1;
	}
	if (strcmp(path, "-") == 0) {
		rc = write_gzip(STDOUT_FILENO, msg.data, msg.len);
		if (rc < 0)
			snprintf(cause, cause_size, "standard output: %s",
			    strerror(errno));
		pbuf_free(&msg);
		return rc;
	}
	if (outfile_open(&of, path, OUTFILE_GZIP, cause, cause_size) < 0) {
		pbuf_free(&msg);
		return -1;
	}
	if (write_gzip(of.file.fd, msg.data, msg.len) < 0) {
		snprintf(cause, cause_size, "%s: %s", path, strerror(errno));
		outfile_abort(&of, NULL);
		rc = -1;
	} else {
		rc = outfile_commit(&of, NULL, cause, cause_size);
	}
	pbuf_free(&msg);
	return rc;
}
