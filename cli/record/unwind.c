/*
 * unwind.c - libdwfl's unwinder on sampled registers and stack copies
 * (unwind.h).  Each space owns one Dwfl, attached to "its process" with
 * callbacks that answer from the sample being unwound: the registers,
 * and memory from the stack copy only (never /proc/PID/mem: the process
 * has moved on).  Modules are reported at their load addresses as
 * mappings arrive; libdwfl opens each file (or our own copy of the vDSO)
 * the first time it needs its CFI and keeps it while the space lives.
 *
 * Invariant: no frame is made up.  libdwfl guesses a caller from the
 * frame pointer where a function has no CFI; so a frame is kept only if
 * the frame it was unwound from has CFI, else the stack is cut there.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addrspace.h"
#include "cli.h"
#include "hmap.h"
#include "jit.h"
#include "symbols/vdso.h"
#include "elfcache.h"
#include "cfirules.h"
#include "stackmemo.h"
#include "unwind.h"

/* What libdwfl's callbacks read: the sample being unwound. */
struct current {
	pid_t tid;
	const uint64_t *regs;
	int no_rbp;		/* regs[6] unknown: a blocked thread's */
	int only_sp_pc;		/* only rsp and the pc known */
	uint64_t stack_addr;
	const unsigned char *stack;
	size_t size;
	int read_above;		/* a read past the copy's end failed */
	int read_other;		/* a read elsewhere outside it failed */
	struct bframe *out;
	size_t first, n, max;	/* frames out[first..n) are this stack's */
	int prev_has_cfi;	/* the last frame taken has CFI: its caller is */
	int prev_outermost;	/*   known; or there is none */
	int prev_by_fp;		/* it has none, but its caller may be found
				   by frame pointer (generated code) */
	uint64_t prev_sp;	/* its stack pointer */
	int cut;		/* PROFIL_CUT_*, or 0 */
	uint32_t step;		/* the frame whose caller is being found */
	size_t nreads;		/* what the unwinding read, for the memo */
	int unfollowed;		/*   more of it than MEMO_READS, or frames */
	struct unwind_space *space;
};

#define MEMO_READS	1024	/* stack words one unwinding reads, noted */

struct unwind_space {
	pid_t pid;
	const struct addr_space *space;	/* the process image's, read here */
	Dwfl *dwfl;
	unsigned reported;	/* space->generation when last reported */
	struct current cur;
	/*
	 * The CFI rules found at each pc since the modules were last
	 * reported (rules_at: pc -> 1 + index in rules).  libdwfl looks
	 * the CFI up again for each frame it unwinds; we look it up once
	 * for the same few return addresses in sample after sample.
	 */
	struct hmap rules_at;
	struct cfi_rules *rules;
	size_t nrules, rules_cap;
	/*
	 * Stacks by what their unwinding depended on (stackmemo.h): most
	 * samples are taken where others were, under the same callers.
	 * Emptied with the rules.
	 */
	struct stack_memo memo;
};

/*
 * What the unwinding at hand read and did, step by step, for the memo's
 * facts.  The recorder unwinds one sample at a time.
 */
static struct {
	struct memo_read reads[MEMO_READS];
	struct memo_step steps[UNWIND_MAX_DEPTH];
	size_t rule_index[UNWIND_MAX_DEPTH];
	struct memo_fact facts[CFI_NREGS + MEMO_READS];
} scratch;

/* ---- ELF layouts, by path, for where a module loads ---------------------- */

struct layout {
	char *path;
	int ok, dyn;
	uint64_t lo, hi;	/* link-time extent of PT_LOADs */
	size_t nload;
	GElf_Phdr *load;
};

static struct layout *layouts;
static size_t nlayouts;

