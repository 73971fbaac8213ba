/*
 * builder-stacks.c - the builder's call stacks (builder-internal.h): each
 * frame numbered once, stacks in the tree of distinct stacks (the
 * codec's, lib/codec/stacktree.h) from the outermost frame in, counted by
 * (leaf node, thread); and at the end the profile's frames, sorted as the
 * format wants them, and its stacks, leaf first.
 */
#include <stdlib.h>

#include "builder-internal.h"
#include "cli.h"
#include "fpmarks.h"
#include "timeline.h"

void
builder_stacks(struct builder *b)
{
	b->stacks = 1;
}

void
builder_timeline(struct builder *b, uint64_t origin)
{
	if (b->tl == NULL)
		b->tl = timeline_new(origin);
}

struct timeline *
builder_timeline_of(struct builder *b)
{
	return b->tl;
}

void
builder_timeline_end(struct builder *b, uint64_t end)
{
	if (b->tl != NULL)
		timeline_extend(b->tl, end);
}

/* The frame number of (obj, addr): obj a builder object or BFRAME_*. */
static uint32_t
frame_of(struct builder *b, int obj, uint64_t addr)
{
	struct hmap *m = obj >= 0 ? &b->objects[obj].frames :
	    &b->special_frames[-1 - obj];
	uint64_t at = hmap_get(m, addr);

	if (at != 0)
		return (uint32_t)(at - 1);
	if (b->nframes == b->frames_cap) {
		b->frames_cap = b->frames_cap ? 2 * b->frames_cap : 1024;
		b->frames = xrealloc(b->frames, b->frames_cap * sizeof *b->frames);
	}
	b->frames[b->nframes] = (struct bfr){ obj, addr };
	hmap_add(m, addr, b->nframes + 1);
	return (uint32_t)b->nframes++;
}

/* The tree node of frames (leaf first), counted in the flat profile
   with weight at its leaf if count. */
static uint32_t
stack_node(struct builder *b, const struct bframe *frames, size_t n,
    int count, uint64_t weight, pid_t pid, pid_t tid)
{
	uint32_t node = STACKTREE_ROOT, fr;

	/* outermost in: the tree shares the callers stacks have in common */
	for (size_t i = n; i-- > 0;) {
		int obj = frames[i].obj;
		uint64_t addr = frames[i].value;

		if (obj >= 0) {
			addr = builder_link_address(&b->objects[obj],
			    frames[i].value);
			if (addr == UINT64_MAX) {
				obj = BFRAME_UNKNOWN;
				addr = frames[i].value;
			}
		}
		if (i == 0 && count) {	/* the leaf: the flat profile's sample */
			if (obj >= 0)
				builder_count_at(b, obj, addr, weight, pid,
				    tid);
			else if (obj == BFRAME_KERNEL)
				builder_kernel(b, addr, weight, pid, tid);
			else
				builder_unknown(b, weight, pid, tid);
		}
		fr = frame_of(b, obj, addr);
		if (fpmarks_any() && fpmarks_has(&frames[i]) &&
		    hmap_get(&b->fp_frames, fr) == 0)
			hmap_add(&b->fp_frames, fr, 1);
		if ((node = stacktree_node(&b->tree, node, fr)) ==
		    STACKTREE_ROOT)
			cli_die(1, "out of memory");
	}
	return node;
}

/* The builder's number for thread tid of pid. */
static uint32_t
thread_number(struct builder *b, pid_t pid, pid_t tid)
{
	builder_thread_of(b, pid, tid);
	return (uint32_t)(hmap_get(&b->thread_index, (uint64_t)(uint32_t)tid) - 1);
}

/* A CPU stack counted: its key (node << 32 | thread). */
static uint64_t
count_stack(struct builder *b, const struct bframe *frames, size_t n,
    uint64_t weight, pid_t pid, pid_t tid)
{
	uint32_t node = stack_node(b, frames, n, 1, weight, pid, tid);
	uint64_t key = (uint64_t)node << 32 | thread_number(b, pid, tid);

	hmap_add(&b->stack_counts, key, weight);
	return key;
}

