#!/usr/bin/env python3
"""pingpong.py - what a switch-heavy program keeps of its speed under each
profiler: bench/pingpong (two threads handing a byte over pipes, a context
switch every few microseconds) for SECONDS of wall time, unprofiled and
under profil record (perf engine), profil record -e timer (with perf
events allowed the injected library samples each thread on a perf clock
above the tick rate; refused, as in a container, on CPU timers:
tests/helper-noperf), and perf record -F 1000 (where perf is installed),
in turn in each of ROUNDS rounds.

Prints, per configuration, medians over the rounds (quartiles beside):
round trips in the time, their ratio to the unprofiled run of the same
round, and the program's CPU microseconds per round trip (its own CPU
time, from CLOCK_PROCESS_CPUTIME_ID: what the profiler adds to it in the
kernel's switch path and in its own signal handler shows there).

usage: bench/pingpong.py [BUILD_DIR [ROUNDS [SECONDS [RATE]]]]  (build 7 1 1000)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from common import quartiles

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
SECONDS = sys.argv[3] if len(sys.argv) > 3 else "1"
RATE = sys.argv[4] if len(sys.argv) > 4 else "1000"
PROFIL = os.path.abspath(os.path.join(BUILD, "profil"))
PP = os.path.abspath(os.path.join(BUILD, "bench", "pingpong"))
NOPERF = os.path.abspath(os.path.join(BUILD, "tests", "helper-noperf"))


def run(cmd):
    """round trips, CPU seconds of the program, from its own line."""
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    words = out.split()
    i = words.index("round_trips")
    return int(words[i + 1]), float(words[i + 3])



def main():
    if not all(os.access(x, os.X_OK) for x in (PROFIL, PP, NOPERF)):
        sys.exit("pingpong.py: build first (make bench-pingpong)")
    tmp = tempfile.mkdtemp(prefix="profil-pp-")
    prf = os.path.join(tmp, "pp.prf")
    configs = [
        ("unprofiled", []),
        ("profil record (perf)", [PROFIL, "record", "-q", "-F", RATE, "-e",
                                  "perf", "-o", prf]),
        ("profil record -e timer", [PROFIL, "record", "-q", "-F", RATE, "-e",
                                    "timer", "-o", prf]),
        ("profil record -e timer, perf refused",
         [NOPERF, PROFIL, "record", "-q", "-F", RATE, "-e", "timer", "-o",
          prf]),
    ]
    if shutil.which("perf"):
        configs.append(("perf record -F %s" % RATE,
                        ["perf", "record", "-q", "-F", RATE, "-o",
                         os.path.join(tmp, "perf.data"), "--"]))
    trips = {name: [] for name, _ in configs}
    ratio = {name: [] for name, _ in configs}
    cpu_us = {name: [] for name, _ in configs}
    for _ in range(ROUNDS):
        base = None
        for name, prefix in configs:
            n, cpu = run(prefix + [PP, SECONDS])
            if base is None:
                base = n
            trips[name].append(n)
            ratio[name].append(n / base)
            cpu_us[name].append(1e6 * cpu / n)
    shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()[0]
    print("bench/pingpong %s s, medians of %d rounds (quartiles), load %.1f "
          "at the end" % (SECONDS, ROUNDS, load))
    print()
    print("| configuration | round trips | x unprofiled | CPU us a round trip |")
    print("|---|---|---|---|")
    for name, _ in configs:
        q = quartiles(ratio[name])
        print("| %s | %d | %.2f (%.2f..%.2f) | %.1f |" % (
            name, statistics.median(trips[name]),
            statistics.median(ratio[name]), q[0], q[1],
            statistics.median(cpu_us[name])))


if __name__ == "__main__":
    main()