static const struct layout *
layout_of(const char *path)
{
	struct layout *l;
	size_t n, i;
	Elf *elf = NULL;

	for (i = 0; i < nlayouts; i++)
		if (strcmp(layouts[i].path, path) == 0)
			return &layouts[i];
	layouts = xrealloc(layouts, (nlayouts + 1) * sizeof *layouts);
	l = &layouts[nlayouts++];
	memset(l, 0, sizeof *l);
	l->path = xstrdup(path);
	elf_version(EV_CURRENT);
	if (strcmp(path, "[vdso]") == 0) {
		size_t size;
		const void *image = vdso_image(&size);

		if (image != NULL)
			elf = elf_memory((char *)image, size);
	} else {
		elf = elfcache_open(path);
	}
	if (elf != NULL && elf_kind(elf) == ELF_K_ELF &&
	    elf_getphdrnum(elf, &n) == 0) {
		GElf_Ehdr eh;

		l->dyn = gelf_getehdr(elf, &eh) != NULL && eh.e_type == ET_DYN;
		l->load = xcalloc(n + 1, sizeof *l->load);
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) == NULL ||
			    ph.p_type != PT_LOAD)
				continue;
			if (l->nload == 0 || (ph.p_vaddr & -ph.p_align) < l->lo)
				l->lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
			if (ph.p_vaddr + ph.p_memsz > l->hi)
				l->hi = ph.p_vaddr + ph.p_memsz;
			l->load[l->nload++] = ph;
		}
		l->ok = l->nload > 0 && l->lo < l->hi;
	}
	if (elf != NULL)
		elf_end(elf);
	return l;
}

/* ---- libdwfl's callbacks ------------------------------------------------- */

static int
find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
    char **file_name, Elf **elfp)
{
	(void)mod;
	(void)userdata;
	(void)base;
	*elfp = NULL;
	if (strcmp(name, "[vdso]") == 0) {
		size_t size;
		const void *image = vdso_image(&size);

		/* the kernel maps the same image into every process */
		*elfp = image ? elf_memory((char *)image, size) : NULL;
		return -1;
	}
	/* the file this recording opened already, if it did */
	if ((*elfp = elfcache_open(name)) != NULL)
		*file_name = xstrdup(name);
	return -1;
}

/* No separate debug files: .eh_frame is in every x86-64 object, and
 * loading debug files (decompressing them) costs more than it finds. */
static int
no_debuginfo(Dwfl_Module *mod, void **userdata, const char *name,
    Dwarf_Addr base, const char *file_name, const char *debuglink,
    GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name;
	(void)debuglink, (void)crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = no_debuginfo,
};

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_space *s = arg;

	(void)dwfl;
	if (*thread_argp != NULL)
		return 0;
	*thread_argp = s;
	return s->cur.tid;
}

static bool
get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;	/* whichever thread: the sample at hand */
	return true;
}

static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct current *c = &((struct unwind_space *)arg)->cur;

	(void)dwfl;
	if (addr >= c->stack_addr && addr - c->stack_addr <= c->size &&
	    c->size - (addr - c->stack_addr) >= sizeof *result) {
		memcpy(result, c->stack + (addr - c->stack_addr), sizeof *result);
		if (c->nreads == MEMO_READS)
			c->unfollowed = 1;
		else
			scratch.reads[c->nreads++] = (struct memo_read){ addr,
			    *result, c->step };
		return true;
	}
	if (addr >= c->stack_addr + c->size)
		c->read_above = 1;
	else
		c->read_other = 1;
	return false;
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct current *c = &((struct unwind_space *)arg)->cur;

	/* DWARF 0-16; 16 is the return address column, here the pc */
	if (!c->only_sp_pc)
		return dwfl_thread_state_registers(thread, 0, UNWIND_NREGS,
		    (const Dwarf_Word *)c->regs);
	/*
	 * A blocked thread: its stack pointer and pc, and maybe a frame
	 * pointer; the others left undefined, so that an unwinding that
	 * needs one stops rather than goes on from a made-up value.
	 */
	if (!dwfl_thread_state_registers(thread, 7, 1,
	    (const Dwarf_Word *)&c->regs[7]) ||
	    !dwfl_thread_state_registers(thread, 16, 1,
	    (const Dwarf_Word *)&c->regs[16]))
		return false;
	return c->no_rbp || dwfl_thread_state_registers(thread, 6, 1,
	    (const Dwarf_Word *)&c->regs[6]);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* An x86-64 ELF that lives as long as we do: libdwfl's architecture. */
static Elf *
arch_elf(void)
{
	static Elf *elf;
	size_t size;
	const void *image;

	if (elf == NULL && (image = vdso_image(&size)) != NULL) {
		elf_version(EV_CURRENT);
		elf = elf_memory((char *)image, size);
	}
	return elf;
}

