// cxx-workload.cc - a C++ program for the report tests: mangled names
// (a template member, overloads, a namespace), a function whose hot line
// is marked, and a mode that spends its time in the vDSO.
//
//   burn SECONDS   geo::Burner<double>::burn (called by geo::burn_with,
//                  a name with < > & in it) and geo::area(int), the same
//                  loop as many times each: 1:1
//   clock SECONDS  clock_gettime in a loop (the vDSO does the work)
//   throw SECONDS  exceptions thrown through 8 frames and caught: the
//                  time in the C++ runtime's unwinder has stacks too
//
// SECONDS of the thread's CPU, in whole rounds (tests/programs/workload.c says
// why); PROFIL_TEST_WORK_SCALE=K scales each round's work by K.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

static double work_scale = 1;

static long scaled(long n)
{
	double k = (double)n * work_scale + 0.5;
	return k < 1 ? 1 : (long)k;
}

static double thread_cpu()
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

// (long: the tests look for geo::catcher(long) on the stacks)
__attribute__((noinline)) long catcher(long micros)
{
	long caught = 0;
	double until = thread_cpu() + (double)micros / 1e6;

	do {
		for (long r = 0; r < scaled(10000); r++) {
			try {
				dive(8);
			} catch (const Thrown &t) {
				caught += 1 + t.depth;
			}
		}
	} while (thread_cpu() < until);
	return caught;
}

} // namespace geo

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 0.1, until;
	const char *scale = getenv("PROFIL_TEST_WORK_SCALE");
	double sink = 0;

	if (scale != NULL && (work_scale = atof(scale)) <= 0) {
		fprintf(stderr, "cxx-workload: bad PROFIL_TEST_WORK_SCALE '%s'\n",
		    scale);
		return 2;
	}
	until = thread_cpu() + seconds;
	if (argc > 1 && strcmp(argv[1], "throw") == 0) {
		sink += (double)geo::catcher((long)(seconds * 1e6));
	} else if (argc > 1 && strcmp(argv[1], "clock") == 0) {
		struct timespec ts;
		do {
			for (long r = 0; r < scaled(100000); r++) {
				clock_gettime(CLOCK_MONOTONIC, &ts);
				sink += (double)ts.tv_nsec;
			}
		} while (thread_cpu() < until);
	} else {
		geo::Burner<double> b;
		do {
			sink += geo::burn_with(b, scaled(3000000));
			sink += geo::area((int)scaled(3000000));
			sink += geo::area(2.0);
		} while (thread_cpu() < until);
	}
	printf("%s done\n", argc > 1 ? argv[1] : "burn");
	return sink == 42.0;
}
