/*
 * unwind-cfi.c - what the call-frame information says at a pc, looked up
 * once per pc while the modules stay the same; and, where there is none,
 * judgements on what libdwfl found instead: a return address planted by
 * hand (makecontext's), or a caller found by frame pointer from generated
 * code (JIT runtimes keep frame pointers).
 *
 * Invariant: a caller not told by CFI is kept only where
 * unwind_by_frame_pointer allows one and unwind_frame_pointer_caller finds
 * it sound; take_frame (unwind.c) cuts the stack at any other.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "cfirules.h"
#include "cli.h"
#include "hmap.h"
#include "record/core/addrspace.h"
#include "record/core/fpmarks.h"
#include "record/jit/jit.h"
#include "unwind-internal.h"
#include "unwind.h"

/*
 * What the call-frame information says at pc, if there is any: the only
 * way its caller is known rather than guessed.  It may say that there is
 * no caller (the return address is undefined: _start, clone).
 */

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
int
unwind_planted_return(struct unwind_space *s, uint64_t ret)
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
		r->outermost = r->kind[ARCH_REG_PC] == RULE_UNDEFINED;
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
size_t
unwind_rules_index(struct unwind_space *s, uint64_t pc)
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

/*
 * Whether the caller of code without CFI at pc (located as *f) may be
 * found by its frame pointer: generated code (JIT runtimes keep frame
 * pointers: V8, the JVM, .NET, LuaJIT's traces), whether named by its
 * runtime or anonymous, and, in a process with generated code, code of
 * its files that has none (V8's builtins, in node's own text).
 */
int
unwind_by_frame_pointer(struct unwind_space *s, uint64_t pc,
    const struct bframe *f)
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
 * (which has no CFI) is one: its return address pc is in code (a file's,
 * right after a call; generated code, named or not yet: anonymous
 * executable memory, which cannot be read back), and its frame is above
 * the one before on the stack.  A frame whose
 * caller is found so is marked (fpmarks.h), and its stack is not
 * remembered by the memo (its facts are CFI's).
 */
int
unwind_frame_pointer_caller(struct current *c, Dwfl_Frame *frame, uint64_t pc)
{
	struct unwind_space *s = c->space;
	struct bframe f;
	Dwarf_Word sp;

	if (pc == 0 || dwfl_frame_reg(frame, ARCH_REG_SP, &sp) != 0 || sp <= c->prev_sp)
		return 0;
	unwind_locate(s, pc - 1, &f);
	if (f.obj < 0) {
		/*
		 * Anonymous executable memory is code too: generated code
		 * not named yet (V8 writes its jitdump file late; such
		 * frames are named when the file is read whole).
		 */
		const struct addr_map *m = addr_space_find(s->space, pc - 1);

		if (m == NULL || f.obj != BFRAME_UNKNOWN)
			return 0;
	} else if (f.obj != jit_object() && !after_call(s, pc))
		return 0;
	c->unfollowed = 1;
	fpmarks_add(&c->out[c->n - 1]);	/* the frame it was found from */
	return 1;
}
