/*
 * unwind.h - call stacks from a sample's user registers and a copy of the
 * top of its stack, unwound in the recorder by elfutils' libdwfl from the
 * objects' call-frame information (.eh_frame, .debug_frame), as samples
 * arrive.  Both engines hand their samples here: the perf engine's from
 * the kernel (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER), the timer
 * engine's from the injected library's signal handler.
 *
 * One space per address space (process image) reads its executable
 * mappings from the process's addr_space (addrspace.h), and holds a
 * libdwfl session that keeps each object's file and CFI open while the
 * process lives.  Frames come back as the builder takes
 * them: object and file offset, or unknown code, and a cut (with its
 * reason) where the unwinding stopped short of the outermost frame.
 */
#ifndef PROFIL_RECORD_UNWIND_H
#define PROFIL_RECORD_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch.h"
#include "record/core/builder.h"

#define UNWIND_MAX_DEPTH 128	/* frames of one stack; deeper is cut */

struct unwind_space;
struct addr_space;

/*
 * The unwinder of process pid, whose mappings are space's (which must
 * outlive it): the modules are reported to libdwfl again whenever space
 * has changed (a mapping, an exec) since the last unwinding.
 */
struct unwind_space *unwind_space_new(pid_t pid,
    const struct addr_space *space);
void unwind_space_free(struct unwind_space *s);

/*
 * Where pc is: its object and file offset into *f, or BFRAME_UNKNOWN
 * with the pc itself.
 */
void unwind_locate(const struct unwind_space *s, uint64_t pc,
    struct bframe *f);

/*
 * The user-space frames of a sample of thread tid, appended to out[n..]:
 * regs are its user registers (DWARF order), stack holds size bytes of
 * its stack copied from address stack_addr (the stack pointer, or a
 * little below).  The first frame is where regs' pc is (the sampled
 * instruction; in a kernel-mode sample, where the thread entered the
 * kernel: the instruction after a system call, or the one interrupted
 * or faulting, in the same function either way); callers follow, and a
 * cut ends them when the unwinding stopped short of the outermost frame.
 * Returns the new number of frames in out, at most max.
 */
size_t unwind_stack(struct unwind_space *s, pid_t tid,
    const uint64_t regs[ARCH_NREGS], uint64_t stack_addr, const void *stack,
    size_t size, struct bframe *out, size_t n, size_t max);

/*
 * The user-space frames of thread tid blocked in the kernel, from what
 * /proc tells of it (its stack pointer and pc at the system call) and
 * size bytes of its stack read from sp: as unwind_stack, the other
 * registers unknown.  Where the unwinding needs the frame pointer (code
 * built with frame pointers) and stops short, the frame records on the
 * stack are tried as its value, and one is kept only if the stack it
 * gives goes on to the outermost frame (or past the copy).
 */
size_t unwind_blocked(struct unwind_space *s, pid_t tid, uint64_t sp,
    uint64_t pc, const void *stack, size_t size, struct bframe *out, size_t n,
    size_t max);

/*
 * How the stack memo (stackmemo.h) did: samples it answered and did
 * not, and, with PROFIL_UNWIND_VERIFY=1 in the environment (every answer
 * checked by unwinding again), answers that differed.
 */
struct unwind_memo_counts {
	uint64_t hits, misses, wrong;
	uint64_t first_wrong_pc;	/* where the first wrong one was */
};
void unwind_memo_counts(struct unwind_memo_counts *out);

#endif