/* ---- spaces and their mappings ------------------------------------------- */

struct unwind_space *
unwind_space_new(pid_t pid, const struct addr_space *space)
{
	struct unwind_space *s = xcalloc(1, sizeof *s);

	s->pid = pid;
	s->space = space;
	hmap_init(&s->rules_at);
	stack_memo_init(&s->memo);
	return s;
}

/* What was learnt of the modules as they were. */
static void
forget(struct unwind_space *s)
{
	hmap_free(&s->rules_at);
	hmap_init(&s->rules_at);
	s->nrules = 0;
	stack_memo_clear(&s->memo);
}

static void
drop_dwfl(struct unwind_space *s)
{
	if (s->dwfl != NULL)
		dwfl_end(s->dwfl);
	s->dwfl = NULL;
	forget(s);
}

void
unwind_space_free(struct unwind_space *s)
{
	if (s == NULL)
		return;
	drop_dwfl(s);
	hmap_free(&s->rules_at);
	free(s->rules);
	stack_memo_free(&s->memo);
	free(s);
}

void
unwind_locate(const struct unwind_space *s, uint64_t pc, struct bframe *f)
{
	const struct addr_map *m = addr_space_find(s->space, pc);

	if ((m == NULL || m->obj < 0) && jit_code_locate(s->space->jit, pc, f))
		return;		/* generated code its runtime named */
	if (m == NULL || m->obj < 0)
		*f = (struct bframe){ BFRAME_UNKNOWN, pc };
	else
		*f = (struct bframe){ m->obj, pc - m->start + m->pgoff };
}

/* Report one mapped object to libdwfl at the addresses it is loaded at. */
static void
report(struct unwind_space *s, const struct addr_map *m)
{
	const struct layout *l;
	uint64_t bias = 0;

	if (m->path == NULL || (m->path[0] != '/' && strcmp(m->path, "[vdso]")))
		return;
	l = layout_of(m->path);
	if (!l->ok)
		return;
	if (l->dyn) {
		size_t i;

		/* the segment mapped at file offset pgoff puts it at start */
		for (i = 0; i < l->nload; i++)
			if (m->pgoff >= l->load[i].p_offset &&
			    m->pgoff - l->load[i].p_offset < l->load[i].p_filesz)
				break;
		if (i == l->nload)
			return;
		bias = m->start - (l->load[i].p_vaddr + (m->pgoff -
		    l->load[i].p_offset));
	}
	dwfl_report_module(s->dwfl, m->path, bias + l->lo, bias + l->hi);
}

/* The Dwfl, made and attached at first use, with the mappings reported. */
static int
sync_modules(struct unwind_space *s)
{
	if (s->dwfl == NULL) {
		Elf *arch = arch_elf();

		s->dwfl = dwfl_begin(&dwfl_callbacks);
		if (s->dwfl == NULL || arch == NULL ||
		    !dwfl_attach_state(s->dwfl, arch, s->pid, &thread_callbacks, s)) {
			drop_dwfl(s);
			return -1;
		}
		s->reported = s->space->generation - 1;
	}
	if (s->reported != s->space->generation) {
		/* all again: a module reported the same comes back with its CFI */
		dwfl_report_begin(s->dwfl);
		for (size_t i = 0; i < s->space->n; i++)
			report(s, &s->space->maps[i]);
		dwfl_report_end(s->dwfl, NULL, NULL);
		s->reported = s->space->generation;
		forget(s);
	}
	return 0;
}

/* ---- unwinding ----------------------------------------------------------- */

/*
 * What the call-frame information says at pc, if there is any: the only
 * way its caller is known rather than guessed.  It may say that there is
 * no caller (the return address is undefined: _start, clone).
 */
#define CFI_MEMO_MAX	32768	/* pcs remembered (3 MiB); then anew */
#define ENTRY_BYTES	64	/* an entry point's code before its calls */

/* Whether pc is within the first bytes of its module's ELF entry point. */
static int
at_entry(Dwfl_Module *mod, uint64_t pc)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Ehdr eh;

	if (elf == NULL || gelf_getehdr(elf, &eh) == NULL || eh.e_entry == 0)
		return 0;
	return pc >= eh.e_entry + bias && pc < eh.e_entry + bias + ENTRY_BYTES;
}

