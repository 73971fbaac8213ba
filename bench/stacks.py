#!/usr/bin/env python3
"""stacks.py - what call stacks cost: `profil record` with stacks against
its flat profile and `perf record --call-graph dwarf`, on programs built
without frame pointers, in one run.

For each workload, runs it unprofiled, under `profil record
--no-call-graph`, `profil record` (stacks), `perf record` (flat) and
`perf record --call-graph dwarf`, all at RATE Hz, alternating, ROUNDS
times; reports medians of:
  - extra CPU (program + profiler, over the unprofiled run of the same
    round), and the two targets: stacks at most 1.5 points above flat,
    and at most a third of perf --call-graph dwarf's extra CPU, each a
    median of the round's own difference or ratio (the machine drifts by
    a point or more over a run; the runs of one round follow each other);
  - the floor under the stacks' cost: bench/bare-sampler with and
    without a 16 KiB stack copy (the kernel's part, whoever reads it);
  - the recorder's own CPU per sample with stacks, less without: what
    unwinding costs, and so how many samples it unwinds per CPU-second
    (target: 20,000);
  - the same, split in two by runs 4x as long (unprofiled, flat and
    stacks, in the same rounds): what stacks cost the recorder once a
    run (its rings, its start) and what they cost it a sample (the
    unwinding), and stacks - flat on the long runs, where the cost per
    run weighs a quarter as much;
  - the files: .prf with stacks for the run and a run 4x as long (target:
    64 KiB, and the same size), perf.data with dwarf stacks;
  - report --tree, --callers and --html on bench/gen-big.py's 50,000-
    function program recorded with stacks (target: 100 ms each).

usage: bench/stacks.py [BUILD_DIR [ROUNDS [RATE]]]   (build 7 1000)
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402  (timed, tv_distance; same argv)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
RATE = sys.argv[3] if len(sys.argv) > 3 else "1000"
PROFIL = os.path.abspath(os.path.join(BUILD, "profil"))
WL = os.path.abspath(os.path.join(BUILD, "tests", "workload"))
CXX = os.path.abspath(os.path.join(BUILD, "tests", "cxx-workload"))
BIG = os.path.abspath(os.path.join(BUILD, "bench", "big", "big"))
BARE = os.path.abspath(os.path.join(BUILD, "bench", "bare-sampler"))
STACK = "16384"                 # profil record's default --stack-size

WORKLOADS = {
    "single-thread 6:3:1": [WL, "split", "1.65"],
    "4 threads 6:3:1": [WL, "threads", "4", "0.44"],
    "leaf via 3 paths, qsort": [WL, "paths", "0.66"],
    "C++ exceptions": [CXX, "throw", "1.3"],
}


def caption(prf):
    """(samples, program CPU s) from the report's caption."""
    out = subprocess.run([PROFIL, "report", "--limit", "0", prf],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"(\d+) samples, ([\d.]+) s CPU", out)
    return int(m.group(1)), float(m.group(2))


def configs(tmp, prog):
    prf = os.path.join(tmp, "x.prf")
    pdata = os.path.join(tmp, "perf.data")
    return {
        "unprofiled": prog,
        "profil flat": [PROFIL, "record", "-q", "--no-call-graph", "-F", RATE,
                        "-o", prf] + prog,
        "profil stacks": [PROFIL, "record", "-q", "-F", RATE, "-o", prf] + prog,
        "bare": [BARE, "-F", RATE] + prog,
        "bare + stack": [BARE, "-F", RATE, "-s", STACK] + prog,
        "perf flat": ["perf", "record", "-q", "-e", "cpu-clock", "-F", RATE,
                      "-o", pdata, "--"] + prog,
        "perf dwarf": ["perf", "record", "-q", "-e", "cpu-clock", "-F", RATE,
                       "--call-graph", "dwarf", "-o", pdata, "--"] + prog,
    }


def longer(prog):
    """The same workload 4x as long: its last argument, its CPU seconds, x4."""
    return prog[:-1] + ["%g" % (4 * float(prog[-1]))]


