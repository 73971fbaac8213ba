/*
 * disasm.h - x86-64 instructions as text, by capstone, loaded with
 * dlopen the first time they are asked for.
 *
 * Only `report --annotate` of a function without a line table needs a
 * disassembler, and linking capstone made every `profil` start pay for
 * its 77,000 relocations (7 ms of CPU here, on `profil record true` as
 * on `profil --version`).
 */
#ifndef PROFIL_DISASM_H
#define PROFIL_DISASM_H

#include <stddef.h>
#include <stdint.h>

struct disasm_insn {
	uint64_t address;
	uint32_t size;
	char *text;			/* "mnemonic operands", malloc'd */
};

/*
 * Decode code (size bytes, the first at address) up to the first byte
 * that is not an instruction.  Returns how many were decoded, with the
 * malloc'd array in *out; 0 (and *out NULL) when nothing decoded or
 * capstone cannot be loaded.
 */
size_t disasm_x86_64(const unsigned char *code, size_t size,
    uint64_t address, struct disasm_insn **out);

void disasm_free(struct disasm_insn *insns, size_t n);

#endif