/*
 * Whether ret, a return address whose call (ret - 1) has no CFI, was put
 * on the stack by hand rather than by a call: it is where a function's
 * CFI starts, and no call instruction ends there (glibc's makecontext
 * puts its trampoline's entry under a coroutine's function, after
 * padding).  The bytes before it are read from the object: no call
 * rel32 (e8) ends at ret, nor an indirect one (ff /2, 2 to 7 bytes).
 */
static int
planted_return(struct unwind_space *s, uint64_t ret)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, ret);
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame;
	Dwarf_Addr start, end, at = ret, sbias, bias = 0;
	Elf_Scn *scn;
	Elf_Data *d;
	const unsigned char *b;

	if (mod == NULL || (cfi = dwfl_module_eh_cfi(mod, &bias)) == NULL ||
	    dwarf_cfi_addrframe(cfi, ret - bias, &frame) != 0)
		return 0;
	if (dwarf_frame_info(frame, &start, &end, NULL) < 0 ||
	    start != ret - bias) {
		free(frame);
		return 0;
	}
	free(frame);
	if ((scn = dwfl_module_address_section(mod, &at, &sbias)) == NULL ||
	    (d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL ||
	    at < 7 || at > d->d_size)
		return 0;
	b = (const unsigned char *)d->d_buf + at - 7;
	if (b[2] == 0xe8)
		return 0;
	for (int j = 0; j < 6; j++)
		if (b[j] == 0xff && (b[j + 1] >> 3 & 7) == 2)
			return 0;
	return 1;
}

static void
lookup_cfi(struct unwind_space *s, uint64_t pc, struct cfi_rules *r)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, pc);
	Dwarf_CFI *cfis[2];
	Dwarf_Addr bias[2] = { 0, 0 };

	memset(r, 0, sizeof *r);
	if (mod == NULL)
		return;
	/* as libdwfl unwinds: .eh_frame first, then .debug_frame */
	cfis[0] = dwfl_module_eh_cfi(mod, &bias[0]);
	cfis[1] = dwfl_module_dwarf_cfi(mod, &bias[1]);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *frame;

		if (cfis[i] == NULL ||
		    dwarf_cfi_addrframe(cfis[i], pc - bias[i], &frame) != 0)
			continue;
		cfi_rules_read(frame, r);
		r->outermost = r->kind[16] == RULE_UNDEFINED;
		free(frame);
		return;
	}
	/*
	 * No CFI, but the object's entry point, where the kernel starts the
	 * process (ld.so's _start, which has none): nothing called it, so
	 * the stack is whole there, not cut short.  The entry code calls
	 * out within its first bytes.
	 */
	if (at_entry(mod, pc))
		r->has_cfi = r->outermost = 1;
}

/* The index in s->rules of pc's rules, looked up once. */
static size_t
rules_index(struct unwind_space *s, uint64_t pc)
{
	uint64_t at = pc == UINT64_MAX ? 0 : hmap_get(&s->rules_at, pc);

	if (at != 0)
		return (size_t)at - 1;
	if (s->nrules == s->rules_cap) {
		s->rules_cap = s->rules_cap ? 2 * s->rules_cap : 256;
		s->rules = xrealloc(s->rules, s->rules_cap * sizeof *s->rules);
	}
	lookup_cfi(s, pc, &s->rules[s->nrules]);
	if (pc != UINT64_MAX)		/* hmap's reserved key */
		hmap_add(&s->rules_at, pc, s->nrules + 1);
	return s->nrules++;
}

static uint64_t frame_pointer_frames;

uint64_t
unwind_frame_pointer_frames(void)
{
	return frame_pointer_frames;
}

/*
 * Whether the caller of code without CFI at pc (located as *f) may be
 * found by its frame pointer: generated code (JIT runtimes keep frame
 * pointers: V8, the JVM, .NET, LuaJIT's traces), whether named by its
 * runtime or anonymous, and, in a process with generated code, code of
 * its files that has none (V8's builtins, in node's own text).
 */
