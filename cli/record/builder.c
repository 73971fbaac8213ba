/*
 * builder.c - folds samples into a profile.  Samples arrive as file
 * offsets in a mapped object; the object's executable PT_LOAD segments
 * (read with libelf) turn them into link-time addresses, the addresses
 * symbol tables use.  Invariant: samples = object samples + kernel +
 * unknown, and the same sum over threads and over processes.
 */
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "builder.h"
#include "elfcache.h"
#include "symbols/vdso.h"
#include "cli.h"
#include "hmap.h"
#include "stacktree.h"

#define MAX_SEGMENTS 16

struct segment {
	uint64_t offset, vaddr, filesz;
};

struct bobject {
	char *path;
	unsigned char build_id[64];
	unsigned build_id_len;
	struct segment segs[MAX_SEGMENTS];
	int nsegs;
	uint64_t lowpc, highpc;		/* from the ELF file, if read */
	uint64_t seen_lo, seen_hi;	/* addresses sampled */
	struct hmap hist;		/* link address / bucket -> count */
	uint64_t samples;
	struct hmap frames;		/* link address -> frame + 1 */
};

struct bthread {
	pid_t pid, tid;
	char *name;
	uint64_t samples;
};

struct bprocess {
	pid_t pid, ppid;
	char *comm;
	int status;
	uint64_t samples;
};

struct builder {
	unsigned bucket_bytes;
	struct bobject *objects;
	size_t nobjects;
	struct bthread *threads;
	size_t nthreads;
	struct hmap thread_index;	/* tid -> index + 1 */
	struct bprocess *processes;
	size_t nprocesses;
	struct hmap process_index;	/* pid -> index + 1 */
	uint64_t samples, kernel, unknown, lost;
	struct hmap kernel_hist;		/* kernel address -> count */
	int kernel_ips;			/* every kernel sample had its address */
	struct profil_kernel kernel_id;
	int omit_threads, external_threads;
	/* stacks: frames, a tree of them from the outermost in, and counts */
	int stacks;
	struct bfr { int obj; uint64_t addr; } *frames;	/* link addresses */
	size_t nframes, frames_cap;
	struct hmap special_frames[4];	/* UNKNOWN, KERNEL, CUT, OFFCPU:
					   value -> + 1 */
	struct stacktree tree;		/* of frame numbers */
	struct hmap stack_counts;	/* node << 32 | thread -> count */
	/* wall profiles: node << 32 | thread -> 1 + index in off */
	struct hmap stack_off;
	struct boff { uint64_t off_ns, sampled_ns, observations; } *off;
	size_t noff, off_cap;
	struct profil_wall *wall;
};

void
builder_external_threads(struct builder *b)
{
	b->external_threads = 1;
}

struct builder *
builder_new(unsigned bucket_bytes)
{
	struct builder *b = xcalloc(1, sizeof *b);

	b->bucket_bytes = bucket_bytes;
	b->kernel_ips = 1;
	hmap_init(&b->kernel_hist);
	for (int i = 0; i < 4; i++)
		hmap_init(&b->special_frames[i]);
	stacktree_init(&b->tree);
	hmap_init(&b->stack_counts);
	hmap_init(&b->stack_off);
	hmap_init(&b->thread_index);
	hmap_init(&b->process_index);
	elf_version(EV_CURRENT);
	return b;
}

void
builder_free(struct builder *b)
{
	size_t i;

	for (i = 0; i < b->nobjects; i++) {
		free(b->objects[i].path);
		hmap_free(&b->objects[i].hist);
		hmap_free(&b->objects[i].frames);
	}
	for (i = 0; i < 4; i++)
		hmap_free(&b->special_frames[i]);
	stacktree_free(&b->tree);
	hmap_free(&b->stack_counts);
	hmap_free(&b->stack_off);
	free(b->off);
	free(b->wall);
	free(b->frames);
	for (i = 0; i < b->nthreads; i++)
		free(b->threads[i].name);
	for (i = 0; i < b->nprocesses; i++)
		free(b->processes[i].comm);
	free(b->objects);
	free(b->threads);
	free(b->processes);
	hmap_free(&b->thread_index);
	hmap_free(&b->process_index);
	hmap_free(&b->kernel_hist);
	free(b->kernel_id.release);
	free(b);
}