def quartiles(xs):
    """The first and third quartiles: how far the rounds spread (this
    VM's run-to-run noise is of the size of the differences measured)."""
    if len(xs) < 2:
        return (float("nan"), float("nan"))
    q = statistics.quantiles(xs, n=4)
    return (q[0], q[2])


def measure(name, prog, tmp):
    cfg = configs(tmp, prog)
    long_cfg = {k + " 4x": v for k, v in configs(tmp, longer(prog)).items()
                if k in ("unprofiled", "profil flat", "profil stacks")}
    cpu = {k: [] for k in list(cfg) + list(long_cfg)}
    recorder = {"profil flat": [], "profil stacks": []}
    # the recorder's own CPU (all of the run's less the program's) and
    # the samples, at 1x and 4x: what stacks cost a run, and a sample
    own = {k: [] for k in ("profil flat", "profil stacks",
                           "profil flat 4x", "profil stacks 4x")}
    for _ in range(ROUNDS):
        for k, cmd in list(cfg.items()) + list(long_cfg.items()):
            _, c = record.timed(cmd)
            cpu[k].append(c)
            if k in own:
                n, prog_cpu = caption(os.path.join(tmp, "x.prf"))
                own[k].append((c - prog_cpu, n))
                if k in recorder:
                    recorder[k].append(((c - prog_cpu) / n, n))
    # each round against its own unprofiled run, then medians: the
    # machine's drift over a benchmark is a point or more, and cancels
    # within a round (its runs follow each other)
    rounds = [{k: 100 * (cpu[k][r] / cpu["unprofiled"][r] - 1) for k in cfg}
              for r in range(ROUNDS)]
    extra = {k: statistics.median(x[k] for x in rounds) for k in cfg}
    diffs = [x["profil stacks"] - x["profil flat"] for x in rounds]
    extra["stacks - flat"] = statistics.median(diffs)
    extra["stacks - flat iqr"] = quartiles(diffs)
    ratios = [x["profil stacks"] / x["perf dwarf"] for x in rounds
              if x["perf dwarf"] > 0]
    extra["ours / dwarf"] = (statistics.median(ratios) if ratios
                             else float("nan"))
    extra["ours / dwarf iqr"] = quartiles(ratios)
    extra["copy"] = statistics.median(
        x["bare + stack"] - x["bare"] for x in rounds)
    diffs = [100 * (cpu["profil stacks 4x"][r] - cpu["profil flat 4x"][r])
             / cpu["unprofiled 4x"][r] for r in range(ROUNDS)]
    extra["stacks - flat 4x"] = statistics.median(diffs)
    extra["stacks - flat 4x iqr"] = quartiles(diffs)
    per = {k: statistics.median(x[0] for x in v) for k, v in recorder.items()}
    samples = statistics.median(x[1] for x in recorder["profil stacks"])
    # what stacks add to the recorder, in each round: a cost per run
    # (rings, start) and one per sample (unwinding), from the two lengths
    fixed, each = [], []
    for r in range(ROUNDS):
        (s1, n1), (f1, _) = own["profil stacks"][r], own["profil flat"][r]
        (s4, n4), (f4, _) = (own["profil stacks 4x"][r],
                             own["profil flat 4x"][r])
        if n4 > n1:
            e = ((s4 - f4) - (s1 - f1)) / (n4 - n1)
            each.append(e)
            fixed.append((s1 - f1) - e * n1)
    per["run"] = statistics.median(fixed) if fixed else float("nan")
    per["sample"] = statistics.median(each) if each else float("nan")
    return extra, per, samples


def sizes(tmp):
    """.prf with stacks 1x and 4x, perf.data with dwarf stacks 1x."""
    out = {}
    for label, rounds in (("1x", "0.44"), ("4x", "1.76")):
        prf = os.path.join(tmp, "s%s.prf" % label)
        subprocess.run([PROFIL, "record", "-q", "-F", RATE, "-o", prf, WL,
                        "split", rounds], check=True)
        out[label] = os.path.getsize(prf)
        pdata = os.path.join(tmp, "p%s.data" % label)
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", RATE,
                        "--call-graph", "dwarf", "-o", pdata, "--", WL, "split",
                        rounds], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        out["perf " + label] = os.path.getsize(pdata)
    return out


