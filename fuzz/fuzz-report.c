/*
 * fuzz-report.c - the report side fed any .prf the reader accepts: the
 * folding into functions (cli/model/funcs.c, with the symbol tables of whatever
 * files the objects name), every view of `profil report` in every format
 * (cli/report/, printed to /dev/null; the HTML page with its flame graph
 * of the stacks; the call tree, callers and callees, the flat view
 * with its inclusive column, and the timeline), the stacks named by function
 * (cli/model/stacks.c, with and without inlines) and exported folded,
 * the pprof export (flat, and of the call stacks when there are any),
 * the merge of the profile with itself and windows of its timeline
 * (cli/profile/window.c).  The rows and the folded lines must account
 * for every sample, a merged profile must be one the reader accepts, its
 * stacks and timeline twice the input's, and so must a window, the whole timeline's
 * with every sample.  An input refused only for its checksum is read
 * with the checksum made right.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <profil.h>

#include "export/folded.h"
#include "export/pprof.h"
#include "model/funcs.h"
#include "model/stacks.h"
#include "fuzz.h"
#include "profile/merge.h"
#include "profile/window.h"
#include "report/report.h"
#include "report/table.h"
#include "report/timeline-view.h"

static char dir[64], page[96];
static int null_fd, stdout_fd;	/* /dev/null, and where stdout was */

static void
remove_files(void)
{
	unlink(page);
	rmdir(dir);
}

/* stdin is /dev/null; so is stdout while an input is reported on. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	snprintf(dir, sizeof dir, "/tmp/profil-fuzz-report.XXXXXX");
	if (mkdtemp(dir) == NULL)
		fuzz_fail("cannot make a directory in /tmp");
	snprintf(page, sizeof page, "%s/page.html", dir);
	atexit(remove_files);
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	stdout_fd = dup(1);
	if (null_fd < 0 || stdout_fd < 0 || dup2(null_fd, 0) < 0)
		fuzz_fail("cannot open /dev/null");
	return 0;
}

/* Every sample in exactly one row; rows point at real objects. */
static void
check_rows(const struct profil_profile *p, const struct funcs *f)
{
	unsigned __int128 sum = 0;

	for (size_t i = 0; i < f->nrows; i++) {
		const struct func_row *r = &f->rows[i];

		if (r->object_index != FUNC_NO_OBJECT && r->object_index >= p->nobjects)
			fuzz_fail("row %zu: object %zu of %zu", i, r->object_index,
			    p->nobjects);
		if (r->samples == 0 || r->start > r->end)
			fuzz_fail("row %zu (%s): %llu samples in [%#llx, %#llx)", i,
			    r->function, (unsigned long long)r->samples,
			    (unsigned long long)r->start, (unsigned long long)r->end);
		sum += r->samples;
	}
	if (sum != p->samples)
		fuzz_fail("rows hold %llu samples, the profile %llu",
		    (unsigned long long)sum, (unsigned long long)p->samples);
}

static void
views(const struct profil_profile *p, struct funcs *f, int format)
{
	struct report_options o = {
		.format = format, .sort = SORT_SAMPLES, .min_percent = 0,
		.limit = -1,
		.style = { format == FORMAT_TEXT ? 60 : 0, 0, NULL },
		.caption = "fuzz",
	};
	char cause[256];

	report_flat(p, f, NULL, &o);
	report_objects(p, &o);
	report_threads(p, &o);
	report_processes(p, &o);
	cause[0] = '\0';
	if (report_histogram(p, f, &o, cause, sizeof cause) < 0 && !cause[0])
		fuzz_fail("histogram refused without a cause");
	if (f->nrows > 0) {
		o.target = f->rows[0].function;
		cause[0] = '\0';
		if (report_annotate(p, f, &o, cause, sizeof cause) < 0 && !cause[0])
			fuzz_fail("annotate refused without a cause");
		o.target = f->rows[f->nrows - 1].object;
		o.limit = 7;
		if (report_histogram(p, f, &o, cause, sizeof cause) < 0 && !cause[0])
			fuzz_fail("histogram refused without a cause");
	}
	o.sort = SORT_FUNCTION;
	o.min_percent = 1;
	o.limit = 3;
	report_flat(p, f, NULL, &o);
}