/* Executable segments and build-id of an ELF image. */
static void
read_elf(struct bobject *o, Elf *elf)
{
	size_t n, i;
	const void *id;
	ssize_t idlen;

	if (elf == NULL || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) != 0)
		return;
	for (i = 0; i < n && o->nsegs < MAX_SEGMENTS; i++) {
		GElf_Phdr ph;
		uint64_t end;

		if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
		    ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		o->segs[o->nsegs++] = (struct segment){ ph.p_offset, ph.p_vaddr,
		    ph.p_filesz };
		if (o->nsegs == 1 || ph.p_vaddr < o->lowpc)
			o->lowpc = ph.p_vaddr;
		/* a segment claimed past the top of the address space stops there */
		end = ph.p_memsz > UINT64_MAX - ph.p_vaddr ? UINT64_MAX :
		    ph.p_vaddr + ph.p_memsz;
		if (end > o->highpc)
			o->highpc = end;
	}
	idlen = dwelf_elf_gnu_build_id(elf, &id);
	if (o->build_id_len == 0 && idlen > 0 && (size_t)idlen <= sizeof o->build_id) {
		memcpy(o->build_id, id, (size_t)idlen);
		o->build_id_len = (unsigned)idlen;
	}
}

/* The vdso is not a file: read our own, the same image the kernel maps. */
static void
read_vdso(struct bobject *o)
{
	size_t size;
	const void *image = vdso_image(&size);
	Elf *elf;

	if (image == NULL)
		return;
	elf = elf_memory((char *)image, size);
	read_elf(o, elf);
	elf_end(elf);
}

int
builder_object(struct builder *b, const char *path,
    const unsigned char *build_id, unsigned build_id_len)
{
	struct bobject *o;
	size_t i;

	if (build_id_len > sizeof o->build_id)
		build_id_len = 0;
	for (i = 0; i < b->nobjects; i++) {
		o = &b->objects[i];
		if (strcmp(o->path, path) != 0)
			continue;
		if (build_id_len == 0 || (o->build_id_len == build_id_len &&
		    memcmp(o->build_id, build_id, build_id_len) == 0))
			return (int)i;
	}
	b->objects = xrealloc(b->objects, (b->nobjects + 1) * sizeof *b->objects);
	o = &b->objects[b->nobjects];
	memset(o, 0, sizeof *o);
	o->path = xstrdup(path);
	o->seen_lo = UINT64_MAX;
	if (build_id_len > 0) {
		memcpy(o->build_id, build_id, build_id_len);
		o->build_id_len = build_id_len;
	}
	hmap_init(&o->hist);
	hmap_init(&o->frames);
	if (strcmp(path, "[vdso]") == 0) {
		read_vdso(o);
	} else if (path[0] == '/') {
		Elf *elf = elfcache_open(path);

		if (elf != NULL) {
			struct bobject probe = *o;

			/* A file whose build-id differs is not what was mapped. */
			probe.build_id_len = 0;
			read_elf(&probe, elf);
			if (o->build_id_len == 0 ||
			    (probe.build_id_len == o->build_id_len &&
			    memcmp(probe.build_id, o->build_id, o->build_id_len) == 0))
				*o = probe, o->build_id_len = probe.build_id_len;
			elf_end(elf);
		}
	}
	return (int)b->nobjects++;
}

const char *
builder_object_path(const struct builder *b, int obj)
{
	return obj >= 0 && (size_t)obj < b->nobjects ? b->objects[obj].path : NULL;
}

static struct bthread *
thread_of(struct builder *b, pid_t pid, pid_t tid)
{
	uint64_t i = hmap_get(&b->thread_index, (uint64_t)tid);

	if (i == 0) {
		b->threads = xrealloc(b->threads, (b->nthreads + 1) * sizeof *b->threads);
		b->threads[b->nthreads] = (struct bthread){ pid, tid, NULL, 0 };
		hmap_add(&b->thread_index, (uint64_t)tid, ++b->nthreads);
		i = b->nthreads;
	}
	return &b->threads[i - 1];
}

static struct bprocess *
process_of(struct builder *b, pid_t pid)
{
	uint64_t i = hmap_get(&b->process_index, (uint64_t)pid);

	if (i == 0) {
		b->processes = xrealloc(b->processes,
		    (b->nprocesses + 1) * sizeof *b->processes);
		b->processes[b->nprocesses] = (struct bprocess){ pid, 0, NULL,
		    PROFIL_EXIT_UNKNOWN, 0 };
		hmap_add(&b->process_index, (uint64_t)pid, ++b->nprocesses);
		i = b->nprocesses;
	}
	return &b->processes[i - 1];
}

