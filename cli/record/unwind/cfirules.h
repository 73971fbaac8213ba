/*
 * cfirules.h - what a pc's call-frame information says, in the few
 * shapes compiled code's CFI takes, read from libdw's answer for it: the
 * canonical frame address (CFA) as a register plus an offset, and each
 * register of the caller as undefined, unchanged, saved at CFA + n, or
 * CFA + n itself.  Anything else (an expression, a register saved in
 * another, an offset past 32 bits) makes the rules not simple, and the
 * stack memo then takes every register and every word read as a fact.
 * Some 100 bytes a pc.
 */
#ifndef PROFIL_RECORD_CFIRULES_H
#define PROFIL_RECORD_CFIRULES_H

#include <stdint.h>

#include <elfutils/libdw.h>

#include "arch.h"

enum { RULE_UNDEFINED, RULE_SAME, RULE_AT_CFA, RULE_IS_CFA, RULE_OTHER };

struct cfi_rules {
	uint8_t has_cfi;	/* the pc's caller is known from CFI */
	uint8_t outermost;	/* ... and there is none */
	uint8_t simple;		/* every rule below is one of the shapes */
	uint8_t cfa_reg;	/* CFA = cfa_reg + cfa_off */
	int32_t cfa_off;
	uint8_t kind[ARCH_NREGS];	/* RULE_* of each caller's register */
	int32_t off[ARCH_NREGS];		/* n of RULE_AT_CFA and RULE_IS_CFA */
};

/* The rules of frame (from dwarf_cfi_addrframe) into *r; has_cfi set. */
void cfi_rules_read(Dwarf_Frame *frame, struct cfi_rules *r);

#endif
