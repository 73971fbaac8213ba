#!/usr/bin/env python3
"""gen-big.py - a C program with N distinct functions, for timing reports.

Writes DIR/big-K.c (the functions, split over UNITS translation units so
every core compiles some) and DIR/big-main.c, then builds DIR/big
(gcc -O1 -g) and DIR/big-pg (the same with -pg, for gprof).

Function f<i> (zero-padded to the width of N-1) is noinline and does its
own arithmetic (constants and one of four operation mixes depend on i),
so the compiler can neither inline nor fold two of them into one.  Every
HEAVY-th function (f0, f1000, ...) loops FACTOR (1000) times over the
operations the others do once: the heavy ones are the known top of the
profile (by how much depends on call and cache costs too).  `big SECONDS`
calls all N functions in order, round after round, until it has used
SECONDS of CPU (default: the -s value).

usage: bench/gen-big.py [-n N] [-s SECONDS] [-u UNITS] [--heavy-every K]
                        [--heavy-factor F] [--no-build] DIR
Prints the compile times (wall and CPU seconds) on stderr.
"""
import argparse
import os
import resource
import subprocess
import sys
import time

OPS = (
    "x = (x ^ (x >> {s})) * {a}ul + {b}ul;",
    "x = (x + {b}ul) * {a}ul ^ (x << {s});",
    "x = (x * {a}ul) + (x >> {s}) + {b}ul;",
    "x = ((x << {s}) | (x >> (64 - {s}))) * {a}ul - {b}ul;",
)
OPS_PER_CALL = 2


def name(i, width):
    return "f%0*d" % (width, i)


def function(i, width, heavy_every, factor):
    """The source of function i: arithmetic distinct from every other one.

    An ordinary function is straight-line code (gcc spends over a
    millisecond on each function at -O1 -g, and a loop nearly doubles
    that); a heavy one loops over the same operations factor times."""
    a = (0x9E3779B97F4A7C15 * (i + 1)) & 0xFFFFFFFFFFFFFFFF | 1
    b = (i * 2654435761 + 12345) & 0xFFFFFFFF
    s = 1 + i % 61
    ops = "".join("\t\t" + OPS[(i + k) % len(OPS)].format(a=a, b=b + k, s=s) + "\n"
                  for k in range(OPS_PER_CALL))
    if i % heavy_every == 0:
        body = "\tfor (int i = 0; i < %d; i++) {\n%s\t}\n" % (factor, ops)
    else:
        body = ops.replace("\t\t", "\t")
    return ("__attribute__((noinline)) unsigned long %s(unsigned long x)\n"
            "{\n%s\treturn x;\n}\n\n" % (name(i, width), body))


def main_source(n, width, seconds):
    out = ["#include <stdlib.h>\n#include <time.h>\n\n"]
    for i in range(n):
        out.append("unsigned long %s(unsigned long);\n" % name(i, width))
    out.append("\nstatic unsigned long (*const table[%d])(unsigned long) = {\n" % n)
    for i in range(n):
        out.append("\t%s,\n" % name(i, width))
    out.append("};\n\n")
    out.append("""static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double until = cpu_seconds() + (argc > 1 ? atof(argv[1]) : %s);
	unsigned long x = 1;

	do
		for (int i = 0; i < %d; i++)
			x = table[i](x);
	while (cpu_seconds() < until);
	return x == 42;
}
""" % (repr(float(seconds)), n))
    return "".join(out)


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w") as f:
        f.write(text)


def build(sources, out, flags, jobs):
    """Compile sources in parallel (jobs at a time), link out; return
    (wall seconds, CPU seconds of the compilers and linker)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    objs, running = [], []
    for src in sources:
        obj = src[:-2] + ("-pg.o" if "-pg" in flags else ".o")
        objs.append(obj)
        running.append(subprocess.Popen(["gcc"] + flags + ["-c", "-o", obj, src]))
        if len(running) >= jobs:
            if running.pop(0).wait() != 0:
                sys.exit("gen-big.py: compiling failed")
    for p in running:
        if p.wait() != 0:
            sys.exit("gen-big.py: compiling failed")
    subprocess.run(["gcc"] + flags + ["-o", out] + objs, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.monotonic() - start, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=50000, help="functions (50000)")
    ap.add_argument("-s", type=float, default=5.0, help="default CPU seconds (5)")
    ap.add_argument("-u", type=int, default=8, help="translation units (8)")
    ap.add_argument("--heavy-every", type=int, default=1000)
    ap.add_argument("--heavy-factor", type=int, default=1000)
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("dir")
    args = ap.parse_args()
    if args.n < 1 or args.u < 1 or args.heavy_every < 1 or args.heavy_factor < 1:
        ap.error("counts must be positive")
    width = len(str(args.n - 1))
    os.makedirs(args.dir, exist_ok=True)
    sources = []
    per_unit = (args.n + args.u - 1) // args.u
    for u in range(args.u):
        body = "".join(function(i, width, args.heavy_every, args.heavy_factor)
                       for i in range(u * per_unit, min(args.n, (u + 1) * per_unit)))
        path = os.path.join(args.dir, "big-%d.c" % u)
        write_if_changed(path, "/* generated by bench/gen-big.py */\n\n" + body)
        sources.append(path)
    path = os.path.join(args.dir, "big-main.c")
    write_if_changed(path, "/* generated by bench/gen-big.py */\n" +
                     main_source(args.n, width, args.s))
    sources.append(path)
    if args.no_build:
        return
    jobs = os.cpu_count() or 1
    newest = max(os.path.getmtime(src) for src in sources)
    for out, flags in (("big", ["-O1", "-g"]), ("big-pg", ["-O1", "-g", "-pg"])):
        out = os.path.join(args.dir, out)
        if os.path.exists(out) and os.path.getmtime(out) > newest:
            os.utime(out)   # the same sources: only tell make it is current
            print("gen-big.py: %s is up to date" % out, file=sys.stderr)
            continue
        wall, cpu = build(sources, out, flags, jobs)
        print("gen-big.py: %s: %d functions in %d units compiled and linked "
              "in %.1f s (%.1f s CPU, %d jobs)" % (out, args.n, args.u, wall, cpu, jobs),
              file=sys.stderr)


if __name__ == "__main__":
    main()
