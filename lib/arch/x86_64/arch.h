/*
 * arch.h (x86-64) - what the sampler needs from the machine: the
 * interrupted pc in a signal context, and the fault-safe counter updates
 * of counter.S with the fixup that makes a faulting update return -1.
 */
#ifndef PROFIL_ARCH_H
#define PROFIL_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

/* The pc at which the thread was interrupted. */
static inline uintptr_t
arch_context_pc(const void *ucontext)
{
	const ucontext_t *uc = ucontext;

	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

/*
 * Whether the signal was delivered on the way back from a system call:
 * its pc is the instruction after the call (or the call itself, about
 * to be restarted).  x86-64's syscall instruction leaves its return
 * address in rcx, which the kernel saves with the other registers; an
 * interrupt of user code finds rcx equal to the pc only by chance (at
 * the very instruction a system call returned to, which is as good).
 * So a CPU timer's tick that came in the kernel is told from one that
 * came in user code, with no memory read and no system call.
 */
static inline int
arch_context_after_syscall(const void *ucontext)
{
	const ucontext_t *uc = ucontext;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t rcx = (uint64_t)uc->uc_mcontext.gregs[REG_RCX];

	return rcx == pc || rcx == pc + 2;
}

/* DWARF registers 0-16 of x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip */
#define ARCH_NREGS 17
#define ARCH_REG_FP 6		/* rbp, in those */
#define ARCH_REG_SP 7		/* rsp */
#define ARCH_REG_PC 16		/* rip; in CFI, the return address column */

/* The ELF machine of this one (an ELF image made for libdwfl). */
#define ARCH_ELF_MACHINE EM_X86_64

/* Bytes below the stack pointer a leaf function may use (the ABI's). */
#define ARCH_RED_ZONE 128

/* The interrupted thread's registers, in DWARF order, for an unwinder. */
static inline void
arch_context_regs(const void *ucontext, uint64_t regs[ARCH_NREGS])
{
	static const int greg[ARCH_NREGS] = { REG_RAX, REG_RDX, REG_RCX, REG_RBX,
		REG_RSI, REG_RDI, REG_RBP, REG_RSP, REG_R8, REG_R9, REG_R10,
		REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP };
	const ucontext_t *uc = ucontext;

	for (int i = 0; i < ARCH_NREGS; i++)
		regs[i] = (uint64_t)uc->uc_mcontext.gregs[greg[i]];
}

/*
 * Counter updates (counter.S).  Each adds weight to *counter, atomically,
 * saturating at the counter's maximum, and returns the increments lost to
 * saturation, or -1 if the counter is not writable memory.  They may only
 * be called while fault_install() is in force (see fault.h).
 */
long profil_arch_add_u16(uint16_t *counter, unsigned long weight);
long profil_arch_add_u32(uint32_t *counter, unsigned long weight);

/*
 * Compare-and-swap: 1 if *p was *expected and is now desired; 0 if not,
 * with the value found in *expected (which must be the caller's own
 * memory); -1 if p is not writable memory.
 */
long profil_arch_cas_u64(uint64_t *p, uint64_t *expected, uint64_t desired);
/* *p += weight atomically: 0, or -1 if p is not writable memory. */
long profil_arch_add_u64(uint64_t *p, unsigned long weight);

/* 0 if the byte at p can be written (it is left unchanged), -1 if not. */
long profil_arch_probe_write(void *p);
/* 0 if the byte at p can be read, -1 if not. */
long profil_arch_probe_read(const void *p);

extern const char profil_arch_fault_begin[], profil_arch_fault_end[];
extern const char profil_arch_fault_fixup[];

/*
 * If the fault in ucontext happened inside one of the functions above,
 * redirect it to return -1 and return 1; otherwise return 0.
 */
static inline int
arch_fault_fixup(void *ucontext)
{
	ucontext_t *uc = ucontext;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

	if (pc < (uintptr_t)profil_arch_fault_begin ||
	    pc >= (uintptr_t)profil_arch_fault_end)
		return 0;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)profil_arch_fault_fixup;
	return 1;
}

#endif