static int
by_frame_pointer(struct unwind_space *s, uint64_t pc, const struct bframe *f)
{
	const struct addr_map *m;

	if (f->obj >= 0 && f->obj == jit_object())
		return 1;
	m = addr_space_find(s->space, pc);
	if (m != NULL && m->obj < 0)
		return 1;	/* anonymous code, or a file's not named */
	return jit_code_any(s->space->jit);
}

/*
 * Whether ret follows a call instruction in its object's code: a
 * return address, not a word that happens to point into code.
 */
static int
after_call(struct unwind_space *s, uint64_t ret)
{
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, ret - 1);
	Dwarf_Addr at = ret, sbias;
	Elf_Scn *scn;
	Elf_Data *d;
	const unsigned char *b;

	if (mod == NULL ||
	    (scn = dwfl_module_address_section(mod, &at, &sbias)) == NULL ||
	    (d = elf_getdata(scn, NULL)) == NULL || d->d_buf == NULL ||
	    at < 7 || at > d->d_size)
		return 0;
	b = (const unsigned char *)d->d_buf + at - 7;
	if (b[2] == 0xe8)			/* call rel32 */
		return 1;
	for (int j = 0; j < 6; j++)		/* call r/m64: ff /2 */
		if (b[j] == 0xff && (b[j + 1] >> 3 & 7) == 2)
			return 1;
	return 0;
}

/*
 * Whether the caller libdwfl found by frame pointer for the frame before
 * (which has no CFI) is one: its return address pc is in code, after a
 * call where the code is a file's (generated code cannot be read back),
 * and its frame is above the one before on the stack.  A frame whose
 * caller is found so is not remembered by the memo (its facts are CFI's).
 */
static int
frame_pointer_caller(struct current *c, Dwfl_Frame *frame, uint64_t pc)
{
	struct unwind_space *s = c->space;
	struct bframe f;
	Dwarf_Word sp;

	if (pc == 0 || dwfl_frame_reg(frame, 7, &sp) != 0 || sp <= c->prev_sp)
		return 0;
	unwind_locate(s, pc - 1, &f);
	if (f.obj < 0)
		return 0;
	if (f.obj != jit_object() && !after_call(s, pc))
		return 0;
	c->unfollowed = 1;
	frame_pointer_frames++;
	return 1;
}

static int
take_frame(Dwfl_Frame *frame, void *arg)
{
	struct current *c = arg;
	struct unwind_space *s = c->space;
	const struct cfi_rules *r;
	struct memo_step *step;
	Dwarf_Addr pc;
	Dwarf_Word base;
	bool activation;
	int planted;
	size_t k = c->n - c->first, i;

	/*
	 * The frame's caller is found from now on: to tell activation,
	 * libdwfl unwinds the frame, and if it has not, it will when we
	 * return (the first frame).
	 */
	c->step = (uint32_t)k;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (c->n > c->first) {
		/* the previous frame had no caller: whatever follows is made up */
		if (c->prev_outermost)
			return DWARF_CB_ABORT;
		/* unwound from the previous frame: by its CFI, or guessed? */
		if (!c->prev_has_cfi && !(c->prev_by_fp &&
		    frame_pointer_caller(c, frame, pc))) {
			c->cut = PROFIL_CUT_NO_UNWIND;
			return DWARF_CB_ABORT;
		}
		if (pc == 0)
			return DWARF_CB_ABORT;	/* the end, as some set it */
	}
	if (c->n == c->max) {
		c->cut = PROFIL_CUT_DEPTH;
		return DWARF_CB_ABORT;
	}
	/* a return address: the call is the instruction before it */
	if (!activation)
		pc--;
	i = rules_index(s, pc);
	r = &s->rules[i];
	/* the trampoline makecontext put under a coroutine: its root */
	planted = !activation && !r->has_cfi && planted_return(s, pc + 1);
	unwind_locate(s, planted ? pc + 1 : pc, &c->out[c->n]);
	c->prev_has_cfi = r->has_cfi || planted;
	c->prev_outermost = r->outermost || planted;
	c->prev_by_fp = !c->prev_has_cfi && by_frame_pointer(s, pc,
	    &c->out[c->n]);
	if (dwfl_frame_reg(frame, 7, &base) != 0)
		base = 0;
	c->prev_sp = base;
	c->n++;
	if (k >= UNWIND_MAX_DEPTH) {
		c->unfollowed = 1;	/* deeper than the memo follows */
		return DWARF_CB_OK;
	}
	/* where libdwfl will look for this frame's caller: its CFA */
	scratch.rule_index[k] = i;
	step = &scratch.steps[k];
	step->cfa_known = r->simple &&
	    dwfl_frame_reg(frame, r->cfa_reg, &base) == 0;
	step->cfa = step->cfa_known ? base + (uint64_t)r->cfa_off : 0;
	return DWARF_CB_OK;
}

