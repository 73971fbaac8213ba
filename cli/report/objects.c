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
#include "share.h"
#include "symbols/offcpu.h"
#include "table.h"

/*
 * The object's name is never cut ("[off-cpu: runnable]" cut to
 * "[off-cpu: run..." says nothing): the path gives way instead.
 */
static const struct col object_cols[] = {
	{ "object", "object", COL_WORDS },
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
 * samples, as shares of every sample taken (lost included).  A wall
 * view's [off-cpu] is split by what it waited for, each kind a row of
 * time, not code; its samples column counts CPU samples, its seconds
 * the time.
 */
void
report_objects(const struct profil_profile *p, const struct report_options *o)
{
	static char names[OFFCPU_NKINDS][32];	/* the kinds' rows' names */
	size_t n, i;
	struct object_share *v = report_object_shares(p, &n);
	struct share_part *parts, all;
	struct share_basis b;
	struct table t;
	long off_obj = wall_view_object(p);
	double interval_s = (double)p->interval_ns / 1e9;

	share_basis_init(&b, p);
	share_part_init(&all, SHARE_TIME);
	share_part_all(&b, &all);
	share_part_cpu(&all, p->lost);
	/*
	 * A wall view: PROFIL's "I/O system and DOS" counters grown up, the
	 * time off the CPU by what it waited for, in place of one [off-cpu].
	 */
	if (off_obj >= 0) {
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
	/* each row's part: the samples in its code, or its kind's stacks */
	parts = xcalloc(n + 1, sizeof *parts);
	for (i = 0; i < n; i++) {
		int kind = -1;

		for (int k = 0; off_obj >= 0 && k < OFFCPU_NKINDS; k++)
			if (v[i].name == names[k])
				kind = k;
		if (kind < 0) {
			share_part_init(&parts[i], SHARE_CODE);
			share_part_cpu(&parts[i], v[i].n);
			continue;
		}
		share_part_init(&parts[i], SHARE_TIME);
		for (size_t st = 0; st < p->nstacks; st++)
			if (share_stack_offcpu(&b, st) && offcpu_kind(p->frames[
			    p->stacks[st].frames[0]].addr) == kind)
				share_part_stack(&b, &parts[i], st);
	}

	table_init(&t, object_cols, 6);
	for (i = 0; i < n; i++) {
		union cell *c;

		if (v[i].n == 0 && (o->format == FORMAT_TEXT || v[i].path[0] == 0))
			continue;
		if (share_percent(&parts[i], &all) < o->min_percent)
			continue;
		if (o->limit >= 0 && (long)t.nrows >= o->limit)
			break;
		c = table_row(&t);
		c[0].s = v[i].name;
		c[1].s = v[i].path;
		c[2].i = (int64_t)parts[i].cpu;
		c[3].d = share_percent(&parts[i], &all);
		c[4].d = share_error95(&b, &parts[i], &all);
		c[5].d = (double)parts[i].amount * interval_s;
	}
	table_print(&t, o->format, object_text, o->caption, &o->style);
	table_free(&t);
	share_parts_free(parts, n);
	share_part_free(&all);
	share_basis_free(&b);
	free(v);
}
