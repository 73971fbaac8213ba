/*
 * json.c - JSON strings (json.h).  Invariant: every byte of s reaches
 * the output, as itself or escaped; UTF-8 passes through unchanged.
 */
#include "json.h"

void
json_string(FILE *fp, const char *s, int flags)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || ((flags & JSON_IN_SCRIPT) &&
		    (c == '<' || c == '>' || c == '&')))
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}