/* One unwinding of the sample in s->cur by libdwfl: frames, or a cut. */
static void
unwind_once(struct unwind_space *s)
{
	struct current *c = &s->cur;
	int rc;

	c->n = c->first;
	c->prev_has_cfi = c->prev_outermost = c->prev_by_fp = c->cut = 0;
	c->read_above = c->read_other = c->unfollowed = 0;
	c->nreads = 0;
	rc = dwfl_getthread_frames(s->dwfl, c->tid, take_frame, c);
	if (c->n == c->first) {
		/* not even the first frame: the pc as it is */
		unwind_locate(s, c->regs[16], &c->out[c->n++]);
		c->cut = PROFIL_CUT_BROKEN;
	} else if (c->cut == 0 && !c->prev_outermost) {
		/*
		 * Stopped without reaching a frame whose CFI says it has no
		 * caller: find out why.
		 */
		if (!c->prev_has_cfi)
			c->cut = PROFIL_CUT_NO_UNWIND;
		else if (c->read_above)
			c->cut = PROFIL_CUT_STACK;
		else if (rc != 0 || c->read_other)
			c->cut = PROFIL_CUT_BROKEN;
		else
			c->cut = PROFIL_CUT_BROKEN;
	}
}

/*
 * Whether the unwinding just done is one the memo may give again: whole
 * (it ended at a frame whose CFI says it has no caller), with every read
 * it made noted.
 */
static int
memorable(const struct current *c)
{
	return c->cut == 0 && c->prev_outermost && !c->unfollowed;
}

static int
same_frames(const struct bframe *a, size_t na, const struct bframe *b,
    size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (a[i].obj != b[i].obj || a[i].value != b[i].value)
			return 0;
	return 1;
}

static struct unwind_memo_counts counts;

void
unwind_memo_counts(struct unwind_memo_counts *out)
{
	*out = counts;
}

/* PROFIL_UNWIND_VERIFY=1: unwind every sample the memo answers again. */
static int
verifying(void)
{
	static int v = -1;

	if (v < 0) {
		const char *e = getenv("PROFIL_UNWIND_VERIFY");

		v = e != NULL && strcmp(e, "1") == 0;
	}
	return v;
}

/* Remember the stack just unwound, by the facts it depended on. */
static void
memorize(struct unwind_space *s)
{
	struct current *c = &s->cur;
	size_t nsteps = c->n - c->first - 1, nfacts;

	/* the steps that found the frames' callers; the last found none */
	for (size_t k = 0; k < nsteps; k++)
		scratch.steps[k].rules = &s->rules[scratch.rule_index[k]];
	nfacts = stack_memo_facts(c->regs, scratch.steps, nsteps,
	    scratch.reads, c->nreads, scratch.facts);
	stack_memo_add(&s->memo, c->regs[16], c->regs[7], scratch.facts, nfacts,
	    &c->out[c->first], c->n - c->first);
}

