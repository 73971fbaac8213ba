/*
 * split.c - a plain program with a known CPU split, for `profil record`:
 * three functions with identical loop bodies run 6:3:1 times, so a right
 * profile shows them at about 60%, 30% and 10%.
 *
 * usage: split [ROUNDS]   (default 40: about 1 s of CPU)
 */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

#define LOOP(n) for (unsigned long i = 0; i < (n); i++) \
	sink = sink * 6364136223846793005ul + i

__attribute__((noinline)) static void six(void) { LOOP(6000000); }
__attribute__((noinline)) static void three(void) { LOOP(3000000); }
__attribute__((noinline)) static void one(void) { LOOP(1000000); }

int
main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 40;

	if (rounds <= 0) {
		fprintf(stderr, "usage: split [ROUNDS]\n");
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		six();
		three();
		one();
	}
	return 0;
}
