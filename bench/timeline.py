#!/usr/bin/env python3
"""timeline.py - what the timeline (issue 27) costs: the file, the CPU,
the recorder's time per sample; and the file of a long run beside
perf record's perf.data.

Steady part (default): ROUNDS alternating rounds of a steady single
thread (tests/programs/workload.c `split`, 2 s), unprofiled, recorded,
and recorded with --no-timeline (the file as before the timeline).
Medians of: the file's size (and the ratio), the CPU of program and
recorder over the unprofiled run's (in points), and the recorder's CPU
per sample (us), with and without.

Long part (--long MINUTES): bench/manystacks, 8 threads with 216 call
stacks each, for MINUTES, recorded by profil while `perf record -g -F
1000` records the same run (-p); both files' sizes.

usage: bench/timeline.py [BUILD_DIR [ROUNDS]] | --long MINUTES [BUILD_DIR]
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import children_cpu  # noqa: E402


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def timed(cmd):
    """(CPU s of cmd and its children, its stderr)."""
    before = children_cpu()
    p = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    return children_cpu() - before, p.stderr


def steady(build, rounds):
    profil = os.path.join(build, "profil")
    wl = [os.path.join(build, "tests", "workload"), "split", "1.87"]
    out = tempfile.mkdtemp(prefix="profil-bench-tl-")
    rows = {"timeline": [], "none": []}
    base = []
    loads = [load()]
    for r in range(rounds):
        cpu, _ = timed(wl)
        base.append(cpu)
        for kind, extra in (("timeline", []), ("none", ["--no-timeline"])):
            prf = os.path.join(out, kind + ".prf")
            cpu, err = timed([profil, "record", "-q", "-o", prf] + extra +
                             ["--"] + wl)
            check = subprocess.run([profil, "check", prf], check=True,
                                   stdout=subprocess.PIPE, text=True).stdout
            samples = int(re.search(r"ok: (\d+) samples", check).group(1))
            rows[kind].append((cpu, os.path.getsize(prf), samples))
        loads.append(load())
    b = statistics.median(base)
    print("steady single thread, 2 s (workload split), %d rounds, load "
          "%.1f to %.1f" % (rounds, min(loads), max(loads)))
    print("%-12s %10s %14s %18s" % ("", "file bytes", "CPU over bare",
                                     "recorder us/sample"))
    med = {}
    for kind in ("none", "timeline"):
        cpu = statistics.median(x[0] for x in rows[kind])
        size = statistics.median(x[1] for x in rows[kind])
        per = statistics.median((x[0] - b) / x[2] * 1e6 for x in rows[kind])
        med[kind] = (cpu, size, per)
        print("%-12s %10d %13.2f%% %18.2f" % (kind, size,
                                              (cpu / b - 1) * 100, per))
    print("timeline / none: file x%.2f, CPU %+.2f points, %+.3f us a "
          "sample" % (med["timeline"][1] / med["none"][1],
                      (med["timeline"][0] - med["none"][0]) / b * 100,
                      med["timeline"][2] - med["none"][2]))


def long_run(build, minutes):
    profil = os.path.join(build, "profil")
    prog = [os.path.join(build, "bench", "manystacks"), "8",
            str(minutes * 60)]
    out = tempfile.mkdtemp(prefix="profil-bench-tl-long-")
    prf = os.path.join(out, "long.prf")
    data = os.path.join(out, "perf.data")
    print("long run: 8 threads, 216 stacks each, %g min, load %.1f" %
          (minutes, load()))
    rec = subprocess.Popen([profil, "record", "-q", "-o", prf, "--"] + prog,
                           stderr=subprocess.PIPE, text=True)
    pid = 0
    for _ in range(200):
        kids = subprocess.run(["pgrep", "-P", str(rec.pid)],
                              stdout=subprocess.PIPE, text=True).stdout
        if kids.strip():
            pid = int(kids.split()[0])
            break
        time.sleep(0.05)
    perf = subprocess.Popen(["perf", "record", "-q", "-g", "-F", "1000",
                             "-p", str(pid), "-o", data],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    rec.wait()
    perf.wait()
    check = subprocess.run([profil, "check", prf], stdout=subprocess.PIPE,
                           text=True).stdout
    print(check.strip())
    print("profil .prf: %d bytes; perf.data (perf record -g -F 1000 -p): "
          "%d bytes" % (os.path.getsize(prf), os.path.getsize(data)))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--long":
        long_run(sys.argv[3] if len(sys.argv) > 3 else "build",
                 float(sys.argv[2]))
        return
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    steady(build, int(sys.argv[2]) if len(sys.argv) > 2 else 5)


if __name__ == "__main__":
    main()