/*
 * The views of the call stacks in one format: the flat view with its
 * inclusive column, the call tree, and the callers and callees of the
 * busiest function and of the leaf of the first stack (a refusal must say
 * why: a profile without stacks, a function in none).
 */
static void
stack_views(const struct profil_profile *p, struct funcs *f,
    const struct stacks *s, int format)
{
	struct report_options o = {
		.format = format, .sort = SORT_SAMPLES, .min_percent = -1,
		.limit = -1,
		.style = { format == FORMAT_TEXT ? 60 : 0, 0, NULL },
		.caption = "fuzz",
	};
	const char *targets[2] = { NULL, NULL };
	uint32_t leaf[STACKS_MAX_DEPTH];
	char cause[256];

	report_flat(p, f, s, &o);
	cause[0] = '\0';
	if (report_tree(p, s, &o, cause, sizeof cause) < 0 && !cause[0])
		fuzz_fail("tree refused without a cause");
	o.min_percent = 0;
	if (report_tree(p, s, &o, cause, sizeof cause) < 0 && !cause[0])
		fuzz_fail("tree refused without a cause");
	/* the timeline and its phases: refused with a cause when none */
	cause[0] = '\0';
	if (report_timeline(p, s, &o, cause, sizeof cause) < 0 && !cause[0])
		fuzz_fail("timeline refused without a cause");
	if (f->nrows > 0)
		targets[0] = f->rows[0].function;
	if (p->nstacks > 0 && stacks_funcs_of(s, &p->stacks[0], leaf,
	    STACKS_MAX_DEPTH) > 0)
		targets[1] = s->funcs[leaf[0]].function;
	for (int t = 0; t < 2; t++)
		for (int callees = 0; targets[t] != NULL && callees < 2; callees++) {
			o.target = targets[t];
			cause[0] = '\0';
			if (report_calls(p, s, &o, callees, cause, sizeof cause) < 0 &&
			    !cause[0])
				fuzz_fail("%s refused without a cause", callees ?
				    "callees" : "callers");
		}
}

/*
 * p's stacks named (inlined functions as frames of their own or not),
 * every function of every stack a real one, and folded: lines
 * "a;b;c COUNT" whose counts add up to the samples (with stacks; without,
 * each function is a line of its own, and they add up as the rows do).
 */
static void
check_stacks(const struct profil_profile *p, struct funcs *f, int flags)
{
	static uint32_t funcs[STACKS_MAX_DEPTH];
	struct stacks s;
	unsigned __int128 sum = 0;
	char *text = NULL, *line;
	size_t size = 0;
	FILE *out;

	stacks_name(&s, p, f, flags);
	for (size_t i = 0; i < p->nstacks; i++) {
		size_t depth = stacks_funcs_of(&s, &p->stacks[i], funcs,
		    STACKS_MAX_DEPTH);

		if (depth < p->stacks[i].depth && depth < STACKS_MAX_DEPTH)
			fuzz_fail("stack %zu: %zu frames named as %zu functions", i,
			    p->stacks[i].depth, depth);
		for (size_t d = 0; d < depth; d++)
			if (funcs[d] >= s.nfuncs)
				fuzz_fail("stack %zu: function %u of %zu", i, funcs[d],
				    s.nfuncs);
	}
	if ((out = open_memstream(&text, &size)) == NULL)
		abort();
	if (export_folded(&s, f, out) < 0)
		fuzz_fail("folded export failed");
	fclose(out);
	for (line = text; *line; ) {
		char *end = strchr(line, '\n'), *space;
		unsigned long long count;

		if (end == NULL)
			fuzz_fail("a folded line without its newline");
		*end = '\0';
		space = strrchr(line, ' ');
		if (space == NULL || sscanf(space, " %llu", &count) != 1 ||
		    count == 0)
			fuzz_fail("a folded line without a count: %s", line);
		sum += count;
		line = end + 1;
	}
	if (sum != p->samples)
		fuzz_fail("folded lines hold %llu samples, the profile %llu",
		    (unsigned long long)sum, (unsigned long long)p->samples);
	free(text);
	stacks_free(&s);
}

