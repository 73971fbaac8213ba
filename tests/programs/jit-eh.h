/*
 * jit-eh.h - the unwind table of tests/programs/jit-workload.c's nofp() code,
 * as a runtime gives it in a jitdump UNWINDING_INFO record: for the program
 * that writes it and the unit test that reads it (test-jitfiles.c).
 *
 * nofp(n), 45 bytes: push %rbp (at 0), xor %ebp,%ebp, sub $0x20,%rsp
 * (at 3), the loop (24 to 39), add $0x20,%rsp (at 39), pop %rbp (at 43),
 * ret (at 44).  Its CFA is rsp+8 at 0, rsp+16 from 1, rsp+48 from 7,
 * rsp+16 from 43, rsp+8 at 44; rbp is saved at CFA-16 from 1 to 43.
 */
#ifndef PROFIL_TEST_JIT_EH_H
#define PROFIL_TEST_JIT_EH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JIT_EH_FRAME	60	/* .eh_frame's bytes */
#define JIT_EH_HDR	20	/* .eh_frame_hdr's */

static inline void
eh_put32(unsigned char *at, int64_t v)
{
	int32_t x = (int32_t)v;

	memcpy(at, &x, 4);
}

/*
 * nofp()'s unwind table for its copy of size bytes: .eh_frame (a CIE,
 * an FDE, the terminator) into eh[0..60), then .eh_frame_hdr into
 * eh[60..80), laid out as if .eh_frame followed the code at size rounded
 * up to 8 and the header followed it (V8's layout; perf's genelf.c reads
 * it so): pointers relative to where they would be.  Returns 80.
 */
static inline size_t
unwind_table(size_t size, unsigned char eh[80])
{
	static const unsigned char cie[24] = {
		20, 0, 0, 0, 0, 0, 0, 0,	/* length, CIE id */
		1, 'z', 'R', 0,			/* version, augmentation */
		1, 0x78, 16,			/* code align 1, data -8, ra rip */
		1, 0x1b,			/* pointers: pcrel sdata4 */
		0x0c, 7, 8,			/* DW_CFA_def_cfa rsp+8 */
		0x90, 1,			/* DW_CFA_offset rip at cfa-8 */
		0, 0,				/* DW_CFA_nop */
	};
	static const unsigned char fde_ops[16] = {
		0x41, 0x0e, 16, 0x86, 2,	/* @1: cfa rsp+16, rbp at cfa-16 */
		0x46, 0x0e, 48,			/* @7: cfa rsp+48 */
		0x64, 0x0e, 16,			/* @43: cfa rsp+16 */
		0x41, 0x0e, 8, 0xc6,		/* @44: cfa rsp+8, rbp restored */
		0,				/* DW_CFA_nop */
	};
	int64_t base = (int64_t)((size + 7) & ~(size_t)7), hdr = base + 60;

	memset(eh, 0, 80);
	memcpy(eh, cie, sizeof cie);
	eh_put32(eh + 24, 28);			/* FDE length */
	eh_put32(eh + 28, 28);			/* back to the CIE */
	eh_put32(eh + 32, 0 - (base + 32));	/* pc_begin: the code, pcrel */
	eh_put32(eh + 36, (int64_t)size);		/* pc_range */
	eh[40] = 0;				/* no augmentation data */
	memcpy(eh + 41, fde_ops, 15);		/* to 56; eh[56..60) ends it */
	eh[60] = 1;				/* .eh_frame_hdr version */
	eh[61] = 0x1b;				/* eh_frame_ptr: pcrel sdata4 */
	eh[62] = 0x03;				/* fde_count: udata4 */
	eh[63] = 0x3b;				/* table: datarel sdata4 */
	eh_put32(eh + 64, base - (hdr + 4));	/* .eh_frame */
	eh_put32(eh + 68, 1);
	eh_put32(eh + 72, 0 - hdr);		/* the code starts */
	eh_put32(eh + 76, base + 24 - hdr);	/* at the FDE */
	return 80;
}

#endif