void
builder_sample_stack(struct builder *b, const struct bframe *frames,
    size_t n, uint64_t weight, pid_t pid, pid_t tid, uint64_t time)
{
	uint64_t key;

	if (n == 0)
		return;
	key = count_stack(b, frames, n, weight, pid, tid);
	if (b->tl != NULL && weight > 0) {
		timeline_add(b->tl, key, time, weight);
		timeline_add(b->tl, BUILDER_TL_OWN | (uint32_t)key, time,
		    weight);
		b->tl_last = time > b->tl_last ? time : b->tl_last;
	}
}

void
builder_stack_fill(struct builder *b, const struct bframe *frames,
    size_t n, uint64_t weight, pid_t pid, pid_t tid)
{
	uint64_t key;

	if (n == 0)
		return;
	key = count_stack(b, frames, n, weight, pid, tid);
	if (b->tl != NULL)
		timeline_move(b->tl, BUILDER_TL_OWN | (uint32_t)key, key, weight,
		    b->tl_last);
}

void
builder_offcpu(struct builder *b, const struct bframe *frames, size_t n,
    uint64_t off_ns, uint64_t sampled_ns, uint64_t observations, pid_t pid,
    pid_t tid, uint64_t shape, uint64_t when)
{
	uint64_t key, at;
	struct boff *o;

	if (n == 0 || off_ns == 0 || frames[0].obj != BFRAME_OFFCPU)
		return;
	key = (uint64_t)stack_node(b, frames, n, 0, 0, pid, tid) << 32 |
	    thread_number(b, pid, tid);
	if ((at = hmap_get(&b->stack_off, key)) == 0) {
		if (b->noff == b->off_cap) {
			b->off_cap = b->off_cap ? 2 * b->off_cap : 256;
			b->off = xrealloc(b->off, b->off_cap * sizeof *b->off);
		}
		b->off[b->noff] = (struct boff){ 0, 0, 0 };
		hmap_add(&b->stack_off, key, ++b->noff);
		at = b->noff;
	}
	o = &b->off[at - 1];
	o->off_ns += off_ns;
	if (b->tl != NULL && shape == BUILDER_TL_NONE)
		timeline_add(b->tl, key, when, off_ns);
	else if (b->tl != NULL)
		timeline_move(b->tl, shape, key, off_ns, when);
	o->sampled_ns += sampled_ns < off_ns ? sampled_ns : off_ns;
	o->observations += observations;
}

/* The profile's frame for builder frame f, objects renumbered by map. */
static struct profil_frame
profile_frame(const struct bfr *f, const size_t *map)
{
	uint32_t object = f->obj >= 0 ? (uint32_t)map[f->obj] :
	    f->obj == BFRAME_KERNEL ? PROFIL_FRAME_KERNEL :
	    f->obj == BFRAME_UNKNOWN ? PROFIL_FRAME_UNKNOWN :
	    f->obj == BFRAME_OFFCPU ? PROFIL_FRAME_OFFCPU : PROFIL_FRAME_CUT;

	return (struct profil_frame){ object, f->addr };
}

static const struct profil_frame *sort_frames_by;