static void
count(struct builder *b, uint64_t weight, pid_t pid, pid_t tid)
{
	b->samples += weight;
	if (!b->external_threads)
		thread_of(b, pid, tid)->samples += weight;
	process_of(b, pid)->samples += weight;
}

void
builder_thread_samples(struct builder *b, pid_t pid, pid_t tid, uint64_t n)
{
	thread_of(b, pid, tid)->samples += n;
}

/*
 * The link-time address of file offset in object o (through its
 * executable segments; the offset itself if none holds it), or
 * UINT64_MAX for none a profile can hold: a segment whose addresses would
 * run past 2^64 - 1 (a damaged or hostile file) places nothing, and
 * 2^64 - 1 itself is no address (each lies below its object's highpc).
 */
static uint64_t
link_address(const struct bobject *o, uint64_t file_offset)
{
	for (int i = 0; i < o->nsegs; i++) {
		const struct segment *s = &o->segs[i];

		if (file_offset >= s->offset && file_offset - s->offset < s->filesz)
			return file_offset - s->offset < UINT64_MAX - s->vaddr ?
			    file_offset - s->offset + s->vaddr : UINT64_MAX;
	}
	return file_offset;
}

/* The sample at link address addr of object obj (not UINT64_MAX). */
static void
count_at(struct builder *b, int obj, uint64_t addr, uint64_t weight,
    pid_t pid, pid_t tid)
{
	struct bobject *o = &b->objects[obj];

	if (addr < o->seen_lo)
		o->seen_lo = addr;
	if (addr > o->seen_hi)
		o->seen_hi = addr;
	hmap_add(&o->hist, addr / b->bucket_bytes, weight);
	o->samples += weight;
	count(b, weight, pid, tid);
}

void
builder_sample(struct builder *b, int obj, uint64_t file_offset,
    uint64_t weight, pid_t pid, pid_t tid)
{
	uint64_t addr = link_address(&b->objects[obj], file_offset);

	if (addr == UINT64_MAX)
		builder_unknown(b, weight, pid, tid);
	else
		count_at(b, obj, addr, weight, pid, tid);
}

void
builder_kernel(struct builder *b, uint64_t ip, uint64_t weight, pid_t pid,
    pid_t tid)
{
	b->kernel += weight;
	if (ip == 0 || ip == UINT64_MAX)
		b->kernel_ips = 0;	/* then no histogram: it would not add up */
	else
		hmap_add(&b->kernel_hist, ip, weight);
	count(b, weight, pid, tid);
}

void
builder_kernel_identity(struct builder *b, const struct profil_kernel *id)
{
	free(b->kernel_id.release);
	b->kernel_id = *id;
	b->kernel_id.release = id->release ? xstrdup(id->release) : NULL;
}

/* The kernel's histogram, at its addresses of this boot; NULL if none. */
static struct profil_kernel *
kernel_code(struct builder *b)
{
	struct profil_kernel *k;
	uint64_t *keys;
	size_t n;

	if (b->kernel == 0 || !b->kernel_ips)
		return NULL;
	k = xcalloc(1, sizeof *k);
	*k = b->kernel_id;
	k->release = xstrdup(b->kernel_id.release ? b->kernel_id.release : "");
	k->code.path = xstrdup("[kernel.kallsyms]");
	k->code.bucket_bytes = 1;
	k->code.samples = b->kernel;
	keys = hmap_sorted_keys(&b->kernel_hist, &n);
	k->code.buckets = xcalloc(n + 1, sizeof *k->code.buckets);
	for (size_t i = 0; i < n; i++) {
		k->code.buckets[i].addr = keys[i];
		k->code.buckets[i].count = hmap_get(&b->kernel_hist, keys[i]);
	}
	k->code.nbuckets = n;
	k->code.lowpc = n ? keys[0] : 0;
	k->code.highpc = n ? keys[n - 1] + 1 : 1;
	free(keys);
	return k;
}

void
builder_unknown(struct builder *b, uint64_t weight, pid_t pid, pid_t tid)
{
	b->unknown += weight;
	count(b, weight, pid, tid);
}

