// cxx-workload.cc - a C++ program for the report tests: mangled names
// (a template member, overloads, a namespace), a function whose hot line
// is marked, and a mode that spends its time in the vDSO.
//
//   burn ROUNDS    geo::Burner<double>::burn 3 parts (called by
//                  geo::burn_with, a name with < > & in it), geo::area(int)
//                  1 part
//   clock ROUNDS   clock_gettime in a loop (the vDSO does the work)
//   throw ROUNDS   exceptions thrown through 8 frames and caught: the
//                  time in the C++ runtime's unwinder has stacks too
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace geo {

template <typename T> struct Burner {
	__attribute__((noinline)) T burn(long n) const
	{
		volatile T x = 0;
		for (long i = 0; i < n; i++)
			x = x * (T)0.5 + (T)i;	/* HOT */
		return x;
	}
};

// Its caller on every stack of burn: the HTML page must escape its name
// (noipa: no ".isra" clone renames it).
template <typename T>
__attribute__((noipa)) T burn_with(const Burner<T> &b, long n)
{
	T x = b.burn(n);
	__asm__ volatile("" ::: "memory");	/* a call, not a tail jump */
	return x;
}

__attribute__((noinline)) double area(int n)
{
	volatile double x = 0;
	for (int i = 0; i < n; i++)
		x = x * 0.5 + i;
	return x;
}

__attribute__((noinline)) double area(double n)
{
	return n * n;
}

struct Thrown {
	int depth;
};

__attribute__((noinline)) int dive(int depth)
{
	if (depth == 0)
		throw Thrown{ depth };
	return dive(depth - 1) + 1;	/* not a tail call */
}

__attribute__((noinline)) long catcher(long rounds)
{
	long caught = 0;

	for (long r = 0; r < rounds; r++) {
		try {
			dive(8);
		} catch (const Thrown &t) {
			caught += 1 + t.depth;
		}
	}
	return caught;
}

} // namespace geo

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[2]) : 10;
	double sink = 0;

	if (argc > 1 && strcmp(argv[1], "throw") == 0) {
		sink += (double)geo::catcher(rounds * 10000);
	} else if (argc > 1 && strcmp(argv[1], "clock") == 0) {
		struct timespec ts;
		for (long r = 0; r < rounds * 100000; r++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += (double)ts.tv_nsec;
		}
	} else {
		geo::Burner<double> b;
		for (long r = 0; r < rounds; r++) {
			sink += geo::burn_with(b, 3000000);
			sink += geo::area(3000000);
			sink += geo::area(2.0);
		}
	}
	printf("%s done\n", argc > 1 ? argv[1] : "burn");
	return sink == 42.0;
}
