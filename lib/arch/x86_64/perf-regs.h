/*
 * perf-regs.h (x86-64) - the user registers a perf sample carries for the
 * recorder's unwinder (cli/record/perf/perf-events.c asks for them,
 * perf-records.c reads them): perf's numbering of the machine's
 * registers, against the DWARF order of arch.h.
 */
#ifndef PROFIL_ARCH_PERF_REGS_H
#define PROFIL_ARCH_PERF_REGS_H

#include "arch.h"

/* AX..IP (perf's 0-8) and R8..R15 (16-23), in that order in a sample. */
#define ARCH_PERF_REGS_MASK	(0x1ffull | 0xffull << 16)

/*
 * Where DWARF register i (rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip) is
 * among a sample's ARCH_PERF_REGS_MASK registers.
 */
static inline int
arch_perf_reg_at(int i)
{
	static const int at[ARCH_NREGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 9, 10,
		11, 12, 13, 14, 15, 16, 8 };

	return at[i];
}

#endif
