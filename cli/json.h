/*
 * json.h - a JSON string as the command writes one: report --format
 * json's cells (report/table.c), the HTML page's flame graph data
 * (report/flame.c) and the speedscope export (export/speedscope.c).
 */
#ifndef PROFIL_JSON_H
#define PROFIL_JSON_H

#include <stdio.h>

/*
 * s as a JSON string, quoted, on fp: " and \ escaped, control characters
 * as \u escapes.  With JSON_IN_SCRIPT, < > & as \u escapes too, so that
 * the string is also safe as the text of an HTML <script> element: no
 * name can close the element or look like markup (C++ names are full of
 * them).
 */
#define JSON_IN_SCRIPT	1
void json_string(FILE *fp, const char *s, int flags);

#endif
