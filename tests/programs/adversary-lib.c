/*
 * adversary-lib.c - the library tests/programs/adversary.c dlopen's and
 * dlclose's in a loop.  Built twice (adversary-liba.so with
 * ADV_LIB_BURN=a_burn, adversary-libb.so with b_burn): the same layout, so
 * that the second tends to be mapped where the first was, and a profiler must
 * tell them apart by time, not by address.  Nothing of profil's is linked in.
 */
#ifndef ADV_LIB_BURN
#error "build with -DADV_LIB_BURN=a_burn or b_burn"
#endif

void ADV_LIB_BURN(unsigned long iterations);

/* Burn CPU: iterations of a multiply-add on a local. */
__attribute__((noinline)) void
ADV_LIB_BURN(unsigned long iterations)
{
	volatile unsigned long local = 1;

	for (unsigned long i = 0; i < iterations; i++)
		local = local * 6364136223846793005ul + i;
}
