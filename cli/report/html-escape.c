/*
 * html-escape.c - text as the page writes it into its markup (html.h):
 * the characters HTML gives a meaning, as character references.  Below
 * the page's other files, which all write names with it.
 */
#include <stdio.h>

#include "html.h"

void
html_escape(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		case '\'': fputs("&#39;", fp); break;
		default: fputc(*s, fp);
		}
	}
}