/*
 * The timeline of p merged with itself: p's slices, entries no more
 * numerous than p's (stacks written twice in p are one in the sum),
 * holding twice p's.
 */
static void
check_merged_timeline(const struct profil_profile *p,
    const struct profil_profile *sum)
{
	unsigned __int128 in = 0, out = 0;

	if (sum->slice_ns != p->slice_ns || sum->nslices != p->nslices ||
	    sum->ntimeline > p->ntimeline)
		fuzz_fail("merged: %zu entries in %llu slices of %llu ns, of %zu "
		    "in %llu of %llu", sum->ntimeline,
		    (unsigned long long)sum->nslices,
		    (unsigned long long)sum->slice_ns, p->ntimeline,
		    (unsigned long long)p->nslices,
		    (unsigned long long)p->slice_ns);
	for (size_t i = 0; i < p->ntimeline; i++)
		in += p->timeline[i].value;
	for (size_t i = 0; i < sum->ntimeline; i++)
		out += sum->timeline[i].value;
	if (out != 2 * in)
		fuzz_fail("merged: a timeline of %llu of 2 x %llu",
		    (unsigned long long)out, (unsigned long long)in);
}

/*
 * p merged with itself: twice the samples, in a profile the reader takes;
 * its stacks (if p has some) twice p's, in no more stacks than p's, and
 * its timeline (if p has one) twice p's in p's slices.
 */
static void
check_merge(const struct profil_profile *p)
{
	struct profil_profile *const in[2] = { (struct profil_profile *)p,
	    (struct profil_profile *)p };
	const char *const names[2] = { "a.prf", "b.prf" };
	struct profil_profile *sum, *back;
	unsigned __int128 stack_samples = 0;
	char cause[256] = "";
	void *data;
	size_t size;

	/* (refused with a cause for no objects, odd bucket sizes, overflow) */
	if (merge_profiles(in, names, 2, &sum, NULL, cause, sizeof cause) < 0) {
		if (cause[0] == '\0')
			fuzz_fail("merge refused without a cause");
		return;
	}
	if (sum->samples != 2 * p->samples || sum->lost != 2 * p->lost)
		fuzz_fail("merged: %llu samples of 2 x %llu",
		    (unsigned long long)sum->samples,
		    (unsigned long long)p->samples);
	if ((sum->nstacks > 0) != (p->nstacks > 0) || sum->nstacks > p->nstacks)
		fuzz_fail("merged: %zu stacks of %zu", sum->nstacks, p->nstacks);
	for (size_t i = 0; i < sum->nstacks; i++)
		stack_samples += sum->stacks[i].count;
	if (sum->nstacks > 0 && stack_samples != 2 * (unsigned __int128)p->samples)
		fuzz_fail("merged: stacks of %llu samples of 2 x %llu",
		    (unsigned long long)stack_samples,
		    (unsigned long long)p->samples);
	check_merged_timeline(p, sum);
	if (profil_profile_encode(sum, &data, &size) < 0)
		fuzz_fail("a merged profile does not encode");
	back = profil_profile_parse(data, size, cause, sizeof cause);
	if (back == NULL)
		fuzz_fail("a merged profile is refused: %s", cause);
	profil_profile_free(back);
	profil_profile_free(sum);
	free(data);
}

