#!/usr/bin/env python3
"""wall.py - what record --wall costs beside the CPU profile of the same
program, in the same round: the total CPU (program and recorder, from
the children's rusage) of

  - a CPU-bound program (bench/parked 0 SECONDS);
  - 1,000 threads parked for the whole run while main burns SECONDS
    (bench/parked 1000 SECONDS);
  - the ping-pong program (bench/pingpong SECONDS: a context switch every
    few microseconds), whose round trips in the time are counted too;

each unprofiled, under profil record (CPU profile) and profil record
--wall, in each engine, in turn, ROUNDS times; as root, also perf sched
record against profil's CPU profile (its --wall column is then perf
sched's ratio).  Prints medians (quartiles beside) of the
ratios to the CPU profile of the same round, and the CPU microseconds
each context switch costs --wall on the ping-pong program.

usage: bench/wall.py [BUILD_DIR [ROUNDS [SECONDS]]]   (build 7 1)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from common import children_cpu, quartiles

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
SECONDS = sys.argv[3] if len(sys.argv) > 3 else "1"
PROFIL = os.path.abspath(os.path.join(BUILD, "profil"))
PARKED = os.path.abspath(os.path.join(BUILD, "bench", "parked"))
PP = os.path.abspath(os.path.join(BUILD, "bench", "pingpong"))



def run(cmd):
    """(total CPU seconds of everything the command ran, its stdout)."""
    before = children_cpu()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return children_cpu() - before, out


def trips(out):
    words = out.split()
    return int(words[words.index("round_trips") + 1])



def main():
    if not all(os.access(x, os.X_OK) for x in (PROFIL, PARKED, PP)):
        sys.exit("wall.py: build first (make bench-wall)")
    tmp = tempfile.mkdtemp(prefix="profil-wall-")
    prf = os.path.join(tmp, "w.prf")
    engines = [("perf", [PROFIL, "record", "-q", "-e", "perf", "-o", prf],
                [PROFIL, "record", "-q", "-e", "perf", "--wall", "-o", prf]),
               ("timer", [PROFIL, "record", "-q", "-e", "timer", "-o", prf],
                [PROFIL, "record", "-q", "-e", "timer", "--wall", "-o",
                 prf])]
    programs = [
        ("CPU-bound (parked 0)", [PARKED, "0", SECONDS]),
        ("1,000 parked threads", [PARKED, "1000", SECONDS]),
        ("ping-pong", [PP, SECONDS]),
    ]
    # as root, beside perf's own way of seeing switches (perf record
    # --off-cpu needs perf built with BPF skeletons: Debian 12's is not)
    sched = (["perf", "sched", "record", "-q", "-o",
              os.path.join(tmp, "perf.data"), "--"]
             if os.geteuid() == 0 and shutil.which("perf") else None)
    rows = {}
    sched_rows = {}
    for name, prog in programs:
        if sched is not None:
            ratio, trip = [], []
            for _ in range(ROUNDS):
                c1, o1 = run(engines[0][1] + prog)
                c2, o2 = run(sched + prog)
                ratio.append(c2 / c1)
                if name == "ping-pong":
                    trip.append(trips(o2) / trips(o1))
            sched_rows[name] = (ratio, trip)
        for engine, cpu_rec, wall_rec in engines:
            cpu_ratio, trip_ratio, base_ratio, per_switch = [], [], [], []
            for _ in range(ROUNDS):
                c0, o0 = run(prog)
                c1, o1 = run(cpu_rec + prog)
                c2, o2 = run(wall_rec + prog)
                cpu_ratio.append(c2 / c1)
                base_ratio.append(c1 / c0)
                if name == "ping-pong":
                    t1, t2 = trips(o1), trips(o2)
                    trip_ratio.append(t2 / t1)
                    # a thread blocks twice a round trip (two threads)
                    per_switch.append(1e6 * (c2 / (2 * t2) - c1 / (2 * t1)))
            rows[(name, engine)] = (cpu_ratio, base_ratio, trip_ratio,
                                    per_switch)
    shutil.rmtree(tmp, ignore_errors=True)
    print("bench/wall %s s, medians of %d rounds (quartiles), load %.1f at "
          "the end" % (SECONDS, ROUNDS, os.getloadavg()[0]))
    print()
    print("| program | engine | CPU profile / unprofiled, total CPU | "
          "--wall / CPU profile, total CPU | --wall / CPU profile, round "
          "trips |")
    print("|---|---|---|---|---|")
    for name, _ in programs:
        for engine, _, _ in engines:
            cpu_ratio, base_ratio, trip_ratio, per_switch = rows[(name, engine)]
            q = quartiles(cpu_ratio)
            t = ("%.2f (%.2f..%.2f)" % ((statistics.median(trip_ratio),) +
                 quartiles(trip_ratio))) if trip_ratio else "-"
            print("| %s | %s | %.2f | %.2f (%.2f..%.2f) | %s |" % (
                name, engine, statistics.median(base_ratio),
                statistics.median(cpu_ratio), q[0], q[1], t))
    for name, (ratio, trip) in sched_rows.items():
        q = quartiles(ratio)
        t = ("%.2f (%.2f..%.2f)" % ((statistics.median(trip),) +
             quartiles(trip))) if trip else "-"
        print("| %s | perf sched record (root) | - | %.2f (%.2f..%.2f) | %s |"
              % (name, statistics.median(ratio), q[0], q[1], t))
    print()
    for engine, _, _ in engines:
        ps = rows[("ping-pong", engine)][3]
        print("ping-pong, %s engine: --wall adds %.2f us of CPU per blocking "
              "(a thread's switch out and back in), median" % (
                  engine, statistics.median(ps)))


if __name__ == "__main__":
    main()
