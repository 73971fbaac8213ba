/*
 * cfirules.c - a pc's call-frame rules in the shapes the stack memo
 * follows.  See cfirules.h.  libdw hands each rule over as a DWARF
 * expression; the shapes are recognised from how it builds them (offset
 * rules: the CFA and an added constant, a value rule ending in
 * DW_OP_stack_value; the CFA: one DW_OP_bregx).
 */
#include <stdint.h>
#include <string.h>

#include <dwarf.h>

#include "cfirules.h"

/* n as an int32_t into *out, if it is one */
static int
fits(uint64_t n, int32_t *out)
{
	int64_t v = (int64_t)n;

	if (v < INT32_MIN || v > INT32_MAX)
		return 0;
	*out = (int32_t)v;
	return 1;
}

static int
rule_of(Dwarf_Frame *frame, int regno, int32_t *off)
{
	Dwarf_Op ops_mem[3], *ops;
	size_t nops, i = 1;

	*off = 0;
	if (dwarf_frame_register(frame, regno, ops_mem, &ops, &nops) != 0)
		return RULE_OTHER;
	if (nops == 0)
		return ops == NULL ? RULE_SAME : RULE_UNDEFINED;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return RULE_OTHER;
	if (i < nops && ops[i].atom == DW_OP_plus_uconst &&
	    !fits(ops[i++].number, off))
		return RULE_OTHER;
	if (i == nops)
		return RULE_AT_CFA;
	if (i + 1 == nops && ops[i].atom == DW_OP_stack_value)
		return RULE_IS_CFA;
	return RULE_OTHER;
}

void
cfi_rules_read(Dwarf_Frame *frame, struct cfi_rules *r)
{
	Dwarf_Op *ops;
	size_t nops;

	memset(r, 0, sizeof *r);
	r->has_cfi = 1;
	r->simple = 1;
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
	    ops[0].atom == DW_OP_bregx && ops[0].number < ARCH_NREGS &&
	    fits(ops[0].number2, &r->cfa_off))
		r->cfa_reg = (uint8_t)ops[0].number;
	else if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
	    ops[0].atom >= DW_OP_breg0 && ops[0].atom < DW_OP_breg0 +
	    ARCH_NREGS && fits(ops[0].number, &r->cfa_off))
		r->cfa_reg = (uint8_t)(ops[0].atom - DW_OP_breg0);
	else
		r->simple = 0;
	for (int regno = 0; regno < ARCH_NREGS; regno++) {
		r->kind[regno] = (uint8_t)rule_of(frame, regno, &r->off[regno]);
		if (r->kind[regno] == RULE_OTHER)
			r->simple = 0;
	}
}
