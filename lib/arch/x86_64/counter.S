/*
 * counter.S (x86-64) - counter updates that may fault without harm.
 *
 * Every instruction that touches caller memory lies between
 * profil_arch_fault_begin and profil_arch_fault_end.  None of these
 * functions uses the stack, so when one faults, fault.c moves the pc to
 * profil_arch_fault_fixup, whose "ret" returns -1 to the caller, just as
 * the kernel's exception tables do for copy_to_user().
 */
	.text
	.hidden	profil_arch_add_u16, profil_arch_add_u32
	.hidden	profil_arch_probe_write, profil_arch_probe_read
	.hidden	profil_arch_cas_u64, profil_arch_add_u64
	.hidden	profil_arch_fault_begin, profil_arch_fault_end
	.hidden	profil_arch_fault_fixup
	.globl	profil_arch_add_u16, profil_arch_add_u32
	.globl	profil_arch_probe_write, profil_arch_probe_read
	.globl	profil_arch_cas_u64, profil_arch_add_u64
	.globl	profil_arch_fault_begin, profil_arch_fault_end
	.globl	profil_arch_fault_fixup

	.p2align 4
profil_arch_fault_begin:

/* long profil_arch_add_u16(uint16_t *counter %rdi, unsigned long weight %rsi) */
	.type	profil_arch_add_u16, @function
profil_arch_add_u16:
	movzwl	(%rdi), %eax		/* old value; rax upper bits stay 0 */
	movl	$0xffff, %ecx
1:	leaq	(%rax,%rsi), %rdx	/* wanted = old + weight */
	cmpq	%rcx, %rdx
	cmovaq	%rcx, %rdx		/* saturate */
	lock cmpxchgw %dx, (%rdi)	/* fails: ax = current value */
	jne	1b
	leaq	(%rax,%rsi), %rax
	subq	%rdx, %rax		/* lost = old + weight - new */
	ret
	.size	profil_arch_add_u16, .-profil_arch_add_u16

/* long profil_arch_add_u32(uint32_t *counter %rdi, unsigned long weight %rsi) */
	.type	profil_arch_add_u32, @function
profil_arch_add_u32:
	movl	(%rdi), %eax
	movl	$0xffffffff, %ecx
1:	leaq	(%rax,%rsi), %rdx
	cmpq	%rcx, %rdx
	cmovaq	%rcx, %rdx
	lock cmpxchgl %edx, (%rdi)	/* fails: eax = current, zero-extended */
	jne	1b
	leaq	(%rax,%rsi), %rax
	subq	%rdx, %rax
	ret
	.size	profil_arch_add_u32, .-profil_arch_add_u32

/* long profil_arch_probe_write(void *p): a locked no-op write */
	.type	profil_arch_probe_write, @function
profil_arch_probe_write:
	lock orb $0, (%rdi)
	xorl	%eax, %eax
	ret
	.size	profil_arch_probe_write, .-profil_arch_probe_write

/* long profil_arch_probe_read(const void *p) */
	.type	profil_arch_probe_read, @function
profil_arch_probe_read:
	movb	(%rdi), %al
	xorl	%eax, %eax
	ret
	.size	profil_arch_probe_read, .-profil_arch_probe_read

/*
 * long profil_arch_cas_u64(uint64_t *p %rdi, uint64_t *expected %rsi,
 *     uint64_t desired %rdx): 1 if *p was *expected and is now desired;
 * 0 if not, with the current value in *expected (a caller's local).
 */
	.type	profil_arch_cas_u64, @function
profil_arch_cas_u64:
	movq	(%rsi), %rax
	lock cmpxchgq %rdx, (%rdi)
	jne	1f
	movl	$1, %eax
	ret
1:	movq	%rax, (%rsi)
	xorl	%eax, %eax
	ret
	.size	profil_arch_cas_u64, .-profil_arch_cas_u64

/* long profil_arch_add_u64(uint64_t *p %rdi, unsigned long weight %rsi) */
	.type	profil_arch_add_u64, @function
profil_arch_add_u64:
	lock addq %rsi, (%rdi)
	xorl	%eax, %eax
	ret
	.size	profil_arch_add_u64, .-profil_arch_add_u64

profil_arch_fault_end:

	.type	profil_arch_fault_fixup, @function
profil_arch_fault_fixup:
	movq	$-1, %rax
	ret
	.size	profil_arch_fault_fixup, .-profil_arch_fault_fixup

	.section .note.GNU-stack,"",@progbits