void
builder_lost(struct builder *b, uint64_t n)
{
	b->lost += n;
}

void
builder_comm(struct builder *b, pid_t pid, pid_t tid, const char *comm)
{
	struct bthread *t = thread_of(b, pid, tid);

	free(t->name);
	t->name = xstrdup(comm);
	if (pid == tid) {
		struct bprocess *p = process_of(b, pid);

		free(p->comm);
		p->comm = xstrdup(comm);
	}
}

void
builder_fork(struct builder *b, pid_t pid, pid_t ppid)
{
	/* the parent may be no process of ours (the recorder itself) */
	uint64_t at = hmap_get(&b->process_index, (uint64_t)ppid);
	struct bprocess *parent = at ? &b->processes[at - 1] : NULL;
	char *comm = parent && parent->comm ? xstrdup(parent->comm) : NULL;
	struct bprocess *p = process_of(b, pid);

	p->ppid = ppid;
	if (p->comm == NULL)
		p->comm = comm;
	else
		free(comm);
}

void
builder_exit_status(struct builder *b, pid_t pid, int status)
{
	process_of(b, pid)->status = status;
}

void
builder_stacks(struct builder *b)
{
	b->stacks = 1;
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
	uint32_t node = STACKTREE_ROOT;

	/* outermost in: the tree shares the callers stacks have in common */
	for (size_t i = n; i-- > 0;) {
		int obj = frames[i].obj;
		uint64_t addr = frames[i].value;

		if (obj >= 0) {
			addr = link_address(&b->objects[obj], frames[i].value);
			if (addr == UINT64_MAX) {
				obj = BFRAME_UNKNOWN;
				addr = frames[i].value;
			}
		}
		if (i == 0 && count) {	/* the leaf: the flat profile's sample */
			if (obj >= 0)
				count_at(b, obj, addr, weight, pid, tid);
			else if (obj == BFRAME_KERNEL)
				builder_kernel(b, addr, weight, pid, tid);
			else
				builder_unknown(b, weight, pid, tid);
		}
		node = stacktree_node(&b->tree, node, frame_of(b, obj, addr));
	}
	return node;
}

/* The builder's number for thread tid of pid. */
static uint32_t
thread_number(struct builder *b, pid_t pid, pid_t tid)
{
	thread_of(b, pid, tid);
	return (uint32_t)(hmap_get(&b->thread_index, (uint64_t)tid) - 1);
}

void
builder_sample_stack(struct builder *b, const struct bframe *frames,
    size_t n, uint64_t weight, pid_t pid, pid_t tid)
{
	uint32_t node, thread;

	if (n == 0)
		return;
	node = stack_node(b, frames, n, 1, weight, pid, tid);
	thread = thread_number(b, pid, tid);
	hmap_add(&b->stack_counts, (uint64_t)node << 32 | thread, weight);
}

void
builder_offcpu(struct builder *b, const struct bframe *frames, size_t n,
    uint64_t off_ns, uint64_t sampled_ns, uint64_t observations, pid_t pid,
    pid_t tid)
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
	o->sampled_ns += sampled_ns < off_ns ? sampled_ns : off_ns;
	o->observations += observations;
}

void
builder_wall(struct builder *b, const struct profil_wall *w)
{
	if (b->wall == NULL)
		b->wall = xcalloc(1, sizeof *b->wall);
	*b->wall = *w;
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
 * p's frames and stacks from the builder's, objects renumbered by map
 * (builder object -> profile object): frames sorted by object and
 * address as the format wants them, each stack leaf first.
 */
static void
finish_stacks(struct builder *b, struct profil_profile *p, const size_t *map)
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
	keys = hmap_sorted_keys(&b->stack_counts, &n);
	p->stacks = xcalloc(n + b->noff + 1, sizeof *p->stacks);
	for (size_t i = 0; i < n; i++) {
		struct profil_stack *st = &p->stacks[p->nstacks++];

		stack_frames(b, keys[i], renumber, st);
		st->count = hmap_get(&b->stack_counts, keys[i]);
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
	}
	free(keys);
	free(frames);
	free(order);
	free(renumber);
}

pid_t *
builder_unfinished(struct builder *b, size_t *n)
{
	pid_t *pids = xcalloc(b->nprocesses + 1, sizeof *pids);

	*n = 0;
	for (size_t i = 0; i < b->nprocesses; i++)
		if (b->processes[i].status == PROFIL_EXIT_UNKNOWN)
			pids[(*n)++] = b->processes[i].pid;
	return pids;
}