/*
 * Windows of p's timeline, its middle third and the whole: profiles the
 * reader takes, the middle's samples no more than p's, the whole's all.
 */
static void
check_window(const struct profil_profile *p)
{
	const uint64_t cut[2][2] = { { p->nslices / 3, p->nslices -
	    p->nslices / 3 }, { 0, p->nslices } };
	struct profil_profile *w, *back;
	char cause[256] = "";
	void *data;
	size_t size;

	for (int k = 0; k < 2 && p->slice_ns > 0; k++) {
		if (cut[k][0] >= cut[k][1])
			continue;
		if ((w = profile_window(p, cut[k][0], cut[k][1])) == NULL)
			fuzz_fail("no window of slices %llu..%llu of %llu",
			    (unsigned long long)cut[k][0],
			    (unsigned long long)cut[k][1],
			    (unsigned long long)p->nslices);
		if (w->samples > p->samples || (k == 1 && w->samples != p->samples))
			fuzz_fail("a window of slices %llu..%llu has %llu "
			    "samples of %llu", (unsigned long long)cut[k][0],
			    (unsigned long long)cut[k][1],
			    (unsigned long long)w->samples,
			    (unsigned long long)p->samples);
		if (profil_profile_encode(w, &data, &size) < 0)
			fuzz_fail("a window does not encode");
		back = profil_profile_parse(data, size, cause, sizeof cause);
		if (back == NULL)
			fuzz_fail("a window is refused: %s", cause);
		profil_profile_free(back);
		profil_profile_free(w);
		free(data);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char cause[256];
	struct profil_profile *p = profil_profile_parse(data, size, cause,
	    sizeof cause);
	uint8_t *fixed;
	struct funcs f;
	struct stacks s;
	struct pbuf pprof;

	if (p == NULL && (fixed = fuzz_fix_checksum(data, size)) != NULL) {
		p = profil_profile_parse(fixed, size, cause, sizeof cause);
		free(fixed);
	}
	if (p == NULL)
		return 0;
	funcs_build(&f, p, NULL);
	check_rows(p, &f);
	fflush(stdout);
	dup2(null_fd, 1);
	views(p, &f, FORMAT_TEXT);
	views(p, &f, FORMAT_CSV);
	views(p, &f, FORMAT_JSON);
	stacks_name(&s, p, &f, STACKS_INLINES | STACKS_NO_LINES);
	stack_views(p, &f, &s, FORMAT_TEXT);
	stack_views(p, &f, &s, FORMAT_CSV);
	stack_views(p, &f, &s, FORMAT_JSON);
	fflush(stdout);
	dup2(stdout_fd, 1);
	if (report_html(p, p, &f, &s, page, cause, sizeof cause) < 0)
		fuzz_fail("no page: %s", cause);
	stacks_free(&s);
	check_stacks(p, &f, 0);
	check_stacks(p, &f, STACKS_INLINES);
	pprof = (struct pbuf){ NULL, 0, 0 };
	export_pprof_encode(p, &f, NULL, &pprof);	/* the flat profile's */
	pbuf_free(&pprof);
	if (p->nstacks > 0) {	/* and the stacks' */
		stacks_name(&s, p, &f, STACKS_INLINES);
		pprof = (struct pbuf){ NULL, 0, 0 };
		export_pprof_encode(p, &f, &s, &pprof);
		pbuf_free(&pprof);
		stacks_free(&s);
	}
	check_merge(p);
	check_window(p);
	funcs_free(&f);
	profil_profile_free(p);
	return 0;
}

const char *
fuzz_expect(const char *name, const uint8_t *data, size_t size)
{
	char cause[256];
	struct profil_profile *p = profil_profile_parse(data, size, cause,
	    sizeof cause);

	profil_profile_free(p);
	if (strncmp(name, "ok-", 3) == 0 && p == NULL)
		return "a valid profile is refused";
	return NULL;
}
