#!/usr/bin/env python3
"""budget.py - `profil record --samples N` against a fixed 1 kHz.

A sample budget starts at 10 kHz and doubles the sampling period every
N/8 samples (lib/sampler/budget.h), each counting its period.  This runs
programs of three lengths (calibrated here to about 30 ms, 2 s and 60 s
of CPU), unprofiled, at a fixed 1 kHz and with a budget, alternating,
and reports medians of:
  - samples taken, and what they are worth: the number of samples of
    equal weight with the same errors, samples^2 / sum of weights squared
    (for a fixed rate, the samples themselves);
  - extra CPU: the whole run's CPU time (recorder included) over the
    unprofiled run of the same round;
  - TV: the total-variation distance of the measured shares from the true
    split (0.5 * sum |measured - true|, samples outside the known
    functions counting as error), beside what sampling error alone gives
    for that many samples of equal weight (the mean of 0.5 * sum |error|
    of independent shares): a TV near it is noise, not bias.
A program whose halves run at very different rates under the budget (our
code for a while, then as long in libm) shows that weighing each sample
by its period leaves no bias from the changing rate.

usage: bench/budget.py [BUILD_DIR [ROUNDS [SAMPLES]]]   (build 5 10000)
The 60 s program runs max(3, ROUNDS - 2) rounds, to keep the whole under
a quarter of an hour.
"""
import csv
import io
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402  (timed, tv_distance; same argv)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
SAMPLES = sys.argv[3] if len(sys.argv) > 3 else "10000"
PROFIL = os.path.join(BUILD, "profil")
WL = os.path.join(BUILD, "tests", "workload")
SPLIT = {"six": 0.6, "three": 0.3, "one": 0.1}
HALVES = {"workload": 0.5, "libm.so.6": 0.5}


def cpu_of(cmd):
    """The CPU seconds of cmd and its children."""
    return record.timed(cmd)[1]


def shares_of(path, by):
    out = subprocess.run([PROFIL, "report", "--format", "csv", path],
                         check=True, capture_output=True, text=True).stdout
    shares = {}
    for row in csv.DictReader(io.StringIO(out)):
        shares[row[by]] = shares.get(row[by], 0.0) + float(row["percent"]) / 100
    return shares


def weights_of(path):
    """(samples taken, what they are worth) from `profil check`'s line."""
    out = subprocess.run([PROFIL, "check", path], check=True,
                         capture_output=True, text=True).stdout
    out = out.splitlines()[0]     # the counts; stacks come after
    counts = int(out.split(": ok: ")[1].split()[0])
    if "taken, squared weights" not in out:
        return counts, counts
    tail = out.split("; ")[-1].split()
    taken, weight_sq = int(tail[0]), int(tail[4])
    return taken, counts * counts / weight_sq


def tv_noise(truth, n):
    """Mean TV of n samples of equal weight from truth: sampling alone."""
    return 0.5 * sum(math.sqrt(2 / math.pi) * math.sqrt(p * (1 - p) / n)
                     for p in truth.values())


def main():
    if not os.access(PROFIL, os.X_OK) or not os.access(WL, os.X_OK):
        sys.exit("budget.py: build first (make all build/tests/workload)")
    programs = [
        ("30 ms", [WL, "split", "0.03"], SPLIT, "function", ROUNDS, True),
        ("2 s", [WL, "split", "2"], SPLIT, "function", ROUNDS, True),
        ("2 s, two halves", [WL, "libm", "1.0"], HALVES, "object", ROUNDS, True),
        ("60 s", [WL, "split", "60"], SPLIT, "function",
         max(3, ROUNDS - 2), False),
    ]
    configs = [("1 kHz", ["-F", "1000"]),
               ("--samples %s" % SAMPLES, ["--samples", SAMPLES]),
               ("--samples %s, timer engine" % SAMPLES,
                ["--samples", SAMPLES, "-e", "timer"])]
    tmp = tempfile.mkdtemp(prefix="profil-budget-")
    load = [os.getloadavg()]
    start = time.monotonic()
    rows = []
    for name, cmd, truth, by, rounds, with_timer in programs:
        use = configs if with_timer else configs[:2]
        res = {c: {"taken": [], "worth": [], "cpu": [], "tv": []} for c, _ in use}
        base = []
        for r in range(rounds):
            cpu0 = cpu_of(cmd)
            base.append(cpu0)
            for c, opts in use:
                prf = os.path.join(tmp, "b.prf")
                cpu = cpu_of([PROFIL, "record", "-q", "-o", prf] + opts + cmd)
                taken, worth = weights_of(prf)
                res[c]["taken"].append(taken)
                res[c]["worth"].append(worth)
                res[c]["cpu"].append(cpu / cpu0)
                res[c]["tv"].append(record.tv_distance(shares_of(prf, by), truth))
        for c, _ in use:
            m = {k: statistics.median(v) for k, v in res[c].items()}
            m["noise"] = tv_noise(truth, m["worth"])
            rows.append((name, statistics.median(base), c, m))
        load.append(os.getloadavg())
        print("done: %s (%.0f s so far)" % (name, time.monotonic() - start),
              file=sys.stderr)
    subprocess.run(["rm", "-rf", tmp])

    print("Medians of %d alternating rounds (%d for the 60 s program); the "
          "perf engine unless said; load average (1 min) %.1f to %.1f over "
          "the run, %.0f s in all.\n" % (ROUNDS, max(3, ROUNDS - 2),
          min(l[0] for l in load), max(l[0] for l in load),
          time.monotonic() - start))
    print("| program (CPU unprofiled) | recorded with | samples taken | "
          "worth (equal weight) | extra CPU | TV from the split | TV from "
          "sampling alone |")
    print("|---|---|---|---|---|---|---|")
    for name, cpu0, c, m in rows:
        print("| %s (%.2f s) | %s | %d | %d | %+.1f%% | %.4f | %.4f |" % (
            name, cpu0, c, m["taken"], m["worth"], (m["cpu"] - 1) * 100,
            m["tv"], m["noise"]))


if __name__ == "__main__":
    main()