struct profil_profile *
builder_finish(struct builder *b)
{
	struct profil_profile *p = xcalloc(1, sizeof *p);
	size_t i, k, *map;

	p->bucket_bytes = b->bucket_bytes;
	p->samples = b->samples;
	p->kernel = b->kernel;
	p->unknown = b->unknown;
	p->lost = b->lost;
	p->objects = xcalloc(b->nobjects, sizeof *p->objects);
	map = xcalloc(b->nobjects + 1, sizeof *map);
	for (i = 0; i < b->nobjects; i++) {
		struct bobject *o = &b->objects[i];
		struct profil_object *po = &p->objects[p->nobjects];
		uint64_t lo = o->nsegs ? o->lowpc : o->seen_lo;
		uint64_t hi = o->nsegs ? o->highpc : o->seen_hi + 1;
		uint64_t *keys;
		size_t n;

		if (o->samples == 0 && o->nsegs == 0 && o->frames.len == 0)
			continue;	/* nothing known, nothing counted */
		if (o->samples == 0 && o->nsegs == 0) {
			lo = 0;		/* only in stacks: any range will do */
			hi = 1;
		}
		if (o->samples > 0 && o->seen_lo < lo)
			lo = o->seen_lo;
		if (o->samples > 0 && o->seen_hi >= hi)
			hi = o->seen_hi + 1;
		lo -= lo % b->bucket_bytes;
		/* with samples, lo <= seen_lo < seen_hi + 1 <= hi already */
		if (hi <= lo)
			hi = lo <= UINT64_MAX - b->bucket_bytes ?
			    lo + b->bucket_bytes : UINT64_MAX;
		if (hi <= lo)
			continue;	/* no samples, and code at 2^64 - 1 */
		po->path = xstrdup(o->path);
		memcpy(po->build_id, o->build_id, o->build_id_len);
		po->build_id_len = o->build_id_len;
		po->lowpc = lo;
		po->highpc = hi;
		po->bucket_bytes = b->bucket_bytes;
		po->samples = o->samples;
		keys = hmap_sorted_keys(&o->hist, &n);
		po->buckets = xcalloc(n, sizeof *po->buckets);
		for (k = 0; k < n; k++) {
			po->buckets[k].addr = keys[k] * b->bucket_bytes;
			po->buckets[k].count = hmap_get(&o->hist, keys[k]);
		}
		po->nbuckets = n;
		free(keys);
		map[i] = p->nobjects++;
	}
	if (b->stacks)
		finish_stacks(b, p, map);
	free(map);
	if (b->external_threads) {
		uint64_t sum = 0;

		for (i = 0; i < b->nthreads; i++)
			sum += b->threads[i].samples;
		if (sum != b->samples)
			b->omit_threads = 1;	/* some found no room: none */
	}
	p->threads = xcalloc(b->nthreads, sizeof *p->threads);
	for (i = 0; i < b->nthreads; i++) {
		struct bthread *t = &b->threads[i];
		struct bprocess *pr = process_of(b, t->pid);

		/* a wall profile's threads may have waited only */
		if ((t->samples == 0 && b->wall == NULL) || b->omit_threads)
			continue;
		p->threads[p->nthreads++] = (struct profil_thread){ (uint32_t)t->pid,
		    (uint32_t)t->tid, xstrdup(t->name ? t->name :
		    pr->comm ? pr->comm : ""), t->samples };
	}
	if (b->wall != NULL) {
		p->wall = xcalloc(1, sizeof *p->wall);
		*p->wall = *b->wall;
	}
	p->kernel_code = kernel_code(b);
	p->processes = xcalloc(b->nprocesses, sizeof *p->processes);
	for (i = 0; i < b->nprocesses; i++) {
		struct bprocess *pr = &b->processes[i];

		/* (a wall profile's may have waited only: a child that slept) */
		if (pr->samples == 0 && pr->status == PROFIL_EXIT_UNKNOWN &&
		    b->wall == NULL)
			continue;
		p->processes[p->nprocesses++] = (struct profil_process){
		    (uint32_t)pr->pid, (uint32_t)pr->ppid,
		    xstrdup(pr->comm ? pr->comm : ""), pr->status, pr->samples };
	}
	return p;
}