def big_reports(tmp):
    if not os.access(BIG, os.X_OK):
        return None
    prf = os.path.join(tmp, "big.prf")
    subprocess.run([PROFIL, "record", "-q", "-o", prf, BIG, "3"], check=True)
    views = {
        "--tree": [PROFIL, "report", "--tree", prf],
        "--callers f00000": [PROFIL, "report", "--callers", "f00000", prf],
        "--html": [PROFIL, "report", "--html", os.path.join(tmp, "b.html"), prf],
        "flat": [PROFIL, "report", prf],
    }
    times = {k: [] for k in views}
    for _ in range(7):
        for k, cmd in views.items():
            times[k].append(record.timed(cmd)[0] * 1000)
    return {k: statistics.median(v) for k, v in times.items()}


def main():
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for name, prog in WORKLOADS.items():
            rows.append((name,) + measure(name, prog, tmp))
        print("\nMedians of %d alternating rounds at %s Hz: extra CPU "
              "(program + profiler) over the unprofiled run of the same "
              "round; differences and ratios taken in each round, their "
              "quartiles in brackets" % (ROUNDS, RATE))
        print("\n| workload | profil flat | profil stacks | stacks - flat | "
              "perf flat | perf dwarf | profil stacks / perf dwarf | "
              "recorder µs/sample, stacks - flat | unwinds per CPU-s | "
              "kernel's stack copy (bare + stack - bare) |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, extra, per, samples in rows:
            unwind = per["profil stacks"] - per["profil flat"]
            print("| %s | %+.1f%% | %+.1f%% | %+.1f pt (%+.1f..%+.1f) | "
                  "%+.1f%% | %+.1f%% | %.2f (%.2f..%.2f) | %.1f | %s | "
                  "%+.1f pt |" % (
                      name, extra["profil flat"], extra["profil stacks"],
                      extra["stacks - flat"],
                      extra["stacks - flat iqr"][0],
                      extra["stacks - flat iqr"][1],
                      extra["perf flat"], extra["perf dwarf"],
                      extra["ours / dwarf"], extra["ours / dwarf iqr"][0],
                      extra["ours / dwarf iqr"][1],
                      unwind * 1e6,
                      "%.0f" % (1 / unwind) if unwind > 0 else "-",
                      extra["copy"]))
        print("\nWhat stacks add to the recorder, split by the runs 4x as "
              "long (the same rounds): a cost per run and one per sample; "
              "and stacks - flat on the 4x runs")
        print("\n| workload | samples (1x) | recorder ms per run, stacks - "
              "flat | recorder µs per sample, stacks - flat | samples per "
              "CPU-s it unwinds | stacks - flat, 4x run |")
        print("|---|---|---|---|---|---|")
        for name, extra, per, samples in rows:
            print("| %s | %d | %.1f | %.1f | %s | %+.1f pt (%+.1f..%+.1f) |"
                  % (name, samples, per["run"] * 1e3, per["sample"] * 1e6,
                     "%.0f" % (1 / per["sample"]) if per["sample"] > 0
                     else "-", extra["stacks - flat 4x"],
                     extra["stacks - flat 4x iqr"][0],
                     extra["stacks - flat 4x iqr"][1]))
        s = sizes(tmp)
        print("\n| run | profil .prf with stacks | perf.data, dwarf stacks |")
        print("|---|---|---|")
        for label in ("1x", "4x"):
            print("| %s | %d bytes | %d bytes |" % (label, s[label],
                                                    s["perf " + label]))
        b = big_reports(tmp)
        if b is None:
            print("\n(no %s: make %s for the report times)" % (BIG, BIG))
        else:
            print("\n| 50,000 functions, with stacks | ms wall (median of 7) |")
            print("|---|---|")
            for k, v in b.items():
                print("| report %s | %.1f |" % (k, v))
    print("\nload average at end: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
