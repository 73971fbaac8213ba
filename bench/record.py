#!/usr/bin/env python3
"""record.py - `profil record` against `perf record` at the same rate.

For each workload of tests/workload.c whose true CPU split is known, runs
the program unprofiled, under profil and under perf, alternating, ROUNDS
times, and reports medians of:
  - CPU and wall time of the whole run (profiler included) over unprofiled;
  - accuracy: total-variation distance between the measured shares and
    the true split (0 = exact; 0.5 * sum |measured - true|, where samples
    outside the known functions count as error);
  - profile size, and the size for a run 4x as long.

usage: bench/record.py [BUILD_DIR [ROUNDS [RATE]]]   (build 7 1000)
"""
import csv
import io
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
RATE = sys.argv[3] if len(sys.argv) > 3 else "1000"
PROFIL = os.path.join(BUILD, "profil")
WL = os.path.join(BUILD, "tests", "workload")
SPLIT = {"six": 0.6, "three": 0.3, "one": 0.1}
MANY = {"f%d" % i: (i + 1) / 528 for i in range(32)}

# name: (command, truth, truth is over "function" or "object")
WORKLOADS = {
    "single-thread 6:3:1": ([WL, "split", "150"], SPLIT, "function"),
    "4 threads 6:3:1": ([WL, "threads", "4", "40"], SPLIT, "function"),
    "32 small functions": ([WL, "many", "200"], MANY, "function"),
    "half in libm": ([WL, "libm", "0.25"], {"workload": 0.5, "libm.so.6": 0.5}, "object"),
    "syscall-heavy": ([WL, "syscalls", "0.5"], None, None),
    "40 ms program": ([WL, "split", "4"], SPLIT, "function"),
}


def timed(cmd):
    """Run cmd; return (wall seconds, CPU seconds of it and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def profil_shares(path, by):
    out = subprocess.run([PROFIL, "report", "--format", "csv", path],
                         check=True, capture_output=True, text=True).stdout
    shares = {}
    for row in csv.DictReader(io.StringIO(out)):
        key = row[by]
        shares[key] = shares.get(key, 0.0) + float(row["percent"]) / 100
    return shares


def perf_shares(path, by):
    sort = "sym" if by == "function" else "dso"
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "-q",
                          "--sort", sort, "-F", "overhead," + sort],
                         check=True, capture_output=True, text=True).stdout
    shares = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(?:\[\S\]\s+)?(\S+)", line)
        if m:
            key = m.group(2)
            shares[key] = shares.get(key, 0.0) + float(m.group(1)) / 100
    return shares


def tv_distance(shares, truth):
    err = sum(abs(shares.get(k, 0.0) - v) for k, v in truth.items())
    other = sum(v for k, v in shares.items() if k not in truth)
    return 0.5 * (err + other)


def main():
    if not os.access(PROFIL, os.X_OK) or not os.access(WL, os.X_OK):
        sys.exit("record.py: build first (make all build/tests/workload)")
    tmp = tempfile.mkdtemp(prefix="profil-bench-")
    rows = []
    for name, (cmd, truth, by) in WORKLOADS.items():
        res = {k: [] for k in ("cpu_p", "wall_p", "cpu_t", "wall_t", "cpu_f",
                               "wall_f", "tv_p", "tv_t", "tv_f", "size_p", "size_f")}
        for r in range(ROUNDS):
            wall0, cpu0 = timed(cmd)
            prf = os.path.join(tmp, "a.prf")
            pdata = os.path.join(tmp, "a.data")
            wall1, cpu1 = timed([PROFIL, "record", "-q", "-F", RATE, "-o", prf] + cmd)
            tprf = os.path.join(tmp, "t.prf")
            wall3, cpu3 = timed([PROFIL, "record", "-q", "-e", "timer", "-F", RATE,
                                 "-o", tprf] + cmd)
            wall2, cpu2 = timed(["perf", "record", "-q", "-F", RATE, "-e", "cpu-clock",
                                 "-o", pdata, "--"] + cmd)
            res["cpu_p"].append(cpu1 / cpu0)
            res["wall_p"].append(wall1 / wall0)
            res["cpu_t"].append(cpu3 / cpu0)
            res["wall_t"].append(wall3 / wall0)
            res["cpu_f"].append(cpu2 / cpu0)
            res["wall_f"].append(wall2 / wall0)
            res["size_p"].append(os.path.getsize(prf))
            res["size_f"].append(os.path.getsize(pdata))
            if truth:
                res["tv_p"].append(tv_distance(profil_shares(prf, by), truth))
                res["tv_t"].append(tv_distance(profil_shares(tprf, by), truth))
                res["tv_f"].append(tv_distance(perf_shares(pdata, by), truth))
        rows.append((name, {k: statistics.median(v) if v else None
                            for k, v in res.items()}))
        print("done: %s" % name, file=sys.stderr)

    # file size for a run 4x as long
    sizes = {}
    for mult in (1, 4):
        cmd = [WL, "split", str(40 * mult)]
        prf = os.path.join(tmp, "s%d.prf" % mult)
        pdata = os.path.join(tmp, "s%d.data" % mult)
        subprocess.run([PROFIL, "record", "-q", "-F", RATE, "-o", prf] + cmd, check=True)
        subprocess.run(["perf", "record", "-q", "-F", RATE, "-e", "cpu-clock", "-o",
                        pdata, "--"] + cmd, check=True, stderr=subprocess.DEVNULL)
        sizes[mult] = (os.path.getsize(prf), os.path.getsize(pdata))
    subprocess.run(["rm", "-rf", tmp])

    def pct(x):
        return "%+.1f%%" % ((x - 1) * 100)

    def tv(x):
        return "-" if x is None else "%.4f" % x

    print("Medians of %d alternating runs at %s Hz. profil-perf and "
          "profil-timer are `profil record` with each engine; perf is "
          "`perf record -e cpu-clock`.\n" % (ROUNDS, RATE))
    print("| workload | CPU profil-perf | CPU profil-timer | CPU perf "
          "| wall profil-perf | wall profil-timer | wall perf "
          "| TV profil-perf | TV profil-timer | TV perf |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, m in rows:
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, pct(m["cpu_p"]), pct(m["cpu_t"]), pct(m["cpu_f"]),
            pct(m["wall_p"]), pct(m["wall_t"]), pct(m["wall_f"]),
            tv(m["tv_p"]), tv(m["tv_t"]), tv(m["tv_f"])))
    print("\n| run length | profil .prf | perf.data |")
    print("|---|---|---|")
    for mult in (1, 4):
        print("| %dx | %d bytes | %d bytes |" % (mult, sizes[mult][0], sizes[mult][1]))


if __name__ == "__main__":
    main()
