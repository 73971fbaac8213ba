/*
 * objects.c - the objects view of `profil report`: the program, each
 * library, the kernel, unknown code and lost samples, with their shares
 * of samples + lost.  Machine columns are documented in profil.1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile/wall-view.h"
#include "report.h"
#include "symbols/offcpu.h"
#include "table.h"

static const struct col object_cols[] = {
	{ "object", "object", COL_STR },
	{ "path", "path", COL_STR },
	{ "samples", "samples", COL_INT },
	{ "percent", "%", COL_PCT },
	{ "error95", "95%", COL_ERR },
	{ "seconds", "seconds", COL_SEC },
};
static const int object_text[] = { 3, 4, 5, 2, 0, 1, -1 };

struct object_share *
report_object_shares(const struct profil_profile *p, size_t *count)
{
	struct object_share *v = xcalloc(p->nobjects + 3, sizeof *v);
	size_t n = 0, i, j;

	for (i = 0; i < p->nobjects; i++)
		v[n++] = (struct object_share){ funcs_base_name(p->objects[i].path),
		    p->objects[i].path, p->objects[i].samples };
	v[n++] = (struct object_share){ "[kernel]", "", p->kernel };
	v[n++] = (struct object_share){ "[unknown]", "", p->unknown };
	v[n++] = (struct object_share){ "[lost]", "", p->lost };
	for (i = 1; i < n; i++)	/* insertion sort by samples, few rows */
		for (j = i; j > 0 && v[j].n > v[j - 1].n; j--) {
			struct object_share tmp = v[j];
			v[j] = v[j - 1];
			v[j - 1] = tmp;
		}
	*count = n;
	return v;
}

/*
 * Objects: the program, each library, the kernel, unknown code and lost
 * samples, as shares of every sample taken (lost included).
 */
void
report_objects(const struct profil_profile *p, const struct report_options *o)
{
	uint64_t total = p->samples + p->lost;
	size_t n, i;
	struct object_share *v = report_object_shares(p, &n);
	struct table t;
	long off_obj = wall_view_object(p);

	/*
	 * A wall view: PROFIL's "I/O system and DOS" counters grown up, the
	 * time off the CPU by what it waited for, in place of one [off-cpu].
	 */
	if (off_obj >= 0) {
		static char names[OFFCPU_NKINDS][32];
		uint64_t kinds[OFFCPU_NKINDS] = { 0 };
		const struct profil_object *ob = &p->objects[off_obj];

		for (i = 0; i < ob->nbuckets; i++)
			kinds[offcpu_kind(ob->buckets[i].addr)] +=
			    ob->buckets[i].count;
		v = xrealloc(v, (n + OFFCPU_NKINDS) * sizeof *v);
		for (i = 0; i < n && strcmp(v[i].path, WALL_VIEW_OBJECT) != 0; i++)
			;
		if (i < n)
			memmove(&v[i], &v[i + 1], (--n - i) * sizeof *v);
		for (int k = 0; k < OFFCPU_NKINDS; k++) {
			size_t j = n++;

			snprintf(names[k], sizeof names[k], "[off-cpu: %s]",
			    offcpu_kind_name(k));
			v[j] = (struct object_share){ names[k], "", kinds[k] };
			for (; j > 0 && v[j].n > v[j - 1].n; j--) {
				struct object_share tmp = v[j];

				v[j] = v[j - 1];
				v[j - 1] = tmp;
			}
		}
	}

	table_init(&t, object_cols, 6);
	for (i = 0; i < n; i++) {
		union cell *c;

		if (v[i].n == 0 && (o->format == FORMAT_TEXT || v[i].path[0] == 0))
			continue;
		if (report_percent(v[i].n, total) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = v[i].name;
		c[1].s = v[i].path;
		c[2].i = (int64_t)v[i].n;
		c[3].d = report_percent(v[i].n, total);
		c[4].d = table_error95(v[i].n, total);
		c[5].d = (double)v[i].n * (double)p->interval_ns / 1e9;
	}
	table_print(&t, o->format, object_text, o->caption);
	table_free(&t);
	free(v);
}