static int
by_frame(const void *a, const void *b)
{
	const struct profil_frame *x = &sort_frames_by[*(const uint32_t *)a];
	const struct profil_frame *y = &sort_frames_by[*(const uint32_t *)b];

	if (x->object != y->object)
		return x->object < y->object ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int
by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Stack st's thread and frames from key (node << 32 | thread). */
static void
stack_frames(const struct builder *b, uint64_t key, const uint32_t *renumber,
    struct profil_stack *st)
{
	uint32_t leaf = (uint32_t)(key >> 32);
	const struct bthread *t = &b->threads[(uint32_t)key];

	st->pid = (uint32_t)t->pid;
	st->tid = (uint32_t)t->tid;
	st->frames = xcalloc(stacktree_depth(&b->tree, leaf),
	    sizeof *st->frames);
	st->depth = stacktree_frames(&b->tree, leaf, st->frames);
	for (size_t d = 0; d < st->depth; d++)
		st->frames[d] = renumber[st->frames[d]];
}

/*
 * The timeline's points of stack key, as entries of p's last stack
 * (p->nstacks - 1).
 */
static void
timeline_of_stack(struct builder *b, struct profil_profile *p, uint64_t key)
{
	struct timeline_point *pts;
	size_t n;

	if (b->tl == NULL)
		return;
	if (p->slice_ns == 0) {
		p->slice_ns = timeline_slice_ns(b->tl);
		p->nslices = timeline_nslices(b->tl);
	}
	n = timeline_points(b->tl, key, &pts);
	p->timeline = xrealloc(p->timeline, (p->ntimeline + n + 1) *
	    sizeof *p->timeline);
	for (size_t i = 0; i < n; i++)
		p->timeline[p->ntimeline++] = (struct profil_timeline_entry){
		    (uint32_t)(p->nstacks - 1), pts[i].slice, pts[i].value };
	free(pts);
}

/*
 * A timeline that does not add up to its stacks is left out, and said:
 * the profile stays readable (the codec would refuse it).
 */
static void
timeline_done(struct profil_profile *p)
{
	uint64_t *sum;
	size_t bad = 0;

	if (p->slice_ns == 0)
		return;
	sum = xcalloc(p->nstacks + 1, sizeof *sum);
	for (size_t i = 0; i < p->ntimeline; i++)
		sum[p->timeline[i].stack] += p->timeline[i].value;
	for (size_t i = 0; i < p->nstacks; i++)
		bad += sum[i] != p->stacks[i].count + p->stacks[i].off_ns;
	free(sum);
	if (bad == 0)
		return;
	cli_warn_line("the timeline did not add up to the stacks (a bug): "
	    "the profile has none");
	free(p->timeline);
	p->timeline = NULL;
	p->ntimeline = 0;
	p->slice_ns = p->nslices = 0;
}

void
builder_finish_stacks(struct builder *b, struct profil_profile *p,
    const size_t *map)
{
	struct profil_frame *frames = xcalloc(b->nframes + 1, sizeof *frames);
	uint32_t *order = xcalloc(b->nframes + 1, sizeof *order);
	uint32_t *renumber = xcalloc(b->nframes + 1, sizeof *renumber);
	uint64_t *keys;
	size_t n;

	for (size_t i = 0; i < b->nframes; i++) {
		frames[i] = profile_frame(&b->frames[i], map);
		order[i] = (uint32_t)i;
	}
	sort_frames_by = frames;
	qsort(order, b->nframes, sizeof *order, by_frame);
	p->frames = xcalloc(b->nframes + 1, sizeof *p->frames);
	for (size_t i = 0; i < b->nframes; i++) {
		p->frames[i] = frames[order[i]];
		renumber[order[i]] = (uint32_t)i;
	}
	p->nframes = b->nframes;
	/* the frames whose callers were found by frame pointer, ascending */
	keys = hmap_sorted_keys(&b->fp_frames, &n);
	if (n > 0) {
		p->fp_frames = xcalloc(n, sizeof *p->fp_frames);
		for (size_t i = 0; i < n; i++)
			p->fp_frames[i] = renumber[keys[i]];
		p->nfp_frames = n;
		qsort(p->fp_frames, n, sizeof *p->fp_frames, by_u32);
	}
	free(keys);
	keys = hmap_sorted_keys(&b->stack_counts, &n);
	p->stacks = xcalloc(n + b->noff + 1, sizeof *p->stacks);
	for (size_t i = 0; i < n; i++) {
		struct profil_stack *st = &p->stacks[p->nstacks++];

		stack_frames(b, keys[i], renumber, st);
		st->count = hmap_get(&b->stack_counts, keys[i]);
		timeline_of_stack(b, p, keys[i]);
	}
	free(keys);
	keys = hmap_sorted_keys(&b->stack_off, &n);
	for (size_t i = 0; i < n; i++) {
		struct profil_stack *st = &p->stacks[p->nstacks++];
		const struct boff *o = &b->off[hmap_get(&b->stack_off, keys[i]) - 1];

		stack_frames(b, keys[i], renumber, st);
		st->off_ns = o->off_ns;
		st->sampled_ns = o->sampled_ns;
		st->observations = o->observations;
		timeline_of_stack(b, p, keys[i]);
	}
	free(keys);
	timeline_done(p);
	free(frames);
	free(order);
	free(renumber);
}