/* unwind_stack, with only_sp_pc/no_rbp as struct current has them. */
static size_t
unwind_with(struct unwind_space *s, pid_t tid,
    const uint64_t regs[UNWIND_NREGS], int only_sp_pc, int no_rbp,
    uint64_t stack_addr, const void *stack, size_t size, struct bframe *out,
    size_t n, size_t max)
{
	struct current *c = &s->cur;
	struct bframe known[UNWIND_MAX_DEPTH];
	size_t nknown;

	if (n >= max)
		return n;
	if (sync_modules(s) < 0) {
		/* no unwinder at all: the place itself, and a cut */
		unwind_locate(s, regs[16], &out[n++]);
		if (n < max)
			out[n++] = (struct bframe){ BFRAME_CUT, PROFIL_CUT_BROKEN };
		return n;
	}
	/* room as the unwinding has it: no cut for the depth in it */
	nknown = stack_memo_find(&s->memo, regs, stack_addr, stack, size,
	    known, max - n - 1 < UNWIND_MAX_DEPTH ? max - n - 1 :
	    UNWIND_MAX_DEPTH);
	if (nknown > 0) {
		counts.hits++;
		if (!verifying()) {
			memcpy(&out[n], known, nknown * sizeof *known);
			return n + nknown;
		}
	} else
		counts.misses++;
	if (s->nrules >= CFI_MEMO_MAX)
		forget(s);
	memset(c, 0, sizeof *c);
	c->tid = tid;
	c->regs = regs;
	c->only_sp_pc = only_sp_pc;
	c->no_rbp = no_rbp;
	c->stack_addr = stack_addr;
	c->stack = stack;
	c->size = size;
	c->out = out;
	c->first = n;
	c->max = max - 1;	/* room for a cut */
	c->space = s;
	unwind_once(s);
	if (nknown == 0 && memorable(c))
		memorize(s);
	if (c->cut != 0)
		out[c->n++] = (struct bframe){ BFRAME_CUT, (uint64_t)c->cut };
	if (nknown > 0 && !same_frames(known, nknown, &out[n], c->n - n)) {
		if (counts.wrong++ == 0)	/* the first says where */
			fprintf(stderr, "profil: unwind memo wrong at pc "
			    "0x%llx\n", (unsigned long long)regs[16]);
	}
	return c->n;
}

size_t
unwind_stack(struct unwind_space *s, pid_t tid,
    const uint64_t regs[UNWIND_NREGS], uint64_t stack_addr, const void *stack,
    size_t size, struct bframe *out, size_t n, size_t max)
{
	return unwind_with(s, tid, regs, 0, 0, stack_addr, stack, size, out, n,
	    max);
}

/* Whether frames out[from..n) end without a cut, or at one past the copy. */
static int
whole(const struct bframe *out, size_t from, size_t n)
{
	if (n <= from)
		return 0;
	return out[n - 1].obj != BFRAME_CUT ||
	    out[n - 1].value == PROFIL_CUT_STACK ||
	    out[n - 1].value == PROFIL_CUT_DEPTH;
}

#define RBP_TRIES	16	/* frame pointers tried, lowest first */

size_t
unwind_blocked(struct unwind_space *s, pid_t tid, uint64_t sp, uint64_t pc,
    const void *stack, size_t size, struct bframe *out, size_t n, size_t max)
{
	uint64_t regs[UNWIND_NREGS] = { 0 };
	struct bframe *best = NULL;
	size_t got, tries = 0;
	const uint8_t *bytes = stack;

	regs[7] = sp;
	regs[16] = pc;
	got = unwind_with(s, tid, regs, 1, 1, sp, stack, size, out, n, max);
	if (whole(out, n, got) || size < 16)
		return got;
	/*
	 * Cut: code whose frames are found from the frame pointer (built
	 * with -fno-omit-frame-pointer) needs rbp, which the kernel does
	 * not tell.  Where a frame record is (saved rbp, then a return
	 * address into known code), try it as rbp, lowest first: a wrong
	 * one makes no whole stack out of return addresses.
	 */
	best = xcalloc(max, sizeof *best);
	memcpy(best, out, got * sizeof *out);
	for (size_t off = 0; off + 16 <= size && tries < RBP_TRIES; off += 8) {
		uint64_t saved, ret, at = sp + off;
		struct bframe f;
		size_t k;

		memcpy(&saved, bytes + off, 8);
		memcpy(&ret, bytes + off + 8, 8);
		if (saved != 0 && (saved <= at || saved - sp >= (uint64_t)1 << 32))
			continue;
		unwind_locate(s, ret - 1, &f);
		if (f.obj < 0)
			continue;
		tries++;
		regs[6] = at;
		k = unwind_with(s, tid, regs, 1, 0, sp, stack, size, out, n, max);
		if (whole(out, n, k) && k > got) {
			free(best);
			return k;
		}
	}
	memcpy(out, best, got * sizeof *out);
	free(best);
	return got;
}
